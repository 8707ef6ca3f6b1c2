"""Write jail-server log text the way srcds and the shim write it, for scenario tests."""

from __future__ import annotations

import json

from jailcore.config.config import Config, load
from jailcore.engine.actions import Action
from jailcore.engine.engine import Engine
from jailcore.log.parse import LogParser, records
from jailcore.sim.logwriter import LogWriter, Who

P = Who


class Log(LogWriter):
    """A scenario: `start_here()` marks where the actions under test begin."""

    mark = 0

    def start_here(self) -> Log:
        self.mark = len(self.lines)
        return self


def config(extra: str = "", **env: str) -> Config:
    """A config for a scenario: every rule on (the `all` rulebook) unless the text names
    its own rulebook."""
    if "rulebook" not in extra:
        extra = extra.replace("[server]\n", '[server]\nrulebook = "all"\n', 1) if "[server]\n" in extra else f'[server]\nrulebook = "all"\n{extra}'
    return load(extra, "<test>", env)


def restored(engine: Engine) -> Engine:
    """A fresh engine from the other's snapshot, through JSON as the state file keeps it."""
    return Engine(engine.config, json.loads(json.dumps(engine.snapshot(), ensure_ascii=False)))


def run(cfg: Config | str, log: Log | str, engine: Engine | None = None) -> tuple[list[Action], Engine]:
    """The scenario's actions (the HUD and the door's copies of CT bans left out) and the engine after it. Beside it, every
    scenario also runs an engine that is saved and restored before every line, and must
    decide exactly the same: a restart at any moment changes nothing."""
    cfg = config(cfg) if isinstance(cfg, str) else cfg
    engine = engine or Engine(cfg)
    twin = restored(engine)
    parser = LogParser()
    text = log.text() if isinstance(log, Log) else log
    mark = log.mark if isinstance(log, Log) else 0
    out: list[Action] = []
    for i, rec in enumerate(records(text.splitlines())):
        event = parser.parse(rec)
        if event is not None:
            actions = engine.handle(event)
            twin = restored(twin)
            assert twin.handle(event) == actions, f"restored engine differs at line {i + 1}: {rec!r}"
            if i >= mark:
                out += actions
    assert parser.stats.malformed == 0, parser.stats
    return [a for a in out if a.action not in ("hud", "door")], engine


def team_of(n: int, team: str, start: int = 10, prefix: str = "T") -> list[P]:
    return [P(f"{prefix}{i}", start + i, f"STEAM_1:0:{1000 + start + i}", "Unassigned") for i in range(n)]
