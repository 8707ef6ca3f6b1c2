"""Lawful play punishes no one; every violation of a kind the engine enforces is caught, on
the right player, in its round, and nothing else (issue 18). The seasons are played by
`tests/lawful.py` as each shipped server's rulebooks allow."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

from jailcore.config.config import Config
from tests.lawful import PUNISHING, ROOT, Season, judged, punishments
from tests.violations import injectable, season

SERVERS = ("server-a", "server-b")


@pytest.mark.parametrize("server", SERVERS)
def test_a_long_lawful_season_punishes_no_one(server):
    s = season(server, seed=18, rounds=2000)
    wrong = [(r, a.action, a.rule, a.target and a.target.name, a.reason) for r, a in punishments(s)]
    assert wrong == [], f"{len(wrong)} punishments of lawful play, the first: {wrong[:3]}"
    # what the season played, so that "no one punished" is not the silence of an empty log
    seen = s.parser.stats.events
    assert s.played == 2000 and s.engine.state.round == s.round == 2000 and s.engine.week >= 250  # warm-ups and restarts are no days
    assert seen["jb_game_start"] > 500 and seen["jb_lr"] > 500 and seen["jb_order"] > 2000
    assert seen["jb_specialday"] > 50 and seen["attacked"] > 200 and seen["chat"] > 3000
    assert seen["map_started"] >= 10 and seen["disconnected"] > 50 and seen["joined_team"] > 200
    announced = Counter(a.rule for _, a in s.actions)
    assert announced["referee"] > 20 and announced["lastrequest.timeout" if server == "server-a" else "games.duration"] > 10


@pytest.mark.parametrize("server", SERVERS)
def test_each_violation_is_caught_on_its_player_in_its_round_and_nothing_else(server):
    cfg = Config.from_toml(ROOT / "configs" / f"{server}.toml", env={})
    kinds = injectable(cfg)
    assert len(kinds) >= (18 if server == "server-a" else 13)
    s: Season = season(server, seed=18, rounds=60 + 14 * len(kinds), kinds=kinds)
    assert sorted(i.kind for i in s.injected) == sorted(kinds)
    by_round: dict[int, set[tuple[str, int]]] = {}
    for r, a in judged(s):
        by_round.setdefault(r, set()).add((a.rule, a.target.userid))
    for injected in s.injected:
        assert by_round.pop(injected.round, set()) == set(injected.expected), injected
    assert by_round == {}, "punished outside the injected rounds"


@pytest.mark.parametrize("server", SERVERS)
def test_jailcore_replay_of_a_lawful_season_enforces_nothing(server, tmp_path):
    """The same through the protocol's command line: `jailcore replay` of the season's log."""
    s = season(server, seed=5, rounds=300)
    path = tmp_path / "season.log"
    path.write_text("\n".join(s.log.lines) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "jailcore", "replay", "--config", str(ROOT / "configs" / f"{server}.toml"), str(path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    printed = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [a for a in printed if a.get("action") in PUNISHING] == []
    assert sum(a.get("action") == "say" for a in printed) == sum(a.action == "say" for _, a in s.actions) > 10
