"""Write jail-server log text the way srcds and the shim write it, for scenario tests."""

from __future__ import annotations

from jailcore.actions import Action
from jailcore.config import Config, load
from jailcore.engine import Engine
from jailcore.logwriter import LogWriter, Who
from jailcore.parse import LogParser, records

P = Who


class Log(LogWriter):
    """A scenario: `start_here()` marks where the actions under test begin."""

    mark = 0

    def start_here(self) -> Log:
        self.mark = len(self.lines)
        return self


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
