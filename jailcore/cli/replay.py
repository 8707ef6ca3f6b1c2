"""`jailcore replay`: log files through the same parser and engine, actions as JSON lines.

Nothing is sent anywhere. What is not an enforcement (the display line, the shim's copy of
a CT ban, a choice offered) is left out unless asked for with `--hud`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TextIO

import attrs

from jailcore.cli.logfiles import open_log
from jailcore.config.config import Config
from jailcore.engine.actions import Action
from jailcore.engine.engine import Engine
from jailcore.engine.vocabulary import kinds_that
from jailcore.log.parse import LogParser, records

# What protocol section 3 lists as an action; the display line, the door's copy of a CT ban
# and a freekilled prisoner's offer come with `--hud`.
ENFORCEMENT = kinds_that("enforcement")


def replay_records(engine: Engine, parser: LogParser, recs: Iterable[bytes | str]) -> Iterator[Action]:
    handle, parse = engine.handle, parser.parse
    for record in recs:
        event = parse(record)
        if event is not None:
            yield from handle(event)


def replay_files(config: Config, paths: list[str], out: TextIO, state: bool, stats: bool, hud: bool = False) -> int:
    # What the rules decide on these lines, as a server that enforces them would: the mode is
    # the daemon's (what it sends); in observe mode its engine keeps none of its steps.
    engine = Engine(attrs.evolve(config, mode="enforce"))
    parser = LogParser(engine.needed_kinds())  # lines no rule reads are only counted
    dumps = json.dumps
    for path in paths:
        with open_log(path) as fh:
            for action in replay_records(engine, parser, records(fh)):
                if action.action not in ENFORCEMENT and not hud:
                    continue
                out.write(dumps(action.to_json(), ensure_ascii=False) + "\n")
    if state:
        out.write(dumps({"state": engine.public_state()}, ensure_ascii=False) + "\n")
    if stats:
        out.write(dumps({"stats": parser.stats.to_json()}, ensure_ascii=False) + "\n")
    return 0
