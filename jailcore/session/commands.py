"""Decisions into rows and commands, and the outbox's news: the part of a session that talks to
the game.

Contract: `carry_out(actions)` records each decision (the audit desk) and queues its command in
the mode in force (`enforce` sends it; `advise` turns a punishment into a warning that says what
would have been done; `observe` sends nothing), then `flush` gives what may go now: the state the
decisions made and the CT bans they gave first (`decisions`), then each `Send` after the `Write`
of its row. A command whose moment passed (its round ended, its player left) is never sent late:
its row says `expired`. The link's news (`sent`, `reply`, `opened`, `lost`) and the clock's
(`tick`: a command unanswered past `[rcon] timeout`, proposals lapsing) come back here; so does
the shim's truth (`jb_status`) when lines were lost, and what the last process left pending.
"""

from __future__ import annotations

import logging

from jailcore.engine import proposals as engine_proposals
from jailcore.engine.actions import Action, Ask, AuditStatus, Lapse, Propose, Punishment, Warn, clean_text, render, with_id
from jailcore.engine.vocabulary import kind_name, kinds_that
from jailcore.log import shapes
from jailcore.log.errors import LimitError
from jailcore.log.logtime import plus_seconds
from jailcore.session import inputs as i
from jailcore.session.audit import Audit
from jailcore.session.effects import AskedInGame, DropLink, Effect, Mark, Send, Write
from jailcore.session.outbox import Item, Outbox, is_shim_reply
from jailcore.session.saver import Saver
from jailcore.session.shared import Part, Shared

log = logging.getLogger("jailcore")

ADVISORY = kinds_that("advisory")
RECORDED = kinds_that("audited")
ROUND_BOUND = kinds_that("round")  # sent late they would punish for another day's doing
OFFLINE = kinds_that("offline")  # by steamid: whoever is online
STATUS_KEY = "status"  # the outbox key of the `jb_status` request


