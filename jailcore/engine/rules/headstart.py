"""A global game's head start (rulebook 001, global games), opt-in.

- `games.head_start`: Глобальные 2 «После открытия клеток, дать заключенным от 15 до 30
  секунд, чтобы разбежаться.» [Перевод за Заключенных, Запрет за Охрану]: a guard who
  kills a prisoner within `seconds` (the clause's lower bound, 15) of a global game's
  start. The log shows the game's announcement, not the cells opening, which comes at it
  or after it: counting from the announcement never punishes a kill the clause allows.
  A prisoner who attacked a guard since is a rebel and may be killed.
"""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import CT, T
from jailcore.log import events as ev


class HeadStart(Rule["HeadStart.Settings", "HeadStart.State"]):
    key = "games.head_start"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Глобальные 2"
        seconds: int = 15
        ladder: Ladder = steps("teamswap", "ctban 30m")

    @attrs.define
    class State:
        rebels: list[int] = attrs.Factory(list)  # prisoners who attacked a guard since the game began
        game: str = ""  # the round's global game as first announced
        since: str = ""  # and when: the warden who types it again starts no new head start

    @handles(ev.GameStarted)
    def started(self, ctx: Context, e: ev.GameStarted) -> list[Action]:
        game = ctx.state.game
        if game is not None and game.name == self.state.game and self.state.since:
            return []  # «!game прятки», «!game Прятки»: one game, one head start, from the first
        self.state.rebels = []
        self.state.game, self.state.since = (game.name, game.started) if game is not None else ("", "")
        return []

    @handles(ev.Attacked, ev.Killed)
    def hurt(self, ctx: Context, e: ev.Attacked | ev.Killed) -> list[Action]:
        s = ctx.state
        game = s.game
        if game is None or "global" not in game.tags:
            return []
        attacker = s.players.get(e.attacker.userid if isinstance(e, ev.Attacked) else e.killer.userid)
        victim = s.players.get(e.victim.userid)
        if attacker is None or victim is None:
            return []
        if attacker.team == T and victim.team == CT:
            if attacker.userid not in self.state.rebels:
                self.state.rebels.append(attacker.userid)
            return []
        if not isinstance(e, ev.Killed) or attacker.team != CT or victim.team != T or victim.userid in self.state.rebels:
            return []
        first = self.state.since if self.state.game == game.name and self.state.since else game.started
        since = ctx.played_since(first)  # the freeze period is no one's head start
        if since >= self.settings.seconds:
            return []
        text = ctx.text("games.head_start", game=game.name, victim=victim.name, seconds=int(since), need=self.settings.seconds)
        return ctx.punish(self.key, attacker, text)

    def round_cleared(self, ctx: Context) -> None:
        self.state.rebels, self.state.game, self.state.since = [], "", ""
