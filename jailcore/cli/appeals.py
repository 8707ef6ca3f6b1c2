"""`jailcore appeals [list]`, `jailcore appeals grant ID [--reason T]` and `jailcore appeals
uphold ID --reason T`: the players' appeals filed on the web page (`/appeal`), and an admin's
answer to one. Granting is a pardon, the row `jailcore pardon` writes (the running daemon lifts
the punishment in the game, and in SourceBans++); upholding says why, on the player's link."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Mapping
from typing import Any

from jailcore.log.errors import AdminRequestError, ConfigError, StateError
from jailcore.store.errors import errors_or


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("appeals", help="the players' appeals: list them, grant one (a pardon) or uphold one (with a reason)")
    p.add_argument("do", nargs="?", choices=("list", "grant", "uphold"), default="list")
    p.add_argument("id", nargs="?", type=int, help="with grant and uphold: the appeal's number (appeals list shows it)")
    p.add_argument("--reason", default="", help="why; the player reads it on his link (uphold needs one)")
    p.add_argument("--by", help="who answers (default: your login name)")
    p.add_argument("--all", action="store_true", help="with list: the answered ones too (the newest 100)")
    p.add_argument("--json", action="store_true", help="with list: one JSON object per appeal")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--state-db", help="state database (default: JAILCORE_STATE, jailcore.sqlite3)")
    where.add_argument("--config", help="the server's config (its state database)")
    p.set_defaults(func=main_appeals)


def main_appeals(args: argparse.Namespace) -> int:
    from jailcore.cli.proposals import open_for_request
    from jailcore.store.appeal_answers import settle
    from jailcore.store.appeals import Appeals
    from jailcore.store.audit import AuditError, locate
    from jailcore.store.portable import Db
    from jailcore.store.requests import Queued

    if args.do != "list" and args.id is None:
        print(f"jailcore appeals {args.do}: give the appeal's number", file=sys.stderr)
        return 2
    try:
        where = locate(args.state_db, args.config)
        db = Db(where)
    except errors_or(AuditError, ConfigError) as exc:
        print(f"jailcore appeals: {exc}", file=sys.stderr)
        return 1
    appeals = Appeals(db)
    try:
        if args.do == "list":
            rows = appeals.listed("" if args.all else "open")
            for r in reversed(rows):
                if args.json:
                    print(json.dumps({k: v for k, v in r.items() if k not in ("token", "address")}, ensure_ascii=False))
                else:
                    print(line(r))
            if not rows and not args.json:
                print("no appeal waits for an answer" if not args.all else "no appeal yet")
            return 0
        store, queue, why = open_for_request(where, args.config)
        try:
            verdict = "grant" if args.do == "grant" else "uphold"
            row, pardon = settle(store, queue, why, appeals, args.id, verdict, args.by or getpass.getuser(), args.reason)
        finally:
            if store is not None:
                store.close()
        print(line(row))
        if isinstance(pardon, Queued):
            print(f"pardon {pardon.said()}")
        elif pardon is not None:
            print(f"pardon {pardon} written; the running daemon lifts the punishment within a second")
        return 0
    except errors_or(AdminRequestError, StateError) as exc:
        print(f"jailcore appeals: {exc}", file=sys.stderr)
        return 1
    finally:
        db.close()


def line(r: Mapping[str, Any]) -> str:
    head = f"#{r['id']} {r['status']} {r['server']} {r['action']} #{r['action_id']} {r['name'] or '?'} {r['steamid']} {str(r['time']).replace('T', ' ')}"
    text = " ".join(str(r["text"]).split())
    out = f"{head}\n    {text[:300]}" + (f"\n    contact: {r['contact']}" if r.get("contact") else "")
    if r["status"] != "open":
        out += f"\n    {r['status']} by {r['by']} at {str(r['answered']).replace('T', ' ')}: {r['reason'] or '-'}"
    return out
