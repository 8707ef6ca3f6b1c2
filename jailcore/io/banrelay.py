"""CT bans between the servers of one process: a ban given on one (its row durable) goes into every
other server's inbox at once, behind what each is doing, typed once for all of them (not once a
server); MQTT carries it to the rest of the network, whose copy this process's servers ignore. In a
`run --workers` worker it also goes `outward`, to the parent, which hands it to the other workers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from jailcore.log.inbound import Refusals, ctban_message
from jailcore.session.inputs import PeerBan

if TYPE_CHECKING:
    from jailcore.io.daemon import Daemon


class BanRelay:
    def __init__(self, servers: Callable[[], Iterable[Daemon]]):
        self.servers = servers
        self.refused = Refusals("a CT ban between this process's servers")  # our own: a bug, said once
        self.outward: Callable[[dict[str, Any]], None] | None = None  # a worker's: the servers of the other workers

    def __call__(self, origin: Daemon, ban: dict[str, Any]) -> None:
        typed = ctban_message(ban, self.refused, "a CT ban of this process")
        if typed is not None:
            for daemon in self.servers():
                if daemon is not origin and not daemon.stopping.is_set():
                    daemon.inbox.put(PeerBan(typed))
        if self.outward is not None:
            self.outward(ban)
