"""`jailcore confirm ID` and `jailcore dismiss ID`: an admin's word on a proposed
punishment (a rule set `confirm = "admin"`), written as a row the running daemon applies
within a second, as a pardon is."""

from __future__ import annotations

import argparse
import getpass
import sys

from jailcore.log.errors import ConfigError


def main_answer(args: argparse.Namespace) -> int:
    from jailcore.cli.tail import human
    from jailcore.io.audit import AuditError, database
    from jailcore.io.store import ProposalError, Store

    try:
        path = database(args)
    except (AuditError, ConfigError) as exc:
        print(f"jailcore {args.command}: {exc}", file=sys.stderr)
        return 1
    store = Store(path)
    try:
        answer_id = store.request_answer(args.id, args.command, args.by or getpass.getuser(), args.reason)
        (row,) = store.entries("id = ?", (args.id,))
        print(human(row, False, "en"))
    except ProposalError as exc:
        print(f"jailcore {args.command}: {exc}", file=sys.stderr)
        return 1
    finally:
        store.close()
    print(f"{args.command} {answer_id} written; the running daemon applies it within a second")
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    for name, what in (("confirm", "carry out a proposed punishment (its ladder climbed then)"),
                       ("dismiss", "drop a proposed punishment: nothing is done, the ladder stays")):
        p = sub.add_parser(name, help=f"{what}; the running daemon applies it within a second")
        p.add_argument("id", type=int, help="the proposal's id (jailcore tail --action propose shows it)")
        p.add_argument("--reason", default="", help="why, for the log")
        p.add_argument("--by", help="who answers (default: your login name)")
        where = p.add_mutually_exclusive_group()
        where.add_argument("--state-db", help="state database (default: JAILCORE_STATE, jailcore.sqlite3)")
        where.add_argument("--config", help="the server's config (for its state database)")
        p.set_defaults(func=main_answer)
