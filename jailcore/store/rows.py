"""The session's rows (`jailcore.session.effects.Row`: plain values, no SQL) to a backend's own
writes: one dispatch for every backend, so SQLite and MariaDB write the same rows the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from jailcore.log.errors import StateError
from jailcore.log.limits import KEY, NAME, STEAMID, TIME, WORD, fit, fit_int, fit_text, fit_text_or_none, whole_letters

if TYPE_CHECKING:  # imported where rows are written, so that a command that only reads starts at once
    from jailcore.engine.actions import Action
    from jailcore.session import effects as fx
    from jailcore.session import inputs as si

AUDIT_INSERT = ("INSERT INTO audit (id, server, time, round, day, action, rule, ref, userid, steamid, name, reason, detail, command, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
BIGINT_MAX = 2**63 - 1


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


def request_values(server: str, steamid: str, name: str, minutes: int | None, rounds: int | None, lift: bool, reason: str,
                   by: str, when: str) -> tuple[Any, ...]:
    """A `ctban_requests` row's values (server, steamid, name, minutes, rounds, lift, reason, by, time), each fitted to its column."""
    return (fit(server, KEY), fit(steamid, STEAMID), fit(name, NAME), None if minutes is None else fit_int(minutes),
            None if rounds is None else fit_int(rounds), int(lift), fit_text(reason), fit(by, KEY), fit(when, TIME))


def link_values(server: str, rcon: str, outbox: int, last_line: str | None, mode: str, when: str, daemon: str,
                dropped: str) -> tuple[Any, ...]:
    from jailcore.log.limits import SHORT_WORD

    return (fit(server, KEY), fit(rcon, WORD), fit_int(outbox), None if last_line is None else fit(last_line, TIME), fit(mode, SHORT_WORD),
            fit(when, TIME), fit(daemon, SHORT_WORD), fit_text(dropped))


def line_values(lines: Any) -> list[tuple[Any, ...]]:
    """Kept log lines (server, round, time, line, audit), fitted: a line of 64 KB of three-byte letters is cut, not refused."""
    return [(fit(server, KEY), fit_int(round_), fit(time, TIME), fit_text(line), audit) for server, round_, time, line, audit in lines]


class WritesRows:
    """Mixed into a backend, which supplies record, mark, mark_sent, save_link,
    keep_lines, applied, note_answer, in_game_ctban, save_standing, `_put_state` and `_saved`, and the admins' rows (requests, answers)."""

    def admin_requests(self, server: str) -> si.AdminRequests:
        """The admins' rows not yet applied for one server, typed, in order (a backend whose
        database is away gives none)."""
        from jailcore.session import inputs as si

        me: Any = self
        pardons, bans = me.requests(server)
        return si.AdminRequests(
            tuple(si.PardonRow(r["id"], r["action_id"], r["by"], r["reason"], r["detail"]) for r in pardons),
            tuple(si.CtBanRow(r["id"], r["steamid"], r["name"], r["minutes"], r["rounds"], bool(r["lift"]), r["reason"], r["by"])
                  for r in bans),
            tuple(si.AnswerRow(r["id"], r["action_id"], r["answer"], r["by"], r["reason"], r["note"], r["detail"])
                  for r in me.answers(server)),
            tuple(si.ActRow(r["id"], r["steamid"], r["name"], r["act"], r["minutes"], r["reason"], r["by"]) for r in me.acts(server)),
        )

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
