"""Punishments waiting for an admin (`confirm = "admin"`), as the running daemon keeps them.

Contract: a `propose` action is written to the audit log as `proposed` (no command goes to
the game) and told to the admins online with its audit id, the id every admin uses:
`!jcconfirm ID` / `!jcdismiss ID [reason]` in game, `jailcore confirm|dismiss ID`, the web
page. Answers are rows in the state database (`answers`), like pardons, so the command line
and the web page need neither RCON nor the daemon's ear; `apply` carries them out through
the engine within the requests' interval and marks the proposal `confirmed` or `dismissed`
with who answered. An engine `lapse` marks it `expired` with why. A confirmation for a
player who is away waits (the admin is told once) until he is back or the proposal lapses.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from jailcore.engine.actions import Action, AuditStatus, clean_text, kind_name
from jailcore.engine.ladder import parse_step
from jailcore.log import events as ev
from jailcore.store.sqlite import ProposalError

if TYPE_CHECKING:
    from jailcore.config.config import Config
    from jailcore.engine.engine import Engine
    from jailcore.io.mqtt import MqttLink
    from jailcore.io.rcon import Outbox
    from jailcore.store.interface import StateStore

log = logging.getLogger("jailcore")

KINDS = frozenset({"propose", "lapse"})
# What the admins online read, in the server's language.
SAID = {
    "ru": {"gone": "больше не ждёт решения: истекло или уже решено", "dismissed": "отклонено: {by}"},
    "en": {"gone": "no longer waits: it lapsed or was answered", "dismissed": "dismissed by {by}"},
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


class Daemon(Protocol):
    """The parts of the running daemon that answers (and requests) go through."""

    server: str
    config: Config
    engine: Engine
    store: StateStore
    outbox: Outbox
    mqtt: MqttLink | None
    _dirty: bool

    def _carry_out(self, actions: list[Action], sweep: bool = False) -> None: ...
    def _tell(self, action: Action, command: str | None, status: AuditStatus, row_id: int) -> None: ...


class Answers:
    def __init__(self, daemon: Daemon):
        self.daemon = daemon

    # -- from the engine ----------------------------------------------------------------------

    def decided(self, action: Action) -> None:
        d = self.daemon
        if action.action == "propose":
            row_id = d.store.record(d.server, action, d.engine.day, None, PROPOSED)
            d._tell(action, None, PROPOSED, row_id)
            self._feed(f"[jailcore #{row_id}] ? {step_text(d.config.language, action.step or '')} {action.target.name if action.target else ''} "
                       f"({action.ref} {action.rule}) — !jcconfirm {row_id} / !jcdismiss {row_id}")
            return
        lapsed = d.store.proposal_row(d.server, action.index or 0)
        if lapsed is not None:
            d.store.mark(lapsed, "expired", action.reason)
            self._published(lapsed, "expired", action.reason)
        log.info("proposal #%s (%s %s) expired: %s", lapsed, action.rule, action.step, action.reason)
        self._feed(f"[jailcore #{lapsed}] {action.reason}")

    # -- from the admins ----------------------------------------------------------------------

    def asked_in_game(self, event: ev.ConfirmAsked | ev.DismissAsked) -> None:
        """`!jcconfirm ID`, `!jcdismiss ID [reason]`: the same row the command line writes."""
        d = self.daemon
        answer = "confirm" if type(event) is ev.ConfirmAsked else "dismiss"
        try:
            d.store.request_answer(event.id, answer, event.player.name, event.reason, server=d.server)  # an admin here answers for here
            d.store.commit()
        except ProposalError as exc:
            self._feed(f"[jailcore] {exc}")
            return
        self.apply()

    def apply(self) -> None:
        d = self.daemon
        rows = d.store.answers(d.server)
        now = datetime.now().isoformat(timespec="seconds")
        for row in rows:
            entry = json.loads(row["detail"])
            number, proposal = int(entry.get("index") or 0), int(row["action_id"])
            if row["answer"] == "dismiss":
                done = d.engine.dismiss(number)
                d.store.applied("answers", row["id"], now)
                if done:
                    reply = f"by {row['by']}: {row['reason'] or '-'}"
                    d.store.mark(proposal, "dismissed", reply)
                    self._published(proposal, "dismissed", reply)
                    self._feed(f"[jailcore #{proposal}] {self._said('dismissed', by=row['by'])}")
                    log.info("proposal #%s dismissed by %s: %s", proposal, row["by"], row["reason"])
                else:
                    self._feed(f"[jailcore #{proposal}] {self._said('gone')}")
                continue
            actions, why = d.engine.confirm(number, row["by"])
            if why is not None and why != "gone":  # the player is away: the answer waits for him
                if row["note"] != why:
                    d.store.note_answer(row["id"], why)
                    self._feed(f"[jailcore #{proposal}] {why}")
                continue
            d.store.applied("answers", row["id"], now)
            if why == "gone":
                self._feed(f"[jailcore #{proposal}] {self._said('gone')}")
                continue
            reply = f"by {row['by']}"
            d.store.mark(proposal, "confirmed", reply)
            self._published(proposal, "confirmed", reply)
            log.info("proposal #%s confirmed by %s", proposal, row["by"])
            d._carry_out(actions)
        if rows:
            d.store.commit()
            d._dirty = True

    # -- telling ------------------------------------------------------------------------------

    def _said(self, key: str, **values: str) -> str:
        return SAID.get(self.daemon.config.language, SAID["ru"])[key].format(**values)

    def _feed(self, text: str) -> None:
        d = self.daemon
        if d.config.mode != "observe":
            d.outbox.put(None, f'jb_adminfeed "{clean_text(text)}"')

    def _published(self, row_id: int, status: str, reply: str) -> None:
        d = self.daemon
        if d.mqtt is None:
            return
        row = d.store.entries("id = ?", (row_id,))
        if row:
            entry = json.loads(row[0]["detail"])
            d.mqtt.publish(f"jailcore/{d.server}/actions", {**entry, "server": d.server, "id": row_id, "status": status, "reply": reply})
