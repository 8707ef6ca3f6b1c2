"""What can still be read of a damaged journal (store/journal.py), without SQLite.

A journal whose header is overwritten, or whose end is cut off (a disk that filled, a copy
stopped halfway, a bad block), is refused whole by SQLite ("file is not a database",
"database disk image is malformed"), though most of its pages still hold their rows. This
reads the file, and its write-ahead log beside it, page by page as SQLite lays them out
(https://www.sqlite.org/fileformat2.html): each table leaf page's cells, their overflow
chains, their records. What the journal keeps is recognised by its shape, and only then
taken: a transaction is a row of two columns, NULL (its `seq` is the row id) and the JSON
list of its statements, which must parse as one; the journal's `origin` is the meta row
`('origin', <32 hex digits>)`. A cell cut off, an overflow chain that leaves the file or
loops, JSON that does not parse: that row is not read, the others are.

Pages freed by SQLite keep their old rows, so a transaction already replayed (deleted from
the journal) may be read again: the database's number per origin (`journal_applied`) says it
was applied, and it is skipped, as at any replay.
"""

from __future__ import annotations

import json
import os
import re
import struct
from collections.abc import Iterator
from typing import Any

import attrs

Op = tuple[str, Any, bool]

_MAGIC = b"SQLite format 3\x00"
_WAL_MAGIC = (0x377F0682, 0x377F0683)
_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536, 512)  # 4096 first: what Python's sqlite3 makes
_TABLE_LEAF = 0x0D
_MOST = 64 << 20  # bytes of one row's payload: a journal transaction is never near this
_HEX32 = re.compile(r"[0-9a-f]{32}")


@attrs.frozen
class Salvaged:
    """What was read: the journal's origin (None when its row was lost) and its transactions by number."""

    origin: str | None
    transactions: dict[int, list[Op]]
    page_size: int
    pages: int  # pages of the file, whole ones


def read(path: str | os.PathLike[str]) -> Salvaged:
    """Every transaction and the origin that can be read of the journal at `path` (and its
    `-wal` beside it, if any). Never raises for what the file holds; OSError if it cannot be read."""
    with open(path, "rb") as f:
        data = f.read()
    wal_path = f"{os.fspath(path)}-wal"
    wal = b""
    if os.path.isfile(wal_path):
        with open(wal_path, "rb") as f:
            wal = f.read()
    best: Salvaged | None = None
    for size in _sizes(data, wal):
        got = _read(data, wal, size)
        if best is None or (len(got.transactions), got.origin is not None) > (len(best.transactions), best.origin is not None):
            best = got
        if got.transactions and got.origin is not None:
            break
    assert best is not None
    return best


def _sizes(data: bytes, wal: bytes) -> list[int]:
    """The page size the header says (if it is still there), the WAL's, then the usual ones."""
    found = []
    if data[:16] == _MAGIC and len(data) >= 18:
        size = struct.unpack(">H", data[16:18])[0]
        size = 65536 if size == 1 else size
        if size in _SIZES:
            found.append(size)
    if len(wal) >= 32 and struct.unpack(">I", wal[:4])[0] in _WAL_MAGIC:
        size = struct.unpack(">I", wal[8:12])[0]
        if size in _SIZES:
            found.append(size)
    return list(dict.fromkeys([*found, *_SIZES]))


