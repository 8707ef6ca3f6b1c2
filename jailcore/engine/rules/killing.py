"""Who may die in a game, and by whose hand.

- `games.only_warden_kills`: 000 Саймон говорит, Злой Саймон говорит «Убивает только
  Начальник (Исключение — Бунт)», Реакция «Убивает только играющий Н»: a guard, neither the
  warden at that moment nor the game's host, who kills a prisoner during such a game,
  unless that prisoner attacked a guard earlier in the round.
- `games.deaths`: 000 Король «запрещено убивать больше половины от играющих в него
  заключённых» (of 7, 3), Морской бой «до уничтожения половины заключенных… округление в
  сторону меньшего»: the game ends at the half; a guard's kill past it before anything else
  happens in the round is put to an admin on the host's ladder (Морской бой's last cell may
  pass it).
- `games.global_suicide`: 001 global 4 «Охране намеренно убивать себя. [Кик, Запрет за Кт]»:
  a guard who kills himself during a global game.
"""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import CT, VOLLEY_SECONDS, T
from jailcore.log import events as ev
from jailcore.log.logtime import seconds_between


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
    него заключённых» (of 7, 3) and «Завершение: Игра завершается тогда, когда умрет
    половина заключенных (при обоих королях)»; Морской бой «Игра ведется до уничтожения
    половины заключенных». The game is over at the half (the bookkeeping ends it). A guard's
    kill past the half before anything else happens in the round (an order, a prohibition, a
    game or its end, a special day, a freeday, a last request, a new warden: `state.half`) is
    what the clause forbids, but the log cannot tell the volley's last shot from the next
    thing: it is put to an admin, on the host's ladder, once a game; after anything else it
    is not the game's, and is judged as any kill. Морской бой's last cell may hold more than
    the half needs: its volley (kills a second apart from the one that reached the half) is
    the game's own. Rebels' deaths are not the game's, nor a prisoner another prisoner
    killed, nor one jailcore slew."""

    key = "games.deaths"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Король"
        ladder: Ladder = steps("warn", "teamswap")

    @attrs.define
    class State:
        punished: str = ""  # the start of the game its host was asked about: once a game

    @handles(ev.Killed)
    def died(self, ctx: Context, e: ev.Killed) -> list[Action]:
        s, mine, half = ctx.state, self.state, ctx.state.half
        killer, victim = s.players.get(e.killer.userid), s.players.get(e.victim.userid)
        if half is None or victim is None or victim.team != T or killer is None or killer.team != CT or victim.userid in s.rebels:
            return []
        if s.specialday_name or mine.punished == f"{half.started}|{half.host}":
            return []
        if half.cells and seconds_between(half.at, e.time) <= VOLLEY_SECONDS:
            return []  # the last cell's volley (the bookkeeping carries it on)
        host = ctx.player(half.host)
        if host is None:
            return []
        mine.punished = f"{half.started}|{half.host}"
        most = half.playing // 2
        text = ctx.text("games.deaths.past_half", game=half.game, most=most, playing=half.playing, died=half.died + 1,
                        killer=killer.name, victim=victim.name, seconds=seconds_between(half.at, e.time))
        return ctx.punish(self.key, host, text, judgement=True)

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
