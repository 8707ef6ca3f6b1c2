"""The game week: one round is one day, round 1 of the week is Monday (its freedays are
in `freedays.py`).

- `calendar.global_games`: 001 global 1: a global game at most twice a game week.
- `calendar.rebellion`: 001 prisoners 5 «Запрещено бунтовать 2 раза подряд за игровую
  неделю»: a prisoner who damages or kills a guard on two days in a row of one week.
"""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.catalogue import fold
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles, vetoes
from jailcore.engine.rules.common import open_fight
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import CT, Seat, T
from jailcore.log import events as ev


class GlobalGames(Rule["GlobalGames.Settings", "GlobalGames.State"]):
    key = "calendar.global_games"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Глобальные 1"
        per_week: int = 2
        ladder: Ladder = steps("teamswap", "ctban 30m")

    @attrs.define
    class State:
        played: int = 0  # global games this game week
        approved: list[str] = attrs.Factory(list)  # «Смотритель может дать разрешение»: games an admin allowed this round
        today: list[str] = attrs.Factory(list)  # global games played this round: the same one again is one game
        rounds: list[int] = attrs.Factory(list)  # the round of each: one voided by a restart is no game played

    @handles(ev.GameApproved)
    def approve(self, ctx: Context, e: ev.GameApproved) -> list[Action]:
        self.state.approved.append(self._key(ctx, e.game))
        return []

    @staticmethod
    def _key(ctx: Context, typed: str) -> str:
        game = ctx.offered_game(typed)
        return fold(game.name if game is not None else typed)

    def round_cleared(self, ctx: Context) -> None:
        self.state.approved, self.state.today = [], []

    @staticmethod
    def _global(ctx: Context, e: ev.GameStarted) -> str | None:
        """The offered game's key if it is a global game (one catalogue look-up)."""
        game = ctx.offered_game(e.game)
        return fold(game.name) if game is not None and "global" in game.tags else None

    @vetoes(ev.GameStarted)
    def third(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        key = self._global(ctx, e)
        if key is None or self.state.played < self.settings.per_week or key in self.state.today or key in self.state.approved:
            return None
        text = ctx.text("calendar.global_games", limit=self.settings.per_week, count=self.state.played)
        return ctx.punish(self.key, ctx.seat(e.player), text)

    @handles(ev.GameStarted)
    def played(self, ctx: Context, e: ev.GameStarted) -> list[Action]:
        game = ctx.state.game  # the bookkeeping has recorded the game
        key = fold(game.name) if game is not None and "global" in game.tags else None
        if key is not None and key not in self.state.today:
            self.state.played += 1
            self.state.today.append(key)
            self.state.rounds.append(ctx.state.round)
        return []

    @handles(ev.RoundStart)
    def again(self, ctx: Context, e: ev.RoundStart) -> list[Action]:
        """A round voided by a restart (`mp_restartgame`) is played again under its number:
        a global game announced in it was never played."""
        voided = [r for r in self.state.rounds if r >= ctx.state.round]
        if voided:
            self.state.played = max(0, self.state.played - len(voided))
            self.state.rounds = [r for r in self.state.rounds if r < ctx.state.round]
        return []

    def week_started(self, ctx: Context) -> None:
        self.state.played, self.state.rounds = 0, []

    calendar_reset = week_started


class Rebellion(Rule["Rebellion.Settings", "Rebellion.State"]):
    key = "calendar.rebellion"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Заключённые 5"
        # a 10-minute ban on a reading of damage lines (a stray bullet is no бунт): an admin confirms
        confirm: str = attrs.field(default="admin", metadata={"choices": ("admin", "none")})
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
        if open_fight(s):
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
