"""The command line (protocol section 3)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from jailcore.log.errors import ConfigError
from jailcore.log.numbers import is_digits

if TYPE_CHECKING:
    from jailcore.config.config import Config
    from jailcore.engine.settings import RuleSettings

# Each command imports what it needs when it runs: `--help`, `status` or `tail` would
# otherwise pay for loading every rule before printing a line.


def _config(path: str | None) -> Config:
    from jailcore.config.config import Config

    if path is None:
        return Config.default()
    return Config.from_toml(path)


def cmd_check_config(args: argparse.Namespace) -> int:
    from jailcore.config.advice import warnings
    from jailcore.config.config import Config

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
    for warning in warnings(config):  # what the daemon's environment may still give: said, not refused
        print(warning, file=sys.stderr)
    on = [(k, r) for k, r in config.rules.items() if r.enabled]
    print(f"{args.file}: ok ({config.server_name}, {config.language}, mode {config.mode}; {len(on)} rules on)")
    print(rule_table(on))
    return 0


def rule_table(rules: list[tuple[str, RuleSettings]]) -> str:
    """The rules a server will enforce, as an admin checks them against his rulebook."""
    rows = [("rule", "ref", "ladder")] + [(k, r.ref or "-", (" → ".join(map(str, getattr(r, "ladder", ()))) or "-")
                                           + (" (an admin confirms)" if r.confirm == "admin" else "")) for k, r in rules]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    return "\n".join(f"  {a:<{widths[0]}}  {b:<{widths[1]}}  {c}".rstrip() for a, b, c in rows)


def cmd_replay(args: argparse.Namespace) -> int:
    from jailcore.cli.logfiles import LogFileError, check
    from jailcore.cli.replay import replay_files

    for path in args.logs:
        try:
            check(path)
        except LogFileError as exc:
            print(f"replay: {exc}", file=sys.stderr)
            return 2
    return replay_files(_config(args.config), args.logs, sys.stdout, args.state, args.stats, args.hud)


def cmd_run(args: argparse.Namespace) -> int:
    paths = list(args.config or [])
    if args.config_dir:
        from jailcore.io.fleet import configs_in

        found = configs_in(args.config_dir)
        if not found:
            print(f"jailcore run: no *.toml config in {args.config_dir}", file=sys.stderr)
            return 1
        paths += found
    if not paths:
        print("jailcore run: give --config FILE (once per server) or --config-dir DIR", file=sys.stderr)
        return 2
    from jailcore.io.process import main

    return main(paths, args.workers)


def cmd_demo(args: argparse.Namespace) -> int:
    from jailcore.cli.demo import main_demo

    return main_demo(args)


def cmd_tail(args: argparse.Namespace) -> int:
    from jailcore.cli.tail import main_tail

    return main_tail(args)


def cmd_history(args: argparse.Namespace) -> int:
    from jailcore.cli.tail import main_history

    return main_history(args)


def cmd_pardon(args: argparse.Namespace) -> int:
    import getpass

    from jailcore.cli.proposals import admin_request
    from jailcore.store import PardonRequest

    return admin_request(args, PardonRequest(args.id, args.by or getpass.getuser(), args.reason), pardon=True)


def cmd_ctban(args: argparse.Namespace) -> int:
    from jailcore.cli.ctbans import main_ctban

    return main_ctban(args)


def cmd_db(args: argparse.Namespace) -> int:
    """`jailcore db upgrade`: the state database brought to this version's schema in place (the
    daemon does it at start too); a newer one is refused in one line."""
    from jailcore.log.errors import AuditError, StateError
    from jailcore.store import locate, upgrade

    try:
        print(upgrade(locate(args.state_db, args.config)))
    except (AuditError, StateError) as exc:
        print(f"jailcore db upgrade: {exc}", file=sys.stderr)
        return 1
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from jailcore.cli.status import main_status

    return main_status(args)


def cmd_web(args: argparse.Namespace) -> int:
    if args.config_dir:
        from jailcore.io.fleet import configs_in

        args.config = (args.config or []) + configs_in(args.config_dir)
    try:
        from jailcore.web.serve import main_web
    except ImportError as exc:
        print(f"jailcore web needs the web extra (pip install 'jailcore[web]'): {exc}", file=sys.stderr)
        return 1
    return main_web(args)


def number(text: str) -> int:
    """A whole number in ASCII digits (not '²'); a huge one is kept for the command to
    refuse with its own bound, never a traceback."""
    if not is_digits(text.strip()) or len(text.strip()) > 30:
        raise argparse.ArgumentTypeError(f"expected a whole number in digits 0-9, got {text[:40]!r}")
    return int(text)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, as every other refusal of jailcore
        self.exit(2, f"{self.prog}: {message} (see {self.prog} -h)\n")


class _Version(argparse.Action):
    """`--version`, worked out only when asked (the package's metadata and the plugin's source are read then)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: str | Sequence[Any] | None,
                 option_string: str | None = None) -> None:  # argparse.Action's own signature
        from jailcore.config import shipped

        try:
            plugin = shipped.plugin_version()
        except (OSError, ValueError):  # an install that lost its files says so, not a traceback
            plugin = "missing"
        print(f"jailcore {shipped.version()} (plugin jailcore_bridge {plugin})")
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = _Parser(prog="jailcore", description="Live rule enforcement for CS:S/CS:GO jail servers.")
    parser.add_argument("--version", action=_Version, nargs=0, help="jailcore's version and its plugin's, then stop")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="the daemon: listen for the log, enforce, send commands; one process for many servers")
    p.add_argument("--config", action="append", help="a server's config; once per server, all served by one process")
    p.add_argument("--config-dir", help="a folder whose every *.toml is one server's config")
    p.add_argument("--workers", type=int, metavar="N", help="processes to spread the servers over (1: one process; default: one process up to "
                   "1,000 servers, the cheaper placement, then one a core)")
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

    from jailcore.cli.init import add_parser as init_parser

    init_parser(sub)

    from jailcore.cli.plugin import add_parser as plugin_parser

    plugin_parser(sub)

    p = sub.add_parser("tail", help="the enforcement audit log; -f keeps following")
    p.add_argument("-f", "--follow", action="store_true", help="keep printing new entries as they happen")
    p.add_argument("--json", action="store_true", help="one JSON object per entry, for scripts")
    p.add_argument("-n", "--lines", type=int, default=20, help="how many of the latest entries (default 20)")
    _audit_filters(p)
    _mqtt(p, "follow every server of the network live from the broker (jailcore/+/actions) instead of a state database")
    p.add_argument("--count", type=int, help="with --mqtt: stop after this many entries")
    p.add_argument("--seconds", type=float, help="with -f: stop after this many seconds")
    p.set_defaults(func=cmd_tail)

    p = sub.add_parser("history", help="one player's record and where he stands on each ladder")
    p.add_argument("player", help="name (part of it), steamid or userid")
    p.add_argument("--json", action="store_true")
    p.add_argument("--config", help="the server's config, to name each ladder's next step")
    p.add_argument("--state-db", help="state database (default: JAILCORE_STATE, the config's, ./jailcore.sqlite3, /var/lib/jailcore/jailcore.sqlite3)")
    p.add_argument("--server", help="only this server's entries")
    p.add_argument("--lang", choices=("ru", "en"), default="ru")
    p.set_defaults(func=cmd_history)

    p = sub.add_parser("demo", help="the daemon against a built-in simulated server")
    p.add_argument("--rounds", type=int, default=5, help="how many rounds to play (3 to 5)")
    p.add_argument("--lang", choices=("ru", "en"), default="ru")
    p.add_argument("--web", action="store_true", help="then serve the web page on the demo until Ctrl-C")
    p.add_argument("--seconds", type=float, help="with --web: stop serving after this many seconds")
    p.add_argument("--listen", default="127.0.0.1:0", help="with --web: host:port (default: a free port on loopback)")
    p.set_defaults(func=cmd_demo)

    from jailcore.cli.proposals import add_parsers as proposal_parsers
    from jailcore.cli.proposals import add_word_arguments

    p = sub.add_parser("pardon", help="pardon an enforcement by its id: the running daemon takes it back")
    add_word_arguments(p, number, "the enforcement's id (jailcore tail --json shows it)", "pardons")
    p.set_defaults(func=cmd_pardon)

    p = sub.add_parser("ctban", help="the CT bans: list them, give one, lift one (the running daemon applies it)")
    do = p.add_subparsers(dest="do", required=True)
    q = do.add_parser("list", help="every server's CT bans: who, what is left, why, by whom")
    q.add_argument("--json", action="store_true", help="one JSON object per ban")
    q.add_argument("--server", help="only this server's bans")
    _where(q)
    q = do.add_parser("add", help="ban a player from CT: the server's daemon applies it within a second")
    q.add_argument("steamid", help="STEAM_0:X:Y, STEAM_1:X:Y or [U:1:N]")
    length = q.add_mutually_exclusive_group()
    length.add_argument("--minutes", type=number, help="for this many minutes (0: permanent)")
    length.add_argument("--rounds", type=number, help="for this many rounds")
    _request(q)
    q = do.add_parser("lift", help="lift a player's CT ban: the server's daemon applies it within a second")
    q.add_argument("steamid", help="STEAM_0:X:Y, STEAM_1:X:Y or [U:1:N]")
    _request(q)
    p.set_defaults(func=cmd_ctban)

    p = sub.add_parser("status", help="per server: day, warden, orders, prohibitions, game, CT bans; RCON, outbox, last line")
    p.add_argument("--config", action="append", help="a server's config (its state database and rule settings); once per server")
    p.add_argument("--state-db", help="every server of this state database (default: JAILCORE_STATE, ./jailcore.sqlite3, /var/lib/jailcore/jailcore.sqlite3)")
    _mqtt(p, "every server's retained state on the broker (jailcore/+/state)")
    p.add_argument("--server", help="only this server")
    p.add_argument("--json", action="store_true", help="one JSON object per server")
    p.add_argument("--lang", choices=("ru", "en"), default="ru", help="day names")
    p.set_defaults(func=cmd_status)

    from jailcore.cli.importer import add_parser as import_parser

    import_parser(sub)

    p = sub.add_parser("db", help="the state database: `db upgrade` brings an older one to this version's schema")
    p.add_argument("action", choices=("upgrade",))
    _where(p)
    p.set_defaults(func=cmd_db)

    p = sub.add_parser("web", help="the admin web page over the servers' state databases; `web adduser NAME --config FILE` makes a login")
    p.add_argument("action", nargs="?", choices=("serve", "adduser", "deluser", "users"), default="serve",
                   help="serve the page; adduser: add an account or change its password and role (with --config or --state-db in the "
                        "accounts table, else print a [web.users] line); deluser: remove one; users: list them")
    p.add_argument("name", nargs="?", help="with adduser and deluser: the admin's name")
    p.add_argument("--role", action="append", default=[], metavar="[SERVER=]ROLE",
                   help="with adduser: viewer, moderator, admin or owner, on every server or on SERVER (repeat; default for a new one: admin)")
    p.add_argument("--state-db", help="with adduser, deluser, users: the database whose accounts (a file or a mysql:// URL)")
    p.add_argument("--keep-password", action="store_true", help="with adduser of an existing account: change only its role")
    p.add_argument("--config", action="append", help="a server's config; once per server")
    p.add_argument("--config-dir", help="a folder whose every *.toml is one server's config (as run --config-dir)")
    p.add_argument("--listen", help="host:port (default: [web] listen, 127.0.0.1:8080)")
    p.add_argument("--public", action="store_true", help="show the live log read-only without a login")
    p.add_argument("--password-stdin", action="store_true", help="with adduser: read the password from standard input")
    p.set_defaults(func=cmd_web)

    proposal_parsers(sub)
    from jailcore.cli.appeals import add_parser as appeals_parser
    from jailcore.cli.notify import add_parser as notify_parser

    appeals_parser(sub)
    notify_parser(sub)
    return parser


