"""`fairness.guard_freekill`: 001 Охрана 11 (Запрещено) «Убивать, Ранить игроков и выдать ФД
без причины. [Кик, Бан до 30 минут, Запрет за Кт]»: a prisoner's FreeKill or FreeDamage
report that an admin confirmed (`!fk`, `jb_freekill`, the same path as 004 4.5's
compensation) climbs the ladder of the guard of that kill: the prisoner's last death at a
guard's hand (FreeDamage: the guard who last hurt him), in this round or the one before (an
admin types `!fk` after the round's end, or early in the next), and the finding names it.
The admin's confirmation is the finding; the log only names the guard. A guard who has
left since is decided as any leaver (`punish.py`)."""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import CT, Seat, T
from jailcore.log import events as ev


@attrs.define
class Blow:
    """A guard's kill of a prisoner, or his damage: who, when, in which round."""

    guard: int
    steamid: str
    name: str
    round: int
    time: str


class GuardFreekill(Rule["GuardFreekill.Settings", "GuardFreekill.State"]):
    key = "fairness.guard_freekill"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Охрана 11"
        ladder: Ladder = steps("kick", "ban 30m", "ctban 30m")

    @attrs.define
    class State:
        killed: dict[str, Blow] = attrs.Factory(dict)  # prisoner's key -> his last death at a guard's hand
        hurt: dict[str, Blow] = attrs.Factory(dict)  # prisoner's key -> the guard who last hurt him

    @handles(ev.Attacked, ev.Killed)
    def blow(self, ctx: Context, e: ev.Attacked | ev.Killed) -> list[Action]:
        s = ctx.state
        guard = s.players.get(e.attacker.userid if isinstance(e, ev.Attacked) else e.killer.userid)
        prisoner = s.players.get(e.victim.userid)
        if guard is not None and prisoner is not None and guard.team == CT and prisoner.team == T:
            blow = Blow(guard.userid, guard.steamid, guard.name, s.round, e.time)
            self.state.hurt[prisoner.key] = blow
            if isinstance(e, ev.Killed):
                self.state.killed[prisoner.key] = blow
        return []

    @handles(ev.FreekillConfirmed)
    def confirmed(self, ctx: Context, e: ev.FreekillConfirmed) -> list[Action]:
        victim = ctx.player(e.victim)
        if victim is None:
            return []
        blow = (self.state.hurt if e.damage_only else self.state.killed).get(victim.key)
        if blow is None or blow.round < ctx.state.round - 1:
            return []
        guard = ctx.player(blow.guard)
        if guard is None or guard.steamid != blow.steamid:  # gone since (or his userid is another's now)
            gone = Seat(blow.guard, blow.steamid, blow.name)
            guard = ctx.online(gone.key) or gone
        text = ctx.text("fairness.guard_freekill.damage" if e.damage_only else "fairness.guard_freekill", victim=victim.name,
                        guard=blow.name, time=blow.time[11:19], round=blow.round)
        return ctx.punish(self.key, guard, text)

    def round_cleared(self, ctx: Context) -> None:
        # a finding reaches back one round: an `!fk` typed after the round, or early in the next
        keep = ctx.state.round - 1
        for blows in (self.state.killed, self.state.hurt):
            for key in [k for k, b in blows.items() if b.round < keep]:
                del blows[key]
