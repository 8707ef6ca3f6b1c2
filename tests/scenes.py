"""The cast of the rule scenarios: a warden, a guard, prisoners, an admin, on a Tuesday."""

from __future__ import annotations

from tests.logtext import Log, P, team_of

WARDEN = P("Начальник", 2, "STEAM_1:0:42")
GUARD = P("Охранник", 3, "STEAM_1:1:77")
ADMIN = P("Админ Сервера", 40, "STEAM_1:0:4040")


def setup(prisoners: int = 6, rounds_before: int = 1) -> tuple[Log, list[P]]:
    """A server on a Tuesday (day 2) by default, so the Monday freeday is out of the way."""
    log = Log()
    ts = team_of(prisoners, "TERRORIST")
    log.connect(WARDEN, "CT").connect(GUARD, "CT")
    for t in ts:
        log.connect(t, "TERRORIST")
    log.rounds(rounds_before)
    log.round_start().warden(WARDEN)
    return log.start_here(), ts


def next_day(log: Log, warden: P = WARDEN) -> Log:
    """The round ends, the next begins, and the warden claims command."""
    return log.round_end().round_start().warden(warden)


def rules_of(actions):
    return [(a.action, a.rule) for a in actions]
