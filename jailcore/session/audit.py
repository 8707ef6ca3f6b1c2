"""The audit desk: the row of each decision and of what became of it, and who must hear of it.

Contract: `record(action, command, status)` gives the decision's row (with the id the driver
reserved), its word to the driver (`Told`) and to the broker, and keeps the CT ban it gave for the
network (`tells`, told after the state that holds it); `proposed(action)` records a proposal
(`proposed`: no command goes to the game) or marks its lapse; `ended(done)` turns the outbox's
ended commands into their marks. The admins online are fed from here (`say_to_admins`). It calls
no other part of the session but the saver's flags and the outbox's queue of notes.
"""

from __future__ import annotations

import logging
from typing import Any

from jailcore.engine.actions import Action, AuditStatus, Door, Lapse, Propose, Punishment, Unctban, clean_text
from jailcore.engine.ladder import parse_step
from jailcore.engine.vocabulary import kind_name, kinds_that
from jailcore.log import events as ev
from jailcore.session.effects import CloseAppeals, Effect, Mark, Publish, Record, TellPeers, Told, Write
from jailcore.session.outbox import Done, Item, Outbox
from jailcore.session.saver import Saver
from jailcore.session.shared import Part, Shared

log = logging.getLogger("jailcore")

FEED = kinds_that("feed")  # what the admins online are told of
PROPOSED: AuditStatus = "proposed"


def really_given(status: str) -> bool:
    """A CT ban is shared with the network only where it was really given (`owed`: given to
    one who has left, held at the door when he comes back)."""
    return status in ("pending", "delivered", "owed")


def step_text(lang: str, step: str) -> str:
    """`ban 0` as admins read it: «бан навсегда», `ctban 30m` «запрет за КТ 30m»."""
    parsed = parse_step(step)
    name = kind_name(lang, parsed.action)
    if parsed.action == "ban" and parsed.minutes == 0:
        return f"{name} {'навсегда' if lang == 'ru' else 'for ever'}"
    rest = step.split(" ", 1)[1] if " " in step else ""
    return f"{name} {rest}".strip()


