"""Punishments an admin decides: a rule set `confirm = "admin"` proposes instead of acting.

Contract: `propose` is where `punish` turns when the rule asks for an admin: the step the
offender would reach is kept as a `Proposal` in the shared state (a restart loses none)
and a `propose` action tells the daemon, which shows it to the admins; the ladder is not
climbed. `lapse_due` drops the proposals nobody answered in time (`confirm_minutes`, or
the end of the round for a step that only makes sense in it: a slay a round late would
punish for another day) and says so with a `lapse` action. Confirming and dismissing are
the admins' (`admin.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jailcore.engine.actions import Action, Lapse, Propose
from jailcore.engine.ladder import Step
from jailcore.engine.state import Proposal, Seat
from jailcore.engine.vocabulary import kinds_that
from jailcore.log.logtime import plus_minutes

if TYPE_CHECKING:
    from jailcore.engine.scene import Scene
    from jailcore.engine.settings import RuleSettings

_ROUND_ONLY = kinds_that("round")


def propose(ctx: Scene, key: str, rule: RuleSettings, seat: Seat, ref: str, step: Step, reason: str) -> list[Action]:
    s = ctx.state
    # One question at a time per player and rule: the same name seen at every reconnect,
    # or a link posted five times, is one thing for the admin to judge.
    if any(p.rule == key and p.key == seat.key for p in s.proposals):
        return []
    s.proposed += 1
    p = Proposal(s.proposed, key, ref, str(step), seat.steamid, seat.userid, seat.name, reason, s.round, s.time,
                 plus_minutes(s.time, max(1, rule.confirm_minutes)), step.action in _ROUND_ONLY)
    s.proposals.append(p)
    return [ctx.action(Propose, seat, key, ref, reason, index=p.number, step=p.step)]


def take(ctx: Scene, number: int) -> Proposal | None:
    """The proposal with this number, taken out of the waiting list."""
    p = find(ctx, number)
    if p is not None:
        ctx.state.proposals.remove(p)
    return p


def find(ctx: Scene, number: int) -> Proposal | None:
    return next((p for p in ctx.state.proposals if p.number == number), None)


def lapse_due(ctx: Scene) -> list[Action]:
    s = ctx.state
    out: list[Action] = []
    for p in list(s.proposals):
        round_over = p.round_only and (s.round != p.round or not s.round_open)
        if not round_over and s.time < p.expires:
            continue
        s.proposals.remove(p)
        why = ctx.text("proposal.round_over") if round_over else ctx.text("proposal.timeout", minutes=_minutes(ctx, p))
        seat = ctx.online(p.key) or Seat(p.userid, p.steamid, p.name)
        out.append(ctx.action(Lapse, seat, p.rule, p.ref, ctx.text("proposal.lapsed", number=p.number, why=why),
                              index=p.number, step=p.step))
    return out


def _minutes(ctx: Scene, p: Proposal) -> int:
    rule = ctx.config.rules.get(p.rule)
    return max(1, rule.confirm_minutes) if rule is not None else 0


def public(ctx: Scene) -> list[dict[str, object]]:
    """The waiting proposals, as the standing state shows them."""
    return [{"number": p.number, "rule": p.rule, "ref": p.ref, "step": p.step, "steamid": p.steamid, "name": p.name,
             "reason": p.reason, "round": p.round, "time": p.time, "expires": p.expires, "round_only": p.round_only}
            for p in ctx.state.proposals]
