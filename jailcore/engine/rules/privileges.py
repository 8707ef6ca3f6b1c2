"""Privileges during games (rulebook 001, players with privileges), opt-in.

- `conduct.game_privileges`: Привилегии 3 «Любые привилегии во время любых игр (мини игры
  Начальника, глобальные и тд.) [Предупреждение/Убийство игрока/Снятие привилегий]» and
  Хук 7 «Использовать во время любых игр (мини игры Начальника, глобальные и тд.)»
  [Предупреждение/Бан до 6 часов/Снятие привилегий]: a privilege the shim reports
  (`JailCore_ReportPrivilege`, `jb_privilege`) while a game is played. The hook is
  quoted by its own clause (`hook_ref`). Off unless configured: it sees only the
  privileges a server's VIP plugins report, and only the games announced with `!game`.
"""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.log import events as ev


class GamePrivileges(Rule["GamePrivileges.Settings", "GamePrivileges.State"]):
    key = "conduct.game_privileges"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Привилегии 3"
        hook_ref: str = "Хук 7"
        hook: tuple[str, ...] = ("hook", "grab", "хук")  # the kinds that are the hook
        allowed: tuple[str, ...] = ()  # kinds a server lets through during games
        ladder: Ladder = steps("warn", "slay")

    @attrs.define
    class State:
        asked: str = ""  # the game (its start and host) an admin was asked about since the warden's new order: once a game

    @handles(ev.PrivilegeUsed)
    def used(self, ctx: Context, e: ev.PrivilegeUsed) -> list[Action]:
        s, rule = ctx.state, self.settings
        game = s.game
        if not s.round_open or game is None or e.privilege in rule.allowed:
            return []
        ref = rule.hook_ref if e.privilege.casefold() in (h.casefold() for h in rule.hook) else rule.ref
        text = ctx.text("conduct.game_privileges", kind=e.privilege, game=game.name)
        if game.after:
            # The warden's new order since: the game may have ended by voice. An admin is
            # asked about the first privilege after it, once a game.
            if self.state.asked == f"{game.started}|{game.host}":
                return []
            self.state.asked = f"{game.started}|{game.host}"
            return ctx.punish(self.key, ctx.seat(e.player), text + " " + ctx.text("games.after", order=game.after), ref=ref, judgement=True)
        return ctx.punish(self.key, ctx.seat(e.player), text, ref=ref)

    def round_cleared(self, ctx: Context) -> None:
        self.state.asked = ""
