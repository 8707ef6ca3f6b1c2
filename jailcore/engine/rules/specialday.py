"""Special days at most once in N rounds (000 6.5 «Особые дни разрешены раз в 3 раунда»):
a special day on round R allows the next on R+N at the earliest."""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, vetoes
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.log import events as ev


class SpecialDayCooldown(Rule["SpecialDayCooldown.Settings", None]):
    key = "specialday.cooldown"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "6.5"
        rounds: int = 3
        ladder: Ladder = steps("slay", "ctban 30m")

    @vetoes(ev.SpecialDay)
    def too_soon(self, ctx: Context, e: ev.SpecialDay) -> list[Action] | None:
        s, rounds = ctx.state, self.settings.rounds
        if s.specialday is None or s.round >= s.specialday + rounds or s.specialday_name is not None:
            return None  # announced again in its own round: still the one day, judged once
        nxt = s.specialday + rounds
        text = ctx.text("specialday.cooldown", rounds=rounds, left=nxt - s.round, next=nxt)
        # The warden is punished, but the day is played in game all the same: the rules that
        # spare a special day (rebellion, teamkill, the host's death) must spare it too, and
        # «раз в 3 раунда» counts from it, as from any day played.
        s.specialday_name = e.day
        s.specialday = s.round
        return ctx.punish(self.key, ctx.seat(e.player), text)
