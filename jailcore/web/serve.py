"""`jailcore web`: serve the page with uvicorn; `jailcore web adduser|deluser|users`: the
accounts table (with `--config` or `--state-db`), or without either a `[web.users]` hash line."""

from __future__ import annotations

import argparse
import contextlib
import getpass
import sys
import threading
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import attrs
import uvicorn

from jailcore.config.config import ROLES, Config, ConfigError, WebConfig
from jailcore.io.ports import PortError, bind_tcp
from jailcore.log.errors import AdminRequestError, StateError
from jailcore.store.errors import errors_or
from jailcore.web.app import Web
from jailcore.web.auth import hash_password
from jailcore.web.data import SourceError, Sources, warm

if TYPE_CHECKING:
    from jailcore.store.interface import StateStore


class Server(uvicorn.Server):
    """uvicorn inside a program that already owns the loop and the signals (the demo,
    the tests): it stops when `should_exit` is set."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:  # uvicorn's own is a context manager too: here it captures nothing
        yield


def host_port(listen: str) -> tuple[str, int]:
    host, _, port = listen.rpartition(":")
    return host.strip("[]"), int(port)


def build(configs: Sequence[Config], settings: WebConfig | None = None, poll: float = 0.25) -> Web:
    """The page over these servers' databases; `[web]` from the first config that has one."""
    if settings is None:
        given = [c.web for c in configs if c.web != WebConfig()]
        settings = given[0] if given else WebConfig()
    return Web(Sources(configs), settings, poll)


def server(web: Web, listen: str, kind: type[uvicorn.Server] = Server) -> uvicorn.Server:
    host, port = host_port(listen)
    config = uvicorn.Config(web.app(), host=host, port=port, log_level="warning", access_log=False, lifespan="off",
                            timeout_graceful_shutdown=1, proxy_headers=False)  # the page reads X-Forwarded-For itself: [web] trusted_proxies
    return kind(config)


def bound_port(srv: uvicorn.Server) -> int:
    port: int = srv.servers[0].sockets[0].getsockname()[1]  # an IP socket's (host, port, ...): the socket module types it Any
    return port


def adduser(name: str, password: str | None) -> int:
    if not name or any(c in name for c in ' ="\n\\.[]'):
        print("jailcore web adduser: a name without spaces, quotes, dots or brackets, please", file=sys.stderr)
        return 2
    if password is None:
        if not sys.stdin.isatty():
            print("jailcore web adduser: no terminal to ask the password on; give it on standard input: "
                  f"echo 'PASSWORD' | jailcore web adduser {name} --password-stdin", file=sys.stderr)
            return 2
        password = getpass.getpass(f"password for {name}: ")
        if getpass.getpass("again: ") != password:
            print("jailcore web adduser: the two passwords differ", file=sys.stderr)
            return 1
    if len(password) < 8:
        print("jailcore web adduser: a password of 8 characters at least", file=sys.stderr)
        return 1
    print("# paste under [web.users] in the config:", file=sys.stderr)
    print(f'{name} = "{hash_password(password)}"')
    return 0


def ask_password(name: str, password_stdin: bool) -> str | None:
    """The new password: from standard input, or asked twice on the terminal; None (said why) if neither."""
    if password_stdin:
        return sys.stdin.readline().rstrip("\n")
    if not sys.stdin.isatty():
        print(f"jailcore web adduser: no terminal to ask the password on; give it on standard input: "
              f"echo 'PASSWORD' | jailcore web adduser {name} --password-stdin", file=sys.stderr)
        return None
    password = getpass.getpass(f"password for {name}: ")
    if getpass.getpass("again: ") != password:
        print("jailcore web adduser: the two passwords differ", file=sys.stderr)
        return None
    return password


def roles_given(given: Sequence[str]) -> dict[str, str] | str:
    """`--role owner`, `--role server-a=moderator --role viewer`: the roles per server ("*": the others), or what is wrong."""
    out = {}
    for item in given:
        server, _, role = item.rpartition("=")
        if role not in ROLES:
            return f"--role {item!r}: give one of {', '.join(ROLES)}, or SERVER=ROLE"
        out[server.strip() or "*"] = role
    return out


def accounts_store(args: argparse.Namespace) -> tuple[StateStore, list[Config]] | str:
    """The database whose accounts the command changes, as the page picks it: `--state-db`, else the
    config its `[web]` is read from (the first that has one), else the first config."""
    from jailcore.store.location import open_store

    configs = [Config.from_toml(path) for path in args.config or []]
    if args.state_db:
        where = args.state_db
    elif configs:
        where = ([c for c in configs if c.web != WebConfig()] or configs)[0].state_where
    else:
        return "give --config FILE (the page's config) or --state-db PATH|URL: the accounts live in its state database"
    return open_store(where), configs


