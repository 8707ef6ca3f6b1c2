"""`jailcore confirm ID` and `jailcore dismiss ID`: an admin's word on a proposed
punishment (a rule set `confirm = "admin"`), written as a row the running daemon applies
within a second, as a pardon is."""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from jailcore.log.errors import AdminRequestError, ConfigError, StateError

if TYPE_CHECKING:
    from jailcore.store.interface import StateStore


def admin_request(args: argparse.Namespace, kind: str, asked: Mapping[str, object], pardon: bool = False) -> int:
    """An admin's word on one entry (`pardon`, `confirm`, `dismiss`), written as a row the
    running daemon applies: at once when it hears the nudge, else at its next poll. On a
    database server that cannot be reached it waits in this machine's queue (store.requests)."""
    from jailcore.cli.tail import human
    from jailcore.io.wake import nudge
    from jailcore.store.audit import AuditError, locate, open_reader
    from jailcore.store.location import shown
    from jailcore.store.requests import Queued, ask

    try:
        path = locate(args.state_db, args.config)
        store, queue, why = open_for_request(path, args.config)
    except (AuditError, ConfigError, StateError) as exc:
        print(f"jailcore {args.command}: {exc}", file=sys.stderr)
        return 1
    try:
        request_id = ask(store, queue, why, kind, **asked)
        if isinstance(request_id, Queued):
            print(f"{args.command} {request_id.said()}")
            return 0
        reader = open_reader(path)
        try:
            row = reader.entry(args.id)
            assert row is not None  # the request was just written for it
            print(human(row, False, "en", reader.pardons_for([args.id])[args.id] if pardon else None))
        finally:
            reader.close()
    except AdminRequestError as exc:
        print(f"jailcore {args.command}: {exc}", file=sys.stderr)
        return 1
    finally:
        if store is not None:
            store.close()
    when = "now" if nudge(shown(path), row["server"]) else "within a second"
    print(f"{args.command} {request_id} written; the running daemon applies it {when}")
    return 0


def open_for_request(path: str, config: str | None) -> tuple[StateStore | None, str | None, str]:
    """The store an admin's request is written through, this machine's queue for it (a database
    server and a config that names `[state] path`), and why the store is None (the server cannot
    be reached: the request waits in the queue)."""
    from jailcore.store.location import is_url, open_store

    queue = None
    if is_url(path) and config:
        from jailcore.config.config import Config
        from jailcore.store.requests import requests_path

        queue = requests_path(Config.from_toml(config).state_path)
    if not is_url(path):
        return open_store(path), None, ""
    from jailcore.store.mariadb import Unreachable

    try:
        return open_store(path), queue, ""
    except Unreachable as exc:
        return None, queue, str(exc).split(": ", 1)[-1]


def main_answer(args: argparse.Namespace) -> int:
    return admin_request(args, "answer", {"action_id": args.id, "answer": args.command, "by": args.by or getpass.getuser(),
                                          "reason": args.reason})




def add_word_arguments(p: argparse.ArgumentParser, id_type: Callable[[str], int], id_help: str, who: str) -> None:
    """The arguments every admin's word takes (`pardon`, `confirm`, `dismiss`): the entry's
    id, why, who, and where its state database is."""
    p.add_argument("id", type=id_type, help=id_help)
    p.add_argument("--reason", default="", help="why, for the log")
    p.add_argument("--by", help=f"who {who} (default: your login name)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--state-db", help="state database (default: JAILCORE_STATE, ./jailcore.sqlite3, /var/lib/jailcore/jailcore.sqlite3)")
    where.add_argument("--config", help="the server's config (for its state database)")


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for name, what in (("confirm", "carry out a proposed punishment (its ladder climbed then)"),
                       ("dismiss", "drop a proposed punishment: nothing is done, the ladder stays")):
        p = sub.add_parser(name, help=f"{what}; the running daemon applies it within a second")
        add_word_arguments(p, int, "the proposal's id (jailcore tail --action propose shows it)", "answers")
        p.set_defaults(func=main_answer)
