"""The web page's accounts, kept in the state database (table `accounts`) on both backends:
each admin's name, password hash, role per server and when his password last changed. Every
`jailcore web` on one database (SQLite file or MariaDB) sees the same accounts; a session
remembers the password-changed stamp it was opened under, so a changed password ends it on
every page process, not only on the one it was changed on.

The configs' `[web.users]`/`[web.roles]` (where accounts lived before) are taken into the table
once: each (name, password hash) pair is imported the first time a page or `jailcore web
adduser` meets it and never again (`account_imports`), so an account removed on the page does
not come back at the next start and a password changed on the page is not put back; a new line
pasted under `[web.users]` (a new name or a new hash) is still taken.

Every change is also a row of `account_changes` (the web page's Activity): when, by whom (the
owner on the page, `console (USER)` for `jailcore web adduser|deluser`, `config` for a pair
taken from `[web.users]`), which account, what (added, imported, password, role, removed) and
the roles it has after it, in the same transaction as the change. Never the password or its
hash: the log is for every viewer of the page.

The SQL is written once with `?` placeholders; each backend runs it in its own spelling
(`_select`, `_write`, `commit`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from jailcore.log.limits import ACCOUNT, KEY, SHORT_WORD, TIME, fit
from jailcore.store.errors import AccountError

ROLES = ("viewer", "moderator", "admin", "owner")  # as config.webconfig.ROLES (the store imports no config)

SQLITE_SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY,
    password TEXT NOT NULL,
    roles TEXT NOT NULL,
    password_changed TEXT NOT NULL,
    changed_by TEXT NOT NULL DEFAULT '',
    updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS account_imports (
    pair TEXT PRIMARY KEY,
    time TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS account_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time TEXT NOT NULL,
    by TEXT NOT NULL,
    name TEXT NOT NULL,
    what TEXT NOT NULL,
    roles TEXT NOT NULL
);
"""
# utf8mb4_bin: a name is told apart by case as SQLite's TEXT key and the login's lookup do
MARIADB_TABLES = [  # widths from log/limits.py
    f"""CREATE TABLE IF NOT EXISTS accounts (
        name VARCHAR({ACCOUNT}) COLLATE utf8mb4_bin PRIMARY KEY, password VARCHAR(255) NOT NULL, roles TEXT NOT NULL,
        password_changed VARCHAR({TIME}) NOT NULL, changed_by VARCHAR({KEY}) NOT NULL DEFAULT '', updated VARCHAR({TIME}) NOT NULL)""",
    f"CREATE TABLE IF NOT EXISTS account_imports (pair CHAR(64) PRIMARY KEY, time VARCHAR({TIME}) NOT NULL)",
    f"""CREATE TABLE IF NOT EXISTS account_changes (
        id BIGINT AUTO_INCREMENT PRIMARY KEY, time VARCHAR({TIME}) NOT NULL, `by` VARCHAR({KEY}) NOT NULL,
        name VARCHAR({ACCOUNT}) COLLATE utf8mb4_bin NOT NULL, what VARCHAR({SHORT_WORD}) NOT NULL, roles TEXT NOT NULL)""",
]
# What an account change was, as `account_changes.what` keeps it (the page's words: activity.account.*)
CHANGES = ("added", "imported", "password", "role", "password_role", "removed")


@attrs.frozen
class Account:
    """`roles`: server -> role, `"*"` for every server not named; `changed`: when the password
    was last set (a session opened before is over)."""

    name: str
    password: str = attrs.field(repr=False)
    roles: Mapping[str, str]
    changed: str


def roles_of(given: str | Mapping[str, str]) -> dict[str, str]:
    """A config's role (one for every server, or a table per server) as the table keeps it."""
    return {"*": given} if isinstance(given, str) else dict(given)


def _stamp() -> str:
    return datetime.now().isoformat(timespec="microseconds")


def _pair(name: str, password: str) -> str:
    return hashlib.sha256(f"{name}\x00{password}".encode()).hexdigest()


def _check(name: str, roles: Mapping[str, str] | None) -> None:
    if not name or len(name) > ACCOUNT:
        raise AccountError(f"an account's name: 1 to {ACCOUNT} characters")
    if roles is not None and (not roles or any(r not in ROLES for r in roles.values())):
        raise AccountError(f"an account's role: one of {', '.join(ROLES)}")


def _owner(account: Account) -> bool:
    """An owner of every server: the one who may add and remove admins on the page."""
    return account.roles.get("*") == "owner"


def _what(password: bool, roles: bool, imported: bool) -> str:
    """What a change to an existing account was ('' when nothing changed: no activity row)."""
    if not (password or roles):
        return ""
    if imported:  # a new hash (or role) pasted under [web.users]
        return "imported"
    return "password_role" if password and roles else "password" if password else "role"


