"""The door to CT.

- `ctban`: a player banned from CT (by any rule's ladder, by an admin, or on another server
  of the network) who joins CT is moved back, with the time left.
- `ctban.return_block`: 001 guards 11 «Не заходить обратно за КТ 3 игровых раунда»: a guard
  moved to T under the rules may not come back for 3 rounds.
The bans themselves are kept in `punish.py`, where the ladders give them.
"""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.punish import active_ban, door_action, move_to_t, time_left
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import RuleSettings
from jailcore.engine.state import CtBan
from jailcore.log import events as ev


class CtBanDoor(Rule["CtBanDoor.Settings", None]):
    key = "ctban"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = ""

    def _applies(self, rule: str) -> bool:
        return rule != "ctban.return_block"

    def _message(self, ctx: Context, ban: CtBan) -> str:
        return ctx.text("ctban", left=time_left(ctx, ban))

    @handles(ev.Validated, ev.Entered)
    def arrived(self, ctx: Context, e: ev.Validated | ev.Entered) -> list[Action]:
        """A banned player who (re)connects gets his ban at the shim's door before he can
        pick a team: a ban given while he was away (`jailcore ctban add`, the network)
        would otherwise catch him only after his join to CT."""
        seat = ctx.state.players.get(e.player.userid)
        if seat is None or seat.key.startswith("#"):
            return []
        ban = active_ban(ctx, seat)
        if ban is None or not self._applies(ban.rule):
            return []
        return [door_action(ctx, seat, ban)]

    @handles(ev.JoinedTeam)
    def joined(self, ctx: Context, e: ev.JoinedTeam) -> list[Action]:
        seat = ctx.state.players[e.player.userid]
        if e.new != ev.CT or seat.team != ev.CT:
            return []
        ban = active_ban(ctx, seat)
        if ban is None or not self._applies(ban.rule):
            return []
        reason = ctx.quoting(ban.ref, self._message(ctx, ban))
        return move_to_t(ctx, seat, self.key, ban.ref, reason, block=False)


class ReturnBlock(CtBanDoor):
    key = "ctban.return_block"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Охрана 11"
        rounds: int = 3
        # «…если Вас перевели по следующим причинам: Нарушение баланса, Незнание правил,
        # Плохое командование, Плохой микрофон»: the rules whose move to T blocks a return;
        # "ladder": any rule's ladder step (a move for breaking a rule is «Незнание правил»
        # or «Плохое командование»).
        after: tuple[str, ...] = ("teams.balance", "ladder")

    def _applies(self, rule: str) -> bool:
        return rule == "ctban.return_block"

    def _message(self, ctx: Context, ban: CtBan) -> str:
        return ctx.text("ctban.return_block", left=ban.rounds)
