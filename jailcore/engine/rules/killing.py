"""Who may die in a game, and by whose hand.

- `games.only_warden_kills`: 000 Саймон говорит, Злой Саймон говорит «Убивает только
  Начальник (Исключение — Бунт)», Реакция «Убивает только играющий Н»: another guard who
  kills a prisoner during such a game, unless that prisoner rebelled.
- `games.deaths`: 000 Король «запрещено убивать больше половины от играющих в него
  заключённых» (of 7, 3), Морской бой «до уничтожения половины заключенных… округление в
  сторону меньшего»: the host whose game kills more than half of the prisoners it began with.
- `games.global_suicide`: 001 global 4 «Охране намеренно убивать себя. [Кик, Запрет за Кт]»:
  a guard who kills himself during a global game.
"""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import CT, T
from jailcore.log import events as ev


class OnlyWardenKills(Rule["OnlyWardenKills.Settings", "OnlyWardenKills.State"]):
    key = "games.only_warden_kills"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Саймон а"
        ladder: Ladder = steps("warn", "teamswap")

    @attrs.define
    class State:
        rebels: list[int] = attrs.Factory(list)  # prisoners who attacked a guard during the game

    @handles(ev.GameStarted)
    def started(self, ctx: Context, e: ev.GameStarted) -> list[Action]:
        self.state.rebels = []
        return []

    @handles(ev.Attacked, ev.Killed)
    def hurt(self, ctx: Context, e: ev.Attacked | ev.Killed) -> list[Action]:
        s = ctx.state
        attacker = s.players[e.attacker.userid if isinstance(e, ev.Attacked) else e.killer.userid]
        victim = s.players[e.victim.userid]
        if attacker.team == T and victim.team == CT and attacker.userid not in self.state.rebels:
            self.state.rebels.append(attacker.userid)  # «Исключение — Бунт»
            return []
        game = s.game
        if not isinstance(e, ev.Killed) or game is None or "host_kills" not in game.tags:
            return []
        if attacker.team != CT or victim.team != T or attacker.userid == game.host or victim.userid in self.state.rebels:
            return []
        return ctx.punish(self.key, attacker, ctx.text("games.only_warden_kills", game=game.name, victim=victim.name))

    def round_cleared(self, ctx: Context) -> None:
        self.state.rebels = []


class HalfMayDie(Rule["HalfMayDie.Settings", "HalfMayDie.State"]):
    key = "games.deaths"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Король"
        ladder: Ladder = steps("warn", "teamswap")

    @attrs.define
    class State:
        playing: int = 0  # prisoners alive when the game began
        died: int = 0
        punished: bool = False

    @handles(ev.GameStarted)
    def started(self, ctx: Context, e: ev.GameStarted) -> list[Action]:
        mine = self.state
        mine.playing, mine.died, mine.punished = len(ctx.alive(T)), 0, False
        return []

    @handles(ev.Killed)
    def died(self, ctx: Context, e: ev.Killed) -> list[Action]:
        """Only the guards' kills count: the game's dead are those it sends to death, not a
        prisoner another prisoner killed, nor one jailcore slew."""
        s, mine = ctx.state, self.state
        killer, victim = s.players.get(e.killer.userid), s.players.get(e.victim.userid)
        if s.game is None or "half" not in s.game.tags or victim is None or victim.team != T or mine.punished:
            return []
        if killer is None or killer.team != CT:
            return []
        mine.died += 1
        if mine.died <= mine.playing // 2:
            return []
        host = s.players.get(s.game.host)
        if host is None:
            return []
        mine.punished = True
        text = ctx.text("games.deaths", game=s.game.name, died=mine.died, playing=mine.playing, most=mine.playing // 2)
        return ctx.punish(self.key, host, text)


class GlobalSuicide(Rule["GlobalSuicide.Settings", None]):
    key = "games.global_suicide"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Глобальные 4"
        ladder: Ladder = steps("kick", "ctban 30m")

    @handles(ev.Suicide)
    def suicide(self, ctx: Context, e: ev.Suicide) -> list[Action]:
        s = ctx.state
        seat = s.players[e.player.userid]
        if seat.userid in s.slain or seat.team != CT or s.game is None or "global" not in s.game.tags:
            return []  # our own slay is not a guard killing himself
        return ctx.punish(self.key, seat, ctx.text("games.global_suicide", game=s.game.name))
