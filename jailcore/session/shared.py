"""What every part of one server's session reads (`Shared`): the config in force, the engine, the
audit ids, the driver's clock, the round ends seen, the RCON link as `status` shows it, the
proposals' audit rows, the relay's place. The parts write only what is theirs (named beside each
field); none of them calls another back: the dispatcher (`session.py`) calls each in turn.
"""

from __future__ import annotations

import attrs

from jailcore.config.config import Config
from jailcore.engine.engine import Engine
from jailcore.log.errors import StateError


class IdsExhausted(StateError, RuntimeError):
    """The driver let the block of audit ids run out: a bug of ours, not of the input."""


class Ids:
    """Audit ids for the sessions of one store, handed out in blocks the driver reserves
    (`give`), so a session answers without waiting for a database. A block starts well above
    the last id ever used: a row sent but lost before its commit (a crash in between) left its
    id in the shim's memory, and a new command carrying it would be taken for a repeat."""

    def __init__(self, low: int = 2000):
        self.next = 0
        self.end = 0
        self.last = 0  # the newest id given: the round story's mark of what a line decided
        self.low_water = low

    def give(self, first: int, count: int) -> None:
        self.next, self.end = first, first + count

    @property
    def low(self) -> bool:
        return self.end - self.next < self.low_water

    def take(self) -> int:
        if self.next >= self.end:
            raise IdsExhausted("no audit ids reserved")
        self.last = self.next
        self.next += 1
        return self.last


@attrs.define(eq=False)
class Shared:
    config: Config  # the reload's to change
    engine: Engine
    ids: Ids
    server: str  # the name it started with: a reload changes it only at a restart
    now: float = 0.0  # the driver's clock at the input in hand (the dispatcher's)
    wall: str = ""  # the local time of the last tick, for rows (the dispatcher's)
    epoch: int = 0  # round ends this process has seen: a round-bound command expires once one passed (the lines')
    link: str = "closed"  # the RCON link as `status` shows it (the commands')
    drops: str = ""  # what the edge dropped, by cause (the commands')
    proposals: dict[int, int] = attrs.Factory(dict)  # the engine's proposal number -> its audit id (the audit desk's)
    line_at: float | None = None  # when the last line came (or the clock first ticked): the log's clock runs on from it (the lines')
    # `run --workers`: the relay this state follows (its parent's run) and the last of its places taken, saved
    # with the state, so a worker started again skips exactly what its saved state already holds (the dispatcher's).
    relay: str = ""
    place: int = 0


class Part:
    """A part of a session: it reads the shared ground as its own (`self.config`, `self.engine`, ...), and
    writes there only what is its own (named in `Shared`)."""

    shared: Shared

    @property
    def config(self) -> Config:
        return self.shared.config

    @property
    def engine(self) -> Engine:
        return self.shared.engine

    @property
    def ids(self) -> Ids:
        return self.shared.ids

    @property
    def server(self) -> str:
        return self.shared.server

    @property
    def now(self) -> float:
        return self.shared.now

    @property
    def wall(self) -> str:
        return self.shared.wall