class Commands(Part):
    def __init__(self, shared: Shared, outbox: Outbox, saver: Saver, audit: Audit):
        self.shared, self.outbox, self.saver, self.audit = shared, outbox, saver, audit
        self.shim_missing = False
        self._dropping = False

    def carry_out(self, actions: list[Action], sweep: bool = False) -> list[Effect]:
        """Record the decisions and queue their commands, then send what may go now: each
        `Send` after the `Write` of its row."""
        out: list[Effect] = []
        for action in actions:
            out += self.dispatch(action)
        if sweep:
            out += self.audit.ended(self.outbox.sweep(self.expired))
        if actions or sweep:
            out += self.flush()
        return out

    def dispatch(self, action: Action) -> list[Effect]:
        if isinstance(action, Ask):  # an admin's word in game: the command line's row, whatever the mode
            return [AskedInGame(action.step, action.index, action.by, action.reason, action.target.steamid)]
        if isinstance(action, Lapse) and action.owed_row is not None:  # he did not come back in time
            log.info("owed #%s (%s %s) expired: %s", action.owed_row, action.rule, action.step, action.reason)
            return [Write(Mark(action.owed_row, "expired", action.reason)), *self.audit.publish(action.owed_row, "expired", action, action.reason)]
        if isinstance(action, Propose | Lapse):  # waits for an admin (or did): nothing goes to the game
            return self.audit.proposed(action)
        try:
            command = render(action)
        except LimitError as exc:  # a template bug, not a player's text (texts are capped): this one is refused, the rest go on
            log.error("%s for %s not sent: %s", action.action, action.rule, exc)
            return self.audit.record(action, None, "failed") if action.action in RECORDED else []
        if action.action not in RECORDED:  # what is shown, not decided: the display, the door's copy of a ban
            key = "hud" if action.action == "hud" else f"door:{action.target.userid if action.target else 0}"
            if self.config.mode != "observe" and command is not None:
                self.outbox.put(None, command, key=key, action=action, epoch=self.shared.epoch)
            return []
        mode = self.config.mode
        if mode == "observe" or command is None:
            # Nothing to send now to one who has left: not `delivered` but `owed`, carried out
            # (a row of its own naming this one) when he returns, `expired` if he does not.
            # A lift for one who has left is done here (the daemon holds the ban; the game holds nothing for him).
            absent = isinstance(action, Punishment) and action.absent
            status: AuditStatus = "observed" if mode == "observe" else "owed" if absent else "delivered"
            written = self.audit.record(action, command, status)
            if status == "owed":
                self.audit.owed_row(action, self.ids.last)
            return written
        out: list[Effect] = []
        if mode == "advise" and action.action not in ADVISORY:
            out += self.audit.record(action, command, "advised")
            target = action.target
            if target is None:
                return out
            would = f"{kind_name(self.config.language, action.action)}: {action.reason}"
            action = Warn(action.time, action.round, action.rule, action.ref, would, target)
            command = render(action)
            assert command is not None  # a warning to a player always has its command
        out += self.audit.record(action, command, "pending")
        row_id = self.ids.last
        self.outbox.put(row_id, with_id(command, row_id), action=action, epoch=self.shared.epoch)
        self.audit.feed_admins(action, row_id)
        return out

    def flush(self) -> list[Effect]:
        out = self.decisions()
        batch, done = self.outbox.flush(self.now, self.expired)
        out += self.audit.ended(done)
        out += [Send(item.ticket, item.command, item.tag) for item in batch]
        return out

    def decisions(self) -> list[Effect]:
        """The state the decisions just recorded made (a ladder climbed, a ban given), written
        after their rows and before anything leaves: the driver commits the rows before a
        `Send` or a `TellPeers` together, so a command or a ban told to the network always has
        its row and its ladder step, and a restart gives the next offence the next step. Once
        for all the decisions of one line; a plain line's state waits for the clock."""
        out: list[Effect] = [self.saver.save()] if self.saver.decided else []
        if self.audit.tells:
            out += self.audit.tells
            self.audit.tells = []
        return out

    def expired(self, item: Item) -> str | None:
        """Why a command may no longer be sent, or None while it still makes sense."""
        action = item.action
        if action is None:
            return None  # a note to the admins online, the shim's status: late is still worth saying
        # Sent and unanswered (the server may have run it), or never sent: the row says which.
        sent = f"sent{' before the restart' if item.sent_at < 0 else ''}, its answer never came; " if item.sent_at else ""
        if action.action in ROUND_BOUND and self.shared.epoch > item.epoch:
            return f"{sent}round {action.round} ended, so it is not sent again" if sent else f"round {action.round} ended before it could be sent"
        t = action.target
        absent = isinstance(action, Punishment) and action.absent
        if t is not None and action.action not in OFFLINE and not absent:  # by SteamID: his absence is the point
            seat = self.engine.state.players.get(t.userid)
            if seat is None or seat.steamid != t.steamid:
                return f"{sent}{t.name} #{t.userid} is no longer on the server"
        return None

    def not_allowed(self, action: Action) -> str | None:
        """Why the config in force would not send this command (decided under another one:
        before a restart or a live reload), or None."""
        mode = self.config.mode
        if mode == "observe":
            return "not sent: the server is in observe mode now"
        rule = self.config.rules.get(action.rule)
        if rule is not None and not rule.enabled:
            return f"not sent: rule {action.rule} is off (or gone) in the config now"
        if mode == "advise" and action.action not in ADVISORY and action.rule in self.config.rules:
            return f"not sent: the server is in advise mode now ({action.action} would only be advised)"
        return None

    # -- the link's news ----------------------------------------------------------------------

    def sent(self, sent: i.Sent) -> list[Effect]:
        self.outbox.left_now(set(sent.tickets), self.now)
        return []

    def reply(self, reply: i.Reply) -> list[Effect]:
        item = self.outbox.answered(reply.ticket)
        if item is None:
            return []  # the answer to a session since given up: the command went out again
        text = reply.text.strip()
        if item.key == STATUS_KEY:
            self.outbox.finish(item, "delivered", text)
            return self._status(text)
        if is_shim_reply(text):
            if self.shim_missing:
                self.shim_missing = False
                log.info("the jailcore shim answers again")
            status: AuditStatus = "delivered" if text.startswith("ok") else "failed"
        else:
            if not self.shim_missing:
                self.shim_missing = True
                log.error("the server answered %r to %r: the jailcore shim (sourcemod_bridge) is not loaded; "
                          "commands fail until it is loaded and says jb_hello", text[:120], item.command.split()[0])
            status = "failed"
        return self.audit.ended([self.outbox.finish(item, status, text)]) + self.flush()

    def opened(self, _: i.LinkOpened) -> list[Effect]:
        self.outbox.open, self.shared.link, self._dropping = True, "open", False
        return self.flush()

    def lost(self, lost: i.LinkLost) -> list[Effect]:
        self.shared.link, self._dropping = lost.state, False
        failed = self.outbox.lost()
        for d in failed:
            log.error("RCON: no answer to %r after %d tries; marked failed", d.item.command[:80], d.item.attempts)
        return self.audit.ended(failed)

    def link_state(self, state: i.LinkState) -> list[Effect]:
        self.shared.link = state.state
        return []

    # -- the shim's truth ---------------------------------------------------------------------

    def resync(self) -> None:
        """Ask the shim for the players, teams and warden (`jb_status`): once at a time."""
        self.engine.resync_wanted = False
        self.outbox.put(None, "jb_status", key=STATUS_KEY)

    def _status(self, reply: str) -> list[Effect]:
        status = shapes.status_reply(reply, self.engine.refused_status)
        if status is None:
            log.warning("jb_status answered something that is not the shim's JSON: %.80r; the shim's jb_hello will ask again", reply)
            return self.flush()
        # The players as they are now, then their CT bans into the shim's hands: it refuses a
        # banned join to CT even while the daemon is away.
        out = self.carry_out(self.engine.apply_status(status) + self.engine.door(), sweep=True)
        self._note_drops()
        self.saver.dirty = True
        return out + self.flush()

    def _note_drops(self) -> None:
        """The admins online read the drops in !jcstatus (the shim's `jb_note`; again after a reload of it)."""
        if self.shared.drops:
            said = "отброшено датаграмм лога" if self.config.language == "ru" else "dropped log datagrams"
            self.outbox.put(None, f'jb_note "{clean_text(f"{said}: {self.shared.drops}")}"', key="note")

    # -- the clock ----------------------------------------------------------------------------

    def tick(self, tick: i.Tick) -> list[Effect]:
        out: list[Effect] = []
        # At the tick's own time: one that waited in the inbox behind a slow line was not the game's silence.
        late = self.outbox.overdue(tick.now, self.config.rcon_timeout)
        if late is not None and not self._dropping:
            self._dropping = True
            out.append(DropLink(f"no answer to {late.command.split()[0]!r} in {self.config.rcon_timeout:g}s"))
        if tick.drops != self.shared.drops:
            self.shared.drops = tick.drops
            self._note_drops()
            out += self.flush()
        return out + self._lapse_by_clock()

    def _lapse_by_clock(self) -> list[Effect]:
        """A proposal lapses when its time is up, not only at the next line: the log's time
        runs on from the last line by the clock while the server is quiet."""
        s = self.engine.state
        if self.shared.line_at is None:
            self.shared.line_at = self.now  # after a restart the log's clock runs from the start, not from the box's boot
        if not s.proposals or not s.time:
            return []
        real = s.time
        s.time = plus_seconds(real, max(0.0, self.now - self.shared.line_at))
        try:
            lapsed = engine_proposals.lapse_due(self.engine.ctx)
        finally:
            s.time = real
        return self.carry_out(lapsed) if lapsed else []

    # -- a start ------------------------------------------------------------------------------

    def resume(self, resume: i.Resume) -> list[Effect]:
        """What the last process left pending, judged again under the config in force."""
        self.shared.proposals.update(resume.proposals)
        out: list[Effect] = []
        for row in resume.pending:
            action = Action.from_json(row.detail)
            why = self.not_allowed(action)
            if why is not None:
                log.info("command #%s dropped: %s", row.id, why)
                out.append(Write(Mark(row.id, "dropped", why)))
                out += self.audit.publish(row.id, "dropped", action, why)
                continue
            # After a restart only the round the engine stands in is still the same round.
            epoch = 0 if action.round == self.engine.state.round else -1
            item = self.outbox.put(row.id, with_id(row.command, row.id), action=action, epoch=epoch)
            if row.sent:  # sent by the last process, never answered
                item.sent_at = -1.0
        self.resync()
        return out + self.flush()
