"""The command line (protocol section 3)."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from .config import Config, ConfigError


def _config(path: str | None) -> Config:
    if path is None:
        return Config.default()
    return Config.from_toml(path)


def cmd_check_config(args: argparse.Namespace) -> int:
    try:
        config = Config.from_toml(args.file)
    except ConfigError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print(f"{args.file}: {len(exc.problems)} error(s); config refused", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{args.file}: cannot read: {exc.strerror}", file=sys.stderr)
        return 1
    on = sorted(k for k, r in config.rules.items() if r.enabled)
    print(f"{args.file}: ok ({config.server_name}, {config.language}, mode {config.mode}; rules on: {', '.join(on)})")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from .replay import replay_files

    for path in args.logs:
        if not Path(path).is_file():
            print(f"replay: no such log file: {path}", file=sys.stderr)
            return 2
    return replay_files(_config(args.config), args.logs, sys.stdout, args.state, args.stats, args.hud)


def cmd_run(args: argparse.Namespace) -> int:
    from .io.daemon import main_run

    return main_run(_config(args.config), args.config)


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import main_demo

    return main_demo(args)


def cmd_tail(args: argparse.Namespace) -> int:
    from .tail import main_tail

    return main_tail(args)


def cmd_history(args: argparse.Namespace) -> int:
    from .tail import main_history

    return main_history(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="jailcore", description="Live rule enforcement for CS:S/CS:GO jail servers.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="the daemon: listen for the log, enforce, send commands")
    p.add_argument("--config", required=True)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("replay", help="run log files through the engine, print actions as JSON")
    p.add_argument("--config")
    p.add_argument("--state", action="store_true", help="print the engine's state at the end")
    p.add_argument("--stats", action="store_true", help="print parser statistics at the end")
    p.add_argument("--hud", action="store_true", help="include the display line updates")
    p.add_argument("logs", nargs="+", metavar="LOG")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("check-config", help="validate a config file")
    p.add_argument("file")
    p.set_defaults(func=cmd_check_config)

    p = sub.add_parser("tail", help="the enforcement audit log; -f keeps following")
    p.add_argument("-f", "--follow", action="store_true", help="keep printing new entries as they happen")
    p.add_argument("--json", action="store_true", help="one JSON object per entry, for scripts")
    p.add_argument("-n", "--lines", type=int, default=20, help="how many of the latest entries (default 20)")
    _audit_filters(p)
    p.set_defaults(func=cmd_tail)

    p = sub.add_parser("history", help="one player's record and where he stands on each ladder")
    p.add_argument("player", help="name (part of it), steamid or userid")
    p.add_argument("--json", action="store_true")
    p.add_argument("--config", help="the server's config, to name each ladder's next step")
    p.add_argument("--state-db", help="state database (default: JAILCORE_STATE, the config's, jailcore.sqlite3)")
    p.add_argument("--server", help="only this server's entries")
    p.add_argument("--lang", choices=("ru", "en"), default="ru")
    p.set_defaults(func=cmd_history)

    p = sub.add_parser("demo", help="the daemon against a built-in simulated server")
    p.add_argument("--rounds", type=int, default=5, help="how many rounds to play (3 to 5)")
    p.add_argument("--lang", choices=("ru", "en"), default="ru")
    p.set_defaults(func=cmd_demo)
    return parser


def _audit_filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", help="the server's config (for its state database)")
    p.add_argument("--state-db", help="state database (default: JAILCORE_STATE, the config's, jailcore.sqlite3)")
    p.add_argument("--player", help="name (part of it), steamid or userid")
    p.add_argument("--rule", help="a rule key, or its first part (games)")
    p.add_argument("--action", help="warn, slay, teamswap, ctban, ...")
    p.add_argument("--since", help="ISO time, or a duration back from now: 30m, 2h, 1d")
    p.add_argument("--server", help="only this server's entries")
    p.add_argument("--lang", choices=("ru", "en"), default="ru", help="day names")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ConfigError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except (OSError, sqlite3.DatabaseError, UnicodeError) as exc:  # a bad file is one line, never a traceback
        print(f"jailcore {args.command}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
