"""The store: every line of SQL jailcore runs, behind one typed interface used by the daemon,
the command line and the web page alike. Nothing outside this folder imports `sqlite3` or a
database driver, and nothing outside it imports a module of it: `jailcore.store` is the one
name the rest imports (tests/test_one_store.py counts). Imports `log`, `engine`, `config` and
`session`; never `io`, `sim`, `web` or `cli`.

What it offers, by who asks:

- the daemon: `daemon_store` (its reads on the loop) and `daemon_writer` (its rows, the
  session's `Write` effects, off the loop), `StateStore` and `Writer`;
- the command line and the web page: `locate` and `open_reader` (a `Reader`: the audit log
  under a `Filter`, the saved standings), `open_store` and `submit` for an admin's request
  (`PardonRequest`, `CtBanRequest`, `AnswerRequest`, `ActRequest`: one class each, queued on
  this machine while a database server is away), the appeals and the notifications' queue;
- everyone: the store's errors (store/errors.py), each a `JailcoreError`.

A module of the store is never named like a name it offers (`standing` is `audit.standing`, the
saved standings are `store/standings.py`): importing the module would put it in that name's place.

Each name is imported when it is first asked for (PEP 562), so a command that only reads the
SQLite file never loads the MariaDB driver or the daemon's writer: `jailcore tail` starts as
fast as when it imported the modules themselves.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Where each public name lives inside the store (the modules are the store's own business).
_HOME = {
    "errors": ("DATABASE_ERRORS", "AccountError", "AppealError", "AuditError", "Away", "AwayError", "DatabaseFault", "PardonError",
               "ProposalError", "StoreError", "Unreachable", "errors_or"),
    "location": ("bridge_for", "daemon_store", "daemon_writer", "is_url", "open_reader", "open_store", "shown", "upgrade"),
    "audit": ("DAYS", "as_json", "ban_left", "daemon_word", "locate", "open_proposals", "span", "standing"),
    "standings": ("Cooldown", "Standing", "cooldown_of", "readable_ban"),
    "filter": ("USERID", "Filter", "personal", "since_time"),
    "access": ("DEFAULT_STATE", "out_of_reach"),
    "interface": ("AuditLog", "Claim", "StateStore"),
    "reader": ("Reader",),
    "spelling": ("Row",),
    "writer": ("NewsReader", "Writer"),
    "request_kinds": ("ActRequest", "AnswerRequest", "CtBanRequest", "PardonRequest", "Request", "asked_in_game"),
    "requests": ("Queued", "RefusedRequest", "refused_requests", "requests_path", "submit", "waiting_requests"),
    "journal": ("aside_in", "journal_path", "waiting_in"),
    "verdicts": ("PARDONABLE", "done"),
    "appeals": ("CONTACT_MAX", "REASON_MAX", "TEXT_MAX", "Appeals"),
    "appeal_answers": ("settle_appeal",),
    "notices": ("Notices", "failing", "sink_health"),
    "portable": ("Db",),
    "sourcebans": ("SourceBans", "network_bans"),
    "ctbans_import": ("bring_over", "read_ctbans"),
}
_WHERE = {name: module for module, names in _HOME.items() for name in names}
__all__ = sorted(_WHERE)

if TYPE_CHECKING:
    from jailcore.store.access import DEFAULT_STATE as DEFAULT_STATE
    from jailcore.store.access import out_of_reach as out_of_reach
    from jailcore.store.appeal_answers import settle_appeal as settle_appeal
    from jailcore.store.appeals import CONTACT_MAX as CONTACT_MAX
    from jailcore.store.appeals import REASON_MAX as REASON_MAX
    from jailcore.store.appeals import TEXT_MAX as TEXT_MAX
    from jailcore.store.appeals import Appeals as Appeals
    from jailcore.store.audit import DAYS as DAYS
    from jailcore.store.audit import as_json as as_json
    from jailcore.store.audit import ban_left as ban_left
    from jailcore.store.audit import daemon_word as daemon_word
    from jailcore.store.audit import locate as locate
    from jailcore.store.audit import open_proposals as open_proposals
    from jailcore.store.audit import span as span
    from jailcore.store.audit import standing as standing
    from jailcore.store.ctbans_import import bring_over as bring_over
    from jailcore.store.ctbans_import import read_ctbans as read_ctbans
    from jailcore.store.errors import DATABASE_ERRORS as DATABASE_ERRORS
    from jailcore.store.errors import AccountError as AccountError
    from jailcore.store.errors import AppealError as AppealError
    from jailcore.store.errors import AuditError as AuditError
    from jailcore.store.errors import Away as Away
    from jailcore.store.errors import AwayError as AwayError
    from jailcore.store.errors import DatabaseFault as DatabaseFault
    from jailcore.store.errors import PardonError as PardonError
    from jailcore.store.errors import ProposalError as ProposalError
    from jailcore.store.errors import StoreError as StoreError
    from jailcore.store.errors import Unreachable as Unreachable
    from jailcore.store.errors import errors_or as errors_or
    from jailcore.store.filter import USERID as USERID
    from jailcore.store.filter import Filter as Filter
    from jailcore.store.filter import personal as personal
    from jailcore.store.filter import since_time as since_time
    from jailcore.store.interface import AuditLog as AuditLog
    from jailcore.store.interface import Claim as Claim
    from jailcore.store.interface import StateStore as StateStore
    from jailcore.store.journal import aside_in as aside_in
    from jailcore.store.journal import journal_path as journal_path
    from jailcore.store.journal import waiting_in as waiting_in
    from jailcore.store.location import bridge_for as bridge_for
    from jailcore.store.location import daemon_store as daemon_store
    from jailcore.store.location import daemon_writer as daemon_writer
    from jailcore.store.location import is_url as is_url
    from jailcore.store.location import open_reader as open_reader
    from jailcore.store.location import open_store as open_store
    from jailcore.store.location import shown as shown
    from jailcore.store.location import upgrade as upgrade
    from jailcore.store.notices import Notices as Notices
    from jailcore.store.notices import failing as failing
    from jailcore.store.notices import sink_health as sink_health
    from jailcore.store.portable import Db as Db
    from jailcore.store.reader import Reader as Reader
    from jailcore.store.request_kinds import ActRequest as ActRequest
    from jailcore.store.request_kinds import AnswerRequest as AnswerRequest
    from jailcore.store.request_kinds import CtBanRequest as CtBanRequest
    from jailcore.store.request_kinds import PardonRequest as PardonRequest
    from jailcore.store.request_kinds import Request as Request
    from jailcore.store.request_kinds import asked_in_game as asked_in_game
    from jailcore.store.requests import Queued as Queued
    from jailcore.store.requests import RefusedRequest as RefusedRequest
    from jailcore.store.requests import refused_requests as refused_requests
    from jailcore.store.requests import requests_path as requests_path
    from jailcore.store.requests import submit as submit
    from jailcore.store.requests import waiting_requests as waiting_requests
    from jailcore.store.sourcebans import SourceBans as SourceBans
    from jailcore.store.sourcebans import network_bans as network_bans
    from jailcore.store.spelling import Row as Row
    from jailcore.store.standings import Cooldown as Cooldown
    from jailcore.store.standings import Standing as Standing
    from jailcore.store.standings import cooldown_of as cooldown_of
    from jailcore.store.standings import readable_ban as readable_ban
    from jailcore.store.verdicts import PARDONABLE as PARDONABLE
    from jailcore.store.verdicts import done as done
    from jailcore.store.writer import NewsReader as NewsReader
    from jailcore.store.writer import Writer as Writer
else:

    def __getattr__(name: str) -> Any:
        """A public name, from its module at its first use (then kept here: one look-up)."""
        module = _WHERE.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value
        return value
