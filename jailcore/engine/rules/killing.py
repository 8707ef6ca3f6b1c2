"""Who may die in a game, and by whose hand.

- `games.only_warden_kills`: 000 Саймон говорит, Злой Саймон говорит «Убивает только
  Начальник (Исключение — Бунт)», Реакция «Убивает только играющий Н»: a guard, neither the
  warden at that moment nor the game's host, who kills a prisoner during such a game,
  unless that prisoner attacked a guard earlier in the round.
- `games.deaths`: 000 Король «запрещено убивать больше половины от играющих в него
  заключённых» (of 7, 3), Морской бой «до уничтожения половины заключенных… округление в
  сторону меньшего»: the host whose game kills more than half of the prisoners it began with
  (the game ends at the half; Морской бой's last cell may pass it).
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


class OnlyWardenKills(Rule["OnlyWardenKills.Settings", None]):
    """«Убивает только Начальник»: the warden as he is at the kill (after a hand-over, the
    new one), or the game's own host (Реакция «Убивает только играющий Н»); a prisoner who
    attacked a guard earlier in the round is a rebel and may be killed by any guard."""

    key = "games.only_warden_kills"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Саймон а"
        ladder: Ladder = steps("warn", "teamswap")

    @handles(ev.Killed)
    def killed(self, ctx: Context, e: ev.Killed) -> list[Action]:
        s = ctx.state
        game = s.game
        if game is None or "host_kills" not in game.tags:
            return []
        killer, victim = s.players[e.killer.userid], s.players[e.victim.userid]
        if killer.team != CT or victim.team != T or killer.userid in (game.host, s.warden, *s.moved) or victim.userid in s.rebels:
            return []
        return ctx.punish(self.key, killer, ctx.text("games.only_warden_kills", game=game.name, victim=victim.name))


class HalfMayDie(Rule["HalfMayDie.Settings", "HalfMayDie.State"]):
    """000 Король «В злом и добром короле запрещено убивать больше половины от играющих в
    него заключённых» (of 7, 3): the game is its host's until he ends it or the round ends,
    so every guard's kill in it counts, however long after the half; the host is punished
    once per game when one passes the half. Rebels' deaths are not the game's, nor a
    prisoner another prisoner killed, nor one jailcore slew. Морской бой (tag `cells`) ends
    itself at the half (the bookkeeping ends it), and its last volley may take more by the
    game's own rules («Н убивают всех, кто находится в выбранной клетке»)."""

    key = "games.deaths"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Король"
        ladder: Ladder = steps("warn", "teamswap")

    @attrs.define
    class State:
        punished: str = ""  # the start of the game its host was punished for: once a game

    @handles(ev.Killed)
    def died(self, ctx: Context, e: ev.Killed) -> list[Action]:
        s, mine = ctx.state, self.state
        killer, victim, game = s.players.get(e.killer.userid), s.players.get(e.victim.userid), s.game
        if victim is None or victim.team != T or killer is None or killer.team != CT or victim.userid in s.rebels:
            return []
        if game is None or "half" not in game.tags or "cells" in game.tags or game.playing < 2 or s.specialday_name:
            return []
        died = game.died + 1  # the bookkeeping counts this kill after the rules
        most = game.playing // 2
        if died <= most or mine.punished == f"{game.started}|{game.host}":
            return []
        host = ctx.player(game.host)
        if host is None:
            return []
        mine.punished = f"{game.started}|{game.host}"
        return ctx.punish(self.key, host, ctx.text("games.deaths", game=game.name, died=died, playing=game.playing, most=most))

    def round_cleared(self, ctx: Context) -> None:
        self.state.punished = ""


class GlobalSuicide(Rule["GlobalSuicide.Settings", None]):
    """001 Глобальные 4 «Охране намеренно убивать себя»: «намеренно» is what the log cannot
    see: a guard's own grenade or fire is no intent at all, and `world` is both the console's
    `kill` and a fall, so an admin judges (`confirm = "admin"` by default)."""

    key = "games.global_suicide"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Глобальные 4"
        confirm: str = attrs.field(default="admin", metadata={"choices": ("admin", "none")})
        unintended: tuple[str, ...] = ("hegrenade", "inferno", "molotov", "incgrenade", "env_explosion", "env_fire")
        ladder: Ladder = steps("kick", "ctban 30m")

    @handles(ev.Suicide)
    def suicide(self, ctx: Context, e: ev.Suicide) -> list[Action]:
        s = ctx.state
        seat = s.players[e.player.userid]
        if seat.userid in s.slain or seat.team != CT or s.game is None or "global" not in s.game.tags:
            return []  # our own slay is not a guard killing himself
        if e.weapon in self.settings.unintended:
            return []  # his own grenade: not «намеренно»
        return ctx.punish(self.key, seat, ctx.text("games.global_suicide", game=s.game.name))
