"""Admins' word, as the session carries it out: pardons, CT bans given or lifted outside the
game, and the answers to proposals (`confirm = "admin"`), whichever door they came in by (the
command line, the web page, MQTT, `!jc...` in game: all are rows in the store).

Contract: `apply(session, rows)` carries out each row once, in order, through the engine, and
marks it applied; `decided(session, action)` records a proposal (`proposed`: no command goes to
the game) or its lapse. A confirmation is judged against the proposal's own round and expiry
when it is applied: one that comes after its round ended, or after it lapsed, is not carried
out. A confirmation for a player who is away waits (the admin is told once) until he is back
or the proposal lapses. A pardon goes out on MQTT like the enforcement it undoes, and a CT ban
it lifts is lifted on every server.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol

import attrs

from jailcore.config.config import Config
from jailcore.engine import admin as engine_admin
from jailcore.engine import proposals
from jailcore.engine.actions import Action, AuditStatus, kind_name
from jailcore.engine.engine import Engine
from jailcore.engine.ladder import parse_step
from jailcore.log import shapes
from jailcore.log.inbound import Refusals
from jailcore.session import inputs as i
from jailcore.session.effects import Applied, CloseAppeals, Effect, Mark, NoteAnswer, RequestTable, TellPeers, Write

log = logging.getLogger("jailcore")

# What the admins online read, in the server's language.
SAID = {
    "ru": {"gone": "больше не ждёт решения: истекло или уже решено", "dismissed": "отклонено: {by}",
           "away": "предупреждение от {by} не передано: {who} не на сервере"},
    "en": {"gone": "no longer waits: it lapsed or was answered", "dismissed": "dismissed by {by}",
           "away": "the warning by {by} was not given: {who} is not on the server"},
}
PROPOSED: AuditStatus = "proposed"


def step_text(lang: str, step: str) -> str:
    """`ban 0` as admins read it: «бан навсегда», `ctban 30m` «запрет за КТ 30m»."""
    parsed = parse_step(step)
    name = kind_name(lang, parsed.action)
    if parsed.action == "ban" and parsed.minutes == 0:
        return f"{name} {'навсегда' if lang == 'ru' else 'for ever'}"
    rest = step.split(" ", 1)[1] if " " in step else ""
    return f"{name} {rest}".strip()


class Ids(Protocol):
    last: int


class Session(Protocol):
    """What the admins' desk uses of the session: its public face, nothing private."""

    config: Config
    engine: Engine
    server: str
    proposals: dict[int, int]
    wall: str
    dirty: bool
    desk: Desk

    @property
    def ids(self) -> Ids: ...

    def record(self, action: Action, command: str | None, status: AuditStatus) -> list[Effect]: ...
    def carry_out(self, actions: list[Action], sweep: bool = False) -> list[Effect]: ...
    def dispatch(self, action: Action) -> list[Effect]: ...
    def flush(self) -> list[Effect]: ...
    def say_to_admins(self, text: str) -> None: ...
    def network_ban(self, steamid: str, why: str) -> list[Effect]: ...
    def network_lift(self, steamid: str, by: str, why: str) -> TellPeers: ...
    def publish(self, row_id: int, status: str, action: Action | dict[str, Any], reply: str | None = None, **extra: Any) -> list[Effect]: ...


class Desk:
    """The requests this session carried out and the notes it gave, until the store says so too:
    a row polled again before its `applied` is durable is not carried out twice. A row no tool
    of ours wrote (a bad detail, a steamid that is none) is refused, logged once per cause and
    marked applied, never carried out."""

    def __init__(self) -> None:
        self.applied: set[tuple[str, int]] = set()
        self.noted: dict[int, str] = {}
        self.refused = Refusals("a request row")


def said(s: Session, key: str, **values: str) -> str:
    return SAID.get(s.config.language, SAID["ru"])[key].format(**values)


# -- from the engine --------------------------------------------------------------------------