def console() -> str:
    """Who changes an account from the command line, as the page's Activity names him: the
    console and the system user who ran the command (if the system can say)."""
    try:
        return f"console ({getpass.getuser()})"
    except (OSError, KeyError):  # no login name and no passwd entry (a bare container)
        return "console"


def manage_accounts(args: argparse.Namespace) -> int:
    """`jailcore web adduser|deluser|users` on the accounts table (store/accounts.py)."""
    what = args.action
    name = args.name or ""
    if what != "users" and (not name or any(c in name for c in ' ="\n\\.[]') or len(name) > 32):
        print(f"jailcore web {what}: a name of up to 32 characters without spaces, quotes, dots or brackets, please", file=sys.stderr)
        return 2
    roles = roles_given(args.role)
    if isinstance(roles, str):
        print(f"jailcore web {what}: {roles}", file=sys.stderr)
        return 2
    try:
        opened = accounts_store(args)
        if isinstance(opened, str):
            print(f"jailcore web {what}: {opened}", file=sys.stderr)
            return 2
        store, configs = opened
    except ConfigError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    except errors_or(StateError, OSError) as exc:
        print(f"jailcore web {what}: {exc}", file=sys.stderr)
        return 1
    try:
        for config in configs:  # an install from before the table: its [web.users] first, once
            if config.web.users:
                store.import_accounts(config.web.users, config.web.roles)
        known = {a.name: a for a in store.accounts()}
        if what == "users":
            for a in known.values():
                print(f"{a.name}  {', '.join(f'{s}: {r}' if s != '*' else r for s, r in sorted(a.roles.items()))}  password set {a.changed[:19]}")
            if not known:
                print(f"no accounts in {store.path}: add the first with jailcore web adduser NAME --role owner --config FILE")
            return 0
        if what == "deluser":
            if not store.remove_account(name, console()):
                print(f"jailcore web deluser: no account {name!r} in {store.path}", file=sys.stderr)
                return 1
            print(f"account {name} removed from {store.path}; its sessions end within seconds")
            return 0
        hashed = None
        if not (args.keep_password and name in known):
            password = ask_password(name, args.password_stdin)
            if password is None:
                return 1 if sys.stdin.isatty() else 2
            if len(password) < 8:
                print("jailcore web adduser: a password of 8 characters at least", file=sys.stderr)
                return 1
            hashed = hash_password(password)
        account = store.put_account(name, hashed, roles or (None if name in known else {"*": "admin"}), console())
    except AdminRequestError as exc:
        print(f"jailcore web {what}: {exc}", file=sys.stderr)
        return 1
    except errors_or(StateError) as exc:
        print(f"jailcore web {what}: {exc}", file=sys.stderr)
        return 1
    finally:
        store.close()
    shown_roles = ", ".join(f"{s}: {r}" if s != "*" else r for s, r in sorted(account.roles.items()))
    print(f"account {name} {'changed' if name in known else 'added'} in {store.path} ({shown_roles}); every page on it lets him in within seconds")
    return 0


def main_web(args: argparse.Namespace) -> int:
    if args.action in ("deluser", "users") or (args.action == "adduser" and (args.config or args.state_db)):
        return manage_accounts(args)
    if args.action == "adduser":
        password = sys.stdin.readline().rstrip("\n") if args.password_stdin else None
        return adduser(args.name or "", password)
    if not args.config:
        print("jailcore web: give the servers' configs: jailcore web --config server-a.toml --config server-b.toml", file=sys.stderr)
        return 2
    try:
        configs = [Config.from_toml(path) for path in args.config]
        web = build(configs)
    except (SourceError, OSError) as exc:  # before ConfigError, whose kind it is: a database refused says who refused it
        print(f"jailcore web: {exc}", file=sys.stderr)
        return 1
    except ConfigError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    if args.listen or args.public:
        web.settings = attrs.evolve(web.settings, listen=args.listen or web.settings.listen, public=web.settings.public or args.public)
    try:  # bound before the page says anything: a port in use is one line, and nothing before it
        sock = bind_tcp(web.settings.listen, "[web] listen (or --listen)")
    except PortError as exc:
        print(f"jailcore web: {exc}", file=sys.stderr)
        web.sources.close()
        return 1
    if not web.settings.users:
        print("jailcore web: no accounts yet; add the first with `jailcore web adduser NAME --role owner --config FILE`", file=sys.stderr)
    threading.Thread(target=warm, args=(web.sources, datetime.now()), name="jailcore-web-warm", daemon=True).start()
    host, _ = host_port(web.settings.listen)
    print(f"jailcore web: http://{host}:{sock.getsockname()[1]}/ ({', '.join(web.sources.servers()) or 'no servers yet'})", file=sys.stderr)
    try:
        server(web, web.settings.listen, uvicorn.Server).run(sockets=[sock])  # uvicorn's own signal handling: Ctrl-C stops it
    finally:
        web.sources.close()
    return 0