class Audit(Part):
    def __init__(self, shared: Shared, saver: Saver, outbox: Outbox):
        self.shared, self.saver, self.outbox = shared, saver, outbox
        self.tells: list[TellPeers] = []  # CT bans for the network, told after the state that holds them

    def record(self, action: Action, command: str | None, status: AuditStatus) -> list[Effect]:
        """The row of one decision, and who must hear of it."""
        row_id = self.ids.take()
        out: list[Effect] = [Write(Record(row_id, self.server, action, self.engine.day, command, status)), Told(action, command, status)]
        self.saver.decided = True  # the ladder step or ban it made, durable with its row: kill -9 cannot part them
        t = action.target
        if action.action == "ctban" and t is not None and really_given(status):
            ban = self.engine.state.ctbans.get(ev.player_key(t.steamid, t.userid))
            if ban is not None:  # lifted meanwhile: nothing to share
                self.tells.append(TellPeers({"id": f"{self.server}:{row_id}", "origin": self.server, "steamid": t.steamid, "name": t.name,
                                             "until": ban.until, "rounds": ban.rounds, "ref": action.ref, "reason": action.reason}))
        if isinstance(action, Unctban) and really_given(status):  # its appeals are answered by the lift
            out.append(Write(CloseAppeals(self.server, (), (action.target.steamid,), action.by or "jailcore", action.reason, self.wall or action.time)))
        out += self.publish(row_id, status, action)
        if isinstance(action, Punishment) and action.owed and action.owed_row is not None:  # the decision's row names its carrying out, as this one names it
            said = "исполнено при возвращении" if self.config.language == "ru" else "carried out at his return"
            out.append(Write(Mark(action.owed_row, "owed", f"{said}: #{row_id}")))
        who = f"{t.name} #{t.userid} {t.steamid}" if t else "everyone"
        log.info("%s %s [%s %s] %s: %s (%s)", action.time, action.action, action.rule, action.ref, who, action.reason, status)
        return out

    def publish(self, row_id: int, status: str, action: Action | dict[str, Any], reply: str | None = None, **extra: Any) -> list[Effect]:
        if not self.config.mqtt_url:
            return []
        body = action.to_json() if isinstance(action, Action) else action
        payload = {**body, "server": self.server, "id": row_id, "status": status, **({"reply": reply} if reply is not None else {}), **extra}
        return [Publish(f"jailcore/{self.server}/actions", payload)]

    def proposed(self, action: Propose | Lapse) -> list[Effect]:
        """A punishment that waits for an admin (`propose`: its row, and the admins online told how to answer
        it), or one that lapsed (`lapse`: its row marked expired)."""
        if isinstance(action, Propose):
            out = self.record(action, None, PROPOSED)
            row_id = self.ids.last
            self.shared.proposals[action.index] = row_id
            self.say_to_admins(f"[jailcore #{row_id}] ? {step_text(self.config.language, action.step)} {action.target.name} "
                               f"({action.ref} {action.rule}) — !jcconfirm {row_id} / !jcdismiss {row_id}")
            return out
        lapsed = None if action.index is None else self.shared.proposals.pop(action.index, None)
        out = []
        if lapsed is not None:
            out.append(Write(Mark(lapsed, "expired", action.reason)))
            out += self.publish(lapsed, "expired", action, action.reason)
        log.info("proposal #%s (%s %s) expired: %s", lapsed, action.rule, action.step, action.reason)
        self.say_to_admins(f"[jailcore #{lapsed}] {action.reason}")
        return out

    def owed_row(self, action: Action, row_id: int) -> None:
        """The engine's record of what he owes learns its audit row, so that the carrying out
        names it and its lapse marks it (saved with the next snapshot). A CT ban or an
        autoslay is kept by SteamID already: the ban's door, the autoslay's first slay at his
        return names it."""
        t = action.target
        if t is None:
            return
        key = ev.player_key(t.steamid, t.userid)
        kept = self.engine.state.ctbans.get(key) if action.action == "ctban" else self.engine.state.autoslay.get(key) if action.action == "autoslay" else None
        if kept is not None:
            if kept.row is None:
                kept.row = row_id
                self.saver.dirty = True
            return
        for owed in reversed(self.engine.state.owing.get(ev.player_key(t.steamid, t.userid), [])):
            if owed.row is None and owed.rule == action.rule and owed.reason == action.reason:
                owed.row = row_id
                self.saver.dirty = True
                return

    def feed_admins(self, action: Action, row_id: int) -> None:
        """`[jailcore #123] slay Вася (6.5 specialday.cooldown) — !jcpardon 123`, to the admins
        on the server only (the shim checks the admin flag)."""
        if action.action not in FEED or action.target is None or self.config.mode == "observe":
            return
        name = kind_name(self.config.language, action.action)
        by = action.by if isinstance(action, Punishment) else None
        why = action.rule if action.rule != "admin" or not by else f"admin {by}"
        why = f"{action.ref} {why}" if action.ref else why  # no empty number: «( admin)» said nothing
        self.say_to_admins(f"[jailcore #{row_id}] {name} {action.target.name} ({why}) — !jcpardon {row_id}")

    def say_to_admins(self, text: str) -> None:
        if self.config.mode != "observe":
            self.outbox.put(None, f'jb_adminfeed "{clean_text(text)}"')

    def ended(self, done: list[Done]) -> list[Effect]:
        out: list[Effect] = []
        for d in done:
            item = d.item
            if d.status == "delivered" and isinstance(item.action, Punishment | Door) and item.action.owed_row is not None:
                out += self._owed_done(item)
            if item.tag is None:
                continue
            if d.status in ("expired", "dropped", "unanswered"):
                log.info("command #%s %s: %s", item.tag, d.status, d.reply)
            out.append(Write(Mark(item.tag, d.status, d.reply)))
            if item.action is not None:  # `tail -f --mqtt` shows the entry again, with its outcome
                out += self.publish(item.tag, d.status, item.action, d.reply or "")
        return out

    def _owed_done(self, item: Item) -> list[Effect]:
        """What was owed is carried out (its follow-up delivered): the `owed` row says done, so
        `tail`, `status` and the web page stop listing it as waiting for his return."""
        assert isinstance(item.action, Punishment | Door) and item.action.owed_row is not None
        row = item.action.owed_row
        if item.tag is None:  # the door's copy of a ban: the ban forgets its row, the next door is a plain one
            for ban in self.engine.state.ctbans.values():
                if ban.row == row:
                    ban.row = None
                    self.saver.dirty = True
        said = "исполнено при возвращении" if self.config.language == "ru" else "carried out at his return"
        how = f"#{item.tag}" if item.tag is not None else item.command.split()[0]
        return [Write(Mark(row, "delivered", f"{said}: {how}")), *self.publish(row, "delivered", item.action, f"{said}: {how}")]
