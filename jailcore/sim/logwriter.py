"""Log lines as srcds and the shim write them: for the simulated server, the demo and the
tests. Pure text, no I/O; the clock is whatever the caller sets `now` to."""

from __future__ import annotations

from datetime import datetime, timedelta

import attrs


@attrs.define
class Who:
    name: str
    userid: int
    steamid: str
    team: str = "Unassigned"
    alive: bool = False
    gagged: bool = False

    def ident(self, team: str | None = None) -> str:
        return f'"{self.name}<{self.userid}><{self.steamid}><{self.team if team is None else team}>"'

    def shim(self) -> str:  # SourceMod's %L leaves the team empty
        return f'"{self.name}<{self.userid}><{self.steamid}><>"'


def stamp(when: datetime) -> str:
    return f"L {when:%m/%d/%Y - %H:%M:%S}: "


class LogWriter:
    """Appends lines to `lines`; each line advances the clock by `step` seconds."""

    def __init__(self, start: datetime | str = "2026-11-30T20:00:00", step: float = 1.0):
        self.now = datetime.fromisoformat(start) if isinstance(start, str) else start
        self.step = timedelta(seconds=step)
        self.lines: list[str] = []
        self.seq = 0

    def wait(self, seconds: float) -> LogWriter:
        self.now += timedelta(seconds=seconds)
        return self

    def add(self, body: str) -> LogWriter:
        self.lines.append(stamp(self.now) + body)
        self.now += self.step
        return self

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    # engine lines
    def join(self, p: Who, team: str) -> LogWriter:
        old, p.team = p.team, team
        p.alive = False
        return self.add(f'"{p.name}<{p.userid}><{p.steamid}><{old}>" joined team "{team}"')

    def enter(self, p: Who) -> LogWriter:
        self.add(f'{p.ident("")} connected, address "127.0.0.1:27005"')
        return self.add(f'{p.ident("")} entered the game')

    def connect(self, p: Who, team: str) -> LogWriter:
        return self.enter(p).join(p, team)

    def disconnect(self, p: Who, reason: str = "Disconnect") -> LogWriter:
        return self.add(f'{p.ident()} disconnected (reason "{reason}")')

    def round_start(self) -> LogWriter:
        return self.add('World triggered "Round_Start"')

    def round_begins(self, freeze: int) -> LogWriter:
        """The shim's round line at SourceMod's `round_start` event: the freeze's start."""
        self.seq += 1
        return self.add(f'World triggered "jb_round_start" (freeze "{freeze}") (seq "{self.seq}")')

    def round_end(self) -> LogWriter:
        return self.add('World triggered "Round_End"')

    def rounds(self, n: int) -> LogWriter:
        for _ in range(n):
            self.round_start().round_end()
        return self

    def kill(self, killer: Who, victim: Who, weapon: str = "ak47") -> LogWriter:
        victim.alive = False
        return self.add(f'{killer.ident()} [1 2 3] killed {victim.ident()} [4 5 6] with "{weapon}"')

    def suicide(self, p: Who, weapon: str = "world") -> LogWriter:
        p.alive = False
        return self.add(f'{p.ident()} [0 0 0] committed suicide with "{weapon}"')

    def say(self, p: Who, text: str) -> LogWriter:
        return self.add(f'{p.ident()} say "{text}"')

    # shim lines (protocol section 1)
    def hello(self, version: str = "1.0.0") -> LogWriter:
        self.seq = 0
        return self.add(f'World triggered "jb_hello" (version "{version}") (seq "0")')

    def trig(self, p: Who, name: str, props: str = "") -> LogWriter:
        self.seq += 1
        return self.add(f'{p.shim()} triggered "{name}"{props} (seq "{self.seq}")')

    def warden(self, p: Who) -> LogWriter:
        return self.trig(p, "jb_warden")

    def order(self, p: Who, text: str) -> LogWriter:
        return self.trig(p, "jb_order", f' (text "{text}")')

    def prohibit(self, p: Who, text: str) -> LogWriter:
        return self.trig(p, "jb_prohibit", f' (text "{text}")')

    def game(self, p: Who, name: str) -> LogWriter:
        return self.trig(p, "jb_game_start", f' (game "{name}")')

    def specialday(self, p: Who, day: str = "Прятки") -> LogWriter:
        return self.trig(p, "jb_specialday", f' (day "{day}")')