class KeepsAccounts:
    """Mixed into a backend, which supplies `_select(sql, params) -> rows`, `_write(sql, params)`
    and `commit()`."""

    def accounts(self) -> list[Account]:
        me: Any = self
        rows = me._select("SELECT name, password, roles, password_changed FROM accounts ORDER BY name", ())
        return [Account(r["name"], r["password"], json.loads(r["roles"]), r["password_changed"]) for r in rows]

    def put_account(self, name: str, password: str | None, roles: Mapping[str, str] | None, by: str = "",
                    when: str | None = None, imported: bool = False) -> Account:
        """Adds an account, or changes an existing one's password hash and/or roles (None: kept);
        `imported`: a pair taken from a config's `[web.users]` (the Activity says so)."""
        me: Any = self
        _check(name, roles)
        when, by = when or _stamp(), fit(by, KEY)
        had = {a.name: a for a in self.accounts()}.get(name)
        if had is None:
            if password is None or roles is None:
                raise AccountError(f"no account {name!r}: a new one needs a password and a role")
            me._write("INSERT INTO accounts (name, password, roles, password_changed, changed_by, updated) VALUES (?, ?, ?, ?, ?, ?)",
                      (name, password, json.dumps(dict(roles), ensure_ascii=False), when, by, when))
        else:
            if roles is not None and _owner(had) and roles.get("*") != "owner" and not any(_owner(a) for a in self.accounts() if a.name != name):
                raise AccountError(f"{name} is the last owner: make another admin an owner first, then change {name}'s role")
            me._write("UPDATE accounts SET password = ?, roles = ?, password_changed = ?, changed_by = ?, updated = ? WHERE name = ?",
                      (password or had.password, json.dumps(dict(roles if roles is not None else had.roles), ensure_ascii=False),
                       when if password and password != had.password else had.changed, by, when, name))
        if password and password != (had.password if had else None):  # a hash the table has held: a config line with it is not news
            pair = _pair(name, password)
            if not me._select("SELECT pair FROM account_imports WHERE pair = ?", (pair,)):
                me._write("INSERT INTO account_imports (pair, time) VALUES (?, ?)", (pair, when))
        now_roles = dict(roles if roles is not None else had.roles if had else {})
        new_password = bool(password) and (had is None or password != had.password)
        what = ("imported" if imported else "added") if had is None else _what(new_password, now_roles != dict(had.roles), imported)
        if what:
            self._changed(when, by, name, what, now_roles)
        me.commit()
        return Account(name, password or (had.password if had else ""), now_roles,
                       when if had is None or (password and password != had.password) else had.changed)

    def remove_account(self, name: str, by: str = "") -> bool:
        """Removes an account (its sessions end on every page within seconds); never the last owner
        of every server: nobody could add or remove an admin on the page after him."""
        me: Any = self
        every = {a.name: a for a in self.accounts()}
        had = every.get(name)
        if had is not None and _owner(had) and not any(_owner(a) for a in every.values() if a.name != name):
            raise AccountError(f"{name} is the last owner: make another admin an owner first, then remove {name}")
        cur = me._write("DELETE FROM accounts WHERE name = ?", (name,))
        gone = bool(cur is not None and cur.rowcount)
        if gone and had is not None:
            self._changed(_stamp(), by, name, "removed", dict(had.roles))
        me.commit()
        return gone

    def _changed(self, when: str, by: str, name: str, what: str, roles: Mapping[str, str]) -> None:
        """One row of the accounts' activity, in the change's own transaction: the roles, never the password."""
        assert what in CHANGES  # the page has words for these only
        me: Any = self
        by = fit(by, KEY)
        me._write("INSERT INTO account_changes (time, `by`, name, what, roles) VALUES (?, ?, ?, ?, ?)",
                  (when, by, name, what, json.dumps(dict(roles), ensure_ascii=False)))

    def import_accounts(self, users: Mapping[str, str], roles: Mapping[str, str | Mapping[str, str]], by: str = "config") -> list[str]:
        """The config's `[web.users]` pairs not imported before, into the table (a name not in
        `[web.roles]` is an admin everywhere, as the config reads it); returns the names taken."""
        me: Any = self
        if not users:
            return []
        seen = {r["pair"] for r in me._select("SELECT pair FROM account_imports", ())}
        taken = []
        for name, password in sorted(users.items()):
            pair = _pair(name, password)
            if pair in seen:
                continue
            self.put_account(name, password, roles_of(roles.get(name, "admin")), by, imported=True)
            if not me._select("SELECT pair FROM account_imports WHERE pair = ?", (pair,)):  # the same hash the table already held
                me._write("INSERT INTO account_imports (pair, time) VALUES (?, ?)", (pair, _stamp()))
                me.commit()
            taken.append(name)
        return taken
