"""The session's rows (`jailcore.session.effects.Row`: plain values, no SQL) to a backend's own
writes: one dispatch for every backend, so SQLite and MariaDB write the same rows the same way,
and every statement the two backends both run, written once (issue 35: 24 were written in both
store/sqlite.py and store/mariadb.py) in the SQL they share: `?` for a value (MariaDB's store
spells it `%s` as it runs it), identifiers that are words of MySQL in backquotes (which SQLite
takes too). The few things they say differently are the backend's `Dialect`'s to spell
(store/reader.py, store/mariadb.py): an upsert, a field of the JSON `detail`, a case-blind name.

A backend mixes in `WritesRows` and supplies `_write(sql, params, many=False)` (a write of the
open transaction), `_rows(sql, params)` (a read), `commit()`, `dialect`, and the rest named
below."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from jailcore.log.errors import StateError
from jailcore.log.limits import KEY, NAME, STEAMID, TIME, TOPIC, WORD, fit, fit_int, fit_text, fit_text_or_none, whole_letters

if TYPE_CHECKING:  # imported where rows are written, so that a command that only reads starts at once
    from jailcore.engine.actions import Action
    from jailcore.session import effects as fx
    from jailcore.session import inputs as si
    from jailcore.session.effects import RequestTable
    from jailcore.store.filter import Filter

AUDIT_INSERT = ("INSERT INTO audit (id, server, time, round, day, action, rule, ref, userid, steamid, name, reason, detail, command, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
BIGINT_MAX = 2**63 - 1
SENT = "sent, no answer yet"  # a pending row's reply once its command went out
PRUNE_EVERY = 3600.0  # seconds between two prunes of the kept log lines

# -- the audit log, which is also the outbox --------------------------------------------------------
MARK = "UPDATE audit SET status = ?, reply = ? WHERE id = ?"
MARK_SENT = f"UPDATE audit SET reply = '{SENT}' WHERE id = ? AND status = 'pending'"
PENDING = "SELECT * FROM audit WHERE server = ? AND status = 'pending' ORDER BY id"
ENTRIES = "SELECT * FROM audit WHERE {where} ORDER BY id"  # `where`: the dialect's spelling of a Filter, never a caller's text
ENTRY = "SELECT id, server, action, status, reply, detail FROM audit WHERE id = ?"
PROPOSALS = "SELECT id, {index} AS number FROM audit WHERE server = ? AND action = 'propose' AND status = 'proposed' ORDER BY id"
PROPOSAL_ROW = "SELECT id FROM audit WHERE server = ? AND action = 'propose' AND {index} = ? ORDER BY id DESC LIMIT 1"
LINES = "INSERT INTO loglines (server, round, time, line, audit) VALUES (?, ?, ?, ?, ?)"
PRUNE_LINES = "DELETE FROM loglines WHERE time < ?"
SNAPSHOT = "SELECT snapshot FROM state WHERE server = ?"
# Upserts, spelled by the dialect: (table, its key, the columns set).
STATE = ("state", ("server",), ("snapshot", "updated"))
STANDING = ("standing", ("server",), ("state", "updated"))
LINK = ("link", ("server",), ("rcon", "outbox", "last_line", "mode", "updated", "daemon", "dropped"))

# -- the admins' requests -------------------------------------------------------------------------------
ANSWER_OF = "SELECT * FROM answers WHERE action_id = ?"
PARDONS_OF = "SELECT * FROM pardons WHERE action_id IN ({marks})"
NOTE_ANSWER = "UPDATE answers SET note = ? WHERE id = ?"
APPLIED = "UPDATE {table} SET applied_at = ? WHERE id = ?"  # `table`: one of request_kinds.TABLES, checked

# -- MQTT messages the broker never took, kept across a stop ---------------------------------------------------
FORGET_MESSAGES = "DELETE FROM mqtt_outbox WHERE server = ?"
KEEP_MESSAGE = "INSERT INTO mqtt_outbox (server, topic, payload, retain) VALUES (?, ?, ?, ?)"
KEPT_MESSAGES = "SELECT topic, payload, retain FROM mqtt_outbox WHERE server = ? ORDER BY id"


def audit_values(row_id: int | None, server: str, action: Action, day: int, command: str | None, status: str) -> tuple[Any, ...]:
    """An audit row's values for AUDIT_INSERT on either backend, each cut to its column
    (log/limits.py): a name, a ref or a reply longer than its column is cut there, never the
    statement that fails (on MariaDB that stopped every server of the process). The action
    itself is kept whole in `detail` (JSON, LONGTEXT)."""
    import json

    t = action.target
    return (row_id, fit(server, KEY), fit(action.time, TIME), fit_int(action.round), fit_int(day), fit(action.action, WORD),
            fit(action.rule, KEY), fit(action.ref, KEY),
            fit_int(t.userid, BIGINT_MAX) if t is not None and t.userid is not None else None,
            fit(t.steamid, STEAMID) if t is not None and t.steamid is not None else None,
            fit(t.name, NAME) if t is not None and t.name is not None else None,
            fit_text(action.reason), whole_letters(json.dumps(action.to_json(), ensure_ascii=False)), fit_text_or_none(command), fit(status, WORD))


def link_values(server: str, rcon: str, outbox: int, last_line: str | None, mode: str, when: str, daemon: str,
                dropped: str) -> tuple[Any, ...]:
    from jailcore.log.limits import SHORT_WORD

    return (fit(server, KEY), fit(rcon, WORD), fit_int(outbox), None if last_line is None else fit(last_line, TIME), fit(mode, SHORT_WORD),
            fit(when, TIME), fit(daemon, SHORT_WORD), fit_text(dropped))


def pardons_of(rows: Callable[[str, Sequence[Any]], list[Any] | None], action_ids: Iterable[int]) -> dict[int, Any]:
    """The pardon of each of these enforcements that has one, through a backend's or a reader's
    read (`rows` may give None: a database from before pardons has none)."""
    ids = list(action_ids)
    out: dict[int, Any] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        for row in rows(PARDONS_OF.format(marks=",".join("?" * len(chunk))), chunk) or []:
            out[row["action_id"]] = row
    return out


def line_values(lines: Any) -> list[tuple[Any, ...]]:
    """Kept log lines (server, round, time, line, audit), fitted: a line of 64 KB of three-byte letters is cut, not refused."""
    return [(fit(server, KEY), fit_int(round_), fit(time, TIME), fit_text(line), audit) for server, round_, time, line, audit in lines]


class WritesRows:
    """Mixed into a backend, which supplies `record`, `keep_lines`, `requests`, `answers`, `acts`,
    `_saved` and the hooks named in this module's docstring; the rest is written here once."""

    def mark(self, row_id: int, status: str, reply: str | None) -> None:
        me: Any = self
        me._write(MARK, (fit(status, WORD), fit_text_or_none(reply), row_id))

    def mark_sent(self, row_ids: list[int]) -> None:
        """Rows whose command went out (still pending): their reply says `sent` until the answer."""
        if row_ids:
            me: Any = self
            me._write(MARK_SENT, [(i,) for i in row_ids], many=True)

    def save_link(self, server: str, rcon: str, outbox: int, last_line: str | None, mode: str, when: str,
                  daemon: str = "running", dropped: str = "") -> None:
        """How the daemon stands (for `jailcore status` and the web page's servers); `daemon`
        is `running` (rewritten every few seconds, so its age tells a daemon that died) or
        `stopped` (written at a clean stop); `dropped` the log datagrams dropped by cause."""
        me: Any = self
        me._write(me.dialect.upsert(*LINK), link_values(server, rcon, outbox, last_line, mode, when, daemon, dropped))

    def save_standing(self, server: str, standing: str, when: str) -> None:
        """What `status` shows of a server's engine, written in the same transaction as its
        snapshot (call it first): the command reads it without loading the rules."""
        me: Any = self
        me._write(me.dialect.upsert(*STANDING), (fit(server, KEY), standing, fit(when, TIME)))

    def _put_state(self, server: str, text: str, when: str) -> None:
        """The one upsert of a server's snapshot (save_state, and the session's SaveState rows)."""
        me: Any = self
        me._write(me.dialect.upsert(*STATE), (fit(server, KEY), text, fit(when, TIME)))

    def in_game_ctban(self, g: fx.InGameCtBan) -> None:
        me: Any = self
        from jailcore.store.request_kinds import CtBanRequest

        me._write(CtBanRequest.INSERT, CtBanRequest(g.server, g.steamid, g.name, g.minutes, g.rounds, g.reason, g.by, g.lift, g.when).values(g.when))

    def note_answer(self, row_id: int, note: str) -> None:
        """Why an answer waits (the player is away): said to the admin once."""
        me: Any = self
        me._write(NOTE_ANSWER, (fit_text(note), row_id))

    def applied(self, table: RequestTable, row_id: int, when: str) -> None:
        from jailcore.store.errors import StoreError
        from jailcore.store.request_kinds import TABLES

        if table not in TABLES:  # the name goes into the SQL: never trust a caller with it
            raise StoreError(f"no request table {table!r}")
        me: Any = self
        me._write(APPLIED.format(table=table), (fit(when, TIME), row_id))

    def pending(self, server: str) -> list[tuple[int, str]]:
        return [(r["id"], r["command"]) for r in self.pending_rows(server)]

    def pending_rows(self, server: str) -> list[Any]:
        me: Any = self
        return list(me._rows(PENDING, (server,)))

    def entries(self, f: Filter | None = None) -> list[Any]:
        """The audit rows the filter takes (all without one), in the order of their ids."""
        from jailcore.store.filter import Filter

        me: Any = self
        clause, params = me.dialect.where(f if f is not None else Filter())
        return list(me._rows(ENTRIES.format(where=clause), params))

    def keep_messages(self, server: str, messages: list[tuple[str, str, bool]]) -> None:
        """The MQTT messages the broker has not taken, kept at a stop (committed at once)."""
        me: Any = self
        me._write(FORGET_MESSAGES, (server,))
        if messages:
            me._write(KEEP_MESSAGE, [(fit(server, KEY), fit(t, TOPIC), p, int(r)) for t, p, r in messages], many=True)
        me.commit()

    def kept_messages(self, server: str) -> list[tuple[str, str, bool]]:
        """The messages kept at the last stop, oldest first; they leave the database when the
        broker has taken them (the next stop keeps what is still waiting)."""
        me: Any = self
        return [(r["topic"], r["payload"], bool(r["retain"])) for r in me._rows(KEPT_MESSAGES, (server,))]

    def _resumed(self, server: str, pending: list[Any]) -> si.Resume:
        """What a server's last process left: its pending rows and its proposals still waiting."""
        import json

        from jailcore.session import inputs as si

        me: Any = self
        rows = me._rows(PROPOSALS.format(index=me.dialect.json_field("detail", "index")), (server,))
        return si.Resume(tuple(si.Pending(r["id"], r["command"], json.loads(r["detail"]), r["reply"] == SENT) for r in pending),
                         tuple((int(r["number"] or 0), int(r["id"])) for r in rows))

    def admin_requests(self, server: str) -> si.AdminRequests:
        """The admins' rows not yet applied for one server, typed, in order (a backend whose
        database is away gives none)."""
        from jailcore.store.request_kinds import waiting_for

        me: Any = self
        return waiting_for(server, me.waiting_rows)

    def save_state(self, server: str, snapshot: dict[str, Any] | str, when: str) -> None:
        """A snapshot upserted and committed at once (a store used outside the writer)."""
        import json

        me: Any = self
        me._put_state(server, snapshot if isinstance(snapshot, str) else json.dumps(snapshot, ensure_ascii=False), when)
        me.commit()

    def save_snapshot(self, row: fx.SaveState) -> None:
        """A snapshot (JSON text) written only when it changed since this connection last wrote
        it, its standing first, in the same transaction; the backend's `_put_state` upserts it."""
        me: Any = self
        if me._saved.get(row.server) == row.snapshot:
            return
        me.save_standing(row.server, row.standing, row.when)
        me._put_state(row.server, row.snapshot, row.when)
        me._saved[row.server] = row.snapshot

    def write(self, rows: Sequence[fx.Row]) -> None:
        """These rows into the open transaction (`commit` ends it), in their order."""
        for row in rows:
            self.write_row(row)

    def write_row(self, row: fx.Row) -> None:
        from jailcore.session import effects as fx  # in sys.modules after the first row: a dict look-up

        me: Any = self
        if isinstance(row, fx.Record):
            me.record(row.server, row.action, row.day, row.command, row.status, row_id=row.id)
        elif isinstance(row, fx.Mark):
            me.mark(row.id, row.status, row.reply)
        elif isinstance(row, fx.MarkSent):
            me.mark_sent(list(row.ids))
        elif isinstance(row, fx.SaveState):
            me.save_snapshot(row)
        elif isinstance(row, fx.SaveLink):
            me.save_link(row.server, row.rcon, row.outbox, row.last_line, row.mode, row.when, row.daemon, row.dropped)
        elif isinstance(row, fx.KeepLines):
            me.keep_lines(row)
        elif isinstance(row, fx.Applied):
            me.applied(row.table, row.id, row.when)
        elif isinstance(row, fx.NoteAnswer):
            me.note_answer(row.id, row.note)
        elif isinstance(row, fx.InGameCtBan):
            me.in_game_ctban(row)
        elif isinstance(row, fx.CloseAppeals):
            from jailcore.store.appeals import close_lifted

            for sql, params in close_lifted(row.server, row.action_ids, row.ctbans_of, row.by, row.reason, row.when):
                me._write(sql, params)
        else:
            raise StateError(f"not a row the store writes: {row!r}")
