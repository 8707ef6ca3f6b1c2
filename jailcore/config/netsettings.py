"""The daemon's own settings, checked before it runs: ports, the listen address, the allow
list, the RCON timeout, the MQTT URL. Part of loading a config (`config.load`): a value
`run` could not use is refused with its key and line, and a secret is never repeated."""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import attrs

from jailcore.log.numbers import whole

# Reports one refused value: its path in the file (section, key, index...) and why.
Fail = Callable[[tuple[Any, ...], str], None]


def refuser(from_env: dict[tuple[str, str], str], fail: Fail, problems: list[str]) -> Callable[[str, str, str], None]:
    """How a value is refused: by its environment variable when it came from there (its value
    never repeated), else by its key and line in the file (`section` may be `notify.telegram`)."""

    def bad(section: str, key: str, why: str) -> None:
        var = from_env.get((section, key))
        if var:
            problems.append(f"environment: {var}: {why}")
        else:
            fail((*section.split("."), key), why)

    return bad


def check_settings(values: dict[str, Any], from_env: dict[tuple[str, str], str], fail: Fail, problems: list[str]) -> None:
    """The daemon's own settings ([rcon], [log], [mqtt], and their environment overrides):
    refused here rather than failing later inside `run`. A secret is never repeated."""

    bad = refuser(from_env, fail, problems)

    rcon = values["rcon"]
    if rcon["port"] == 0 or rcon["port"] > 65535:
        bad("rcon", "port", f"must be a port number from 1 to 65535, got {rcon['port']}")
    if not (math.isfinite(rcon["timeout"]) and 0 < rcon["timeout"] <= 300):
        bad("rcon", "timeout", f"must be a number of seconds above 0 and at most 300, got {rcon['timeout']}")
    if not rcon["host"].strip():
        bad("rcon", "host", "must name the game server (an address or a host name)")
    why = _listen_error(values["log"]["listen"])
    if why:
        bad("log", "listen", why)
    for entry in values["log"]["allow"]:
        try:
            ipaddress.ip_network(entry.strip(), strict=False)
        except ValueError:
            bad("log", "allow", f"{entry!r} is not an IP address or network (like 10.0.0.5 or 10.0.0.0/24)")
    if values["mqtt"]["url"]:
        why = _mqtt_url_error(values["mqtt"]["url"])
        if why:
            bad("mqtt", "url", why)
    key = values["network"]["key"]
    if key and (len(key) < 16 or not key.isprintable()):
        bad("network", "key", "must be at least 16 printable characters, the same on every daemon of the network "
                              "(for example the output of: openssl rand -hex 32); the value is not repeated")
    if not 60 <= values["network"]["max_age"] <= 30 * 86_400:
        bad("network", "max_age", f"must be a number of seconds from 60 to {30 * 86_400} (30 days), got {values['network']['max_age']}")
    for section, what in (("state", "a MariaDB/MySQL state database"), ("sourcebans", "SourceBans++'s database")):
        url = values[section]["url"]
        if url and not url.startswith(("mysql://", "mariadb://")):
            bad(section, "url", f"{what} is mysql://user:password@host:3306/database; the value is not repeated")
    prefix = values["sourcebans"]["prefix"]
    if not prefix or not all(c.isascii() and (c.isalnum() or c == "_") for c in prefix):
        bad("sourcebans", "prefix", "letters, digits and _ only (sb for sb_bans)")


def _listen_error(listen: str) -> str | None:
    host, colon, port = listen.rpartition(":")
    if not colon:
        return f"expected host:port (like 0.0.0.0:27500), got {listen!r}"
    if whole(port, 0, 65535) is None:
        return f"the port must be a number from 0 to 65535, got {port!r}"
    host = host.strip()
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if bare and bare != "localhost":
        try:
            ipaddress.ip_address(bare)
        except ValueError:
            return f"the host must be an IP address of this machine (like 0.0.0.0, 127.0.0.1 or [::]), got {host!r}"
    return None


def _mqtt_url_error(url: str) -> str | None:
    """Why an MQTT URL cannot be used; the URL itself is never quoted, it may hold a password."""
    if "://" not in url:
        return "expected mqtt://user:password@host:port or mqtts://... (the value is not repeated: it may hold a password)"
    scheme = url.split("://", 1)[0]
    if scheme not in ("mqtt", "mqtts"):
        shown = scheme if re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]{0,15}", scheme) else "?"
        return f"unknown scheme {shown!r}: use mqtt:// or mqtts:// (TLS)"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port out of range
    except ValueError:
        return "the port must be a number from 1 to 65535"
    if not parts.hostname:
        return "no broker host in the URL"
    return None


@attrs.frozen
class SourceBansSettings:
    """`[sourcebans]`: the network's SourceBans++ database, beside jailcore's (store/sourcebans.py)."""

    url: str = attrs.field(repr=False)  # mysql://user:password@host:3306/sourcebans
    prefix: str = "sb"  # its tables' prefix: sb_bans
    server_id: int = 0  # this game server's `sid` ({prefix}_servers)
    admin_id: int = 0  # jailcore's `aid` ({prefix}_admins): the admin of the rows it writes
    plugin: bool = False  # the SourceBans++ plugin runs on the game server too: link its rows, write none
