"""`[web]`: the admin page's settings and accounts (validated in config.py's one pass)."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any

import attrs

from jailcore.config.netsettings import Fail
from jailcore.config.values import STR_LIST, check_table
from jailcore.log.numbers import whole

PASSWORD_HASH = re.compile(r"scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]+=*")


@attrs.frozen
class WebConfig:
    """`listen` binds loopback unless told; `public` shows the live log without a login,
    read-only; `story_days` is how long the daemon keeps raw log lines for a round's story
    (0: none); `users` maps an admin's name to his password hash."""

    listen: str = "127.0.0.1:8080"
    public: bool = False
    language: str = "ru"
    story_days: int = 14
    users: Mapping[str, str] = attrs.field(factory=dict, repr=False)
    trusted_proxies: tuple[str, ...] = ()
    # name: a role (ROLES) on every server, or a table of them per server ("*": the others);
    # a user not named is an admin everywhere
    roles: Mapping[str, str | Mapping[str, str]] = attrs.field(factory=dict)
    public_url: str = ""  # where admins and players reach the page (https://jail.example.ru): the links in messages

    def role(self, user: str | None, server: str | None = None) -> str | None:
        """The user's role on this server; with no server, his highest on any."""
        if user is None or user not in self.users:
            return None
        given = self.roles.get(user, "admin")
        if isinstance(given, str):
            return given
        if server is not None:
            return given.get(server) or given.get("*")
        return max(given.values(), key=ROLES.index, default=None)


# What each role may do, each one all the one before may: viewer reads every page;
# moderator pardons and gives and lifts CT bans; admin edits the config; owner, accounts.
ROLES = ("viewer", "moderator", "admin", "owner")


_WEB = {
    "listen": (str, "127.0.0.1:8080"),
    "public": (bool, False),
    "language": (("ru", "en"), "ru"),
    "story_days": (int, 14),
    "trusted_proxies": (STR_LIST, []), "public_url": (str, ""),
}


def web_from(given: Any, fail: Fail) -> WebConfig:
    """`[web]` read and checked (every problem through `fail`), with its defaults."""
    if not isinstance(given, dict):
        fail(("web",), "expected a table ([web])")
        return WebConfig()
    given = dict(given)
    users = given.pop("users", {})
    roles = given.pop("roles", {})
    if not isinstance(roles, dict):
        fail(("web", "roles"), 'expected a table ([web.roles]: name = "moderator")')
        roles = {}
    for name, role in list(roles.items()):
        per_server = role if isinstance(role, dict) else {"*": role}
        for where, one in per_server.items():
            if one not in ROLES:
                fail(("web", "roles", name, *([where] if isinstance(role, dict) else [])),
                     f"expected one of {', '.join(ROLES)} (or a table of them per server), got {one!r}")
                roles.pop(name, None)
        if name not in (users if isinstance(users, dict) else {}):
            fail(("web", "roles", name), "no such user in [web.users]")
    v = check_table(("web",), given, _WEB, fail)
    host, _, port = v["listen"].rpartition(":")
    if not host or whole(port, 0, 65535) is None:
        fail(("web", "listen"), f"expected host:port, got {v['listen']!r}")
    if not isinstance(users, dict):
        fail(("web", "users"), "expected a table ([web.users]: name = \"hash\")")
        users = {}
    for name, hashed in users.items():
        if not isinstance(hashed, str) or not PASSWORD_HASH.fullmatch(hashed):
            fail(("web", "users", name), "expected a password hash from `jailcore web adduser`, never the password itself")
    proxies = []
    for i, net in enumerate(v["trusted_proxies"]):
        try:
            proxies.append(str(ipaddress.ip_network(net, strict=False)))
        except (TypeError, ValueError):
            fail(("web", "trusted_proxies", str(i)), f"expected an address or network (10.0.0.5, 10.0.0.0/8), got {net!r}")
    return WebConfig(v["listen"], v["public"], v["language"], v["story_days"],
                     {k: x for k, x in users.items() if isinstance(x, str)}, tuple(proxies),
                     dict(roles), v["public_url"].rstrip("/"))