def decided(s: Session, action: Action) -> list[Effect]:
    if action.action == "propose":
        out = s.record(action, None, PROPOSED)
        row_id = s.ids.last
        s.proposals[action.index or 0] = row_id
        s.say_to_admins(f"[jailcore #{row_id}] ? {step_text(s.config.language, action.step or '')} {action.target.name if action.target else ''} "
                        f"({action.ref} {action.rule}) — !jcconfirm {row_id} / !jcdismiss {row_id}")
        return out
    lapsed = s.proposals.pop(action.index or 0, None)
    out = []
    if lapsed is not None:
        out.append(Write(Mark(lapsed, "expired", action.reason)))
        out += s.publish(lapsed, "expired", action, action.reason)
    log.info("proposal #%s (%s %s) expired: %s", lapsed, action.rule, action.step, action.reason)
    s.say_to_admins(f"[jailcore #{lapsed}] {action.reason}")
    return out


# -- from the admins --------------------------------------------------------------------------


def apply(s: Session, rows: i.AdminRequests) -> list[Effect]:
    seen = ({("pardons", r.id) for r in rows.pardons} | {("ctban_requests", r.id) for r in rows.ctbans}
            | {("answers", r.id) for r in rows.answers} | {("act_requests", r.id) for r in rows.acts})
    s.desk.applied &= seen  # a row the store no longer returns is durable as applied: forgotten here
    out: list[Effect] = []
    for pardon in rows.pardons:
        if _once(s, "pardons", pardon.id):
            out += _guarded(s, "pardons", pardon.id, partial(_pardon, s, pardon))
    for ban in rows.ctbans:
        if _once(s, "ctban_requests", ban.id):
            out += _guarded(s, "ctban_requests", ban.id, partial(_ctban, s, ban))
    for answer in rows.answers:
        if ("answers", answer.id) not in s.desk.applied:
            out += _guarded(s, "answers", answer.id, partial(_answer, s, answer))
    for act in rows.acts:
        if _once(s, "act_requests", act.id):
            out += _guarded(s, "act_requests", act.id, partial(_act, s, act))
    return out + s.flush()


def _guarded(s: Session, table: RequestTable, row_id: int, carry: Callable[[], list[Effect]]) -> list[Effect]:
    """One row's bug stays that row's: logged and marked applied, never carried out again and
    again (a request reader that crash-loops on one row serves no other)."""
    try:
        return carry()
    except Exception:
        log.exception("the admin's request %s #%s could not be carried out; it is marked applied and said here", table, row_id)
        return [_applied(s, table, row_id)]


def _once(s: Session, table: str, row_id: int) -> bool:
    if (table, row_id) in s.desk.applied:
        return False
    s.desk.applied.add((table, row_id))
    return True


def _applied(s: Session, table: RequestTable, row_id: int) -> Write:
    s.desk.applied.add((table, row_id))
    return Write(Applied(table, row_id, s.wall))


def _pardon(s: Session, row: i.PardonRow) -> list[Effect]:
    entry = shapes.detail_row(row.detail, s.desk.refused, f"pardon {row.id}")
    out: list[Effect] = [_applied(s, "pardons", row.id)]
    if entry is None:
        return out
    s.dirty = True
    out += s.carry_out(s.engine.pardon(entry, row.by, row.reason))
    out += s.publish(row.action_id, "pardoned", entry, pardon={"by": row.by, "reason": row.reason})
    # An appeal of it still open (the pardon came by another road: the command line, the game, SourceBans++) is answered by it.
    out.append(Write(CloseAppeals(s.server, (row.action_id,), (), row.by, row.reason or f"pardon {row.id}", s.wall)))
    target = entry.get("target") or {}
    if entry.get("action") == "ctban" and target.get("steamid"):
        out.append(s.network_lift(target["steamid"], row.by, f"pardon {row.id}"))
    log.info("pardon of %s by %s applied: %s", entry.get("rule"), row.by, row.reason)
    return out


