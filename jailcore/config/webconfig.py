"""`[web]`: the admin page's settings and accounts (validated in config.py's one pass)."""

from __future__ import annotations

import re
from collections.abc import Mapping

import attrs

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
