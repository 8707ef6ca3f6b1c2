"""`jailcore import ctbans URL [--prefix P] --config FILE`: databomb's CT Bans brought over, once
(store/ctbans_import.py does the reading and writing): its running bans become CT bans of the
server the config names (its daemon applies them within a second and the network shares
them), its log the players' history; a second run adds nothing."""

from __future__ import annotations

import argparse
import sys


def main_import(args: argparse.Namespace) -> int:
    from jailcore.cli.tail import safe
    from jailcore.config.config import Config
    from jailcore.log.errors import ConfigError, StateError
    from jailcore.store.ctbans_import import bring_over, read
    from jailcore.store.location import open_reader, open_store, shown

    try:
        config = Config.from_toml(args.config)
        found = read(args.url, args.prefix)
        where = config.state_where
        store = open_store(where)
        reader = open_reader(where)
        try:
            taken = bring_over(store, reader, config.server_name, found.running, found.logged)
        finally:
            reader.close()
            store.close()
    except (ConfigError, StateError) as exc:
        print(f"jailcore import ctbans: {exc}", file=sys.stderr)
        return 1
    print(f"from {shown(args.url)} (tables {args.prefix}CTBan_Times, {args.prefix}CTBan_Log) into {shown(where)}, server {config.server_name}:")
    print(f"  {taken.bans} running CT ban(s) taken ({taken.permanent} permanent), {taken.history} history entr(y/ies); "
          f"{taken.skipped} already brought over by an earlier run")
    if found.expired:  # CT Bans leaves a ban whose minutes ran out in its table until the player's next spawn
        print(f"  {len(found.expired)} ban(s) already over (minutes left below 0) skipped: {', '.join(found.expired[:10])}"
              + (f" and {len(found.expired) - 10} more" if len(found.expired) > 10 else ""))
    if found.refused:  # each row judged alone: the others are taken
        print(f"  {len(found.refused)} row(s) refused, each named:")
        for why in found.refused[:50]:
            print(f"    {safe(why)}")
        if len(found.refused) > 50:
            print(f"    and {len(found.refused) - 50} more")
    print("  minutes: CT Bans counted a ban's minutes down only while the player was alive on the server; jailcore counts "
          "them on the clock from the moment the server's daemon applies the ban, online or not (a ban with 60 minutes left "
          "there ends 60 minutes after it is applied here). Permanent stays permanent.")
    print("  the server's daemon applies them within a second (jailcore ctban list shows them), and the network shares them")
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("import", help="bring another plugin's records over: `import ctbans URL` (databomb's CT Bans)")
    what = p.add_subparsers(dest="what", required=True)
    q = what.add_parser("ctbans", help="CT Bans' running bans and log (MySQL/MariaDB URL or a SQLite file), once")
    q.add_argument("url", help="mysql://user:password@host:3306/database, or the path of its SQLite file")
    q.add_argument("--prefix", default="", help="the tables' exact prefix: jb_ for jb_CTBan_Times (default: none)")
    q.add_argument("--config", required=True, help="the server's config: its state database and its name")
    q.set_defaults(func=main_import)
