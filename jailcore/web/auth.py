"""Admins, sessions, CSRF tokens and the login rate limit. Pure: the clock is passed in.

Passwords are kept as scrypt hashes (the standard library's; memory-hard, no extra
dependency) in the state database's `accounts` (store/accounts.py); sessions live in memory,
so a restart of the page logs everyone out and a logout really ends a session. A session
keeps the password-changed stamp of the account it was opened under: once the password
changes (on this page process or another on the same database) the stamps differ and it ends.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections import deque
from collections.abc import Callable

import attrs

from jailcore.config.config import PASSWORD_HASH

SCRYPT = (2**14, 8, 1)  # n, r, p: 16 MiB and about 50 ms a check on this machine


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_password(password: str) -> str:
    n, r, p = SCRYPT
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32)
    return f"scrypt${n}${r}${p}${_b64(salt)}${_b64(digest)}"


def check_password(password: str, hashed: str | None) -> bool:
    """True if `password` matches; an unknown user costs the same time as a known one."""
    if hashed is None or not PASSWORD_HASH.fullmatch(hashed):
        hashed, password = _DECOY, password + "\x00"
    _, n, r, p, salt, digest = hashed.split("$")
    want = base64.b64decode(digest)
    got = hashlib.scrypt(password.encode("utf-8"), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p),
                         dklen=len(want), maxmem=128 * 1024 * 1024)
    return hmac.compare_digest(got, want)


_DECOY = hash_password(secrets.token_hex(8))


@attrs.define
class Session:
    sid: str
    csrf: str
    user: str | None
    seen: float
    stamp: str = ""  # the account's password-changed stamp when it was opened


class Sessions:
    """Server-side sessions: the cookie carries only a random id. Anonymous sessions
    (a visitor who has not logged in yet) hold the login form's CSRF token."""

    def __init__(self, admin_ttl: float = 12 * 3600, visitor_ttl: float = 3600, cap: int = 10_000,
                 clock: Callable[[], float] = time.monotonic):
        self.admin_ttl, self.visitor_ttl, self.cap, self.clock = admin_ttl, visitor_ttl, cap, clock
        self._all: dict[str, Session] = {}

    def get(self, sid: str | None) -> Session | None:
        session = self._all.get(sid or "")
        if session is None:
            return None
        now = self.clock()
        if now - session.seen > (self.admin_ttl if session.user else self.visitor_ttl):
            del self._all[session.sid]
            return None
        session.seen = now
        return session

    def alive(self, sid: str) -> bool:
        """Whether a session still stands, without counting this as its use (a live
        stream asks every poll; it must not keep an idle session from expiring)."""
        session = self._all.get(sid)
        return session is not None and self.clock() - session.seen <= (self.admin_ttl if session.user else self.visitor_ttl)

    def new(self, user: str | None = None, stamp: str = "") -> Session:
        if len(self._all) >= self.cap:  # a flood of visitors: forget the oldest visitors first
            for old in sorted(self._all.values(), key=lambda s: (s.user is not None, s.seen))[: self.cap // 10]:
                del self._all[old.sid]
        session = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), user, self.clock(), stamp)
        self._all[session.sid] = session
        return session

    def login(self, old: Session | None, user: str, stamp: str = "") -> Session:
        """A fresh id on login, so an id planted before it is worth nothing after."""
        self.drop(old)
        return self.new(user, stamp)

    def drop(self, session: Session | None) -> None:
        if session is not None:
            self._all.pop(session.sid, None)


def csrf_ok(session: Session | None, token: str | None) -> bool:
    return session is not None and bool(token) and hmac.compare_digest(session.csrf, token or "")


class LoginLimit:
    """Failed logins per key. An address gets `tries` in `window` seconds, then waits out
    the window. A name gets `tries`, then one try per `slow` seconds: an attacker guessing
    an admin's password is slowed to a crawl, while the admin himself (from a browser he
    has logged in from before, see `known_device`) is never locked out by it.

    A try is counted when it starts (`attempt`), before its password is hashed, so
    parallel tries cannot slip past the count; a success takes its own try back."""

    def __init__(self, tries: int = 5, window: float = 300.0, slow: float | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.tries, self.window, self.slow, self.clock = tries, window, slow, clock
        self._failed: dict[str, deque[float]] = {}

    def wait(self, *keys: str) -> float:
        """Seconds until a login may be tried again (0: now)."""
        now = self.clock()
        longest = 0.0
        for key in keys:
            times = self._failed.get(key)
            if not times:
                continue
            while times and now - times[0] > self.window:
                times.popleft()
            if len(times) >= self.tries:
                left = self.slow - (now - times[-1]) if self.slow is not None else self.window - (now - times[0])
                longest = max(longest, left)
        return max(longest, 0.0)

    def attempt(self, *keys: str) -> float:
        """Counts a try for these keys unless one of them must wait: then the wait."""
        wait = self.wait(*keys)
        if wait:
            return wait
        self.failed(*keys)
        return 0.0

    def failed(self, *keys: str) -> None:
        if len(self._failed) > 10_000:  # many names or addresses: forget those past the window
            self.wait(*list(self._failed))
            self._failed = {k: v for k, v in self._failed.items() if v}
        for key in keys:
            self._failed.setdefault(key, deque(maxlen=self.tries)).append(self.clock())

    def succeeded(self, *keys: str) -> None:
        for key in keys:
            self._failed.pop(key, None)

    def refund(self, *keys: str) -> None:
        """Takes back the latest try (a success), leaving the failures before it."""
        for key in keys:
            times = self._failed.get(key)
            if times:
                times.pop()


def known_device(name: str, hashed: str | None) -> str:
    """A token for the browser an admin logged in from: it lets that browser past the
    per-name slow-down. Keyed by the password hash, so it is unforgeable without the
    config, survives a restart of the page, and dies with a change of password."""
    if not hashed:
        return ""
    return hmac.new(hashed.encode("utf-8"), b"known-device\x00" + name.encode("utf-8"), hashlib.sha256).hexdigest()
