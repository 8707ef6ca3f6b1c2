"""The log ports of one process, whichever way its servers are placed: every `[log] listen` its
configs name is one UDP socket (`logsource.Intake`), shared by the servers on it and routed by
`sv_logsecret` (`logsource.SharedLog`), opened once, even with one server on it, so a config
fixed later may join it while it runs. The members are the servers' own filters in one process
(`Daemon.udp`) or, in a `run --workers` parent, the filters that hand a record to the worker that
owns its server; the ports neither know nor care which.

A port named `...:0` ("any free port") and a log file are no shared port: such a server listens
(or follows its file) alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TypeVar

from jailcore.io.logsource import RECEIVE_BUFFER, Intake, LogClaim, SharedLog, UdpLog, listen_udp

T = TypeVar("T")


def on_shared_port(claim: LogClaim) -> bool:
    """The server takes its lines through a shared port (not a file, not a port of its own)."""
    return not claim.log_file and not claim.log_listen.endswith(":0")


def by_port(servers: Iterable[tuple[LogClaim, T]], any_port: bool = False) -> dict[str, list[T]]:
    """Each shared port's servers, in the order given; `any_port`: a `...:0` too (a `run --workers`
    parent opens it for the servers that name it, as one port)."""
    groups: dict[str, list[T]] = {}
    for claim, server in servers:
        if on_shared_port(claim) or (any_port and not claim.log_file):
            groups.setdefault(claim.log_listen, []).append(server)
    return groups


class LogPorts:
    def __init__(self) -> None:
        self.shared: dict[str, SharedLog] = {}  # listen address -> its port's routing
        self.port: dict[str, int] = {}  # listen address -> the port number bound
        self.intakes: list[Intake] = []

    async def open(self, listen: str, members: list[UdpLog]) -> int:
        """The port for these servers; the OSError of a refused bind as the system gave it (`ports.refusal` says it)."""
        self.shared[listen] = SharedLog(members)
        return await self.bind(listen)

    def add(self, listen: str, member: UdpLog) -> bool:
        """A server that joins while the process runs, routed at once; True when its port is not open yet (`bind` it)."""
        shared = self.shared.get(listen)
        if shared is not None:
            shared.add(member)
            return False
        self.shared[listen] = SharedLog([member])
        return True

    async def bind(self, listen: str) -> int:
        shared = self.shared[listen]
        try:
            # Each server's share of room for a stall, up to 64 MB (used only while it fills).
            intake, port = await listen_udp(listen, shared, RECEIVE_BUFFER * min(max(len(shared.members), 1), 16))
        except OSError:
            del self.shared[listen]
            raise
        self.port[listen] = port
        self.intakes.append(intake)
        return port

    async def join(self, listen: str, member: UdpLog) -> int:
        """A server that joins while the process runs: its port, opened now if no server had it yet."""
        if self.add(listen, member):
            return await self.bind(listen)
        return self.port.get(listen, 0)

    def leave(self, listen: str, member: UdpLog) -> None:
        shared = self.shared.get(listen)
        if shared is not None and member in shared.members:
            shared.remove(member)

    def members(self, listen: str) -> list[UdpLog]:
        shared = self.shared.get(listen)
        return list(shared.members) if shared is not None else []

    def dropped(self) -> dict[str, Counter[str]]:
        """Each port's datagrams that no server on it took, by cause (no one server counts them)."""
        return {listen: shared.dropped for listen, shared in self.shared.items()}

    def wake(self) -> None:
        """The servers whose records were held (their worker was behind) may take them now."""
        for intake in self.intakes:
            intake.wake()

    def close(self) -> None:
        for intake in self.intakes:
            intake.close()
        self.intakes.clear()
