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
    """000 Король «запрещено убивать больше половины от играющих в него заключённых» (of 7,
    3) and Морской бой «до уничтожения половины заключенных… округление в сторону меньшего».
    Both games end when half have died (the bookkeeping ends them), so a kill after that is
    not the game's. A kill in the same volley (`volley_seconds` after the half was reached)
    is still the game's in Король; in Морской бой the admiral's last cell may take more
    than the half by the game's own rules (tag `cells`). Rebels' deaths are not the game's."""

    key = "games.deaths"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Король"
        volley_seconds: int = 1
        ladder: Ladder = steps("warn", "teamswap")

    @attrs.define
    class State:
        name: str = ""  # the game of half that reached its half this round
        host: int = 0
        playing: int = 0
        died: int = 0
        at: str = ""  # when it reached its half
        punished: bool = False

    @handles(ev.Killed)
    def died(self, ctx: Context, e: ev.Killed) -> list[Action]:
        """Only the guards' kills count: the game's dead are those it sends to death, not a
        prisoner another prisoner killed, nor one jailcore slew, nor a rebel."""
        s, mine = ctx.state, self.state
        killer, victim = s.players.get(e.killer.userid), s.players.get(e.victim.userid)
        if victim is None or victim.team != T or killer is None or killer.team != CT or victim.userid in s.rebels:
            return []
        game = s.game
        if game is not None and "half" in game.tags and game.playing >= 2:
            died = game.died + 1  # the bookkeeping counts this kill after the rules
            if died >= game.playing // 2:
                mine.name, mine.host, mine.playing, mine.died, mine.at, mine.punished = game.name, game.host, game.playing, died, s.time, False
            return []
        if game is not None or not mine.at or mine.punished or ctx.seconds_since(mine.at) > self.settings.volley_seconds:
            return []
        found = ctx.offered_game(mine.name)
        if found is not None and "cells" in found.tags:
            return []
        mine.died += 1
        host = s.players.get(mine.host)
        if host is None:
            return []
        mine.punished = True
        text = ctx.text("games.deaths", game=mine.name, died=mine.died, playing=mine.playing, most=mine.playing // 2)
        return ctx.punish(self.key, host, text)

    def round_cleared(self, ctx: Context) -> None:
        self.state.at, self.state.punished = "", False


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
