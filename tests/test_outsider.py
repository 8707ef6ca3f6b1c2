"""An outsider's lawful seasons (`tests/outsider.py`: written from the rulebooks alone,
read by `jailcore replay` as the acceptance testers read them) punish no one; the
violations it makes as players and wardens commit them are all caught."""

from __future__ import annotations

import pytest

from tests.outsider import PUNISHMENTS, Season, config_of, recall, replay

# Short seasons here (a few seconds each); `python3 tests/outsider.py --rounds 2000` for long ones.
ROUNDS = 150


@pytest.mark.parametrize(("server", "game", "seed"), [
    ("server-a", "csgo", 31), ("server-a", "css", 32), ("server-b", "csgo", 33), ("server-b", "css", 34), ("example", "csgo", 35),
])
def test_an_outsiders_lawful_season_punishes_no_one(server, game, seed):
    season = Season(server, seed, ROUNDS, game)
    actions = replay(config_of(server), season.play())
    punished = [(a["round"], a["rule"], a["action"]) for a in actions if a["action"] in PUNISHMENTS]
    assert punished == []
    assert season.round == ROUNDS and len(season.lines) > 5000  # a season was played, not an empty log


KINDS = {
    "server-a": ["special_cooldown", "host", "unknown", "only_warden_kills", "king_half", "privileges", "game_privileges",
                 "last_prisoner", "duel_stakes", "grenade_spam", "monday_order"],
    "server-b": ["special_cooldown", "host", "unknown", "only_warden_kills", "king_half", "online_limit", "gagged",
                 "prohibitions", "no_warden"],
}


@pytest.mark.parametrize("server", sorted(KINDS))
def test_an_outsiders_violations_are_all_caught(server):
    kinds = KINDS[server]
    inject = {r: kinds[(r // 5) % len(kinds)] for r in range(3, 200, 5)}
    season = Season(server, 41, 200, "csgo", inject)
    actions = replay(config_of(server), season.play())
    report = recall(season, actions)
    assert len(season.injected) >= 20, report
    assert "missed" not in report, report