def _read(data: bytes, wal: bytes, size: int) -> Salvaged:
    pages: dict[int, list[bytes]] = {}  # every version of each page: the file's, then each WAL frame's
    for n in range(len(data) // size):
        pages.setdefault(n + 1, []).append(data[n * size : (n + 1) * size])
    if len(wal) >= 32 and struct.unpack(">I", wal[:4])[0] in _WAL_MAGIC and struct.unpack(">I", wal[8:12])[0] == size:
        at = 32
        while at + 24 + size <= len(wal):
            number = struct.unpack(">I", wal[at : at + 4])[0]
            if number:
                pages.setdefault(number, []).append(wal[at + 24 : at + 24 + size])
            at += 24 + size
    origin: str | None = None
    transactions: dict[int, list[Op]] = {}
    for number, versions in pages.items():
        for page in versions:
            for rowid, values in _cells(page, number, size, pages):
                if len(values) == 2 and values[0] is None and isinstance(values[1], str) and rowid > 0:
                    ops = _ops(values[1])
                    if ops is not None:
                        transactions.setdefault(rowid, ops)
                elif len(values) == 2 and values[0] == "origin" and isinstance(values[1], str) and _HEX32.fullmatch(values[1]):
                    origin = values[1]
    return Salvaged(origin, dict(sorted(transactions.items())), size, len(data) // size)


def _ops(text: str) -> list[Op] | None:
    """A transaction's statements, if the text is one (the journal's own JSON: [sql, params, many] each)."""
    try:
        ops = json.loads(text)
    except ValueError:
        return None
    if not isinstance(ops, list) or not ops:
        return None
    out: list[Op] = []
    for op in ops:
        if not (isinstance(op, list) and len(op) == 3 and isinstance(op[0], str) and isinstance(op[1], list)
                and isinstance(op[2], bool | int)):
            return None
        if not op[0].lstrip().upper().startswith(("INSERT ", "UPDATE ", "DELETE ")):
            return None  # a journal holds the store's writes, nothing else
        out.append((op[0], op[1], bool(op[2])))
    return out


def _cells(page: bytes, number: int, size: int, pages: dict[int, list[bytes]]) -> Iterator[tuple[int, list[Any]]]:
    """The (row id, values) of each cell of a table leaf page that can be read whole."""
    head = 100 if number == 1 else 0
    if len(page) < head + 8 or page[head] != _TABLE_LEAF:
        return
    count = struct.unpack(">H", page[head + 3 : head + 5])[0]
    if count > size // 4:
        return
    for k in range(count):
        at = head + 8 + 2 * k
        if at + 2 > len(page):
            return
        pointer = struct.unpack(">H", page[at : at + 2])[0]
        if not head + 8 <= pointer < size:
            continue
        try:
            got = _cell(page, pointer, size, pages)
        except (IndexError, ValueError, struct.error, UnicodeDecodeError, RecursionError):
            continue
        if got is not None:
            yield got


def _cell(page: bytes, at: int, size: int, pages: dict[int, list[bytes]]) -> tuple[int, list[Any]] | None:
    length, at = _varint(page, at)
    rowid, at = _varint(page, at)
    if length > _MOST:
        return None
    most_local = size - 35
    if length <= most_local:
        local = length
    else:
        least = (size - 12) * 32 // 255 - 23
        local = least + (length - least) % (size - 4)
        if local > most_local:
            local = least
    payload = bytearray(page[at : at + local])
    if len(payload) < local:
        return None
    if length > local:
        following = struct.unpack(">I", page[at + local : at + local + 4])[0]
        seen: set[int] = set()
        while len(payload) < length:
            versions = pages.get(following)
            if not following or following in seen or not versions:
                return None  # the chain leaves the file (cut off) or loops
            seen.add(following)
            over = versions[-1]  # the newest version of the page
            payload += over[4 : 4 + min(size - 4, length - len(payload))]
            following = struct.unpack(">I", over[:4])[0]
    return (rowid - (1 << 64) if rowid >= 1 << 63 else rowid), _record(bytes(payload))


def _record(payload: bytes) -> list[Any]:
    header, at = _varint(payload, 0)
    if not 0 < header <= len(payload):
        raise ValueError("no record")
    kinds = []
    while at < header:
        kind, at = _varint(payload, at)
        kinds.append(kind)
    body = header
    values: list[Any] = []
    for kind in kinds:
        if kind == 0:
            values.append(None)
        elif 1 <= kind <= 6:
            width = (1, 2, 3, 4, 6, 8)[kind - 1]
            values.append(int.from_bytes(payload[body : body + width], "big", signed=True))
            body += width
        elif kind == 7:
            values.append(struct.unpack(">d", payload[body : body + 8])[0])
            body += 8
        elif kind in (8, 9):
            values.append(kind - 8)
        elif kind >= 12:
            width = (kind - 12) // 2
            raw = payload[body : body + width]
            if len(raw) < width:
                raise ValueError("cut off")
            values.append(raw.decode("utf-8") if kind % 2 else bytes(raw))
            body += width
        else:
            raise ValueError("not a record")
    if body > len(payload):
        raise ValueError("cut off")
    return values


def _varint(buf: bytes | bytearray, at: int) -> tuple[int, int]:
    value = 0
    for _ in range(8):
        byte = buf[at]
        at += 1
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, at
    return (value << 8) | buf[at], at + 1
