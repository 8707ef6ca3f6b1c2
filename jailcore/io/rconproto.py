"""Source RCON packets over an asyncio stream, read whole with `readexactly`.

Packets are built with the `rcon` package's `Packet` (its layout is right); reading is
ours, because its reader uses `read(n)` and loses or splits packets that TCP coalesced
or cut (see srcds-facts: the rcon package).
"""

from __future__ import annotations

import asyncio
import struct

from rcon.source.proto import LittleEndianSignedInt32, Packet, Type

from jailcore.log.errors import ProtocolError

AUTH = 3
EXECCOMMAND = 2
AUTH_RESPONSE = 2
RESPONSE_VALUE = 0
MAX_BODY = 4096  # srcds splits longer replies into several RESPONSE_VALUE packets
MAX_INCOMING = 1024  # srcds: a bigger packet from a client is a failed login


class RconProtocolError(ProtocolError):
    """The peer sent something that is not Source RCON."""


def encode(request_id: int, kind: int, body: str | bytes) -> bytes:
    payload = body.encode("utf-8") if isinstance(body, str) else body
    types = {AUTH: Type.SERVERDATA_AUTH, EXECCOMMAND: Type.SERVERDATA_EXECCOMMAND, RESPONSE_VALUE: Type.SERVERDATA_RESPONSE_VALUE}
    return bytes(Packet(LittleEndianSignedInt32(request_id), types[kind], payload))


def _size(head: bytes | bytearray, limit: int) -> int:
    size = int(struct.unpack_from("<i", head)[0])
    if size < 10 or size > limit:
        raise RconProtocolError(f"packet size {size} out of range")
    return size


def _parts(data: bytes) -> tuple[int, int, bytes]:
    request_id, kind = struct.unpack_from("<ii", data)
    return request_id, kind, data[8:-2]


async def read_packet(reader: asyncio.StreamReader, limit: int = MAX_BODY + 10) -> tuple[int, int, bytes]:
    """One packet: (id, type, body). Raises IncompleteReadError at EOF."""
    size = _size(await reader.readexactly(4), limit)
    return _parts(await reader.readexactly(size))


def take_packet(buffer: bytearray, limit: int = MAX_BODY + 10) -> tuple[int, int, bytes] | None:
    """The first whole packet out of `buffer`, None while it is not all there yet."""
    if len(buffer) < 4:
        return None
    size = _size(buffer, limit)
    if len(buffer) < 4 + size:
        return None
    data = bytes(buffer[4 : 4 + size])
    del buffer[: 4 + size]
    return _parts(data)
