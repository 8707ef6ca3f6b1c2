"""What one server sends waits for the disk: a command until the rows before it are durable (so
a command that reached the game always has its `pending` row), a CT ban told to the network the
same (so no server holds a ban whose row a kill -9 took from the log that gave it). The writer
(a thread, `store.writer`) says how far it is durable; then the commands go to RCON in one write,
their rows say `sent`, and the bans go to MQTT and this process's other servers.

A `run --workers` worker also follows which of its parent's numbered lines its saved states hold
for good (`kept`): what came up to there need not come again after a crash.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Callable
from typing import Any

from jailcore.io import tasks
from jailcore.io.mqtt import CTBANS, MqttLink
from jailcore.io.parts import Held, Inbox
from jailcore.io.rcon import RconClient
from jailcore.session import effects as fx
from jailcore.session import inputs as si
from jailcore.session.session import Session
from jailcore.store import Writer


class Outgoing:
    def __init__(self, writer: Writer, session: Session, client: RconClient, mqtt: MqttLink | None, inbox: Inbox,
                 idle: asyncio.Event, lock: Held, peers: Callable[[dict[str, Any]], None]):
        self.writer, self.session, self.client, self.mqtt = writer, session, client, mqtt
        self.inbox, self.idle, self.lock, self.peers = inbox, idle, lock, peers
        self.held: deque[tuple[int, fx.Send]] = deque()  # commands waiting for their rows to be durable
        self.telling: deque[tuple[int, fx.TellPeers]] = deque()  # CT bans for the network, the same (not dropped with the link)
        self.seq = 0  # the writer's sequence of this server's last rows
        self.relayed = False  # fed by a `run --workers` parent: its states' places are followed (`kept`)
        self._saves: deque[tuple[int, int]] = deque()  # (the writer's sequence, the relay's place) of each state saved
        self._kept = 0

    def submit(self, rows: list[fx.Row]) -> None:
        self.seq = self.writer.submit(rows)
        if self.relayed and any(type(row) is fx.SaveState for row in rows):
            self._saves.append((self.seq, self.session.place))

    def hold(self, send: fx.Send) -> None:
        """After its own row; one with no row (the display, a ban at the door) waits for none."""
        self.held.append((self.seq if send.audit is not None else 0, send))

    def tell(self, ban: fx.TellPeers) -> None:
        """As a command: only once its row is durable, or a peer holds a ban our log lost."""
        self.telling.append((self.seq, ban))

    def kept(self) -> int:
        """The last place of a `run --workers` relay whose line this server's state database holds for good:
        a state saved after it is durable, or nothing changed since the last one that is (what came up to it
        need not come again after a crash; what came after it must)."""
        durable = self.writer.durable
        while self._saves and self._saves[0][0] <= durable:
            self._kept = self._saves.popleft()[1]
        if not self._saves and not self.session.unsaved:
            self._kept = self.session.place
        return self._kept

    def release(self) -> None:
        """The commands whose rows are durable, to RCON in one write (their rows then say `sent`), then the CT bans
        for the network: this server's own door first, the other servers of the process (each handling the ban in
        this very turn) after it."""
        durable = self.writer.durable
        batch: list[fx.Send] = []
        held = self.held
        if self.lock.lost is not None:
            held.clear()  # another process serves this server now (the daemon stops): its to send
        while held and held[0][0] <= durable:
            batch.append(held.popleft()[1])
        if batch and self.client.is_open:  # else the link's loss is on its way: the session sends them again
            for send, future in zip(batch, self.client.send_all([s.text for s in batch]), strict=True):
                future.add_done_callback(functools.partial(tasks.replied, self.inbox.put, send.ticket))
            self.session.handle(si.Sent(tuple(s.ticket for s in batch)), self.inbox.clock())  # its clock starts now
            sent = tuple(s.audit for s in batch if s.audit is not None)
            if sent:
                self.seq = self.writer.submit([fx.MarkSent(sent)])
        self.tell_peers()
        idle = not self.session.busy and not held and not self.telling and durable >= self.seq  # its own rows
        (self.idle.set if idle else self.idle.clear)()
        # Next awaited: the first held command's rows, the first ban for the peers, else its last rows (`idle`).
        heads = (held[0][0] if held else 0, self.telling[0][0] if self.telling else 0, self.seq)
        self.inbox.wants = min((seq for seq in heads if seq > durable), default=0)

    def tell_peers(self) -> int:
        """The CT bans whose rows are durable, to the network (MQTT, this process's servers); how far it is durable."""
        durable = self.writer.durable
        while self.telling and self.telling[0][0] <= durable:
            ban = self.telling.popleft()[1].ban
            if self.mqtt is not None:
                self.mqtt.publish(CTBANS, ban, urgent=True)
            self.peers(ban)
        return durable