def _ctban(s: Session, row: i.CtBanRow) -> list[Effect]:
    if shapes.ctban_row(attrs.asdict(row), s.desk.refused) is None:
        return [_applied(s, "ctban_requests", row.id)]
    s.dirty = True
    if not s.engine.state.time and s.wall:  # before the server's first line its clock is unknown: the box's stands in
        s.engine.state.time = s.wall
    if row.lift:
        actions = s.engine.lift_ctban(row.steamid, row.by, row.reason)
    else:
        actions = s.engine.give_ctban(row.steamid, row.name, row.minutes, row.rounds, row.reason, row.by)
    out: list[Effect] = [_applied(s, "ctban_requests", row.id)]
    out += s.carry_out(actions)
    if row.lift:
        out.append(s.network_lift(row.steamid, row.by, f"request {row.id}"))
    elif not any(a.action == "ctban" for a in actions):  # he is offline: no row of ours shares it
        out += s.network_ban(row.steamid, f"request {row.id}")
    return out


def _act(s: Session, row: i.ActRow) -> list[Effect]:
    """An admin's warning or server ban from the web page: the engine's admin act, carried out
    and audited as a rule's punishment is (a ban reaches a player who has left by his SteamID)."""
    out: list[Effect] = [_applied(s, "act_requests", row.id)]
    if shapes.act_row(attrs.asdict(row), s.desk.refused) is None:
        return out
    s.dirty = True
    if not s.engine.state.time and s.wall:  # before the server's first line its clock is unknown: the box's stands in
        s.engine.state.time = s.wall
    actions = engine_admin.act(s.engine.ctx, row.steamid, row.name, row.act, row.minutes, row.reason, row.by)
    if not actions:
        s.say_to_admins(f"[jailcore] {said(s, 'away', by=row.by, who=row.name or row.steamid)}")
    log.info("%s of %s by %s applied: %s", row.act, row.steamid, row.by, row.reason)
    return out + s.carry_out(actions)


def _answer(s: Session, row: i.AnswerRow) -> list[Effect]:
    detail = shapes.detail_row(row.detail, s.desk.refused, f"answer {row.id}")
    if detail is None:
        return [_applied(s, "answers", row.id)]
    number, proposal = int(detail.get("index") or 0), row.action_id
    s.dirty = True
    # Judged against the proposal's own round and expiry, as they stand now: a slay confirmed
    # after its round ended is not carried out, even before the next line lapses it.
    out: list[Effect] = []
    for action in proposals.lapse_due(s.engine.ctx):
        out += s.dispatch(action)
    if row.answer == "dismiss":
        out.append(_applied(s, "answers", row.id))
        if s.engine.dismiss(number):
            reply = f"by {row.by}: {row.reason or '-'}"
            s.proposals.pop(number, None)
            out += [Write(Mark(proposal, "dismissed", reply)), *s.publish(proposal, "dismissed", detail, reply)]
            s.say_to_admins(f"[jailcore #{proposal}] {said(s, 'dismissed', by=row.by)}")
            log.info("proposal #%s dismissed by %s: %s", proposal, row.by, row.reason)
        else:
            s.say_to_admins(f"[jailcore #{proposal}] {said(s, 'gone')}")
        return out
    actions, why = s.engine.confirm(number, row.by)
    if why is not None and why != "gone":  # the player is away: the answer waits for him
        if row.note != why and s.desk.noted.get(row.id) != why:
            s.desk.noted[row.id] = why
            out.append(Write(NoteAnswer(row.id, why)))
            s.say_to_admins(f"[jailcore #{proposal}] {why}")
        return out
    s.desk.noted.pop(row.id, None)
    out.append(_applied(s, "answers", row.id))
    if why == "gone":
        s.say_to_admins(f"[jailcore #{proposal}] {said(s, 'gone')}")
        return out
    reply = f"by {row.by}"
    s.proposals.pop(number, None)
    out += [Write(Mark(proposal, "confirmed", reply)), *s.publish(proposal, "confirmed", detail, reply)]
    log.info("proposal #%s confirmed by %s", proposal, row.by)
    return out + s.carry_out(actions)
