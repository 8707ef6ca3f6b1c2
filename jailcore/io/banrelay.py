"""CT bans between the servers of one process: a ban given on one (its row durable) goes to every
other server at once (handled in this very turn where nothing waits before it, else behind what
does), typed once for all of them (not once a server); MQTT carries it to the rest of the network, whose copy this process's servers ignore. In a
`run --workers` worker it also goes `outward`, to the parent, which hands it to the other workers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from jailcore.log.inbound import Refusals, ctban_message
from jailcore.session.inputs import PeerBan, Settle

if TYPE_CHECKING:
    from jailcore.io.daemon import Daemon


class BanRelay:
    def __init__(self, servers: Callable[[], Iterable[Daemon]]):
        self.servers = servers
        self.refused = Refusals("a CT ban between this process's servers")  # our own: a bug, said once
        self.outward: Callable[[dict[str, Any]], None] | None = None  # a worker's: the servers of the other workers

        self._relaying = False

    def __call__(self, origin: Daemon, ban: dict[str, Any]) -> None:
        typed = ctban_message(ban, self.refused, "a CT ban of this process")
        if typed is not None:
            # A server handling the ban may tell one of its own (a ban it had waiting for the disk): that one goes
            # into the inboxes, so no server is fed again while it is still on the stack.
            nested, self._relaying = self._relaying, True
            try:
                peers = [daemon for daemon in self.servers() if daemon is not origin and not daemon.stopping.is_set()]
                # Every door first, then every server's decisions (`PeerBan.doors_first`, `Settle`): the last door
                # no longer waits for 198 servers' rows and saved states.
                for step in (PeerBan(typed, doors_first=True), Settle()):
                    for daemon in peers:
                        daemon.inbox.put(step) if nested else daemon.take(step)
            finally:
                self._relaying = nested
        if self.outward is not None:
            self.outward(ban)
