"""`jailcore web`: serve the page with uvicorn; `jailcore web adduser NAME`: a hash line."""

from __future__ import annotations

import argparse
import contextlib
import getpass
import sys
import threading
from collections.abc import Sequence
from datetime import datetime

import attrs
import uvicorn

from jailcore.config.config import Config, ConfigError, WebConfig
from jailcore.web.app import Web
from jailcore.web.auth import hash_password
from jailcore.web.data import SourceError, Sources, warm


class Server(uvicorn.Server):
    """uvicorn inside a program that already owns the loop and the signals (the demo,
    the tests): it stops when `should_exit` is set."""

    def capture_signals(self):
        return contextlib.nullcontext()


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
    return srv.servers[0].sockets[0].getsockname()[1]


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


def main_web(args: argparse.Namespace) -> int:
    if args.action == "adduser":
        password = sys.stdin.readline().rstrip("\n") if args.password_stdin else None
        return adduser(args.name or "", password)
    if not args.config:
        print("jailcore web: give the servers' configs: jailcore web --config server-a.toml --config server-b.toml", file=sys.stderr)
        return 2
    try:
        configs = [Config.from_toml(path) for path in args.config]
        web = build(configs)
    except ConfigError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    except (SourceError, OSError) as exc:
        print(f"jailcore web: {exc}", file=sys.stderr)
        return 1
    if args.listen or args.public:
        web.settings = attrs.evolve(web.settings, listen=args.listen or web.settings.listen, public=web.settings.public or args.public)
    if not web.settings.users:
        print("jailcore web: no admins in [web.users]; add one with `jailcore web adduser NAME`", file=sys.stderr)
    threading.Thread(target=warm, args=(web.sources, datetime.now()), name="jailcore-web-warm", daemon=True).start()
    host, port = host_port(web.settings.listen)
    print(f"jailcore web: http://{host}:{port}/ ({', '.join(web.sources.servers()) or 'no servers yet'})", file=sys.stderr)
    try:
        server(web, web.settings.listen, uvicorn.Server).run()  # uvicorn's own signal handling: Ctrl-C stops it
    finally:
        web.sources.close()
    return 0
