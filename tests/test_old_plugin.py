"""What real servers write (issue 31): a CS:GO server whose plugin is older than the round
line (`jb_round_start`, plugin 1.2.0), or that lost it, still writes `Starting Freeze period`
at each restart. Lawful play on such a server punishes no one, as with the round line."""

from __future__ import annotations

import re

import pytest

from jailcore.config.config import Config
from jailcore.engine.actions import Punishment
from jailcore.engine.engine import Engine
from jailcore.log.parse import LogParser, records
from tests.lawful import JUDGED, ROOT
from tests.violations import season

SEQ = re.compile(r'\(seq "(\d+)"\)$')


def without_the_round_line(lines: list[str]) -> list[str]:
    """The season as a plugin older than `jb_round_start` writes it: no round line, and its
    shim lines numbered without it (a gap would be a lost line)."""
    out, seq = [], 0
    for line in lines:
        if 'triggered "jb_round_start"' in line:
            continue
        m = SEQ.search(line)
        if m is not None:
            seq = 0 if 'triggered "jb_hello"' in line else seq + 1
            line = f'{line[: m.start()]}(seq "{seq}")'
        out.append(line)
    return out


def decided(server: str, lines: list[str]) -> list:
    engine = Engine(Config.from_toml(ROOT / "configs" / f"{server}.toml", env={}))
    parser = LogParser(engine.needed_kinds())
    out = []
    for rec in records(lines):
        event = parser.parse(rec)
        if event is not None:
            out += [a for a in engine.handle(event) if a.action in JUDGED and not (isinstance(a, Punishment) and a.owed)]
    assert parser.stats.malformed == 0
    return out


@pytest.mark.parametrize("server", ["server-a", "server-b"])
def test_a_lawful_season_with_a_plugin_older_than_the_round_line_punishes_no_one(server):
    """The freeze line begins the round where the shim's did not come: the warden who claims
    in the freeze (004 4.4, 001 Начальник) keeps his command when Round_Start ends it."""
    s = season(server, seed=31, rounds=2000)
    old = without_the_round_line(s.log.lines)
    assert sum('triggered "jb_round_start"' in line for line in s.log.lines) >= 2000
    assert sum("Starting Freeze period" in line for line in old) > 1000  # the freeze on ~70% of maps
    wrong = [(a.round, a.action, a.rule, a.reason) for a in decided(server, old)]
    assert wrong == [], f"{len(wrong)} punishments of lawful play, the first: {wrong[:3]}"