def _where(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument("--state-db", help="state database (default: JAILCORE_STATE, ./jailcore.sqlite3, /var/lib/jailcore/jailcore.sqlite3)")
    where.add_argument("--config", help="the server's config (its state database, its server name)")


def _request(p: argparse.ArgumentParser) -> None:
    p.add_argument("--reason", default="", help="why, for the player and the log")
    p.add_argument("--by", help="who (default: your login name)")
    p.add_argument("--server", help="which server (default: the config's, or the only one in the database)")
    _where(p)


def _mqtt(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--mqtt", nargs="?", const="", metavar="URL",
                   help=f"{what}; URL mqtt://host:port or mqtts://, else JAILCORE_MQTT_URL or the config's [mqtt] url")


def _audit_filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", help="the server's config (for its state database)")
    p.add_argument("--state-db", help="state database (default: JAILCORE_STATE, the config's, ./jailcore.sqlite3, /var/lib/jailcore/jailcore.sqlite3)")
    p.add_argument("--player", help="name (part of it), steamid or userid")
    p.add_argument("--rule", help="a rule key, or its first part (games)")
    p.add_argument("--action", help="warn, slay, teamswap, ctban, ...")
    p.add_argument("--since", help="ISO time, or a duration back from now: 30m, 2h, 1d")
    p.add_argument("--server", help="only this server's entries")
    p.add_argument("--lang", choices=("ru", "en"), default="ru", help="day names")


def main(argv: list[str] | None = None) -> int:
    from jailcore.log.errors import StateError
    from jailcore.store import errors_or

    args = build_parser().parse_args(argv)
    command: Callable[[argparse.Namespace], int] = args.func  # every command's set_defaults(func=main_...); a Namespace has no types
    try:
        return command(args)
    except ConfigError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except errors_or(OSError, UnicodeError, StateError) as exc:  # a bad file is one line, never a traceback
        print(f"jailcore {args.command}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
