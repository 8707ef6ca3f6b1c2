"""The admins' requests on their way to a server's session: their rows polled from the state
database (every `interval` when one waits, and at once when `jailcore pardon`, `ctban` or the
web page wake the daemon), and an admin's `!jcpardon`, `!jcconfirm`, `!jcdismiss` in game
written as the very rows the command line writes. What the rows do is the session's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from jailcore.io.loop import until
from jailcore.log.errors import AdminRequestError
from jailcore.session import effects as fx
from jailcore.session import inputs as si
from jailcore.session.session import Session
from jailcore.store import StateStore, asked_in_game

log = logging.getLogger("jailcore")


class Requests:
    def __init__(self, store: StateStore, session: Session, put: Callable[[Any], None], interval: float = 0.5):
        self.store, self.session, self.put, self.interval = store, session, put, interval
        self.server = session.server
        self.woken = asyncio.Event()  # set from the wake-up socket: the poll goes at once

    def poll(self, cheap: bool = False) -> None:
        """The admins' rows for this server, to the session; `cheap`: only if the store says
        one waits (or the session still holds some as applied)."""
        if cheap and not self.session.desk.applied and not self.store.waiting(self.server):
            return
        self.put(self.store.admin_requests(self.server))

    async def run(self, on_clock: bool = False) -> None:
        """Polls every `interval`, and at once when woken; `on_clock`: the process's clock polls at each
        of this server's ticks (`tick`), and the task only meets the wake-ups (200 servers' timers were
        400 task wake-ups a second)."""
        woken = False
        while True:
            self.poll(cheap=not woken)
            woken = await until(self.woken, None if on_clock else self.interval)
            self.woken.clear()

    def tick(self) -> None:
        """The poll at a tick of the process's clock. What it raises (the database away) is said, and the task's to
        meet: woken, it polls again, and fails under its supervisor if the database is still away."""
        try:
            self.poll(cheap=True)
        except Exception as exc:
            log.warning("%s: the admins' requests could not be read at a tick (%s); read again now", self.server, exc)
            self.woken.set()

    def ask(self, ask: fx.AskedInGame) -> None:
        """An admin's word in game: the same row the command line writes, then applied; the
        store's refusal (an unknown id, answered already) is said to the admins online."""
        try:
            self.store.submit(asked_in_game(ask.step, ask.action_id, ask.by, ask.reason, ask.steamid, self.server))
            self.store.commit()
        except AdminRequestError as exc:
            self.put(si.Refused(str(exc)))
            return
        self.poll()
