"""`jailcore init NAME --preset P`: a new server's config, written from one of the shipped
configs (the rulebook presets server-a, server-b and example), with its name, RCON address,
log port, a fresh `sv_logsecret` and its state file filled in, checked by the same loader as
`check-config`, and the lines to paste into the game server's `server.cfg` printed after.

The shipped configs are `configs/` of a checkout, or the copy an installed wheel carries in
the package (`jailcore.config.shipped`)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from jailcore.log.errors import ConfigError
from jailcore.log.numbers import is_digits
from jailcore.store.access import DEFAULT_STATE

CELL_MAX = 2_147_483_647  # sv_logsecret is a 32-bit cell; the engine ignores 0
PRESETS = ("server-a", "server-b", "example")


def preset_text(name: str) -> tuple[Path, str]:
    from jailcore.config import shipped  # here, not above: every command builds init's parser

    path = shipped.configs() / f"{name}.toml"
    try:
        return path, path.read_text(encoding="utf-8")
    except OSError as exc:
        raise FileNotFoundError(f"cannot read the shipped config {path}: {exc.strerror or exc}") from None


def toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def fill(text: str, values: dict[tuple[str, str], str]) -> str:
    """Sets `key = value` (a TOML literal) in its `[table]` of the config text: the line that
    sets it is replaced (its comment goes with it), or one is added under the table's
    header (or a new table at the end). Comments, order and every other line stay as the
    preset wrote them."""
    lines = text.splitlines()
    for (table, key), value in values.items():
        header = next((i for i, line in enumerate(lines) if line.strip() == f"[{table}]"), None)
        if header is None:  # the shipped presets all have [server], [rcon], [log] and [state]
            lines += ["", f"[{table}]", f"{key} = {value}"]
            continue
        end = next((i for i in range(header + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
        setter = re.compile(rf"^\s*{re.escape(key)}\s*=")
        at = next((i for i in range(header + 1, end) if setter.match(lines[i])), None)
        if at is None:
            lines.insert(header + 1, f"{key} = {value}")
        else:
            lines[at] = f"{key} = {value}"
    return "\n".join(lines) + "\n"


def host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not is_digits(port) or len(port) > 5 or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected host:port (like 10.0.0.4:27015), got {text[:60]!r}")
    return host.strip("[]"), int(port)


def secret_number(text: str) -> int:
    if not is_digits(text) or len(text) > 10 or not 0 < int(text) <= CELL_MAX:
        raise argparse.ArgumentTypeError(f"sv_logsecret is a whole number from 1 to {CELL_MAX} in digits 0-9, got {text[:40]!r}")
    return int(text)


def main_init(args: argparse.Namespace) -> int:
    import secrets

    from jailcore.config.config import Config

    name = args.name
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", name):
        print(f"jailcore init: a server's name is letters, digits, '-', '_' or '.' (up to 64), got {name[:70]!r}", file=sys.stderr)
        return 2
    try:
        source, text = preset_text(args.preset)
    except FileNotFoundError as exc:
        print(f"jailcore init: {exc}", file=sys.stderr)
        return 1
    folder = Path(args.dir)
    target = folder / f"{name}.toml"
    if target.exists() and not args.force:
        print(f"jailcore init: {target} exists; nothing written (--force replaces it)", file=sys.stderr)
        return 1
    rcon_host, rcon_port = args.rcon
    listen_host, listen_port = args.listen
    secret = args.secret if args.secret is not None else secrets.randbelow(CELL_MAX) + 1
    allow = sorted({rcon_host, "127.0.0.1", "::1"}, key=lambda a: (a in ("127.0.0.1", "::1"), a))
    values = {
        ("server", "name"): toml_string(name),
        ("server", "mode"): toml_string(args.mode),
        ("rcon", "host"): toml_string(rcon_host),
        ("rcon", "port"): str(rcon_port),
        ("log", "listen"): toml_string(f"{listen_host}:{listen_port}"),
        ("log", "secret"): toml_string(str(secret)),
        ("log", "allow"): "[" + ", ".join(toml_string(a) for a in allow) + "]",
        ("state", "path"): toml_string(args.state),
    }
    # The preset's own comments name its shipped path (configs/server-a.toml); the copy names itself.
    text = text.replace(f"configs/{source.name}", str(target))
    body = f"# {name}: written by `jailcore init --preset {args.preset}` from {source.name}.\n" + fill(text, values)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
        fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o640)  # the log secret is in it
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(body)
        os.replace(tmp, target)
    except OSError as exc:
        print(f"jailcore init: cannot write {target}: {exc.strerror}", file=sys.stderr)
        return 1
    try:
        config = Config.from_toml(target, env={})
    except ConfigError as exc:  # a preset and these values that the loader refuses: say it, keep the file to fix
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print(f"{target}: written, but refused by check-config; fix it before `jailcore run`", file=sys.stderr)
        return 1
    on = sum(1 for rule in config.rules.values() if rule.enabled)
    reach = args.address or (listen_host if listen_host not in ("0.0.0.0", "::", "") else "<this machine's address>")
    print(f"wrote {target}: server {name}, from {args.preset} ({on} rules on), mode {args.mode}")
    print(f"  check it:  jailcore check-config {target}")
    print(f"  run it:    JAILCORE_RCON_PASSWORD=... jailcore run --config-dir {folder}")
    print()
    print("Paste into the game server's cfg/server.cfg:")
    print()
    print("log on")
    print("mp_logdetail 3                      // attack lines: prisoners hurting guards")
    print(f"sv_logsecret {secret}")
    print(f"logaddress_add {reach}:{listen_port}")
    print('rcon_password "..."                 // the same as JAILCORE_RCON_PASSWORD beside the daemon')
    if args.mode == "observe":
        print()
        print(f'It starts in observe mode: it logs what it would do and sends nothing. Set [server] mode = "enforce" in {target} once it judges right.')
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("init", help="write a new server's config from a shipped preset and print its server.cfg lines")
    p.add_argument("name", help="the server's name, as status, tail and the web page show it (server-c)")
    p.add_argument("--preset", choices=PRESETS, default="example",
                   help="server-a (rulebook 001 + 000), server-b (004 + 000) or example (every rule); default example")
    p.add_argument("--dir", default="/etc/jailcore/servers", help="the folder of configs `run --config-dir` reads (default /etc/jailcore/servers)")
    p.add_argument("--rcon", type=host_port, default=("127.0.0.1", 27015), metavar="HOST:PORT",
                   help="the game server's RCON address (default 127.0.0.1:27015); its log is allowed from that host")
    p.add_argument("--listen", type=host_port, default=("127.0.0.1", 27500), metavar="HOST:PORT",
                   help="where jailcore listens for the log (default 127.0.0.1:27500; 0.0.0.0:27500 from another machine)")
    p.add_argument("--address", help="the address the game server reaches jailcore at, for logaddress_add (default: the listen host)")
    p.add_argument("--secret", type=secret_number, help="sv_logsecret (default: a fresh random one)")
    p.add_argument("--state", default=DEFAULT_STATE,
                   help=f"the state database; servers of one process share one (default {DEFAULT_STATE}, where status and tail look)")
    p.add_argument("--mode", choices=("observe", "advise", "enforce"), default="observe", help="default observe: send nothing until you trust it")
    p.add_argument("--force", action="store_true", help="replace a config of that name")
    p.set_defaults(func=main_init)
