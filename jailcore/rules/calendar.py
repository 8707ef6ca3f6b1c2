"""The game week: one round is one day, round 1 of the week is Monday.

- `calendar.freeday`: 001 ФД 1 «Понедельник - всегда ФД!»: Monday is announced as a freeday;
  an order or a game on it climbs the warden's ladder.
- `calendar.global_games`: 001 global 1: a global game at most twice a game week.
- `calendar.rebellion`: 001 prisoners 5 «Запрещено бунтовать 2 раза подряд за игровую
  неделю»: a prisoner who damages or kills a guard on two days in a row of one week.
- `calendar.personal_freeday`: 001 ФД 8: a personal freeday at most once a week.
"""

from __future__ import annotations

import attrs

from .. import events as ev
from ..actions import Action
from ..context import Context
from ..state import CT, Seat, T
from .base import Ladder, Rule, RuleSettings, handles, steps, vetoes


class MondayFreeday(Rule):
    key = "calendar.freeday"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "ФД 1"
        ladder: Ladder = steps("warn", "teamswap", "ctban 30m")

    def _today(self, ctx: Context) -> bool:
        return ctx.state.freeday and ctx.day == 1

    @handles(ev.RoundStart)
    def monday(self, ctx: Context, e: ev.RoundStart) -> list[Action]:
        if ctx.day != 1:
            return []
        ctx.state.freeday = True
        return [ctx.announce(self.key, self.settings, ctx.text("calendar.freeday.say", day=ctx.day, week=ctx.week))]

    @handles(ev.OrderGiven)
    def order(self, ctx: Context, e: ev.OrderGiven) -> list[Action]:
        return ctx.punish(self.key, ctx.seat(e.player), ctx.text("calendar.freeday")) if self._today(ctx) else []

    @vetoes(ev.GameStarted)
    def game(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        if ctx.offered_game(e.game) is None or not self._today(ctx):
            return None
        return ctx.punish(self.key, ctx.seat(e.player), ctx.text("calendar.freeday"))


class GlobalGames(Rule):
    key = "calendar.global_games"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Глобальные 1"
        per_week: int = 2
        ladder: Ladder = steps("teamswap", "ctban 30m")

    @attrs.define
    class State:
        played: int = 0  # global games this game week

    @staticmethod
    def _global(ctx: Context, e: ev.GameStarted) -> bool:
        game = ctx.offered_game(e.game)
        return game is not None and "global" in game.tags

    @vetoes(ev.GameStarted)
    def third(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        if not self._global(ctx, e) or self.state.played < self.settings.per_week:
            return None
        text = ctx.text("calendar.global_games", limit=self.settings.per_week, count=self.state.played)
        return ctx.punish(self.key, ctx.seat(e.player), text)

    @handles(ev.GameStarted)
    def played(self, ctx: Context, e: ev.GameStarted) -> list[Action]:
        if self._global(ctx, e):
            self.state.played += 1
        return []

    def week_started(self, ctx: Context) -> None:
        self.state.played = 0

    calendar_reset = week_started


class Rebellion(Rule):
    key = "calendar.rebellion"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Заключённые 5"
        ladder: Ladder = steps("ban 10m")

    @attrs.define
    class State:
        rebels: dict[str, int] = attrs.Factory(dict)  # player key -> the last round he rebelled

    @handles(ev.Killed)
    def killed(self, ctx: Context, e: ev.Killed) -> list[Action]:
        if e.killer.userid == e.victim.userid:
            return []
        return self._rebel(ctx, ctx.state.players[e.killer.userid], ctx.state.players[e.victim.userid])

    @handles(ev.Attacked)
    def attacked(self, ctx: Context, e: ev.Attacked) -> list[Action]:
        return self._rebel(ctx, ctx.state.players[e.attacker.userid], ctx.state.players[e.victim.userid])

    def _rebel(self, ctx: Context, prisoner: Seat, guard: Seat) -> list[Action]:
        s = ctx.state
        if prisoner.team != T or guard.team != CT or s.last_request or not s.round_open:
            return []
        if s.specialday_name or (s.game is not None and "global" in s.game.tags):
            return []  # a special day or a global game sets prisoners against guards: not a rebellion
        last = self.state.rebels.get(prisoner.key)
        self.state.rebels[prisoner.key] = s.round
        if last is None or last == s.round:
            return []
        if last == s.round - 1 and ctx.same_week(last, s.round):
            return ctx.punish(self.key, prisoner, ctx.text("calendar.rebellion"))
        return []

    def week_started(self, ctx: Context) -> None:
        self.state.rebels = {}

    calendar_reset = week_started


class PersonalFreeday(Rule):
    """001 ФД 8 «Приобретать ФД чаще, чем раз в неделю» is among what takes a freeday away
    («ФД забирается, если игрок сделал то, что ЗАПРЕЩЕНО»): the second personal freeday of
    a week is taken from the prisoner, unless he won it in a duel («Исключение: выигрыш в
    дуэли»): a prisoner who chose his last request this round or the last one and lived."""

    key = "calendar.personal_freeday"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "ФД 8"

    @attrs.define
    class State:
        granted: dict[str, int] = attrs.Factory(dict)  # player key -> the week of his freeday
        duels: dict[str, int] = attrs.Factory(dict)  # player key -> the round of his last request

    @handles(ev.LastRequest)
    def duel(self, ctx: Context, e: ev.LastRequest) -> list[Action]:
        self.state.duels[ctx.seat(e.player).key] = ctx.state.round
        return []

    @handles(ev.FreedayGranted)
    def granted(self, ctx: Context, e: ev.FreedayGranted) -> list[Action]:
        target = ctx.state.players.get(e.target) if e.scope == "personal" and e.target is not None else None
        if target is None:
            return []
        won = self.state.duels.get(target.key, -9) >= ctx.state.round - 1
        if self.state.granted.get(target.key) == ctx.week and not won:
            # Taking it back is no punishment: everyone is told, the guards above all.
            text = ctx.quoting(self.settings, ctx.text("calendar.personal_freeday", name=target.name))
            return [ctx.action("say", None, self.key, self.ref, text), ctx.action("warn", target, self.key, self.ref, text)]
        if not won:
            self.state.granted[target.key] = ctx.week
        return []

    def week_started(self, ctx: Context) -> None:
        self.state.granted = {}  # last week's freedays count for nothing now
        self.state.duels = {k: r for k, r in self.state.duels.items() if r >= ctx.state.round - 1}

    calendar_reset = week_started
