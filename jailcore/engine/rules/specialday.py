"""Special days at most once in N rounds (000 6.5 «Особые дни разрешены раз в 3 раунда»):
a special day on round R allows the next on R+N at the earliest."""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.log import events as ev


class SpecialDayCooldown(Rule["SpecialDayCooldown.Settings", None]):
    key = "specialday.cooldown"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "6.5"
        rounds: int = 3
        ladder: Ladder = steps("slay", "ctban 30m")

    @handles(ev.SpecialDay)
    def too_soon(self, ctx: Context, e: ev.SpecialDay) -> list[Action]:
        """The warden is punished, but the day is played in game all the same: the bookkeeping
        has recorded it (the rules that spare a special day, rebellion, teamkill, the host's
        death, spare it too), and «раз в 3 раунда» counts from it, as from any day played.
        `specialday` is still the round of the day before it: the bookkeeping writes this
        one's once the rules have seen the line."""
        s, rounds = ctx.state, self.settings.rounds
        if s.specialday is None or s.round >= s.specialday + rounds or (s.round_open and s.specialday == s.round):
            return []  # announced again in its own round: still the one day, judged once
        nxt = s.specialday + rounds
        text = ctx.text("specialday.cooldown", rounds=rounds, left=nxt - s.round, next=nxt)
        return ctx.punish(self.key, ctx.seat(e.player), text)
