"""Admins' word, as the session carries it out: pardons, CT bans given or lifted outside the
game, admins' acts from the web page, and the answers to proposals (`confirm = "admin"`),
whichever door they came in by (the command line, the web page, MQTT, `!jc...` in game: all are
rows in the store).

Contract: `AdminDesk.apply(rows)` carries out each row once, in order, through the engine's admin
acts and the commands part, and marks it applied. A confirmation is judged against the proposal's
own round and expiry when it is applied: one that comes after its round ended, or after it lapsed,
is not carried out. A confirmation for a player who is away waits (the admin is told once) until
he is back or the proposal lapses. A pardon goes out on MQTT like the enforcement it undoes, and a
CT ban it lifts is lifted on every server. A proposal's own row is the audit desk's (`proposed`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial

import attrs

from jailcore.engine import admin as engine_admin
from jailcore.engine import proposals
from jailcore.log import shapes
from jailcore.log.inbound import Refusals
from jailcore.session import inputs as i
from jailcore.session.audit import Audit
from jailcore.session.commands import Commands
from jailcore.session.effects import Applied, CloseAppeals, Effect, Mark, NoteAnswer, Write
from jailcore.session.inputs import RequestTable
from jailcore.session.network import Network
from jailcore.session.saver import Saver
from jailcore.session.shared import Part, Shared

log = logging.getLogger("jailcore")

# What the admins online read, in the server's language.
SAID = {
    "ru": {"gone": "больше не ждёт решения: истекло или уже решено", "dismissed": "отклонено: {by}",
           "away": "предупреждение от {by} не передано: {who} не на сервере"},
    "en": {"gone": "no longer waits: it lapsed or was answered", "dismissed": "dismissed by {by}",
           "away": "the warning by {by} was not given: {who} is not on the server"},
}


class AdminDesk(Part):
    """The requests this session carried out and the notes it gave, until the store says so too:
    a row polled again before its `applied` is durable is not carried out twice. A row no tool
    of ours wrote (a bad detail, a steamid that is none) is refused, logged once per cause and
    marked applied, never carried out."""

    def __init__(self, shared: Shared, saver: Saver, audit: Audit, commands: Commands, network: Network):
        self.shared, self.saver, self.audit, self.commands, self.network = shared, saver, audit, commands, network
        self.applied: set[tuple[str, int]] = set()
        self.noted: dict[int, str] = {}
        self.refused = Refusals("a request row")

    def said(self, key: str, **values: str) -> str:
        return SAID.get(self.config.language, SAID["ru"])[key].format(**values)

    def apply(self, rows: i.AdminRequests) -> list[Effect]:
        waiting: tuple[i.PardonRow | i.CtBanRow | i.AnswerRow | i.ActRow, ...] = (*rows.pardons, *rows.ctbans, *rows.answers, *rows.acts)
        seen: set[tuple[str, int]] = {(r.table, r.id) for r in waiting}
        self.applied &= seen  # a row the store no longer returns is durable as applied: forgotten here
        out: list[Effect] = []
        for pardon in rows.pardons:
            if self._once(pardon.table, pardon.id):
                out += self._guarded(pardon.table, pardon.id, partial(self._pardon, pardon))
        for ban in rows.ctbans:
            if self._once(ban.table, ban.id):
                out += self._guarded(ban.table, ban.id, partial(self._ctban, ban))
        for answer in rows.answers:
            if (answer.table, answer.id) not in self.applied:
                out += self._guarded(answer.table, answer.id, partial(self._answer, answer))
        for act in rows.acts:
            if self._once(act.table, act.id):
                out += self._guarded(act.table, act.id, partial(self._act, act))
        return out + self.commands.flush()

    def _guarded(self, table: RequestTable, row_id: int, carry: Callable[[], list[Effect]]) -> list[Effect]:
        """One row's bug stays that row's: logged and marked applied, never carried out again and
        again (a request reader that crash-loops on one row serves no other)."""
        try:
            return carry()
        except Exception:
            log.exception("the admin's request %s #%s could not be carried out; it is marked applied and said here", table, row_id)
            return [self._applied(table, row_id)]

    def _once(self, table: str, row_id: int) -> bool:
        if (table, row_id) in self.applied:
            return False
        self.applied.add((table, row_id))
        return True

    def _applied(self, table: RequestTable, row_id: int) -> Write:
        self.applied.add((table, row_id))
        return Write(Applied(table, row_id, self.wall))

    def _pardon(self, row: i.PardonRow) -> list[Effect]:
        entry = shapes.detail_row(row.detail, self.refused, f"pardon {row.id}")
        out: list[Effect] = [self._applied(row.table, row.id)]
        if entry is None:
            return out
        self.saver.dirty = True
        out += self.commands.carry_out(self.engine.admin(engine_admin.pardon, entry, row.by, row.reason))
        out += self.audit.publish(row.action_id, "pardoned", entry, pardon={"by": row.by, "reason": row.reason})
        # An appeal of it still open (the pardon came by another road: the command line, the game, SourceBans++) is answered by it.
        out.append(Write(CloseAppeals(self.server, (row.action_id,), (), row.by, row.reason or f"pardon {row.id}", self.wall)))
        target = entry.get("target") or {}
        if entry.get("action") == "ctban" and target.get("steamid"):
            out.append(self.network.network_lift(target["steamid"], row.by, f"pardon {row.id}"))
        log.info("pardon of %s by %s applied: %s", entry.get("rule"), row.by, row.reason)
        return out

    def _ctban(self, row: i.CtBanRow) -> list[Effect]:
        if shapes.ctban_row(attrs.asdict(row), self.refused) is None:
            return [self._applied(row.table, row.id)]
        self.saver.dirty = True
        if not self.engine.state.time and self.wall:  # before the server's first line its clock is unknown: the box's stands in
            self.engine.state.time = self.wall
        if row.lift:
            actions = self.engine.lift_ctban(row.steamid, row.by, row.reason)
        else:
            actions = self.engine.admin(engine_admin.ctban_from_outside, row.steamid, row.name, row.minutes, row.rounds, row.reason, row.by)
        out: list[Effect] = [self._applied(row.table, row.id)]
        out += self.commands.carry_out(actions)
        if row.lift:
            out.append(self.network.network_lift(row.steamid, row.by, f"request {row.id}"))
        elif not any(a.action == "ctban" for a in actions):  # he is offline: no row of ours shares it
            out += self.network.network_ban(row.steamid, f"request {row.id}")
        return out

    def _act(self, row: i.ActRow) -> list[Effect]:
        """An admin's warning or server ban from the web page: the engine's admin act, carried out
        and audited as a rule's punishment is (a ban reaches a player who has left by his SteamID)."""
        out: list[Effect] = [self._applied(row.table, row.id)]
        if shapes.act_row(attrs.asdict(row), self.refused) is None:
            return out
        self.saver.dirty = True
        if not self.engine.state.time and self.wall:  # before the server's first line its clock is unknown: the box's stands in
            self.engine.state.time = self.wall
        actions = engine_admin.act(self.engine.ctx, row.steamid, row.name, row.act, row.minutes, row.reason, row.by)
        if not actions:
            self.audit.say_to_admins(f"[jailcore] {self.said('away', by=row.by, who=row.name or row.steamid)}")
        log.info("%s of %s by %s applied: %s", row.act, row.steamid, row.by, row.reason)
        return out + self.commands.carry_out(actions)

    def _answer(self, row: i.AnswerRow) -> list[Effect]:
        detail = shapes.detail_row(row.detail, self.refused, f"answer {row.id}")
        if detail is None:
            return [self._applied(row.table, row.id)]
        number, proposal = int(detail.get("index") or 0), row.action_id
        self.saver.dirty = True
        # Judged against the proposal's own round and expiry, as they stand now: a slay confirmed
        # after its round ended is not carried out, even before the next line lapses it.
        out: list[Effect] = []
        for action in proposals.lapse_due(self.engine.ctx):
            out += self.commands.dispatch(action)
        if row.answer == "dismiss":
            out.append(self._applied(row.table, row.id))
            if self.engine.dismiss(number):
                reply = f"by {row.by}: {row.reason or '-'}"
                self.shared.proposals.pop(number, None)
                out += [Write(Mark(proposal, "dismissed", reply)), *self.audit.publish(proposal, "dismissed", detail, reply)]
                self.audit.say_to_admins(f"[jailcore #{proposal}] {self.said('dismissed', by=row.by)}")
                log.info("proposal #%s dismissed by %s: %s", proposal, row.by, row.reason)
            else:
                self.audit.say_to_admins(f"[jailcore #{proposal}] {self.said('gone')}")
            return out
        actions, why = self.engine.confirm(number, row.by)
        if why is not None and why != "gone":  # the player is away: the answer waits for him
            if row.note != why and self.noted.get(row.id) != why:
                self.noted[row.id] = why
                out.append(Write(NoteAnswer(row.id, why)))
                self.audit.say_to_admins(f"[jailcore #{proposal}] {why}")
            return out
        self.noted.pop(row.id, None)
        out.append(self._applied(row.table, row.id))
        if why == "gone":
            self.audit.say_to_admins(f"[jailcore #{proposal}] {self.said('gone')}")
            return out
        reply = f"by {row.by}"
        self.shared.proposals.pop(number, None)
        out += [Write(Mark(proposal, "confirmed", reply)), *self.audit.publish(proposal, "confirmed", detail, reply)]
        log.info("proposal #%s confirmed by %s", proposal, row.by)
        return out + self.commands.carry_out(actions)
