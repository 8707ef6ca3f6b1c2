"""Mini-games: who may start one, when, with how many players, and how long it may run.

A game announced with `jb_game_start` is offered to these rules in the engine's order; the
first that refuses it wins, and the game does not start.
- `games.unknown`: 000 6.0 «Любая нестандартная игра должна получить одобрение
  Администрации»: a game outside the catalogue, unless an admin approved it this round.
- `games.online_limit`: 004 5.17 (more than 8 prisoners), 5.18 (more than 13: turn-based).
- `games.min_players`: 000 «Коммунизм … Минимальное количество игроков: 7».
- `games.host`: 000 VI «Любую игру проводит только Начальник Тюрьмы».
- `games.gagged`: 004 5.16: no chat game while a prisoner is gagged.
- `games.repeat`: 004 5.5 «…не злоупотребляя однотипными играми»: not a third round in a row.
- `games.duration`: 004 5.11: winners within 5 minutes (a reminder, then the host's ladder).
- `games.host_death`: 000 VI «Любая игра заканчивается тогда, когда умирает ведущий игры»
  (special days excepted).
"""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.catalogue import fold
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles, vetoes
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import T
from jailcore.log import events as ev


class UnknownGame(Rule["UnknownGame.Settings", "UnknownGame.State"]):
    key = "games.unknown"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "6.0"
        ladder: Ladder = steps("warn")

    @attrs.define
    class State:
        approved: list[str] = attrs.Factory(list)  # games an admin approved this round, folded

    @vetoes(ev.GameStarted)
    def unknown(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        if ctx.offered_game(e.game) is not None or fold(e.game) in self.state.approved:
            return None
        return ctx.punish(self.key, ctx.seat(e.player), ctx.text("games.unknown", game=e.game))

    @handles(ev.GameApproved)
    def approved(self, ctx: Context, e: ev.GameApproved) -> list[Action]:
        self.state.approved.append(fold(e.game))
        return []

    def round_cleared(self, ctx: Context) -> None:
        self.state.approved = []


class OnlineLimit(Rule["OnlineLimit.Settings", None]):
    key = "games.online_limit"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "5.17"
        ladder: Ladder = steps("warn", "teamswap")

    @vetoes(ev.GameStarted)
    def too_many(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        game = ctx.offered_game(e.game)
        if game is None:
            return None
        prisoners = ctx.count(T)
        for limit in ctx.config.online_limits:
            hit = game.named(limit.games) or (limit.tag and limit.tag in game.tags)
            if hit and prisoners > limit.more_than:
                text = ctx.text("games.online_limit", game=game.name, limit=limit.more_than, online=prisoners)
                return ctx.punish(self.key, ctx.seat(e.player), text, ref=limit.ref or None)
        return None


class MinPlayers(Rule["MinPlayers.Settings", None]):
    key = "games.min_players"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "VI"
        ladder: Ladder = steps("warn")

    @vetoes(ev.GameStarted)
    def too_few(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        game = ctx.offered_game(e.game)
        if game is None or not game.min_players:
            return None
        playing = ctx.count(T, alive_only=ctx.state.round_open)
        if playing >= game.min_players:
            return None
        text = ctx.text("games.min_players", game=game.name, need=game.min_players, have=playing)
        return ctx.punish(self.key, ctx.seat(e.player), text)


def _name(ctx: Context, e: ev.GameStarted) -> tuple[str, frozenset[str]]:
    game = ctx.offered_game(e.game)
    return (game.name, game.tags) if game else (e.game, frozenset())


class HostIsWarden(Rule["HostIsWarden.Settings", None]):
    key = "games.host"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "VI"
        ladder: Ladder = steps("warn")

    @vetoes(ev.GameStarted)
    def not_warden(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        seat = ctx.seat(e.player)
        if seat.userid == ctx.state.warden:
            return None
        return ctx.punish(self.key, seat, ctx.text("games.host", game=_name(ctx, e)[0]))


class GaggedChatGame(Rule["GaggedChatGame.Settings", None]):
    key = "games.gagged"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "5.16"
        ladder: Ladder = steps("warn", "teamswap")

    @vetoes(ev.GameStarted)
    def gagged(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        name, tags = _name(ctx, e)
        gagged = [p.name for p in ctx.alive(T) if p.gagged] if "chat" in tags else []
        if not gagged:
            return None
        return ctx.punish(self.key, ctx.seat(e.player), ctx.text("games.gagged", game=name, names=", ".join(gagged)))


class RepeatedGame(Rule["RepeatedGame.Settings", "RepeatedGame.State"]):
    key = "games.repeat"
    HISTORY = 20  # rounds of games remembered; more than any `in_a_row` needs

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "5.5"
        in_a_row: int = 2
        ladder: Ladder = steps("warn", "teamswap")

    @attrs.define
    class State:
        played: list[tuple[int, str]] = attrs.Factory(list)  # (round, game)

    @vetoes(ev.GameStarted)
    def again(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        name = _name(ctx, e)[0]
        played = set(self.state.played)
        streak = 0
        while (ctx.state.round - streak - 1, name) in played:
            streak += 1
        if streak < self.settings.in_a_row:
            return None
        return ctx.punish(self.key, ctx.seat(e.player), ctx.text("games.repeat", game=name, rounds=streak + 1))

    @handles(ev.GameStarted)
    def started(self, ctx: Context, e: ev.GameStarted) -> list[Action]:
        r = ctx.state.round
        self.state.played = [h for h in self.state.played if h[0] > r - self.HISTORY] + [(r, _name(ctx, e)[0])]
        return []


class GameDuration(Rule["GameDuration.Settings", None]):
    key = "games.duration"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "5.11"
        minutes: int = 5
        grace_seconds: int = 60
        ladder: Ladder = steps("warn", "teamswap")

    def tick(self, ctx: Context, now: str) -> list[Action]:
        game, rule = ctx.state.game, self.settings
        if game is None or game.punished:
            return []
        elapsed = ctx.seconds_since(game.started)
        limit = rule.minutes * 60
        if elapsed > limit + rule.grace_seconds and game.reminded and ctx.seconds_since(game.reminded_at or game.started) > rule.grace_seconds:
            game.punished = True
            host = ctx.state.players.get(game.host)
            return ctx.punish(self.key, host, ctx.text("games.duration", game=game.name, minutes=rule.minutes)) if host else []
        if elapsed > limit and not game.reminded:
            game.reminded, game.reminded_at = True, now
            return [ctx.announce(self.key, rule, ctx.text("games.duration.remind", game=game.name, minutes=rule.minutes))]
        return []


class HostDeath(Rule["HostDeath.Settings", None]):
    key = "games.host_death"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "VI"

    @handles(ev.Killed)
    def killed(self, ctx: Context, e: ev.Killed) -> list[Action]:
        return self._gone(ctx, e.victim.userid)

    @handles(ev.Suicide, ev.Disconnected)
    def died(self, ctx: Context, e: ev.Suicide | ev.Disconnected) -> list[Action]:
        return self._gone(ctx, e.player.userid)

    def _gone(self, ctx: Context, userid: int) -> list[Action]:
        s = ctx.state
        if s.game is not None and s.game.host == userid and not s.specialday_name:
            s.game = None
        return []
