"""Write jail-server log text the way srcds and the shim write it, for scenario tests."""

from __future__ import annotations

from datetime import datetime, timedelta

import attrs

from jailcore.actions import Action
from jailcore.config import Config, load
from jailcore.engine import Engine
from jailcore.parse import LogParser, records


@attrs.define
class P:
    name: str
    userid: int
    steamid: str
    team: str = "Unassigned"

    def ident(self, team: str | None = None) -> str:
        return f'"{self.name}<{self.userid}><{self.steamid}><{self.team if team is None else team}>"'

    def shim(self) -> str:  # SourceMod's %L leaves the team empty
        return f'"{self.name}<{self.userid}><{self.steamid}><>"'


class Log:
    def __init__(self, start: str = "2026-11-30T20:00:00"):
        self.now = datetime.fromisoformat(start)
        self.lines: list[str] = []
        self.seq = 0
        self.mark = 0  # run() returns the actions of the lines from here on

    def start_here(self) -> Log:
        self.mark = len(self.lines)
        return self

    def wait(self, seconds: float) -> Log:
        self.now += timedelta(seconds=seconds)
        return self

    def add(self, body: str) -> Log:
        self.lines.append(f"L {self.now:%m/%d/%Y - %H:%M:%S}: {body}")
        self.now += timedelta(seconds=1)
        return self

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    # engine lines
    def join(self, p: P, team: str) -> Log:
        old, p.team = p.team, team
        self.add(f'"{p.name}<{p.userid}><{p.steamid}><{old}>" joined team "{team}"')
        return self

    def connect(self, p: P, team: str) -> Log:
        self.add(f'{p.ident("")} connected, address "127.0.0.1:27005"')
        self.add(f'{p.ident("")} entered the game')
        return self.join(p, team)

    def round_start(self) -> Log:
        return self.add('World triggered "Round_Start"')

    def round_end(self) -> Log:
        return self.add('World triggered "Round_End"')

    def rounds(self, n: int) -> Log:
        for _ in range(n):
            self.round_start().round_end()
        return self

    def kill(self, killer: P, victim: P, weapon: str = "ak47") -> Log:
        return self.add(f'{killer.ident()} [1 2 3] killed {victim.ident()} [4 5 6] with "{weapon}"')

    def say(self, p: P, text: str) -> Log:
        return self.add(f'{p.ident()} say "{text}"')

    # shim lines
    def trig(self, p: P, name: str, props: str = "") -> Log:
        self.seq += 1
        return self.add(f'{p.shim()} triggered "{name}"{props} (seq "{self.seq}")')

    def warden(self, p: P) -> Log:
        return self.trig(p, "jb_warden")

    def order(self, p: P, text: str) -> Log:
        return self.trig(p, "jb_order", f' (text "{text}")')

    def prohibit(self, p: P, text: str) -> Log:
        return self.trig(p, "jb_prohibit", f' (text "{text}")')

    def game(self, p: P, name: str) -> Log:
        return self.trig(p, "jb_game_start", f' (game "{name}")')

    def specialday(self, p: P, day: str = "Прятки") -> Log:
        return self.trig(p, "jb_specialday", f' (day "{day}")')


def config(extra: str = "", **env: str) -> Config:
    return load(extra, "<test>", env)


def run(cfg: Config | str, log: Log | str, engine: Engine | None = None) -> tuple[list[Action], Engine]:
    cfg = config(cfg) if isinstance(cfg, str) else cfg
    engine = engine or Engine(cfg)
    parser = LogParser()
    text = log.text() if isinstance(log, Log) else log
    mark = log.mark if isinstance(log, Log) else 0
    out: list[Action] = []
    for i, rec in enumerate(records(text.splitlines())):
        event = parser.parse(rec)
        if event is not None:
            actions = engine.handle(event)
            if i >= mark:
                out += actions
    assert parser.stats.malformed == 0, parser.stats
    return [a for a in out if a.action != "hud"], engine


def team_of(n: int, team: str, start: int = 10, prefix: str = "T") -> list[P]:
    return [P(f"{prefix}{i}", start + i, f"STEAM_1:0:{1000 + start + i}", "Unassigned") for i in range(n)]
