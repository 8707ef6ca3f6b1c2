"""The ASGI application (Starlette): pages rendered on the server with Jinja2 (autoescape:
every name and chat line a player wrote is text, never markup), the live log as
server-sent events, and the one change an admin makes here, a pardon.

Security: sessions are server-side (the cookie holds a random id; HttpOnly,
SameSite=Strict); who may see a page is decided in one place, the route table (`guard`);
every POST needs a logged-in session (the login form its visitor session) and that
session's CSRF token, or it is refused with 403, and its body is cut off at 16 KB while
it is read; logins are counted before their password is hashed, hashed two at a time off
the event loop, limited per address (a forwarded address is believed only from
`[web] trusted_proxies`) and slowed per name without locking the name's owner out (see
auth.LoginLimit); a live stream ends when its session does; the public sees what a
public ban list shows (public.py); every text a player wrote is shown without the
characters that hide or reorder it (log/invisible.py); a Content-Security-Policy allows
only this page's own script and style.
"""

from __future__ import annotations

import csv
import hmac
import io
import ipaddress
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TypedDict, TypeVar, TypeVarTuple
from urllib.parse import parse_qs, urlencode

import anyio
import attrs
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from jailcore.config.config import ROLES, WebConfig
from jailcore.log.errors import AdminRequestError, StateError
from jailcore.log.invisible import visible
from jailcore.store.audit import AuditError
from jailcore.store.errors import errors_or
from jailcore.store.requests import Queued
from jailcore.web import appeals, data, proposals, steamids
from jailcore.web.access import ADMIN, MODERATOR, OPEN, OWNER, VIEWER, WATCH, Forbidden, NotAllowed, TooLarge, local_path, number, shown_text
from jailcore.web.auth import LoginLimit, Session, Sessions, check_password, csrf_ok, known_device
from jailcore.web.charts import colours, hbars, stacked
from jailcore.web.i18n import LANGS, Words, zone
from jailcore.web.manage import Manage, ask, queue_away, queued_page
from jailcore.web.public import public_entry
from jailcore.web.story import tell

HERE = Path(__file__).parent
COOKIE = "jc_session"
LANG_COOKIE = "jc_lang"
DEVICE_COOKIE = "jc_device"
MAX_FORM = 16 * 1024
HASHERS = 2  # scrypt takes 16 MiB and 50 ms: two at a time, whatever the number of tries
HASH_QUEUE = 16  # tries waiting for a hasher; more are told to come back
READERS = 4  # threads reading the databases at once
PLAYERS = 50  # players a page of the search shows
ACCOUNTS_FRESH = 2.0  # seconds an account change on another page process takes to hold here (a login reads them at once)
GLANCE_FRESH = 2.0  # seconds the menu's counts and the servers' health strip are read again after
ACTS_DONE = ("warn", "ban", "ctban", "lift")  # what the player's page says was asked, after the redirect back to it
log = logging.getLogger("jailcore")
_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                 b"frame-ancestors 'none'; form-action 'self'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]


T = TypeVar("T")
Args = TypeVarTuple("Args")


class AtTop(TypedDict):
    """The menu's counts (per page, on the servers the admin may answer on) and the health
    strip (per server he may see, each problem as (word, detail))."""

    waiting: dict[str, int]
    problems: dict[str, list[tuple[str, str]]]


class _SecurityHeaders:
    """Pure ASGI, so the live stream is not buffered by a middleware."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with)


class Web(Manage):
    """The page: its routes, sessions, logins and the pages every admin reads; what admins
    change (bans, CT bans, config, accounts) is `Manage`'s."""

    def __init__(self, sources: data.Sources, settings: WebConfig, poll: float = 0.25,
                 clock: Callable[[], datetime] = datetime.now):
        self.sources = sources
        self.settings = settings
        self.poll = poll
        self.clock = clock
        self.sessions = Sessions()
        self.by_address = LoginLimit()
        self.by_name = LoginLimit(slow=30.0)
        self.hashing = anyio.CapacityLimiter(HASHERS)
        self.hashes_due = 0  # tries hashing or waiting to
        self.readers = anyio.CapacityLimiter(READERS)
        self.proxies = [ipaddress.ip_network(n) for n in settings.trusted_proxies]
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        self.templates.env.globals["urlencode"] = urlencode
        self.templates.env.finalize = shown_text
        self.stopping = False
        self.stamps: dict[str, str] = {}  # each account's password-changed stamp, as last read
        self._accounts_at = float("-inf")
        self._accounts_away = ""  # why the accounts could not be read last time (said once)
        self.waiting = dict(data.WAITING)  # what waits for an admin, by the page that lists it (the menu counts it)
        self.glance: data.Glance = {"waiting": {}, "problems": {}}  # read at most every GLANCE_FRESH seconds, for every page
        self._glance_at = float("-inf")
        self.appeal_desk = appeals.Desk()  # the players' appeals: their limits per address and their writes (web/appeals.py)
        self.import_accounts(settings)
        self.load_accounts()

    def app(self) -> ASGIApp:
        page = self.guard
        routes = [
            Route("/", lambda r: RedirectResponse("/live", 303)),
            Route("/login", page(OPEN, self.login_page), methods=["GET"]),
            Route("/login", page(OPEN, self.login), methods=["POST"]),
            Route("/logout", page(OPEN, self.logout), methods=["POST"]),
            Route("/lang", page(OPEN, self.lang)),
            Route("/live", page(WATCH, self.live)),
            Route("/live/events", page(WATCH, self.live_events)),
            Route("/live.csv", page(VIEWER, self.live_csv)),
            Route("/story", page(VIEWER, self.story)),
            Route("/players", page(VIEWER, self.players)),
            Route("/player", page(VIEWER, self.player)),
            Route("/servers", page(VIEWER, self.servers)),
            Route("/charts", page(VIEWER, self.charts)),
            Route("/ctbans", page(VIEWER, self.ctbans)),
            Route("/bans", page(VIEWER, self.bans)),
            Route("/activity", page(VIEWER, self.activity)),
            Route("/pardon", page(MODERATOR, self.pardon), methods=["POST"]),
            Route("/ctbans", page(MODERATOR, self.ctban_request), methods=["POST"]),
            Route("/player/act", page(MODERATOR, self.act_request), methods=["POST"]),
            Route("/config", page(VIEWER, self.config_page)),
            Route("/config/preview", page(ADMIN, self.config_preview), methods=["POST"]),
            Route("/config/save", page(ADMIN, self.config_save), methods=["POST"]),
            Route("/accounts", page(OWNER, self.accounts_page)),
            Route("/accounts", page(OWNER, self.accounts_change), methods=["POST"]),
            Route("/proposals", page(VIEWER, partial(proposals.page, self))),
            Route("/answer", page(MODERATOR, partial(proposals.answer, self)), methods=["POST"]),
            Route("/appeal", page(OPEN, partial(appeals.lookup, self, self.appeal_desk)), methods=["GET"]),
            Route("/appeal", page(OPEN, partial(appeals.file, self, self.appeal_desk)), methods=["POST"]),
            Route("/appeal/{token}", page(OPEN, partial(appeals.follow, self, self.appeal_desk))),
            Route("/appeals", page(VIEWER, partial(appeals.page, self, self.appeal_desk))),
            Route("/appeals/answer", page(MODERATOR, partial(appeals.answer, self, self.appeal_desk)), methods=["POST"]),
            Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
        ]
        app = Starlette(routes=routes, exception_handlers={Forbidden: self.forbidden, TooLarge: self.too_large, NotAllowed: self.not_allowed})
        return _SecurityHeaders(app)

    def guard(self, level: str, handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        """The one place that decides who may see a route: a visitor without the right is
        sent to the login page (a GET), or refused (a POST, the live stream)."""

        async def guarded(request: Request) -> Response:
            if time.monotonic() - self._accounts_at > ACCOUNTS_FRESH:  # another page process may have changed them
                self._accounts_at = time.monotonic()  # one read for the requests arriving meanwhile
                await self.read(self.load_accounts)
            if level != OPEN and time.monotonic() - self._glance_at > GLANCE_FRESH:
                self._glance_at = time.monotonic()
                await self.read(self.look)
            if level == OPEN or (level == WATCH and self.settings.public):
                return await handler(request)
            admin = self.admin(request)
            if admin is not None and (level == WATCH or self.may(admin, level)):
                return await handler(request)
            if admin is not None:
                raise NotAllowed(level)
            if request.method != "GET" or request.url.path == "/live/events":
                raise Forbidden("no session")
            return self.to_login(request)

        return guarded

    def may(self, session: Session | None, level: str, server: str | None = None) -> bool:
        """Whether the admin's role, on this server (or on any, for a page), is `level` or above."""
        role = self.settings.role(session.user, server) if session is not None else None
        return role is not None and ROLES.index(role) >= ROLES.index(level)

    def must(self, session: Session | None, level: str, server: str) -> None:
        """A change on one server: the admin's role there must allow it."""
        if not self.may(session, level, server):
            raise NotAllowed(level)

    async def read(self, fn: Callable[[*Args], T], *args: *Args) -> T:
        """A read of the databases, in a worker thread: the event loop keeps serving."""
        return await anyio.to_thread.run_sync(lambda: fn(*args), limiter=self.readers)

    # -- sessions --------------------------------------------------------------------------------

    def session(self, request: Request) -> Session | None:
        session = self.sessions.get(request.cookies.get(COOKIE))
        if session is not None and session.user is not None and self.stamps.get(session.user) != session.stamp:
            self.sessions.drop(session)  # his account is gone, or its password changed since he logged in
            return None
        return session

    # -- accounts (the state database's `accounts`, store/accounts.py) ---------------------------

    def import_accounts(self, settings: WebConfig) -> None:
        """The `[web.users]` a config (or the caller) gives, into the accounts table: each pair once."""
        source = self.sources.accounts
        if source is None or not settings.users:
            return
        try:
            taken = source.write(source.store.import_accounts, settings.users, settings.roles)
        except errors_or(StateError, AdminRequestError) as exc:
            log.warning("the page's accounts could not be imported into %s: %s", source.path, exc)
            return
        if taken:
            log.info("accounts %s taken from [web.users] into %s", ", ".join(taken), source.path)

    def load_accounts(self) -> None:
        """The accounts as the database has them now (in a worker thread, or before serving). While
        it is away the ones read last stay in force."""
        self._accounts_at = time.monotonic()
        source = self.sources.accounts
        if source is None:
            if not self.stamps:
                self.stamps = dict.fromkeys(self.settings.users, "")
            return
        try:
            found = source.write(source.store.accounts)
        except errors_or(StateError) as exc:
            if str(exc) != self._accounts_away:
                log.warning("the page's accounts could not be read from %s (those read before stay in force): %s", source.path, exc)
            self._accounts_away = str(exc)
            return
        self._accounts_away = ""
        self.settings = attrs.evolve(self.settings, users={a.name: a.password for a in found}, roles={a.name: a.roles for a in found})
        self.stamps = {a.name: a.changed for a in found}

    def look(self) -> None:
        """What every page shows at its top (data.glance), read again (in a worker thread). While a
        database is away what was read last stays."""
        try:
            self.glance = data.glance(self.sources, self.clock(), self.waiting)
        except errors_or(StateError, AuditError) as exc:
            log.debug("the servers' health could not be read: %s", exc)

    def at_top(self, admin: Session | None) -> AtTop:
        """The menu's counts and the health strip, for this admin: what waits on the servers he may
        answer on, what is wrong on those he may see."""
        if admin is None:
            return {"waiting": {}, "problems": {}}
        waiting = {page: sum(n for server, n in counts.items() if self.may(admin, MODERATOR, server))
                   for page, counts in self.glance["waiting"].items()}
        problems = {server: found for server, found in sorted(self.glance["problems"].items()) if self.may(admin, VIEWER, server)}
        return {"waiting": waiting, "problems": problems}

    def admin(self, request: Request) -> Session | None:
        session = self.session(request)
        return session if session is not None and session.user is not None else None

    def visitor(self, request: Request) -> Session:
        """The visitor's session, new if he has none (it carries the login form's token)."""
        session = self.session(request)
        if session is None:
            session = self.sessions.new()
            request.state.new_session = session
        return session

    def words(self, request: Request) -> Words:
        lang = request.cookies.get(LANG_COOKIE)
        return Words(lang if lang in LANGS else self.settings.language, self.clock().year)

    def render(self, request: Request, template: str, status: int = 200, **context: object) -> Response:
        session = self.session(request) or getattr(request.state, "new_session", None)
        admin = session if session is not None and session.user is not None else None
        context.update(request=request, t=self.words(request), session=session, admin=admin.user if admin else None,
                       role=self.settings.role(admin.user) if admin else None, can=lambda level, server=None: self.may(admin, level, server),
                       public=self.settings.public, path=request.url.path, masthead=self.at_top(admin), zone=zone())
        response = self.templates.TemplateResponse(request, template, context, status_code=status)
        return self.finish(request, response)

    def finish(self, request: Request, response: Response) -> Response:
        new = getattr(request.state, "new_session", None)
        if new is not None:
            response.set_cookie(COOKIE, new.sid, httponly=True, samesite="strict", secure=self.https(request), path="/")
        response.headers["cache-control"] = "no-store"
        return response

    async def form(self, request: Request, session: Session | None) -> dict[str, str]:
        """The posted form, once its CSRF token and origin are checked (read once, kept)."""
        if hasattr(request.state, "fields"):
            fields: dict[str, str] = request.state.fields  # as kept below (Starlette's request.state has no types)
            return fields
        origin = request.headers.get("origin")
        if origin is not None and origin.split("://", 1)[-1] != request.headers.get("host"):
            raise Forbidden("cross-origin form")
        body = await _capped_body(request, MAX_FORM)
        fields = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}
        if not csrf_ok(session, fields.get("csrf")):
            raise Forbidden("no session or no CSRF token")
        request.state.fields = fields
        return fields

    async def forbidden(self, request: Request, exc: Exception) -> Response:
        return self.render(request, "error.html", status=403, message=self.words(request)("forbidden"))

    async def not_allowed(self, request: Request, exc: Exception) -> Response:
        t, admin = self.words(request), self.admin(request)
        role = self.settings.role(admin.user) if admin is not None and admin.user is not None else None
        return self.render(request, "error.html", status=403, message=t("role.refused", role=t(f"role.{role}"),
                                                                           needed=t(f"role.{exc.args[0]}")))

    async def too_large(self, request: Request, exc: Exception) -> Response:
        return Response("request body too large\n", 413, headers={"connection": "close"})

    def address(self, request: Request) -> str:
        """The visitor's address: the peer's, or, when the peer is a trusted proxy, the
        nearest address in X-Forwarded-For that is not one (anyone can write the header)."""
        peer = request.client.host if request.client else "?"
        if not self.proxies or not self._trusted(peer):
            return peer
        hops = [h.strip() for h in request.headers.get("x-forwarded-for", "").split(",") if h.strip()]
        for hop in reversed(hops[-16:]):
            if not self._trusted(hop):
                return hop[:64]
        return peer

    def https(self, request: Request) -> bool:
        """Whether the visitor's browser speaks https to us: the connection's own scheme, or,
        from a trusted proxy that ends TLS, its X-Forwarded-Proto (its last value: the one it
        wrote). Cookies are then Secure."""
        if request.url.scheme == "https":
            return True
        peer = request.client.host if request.client else "?"
        if not self.proxies or not self._trusted(peer):
            return False
        return request.headers.get("x-forwarded-proto", "").rsplit(",", 1)[-1].strip().lower() == "https"

    def _trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in self.proxies)

    def to_login(self, request: Request) -> Response:
        return RedirectResponse("/login?" + urlencode({"next": _local(str(request.url.path) + ("?" + request.url.query if request.url.query else ""))}), 303)

    # -- login -----------------------------------------------------------------------------------

    async def login_page(self, request: Request, problem: str = "", status: int = 200) -> Response:
        self.visitor(request)
        return self.render(request, "login.html", status=status, problem=problem, next=_local(request.query_params.get("next", "/live")),
                           no_users=not self.settings.users)

    async def login(self, request: Request) -> Response:
        session = self.session(request)
        fields = await self.form(request, session)
        t = self.words(request)
        name = fields.get("name", "").strip()[:64]
        await self.read(self.load_accounts)  # a password just changed on another page process holds here at once
        hashed = self.settings.users.get(name)
        device = known_device(name, hashed)
        known = bool(device) and hmac.compare_digest(request.cookies.get(DEVICE_COOKIE, ""), device)
        by_address = (f"address:{self.address(request)}",)
        by_name = () if known else (f"name:{name.casefold()}",)  # his own browser is not slowed by another's guesses
        wait = max(self.by_address.wait(*by_address), self.by_name.wait(*by_name))
        if not wait and self.hashes_due >= HASH_QUEUE + HASHERS:
            wait = 1.0
        if wait:
            return await self.login_page(request, t("login.wait", n=int(wait) + 1), 429)
        self.by_address.attempt(*by_address)  # counted now, before the hash: parallel tries cannot slip past
        self.by_name.attempt(*by_name)
        password = fields.get("password", "")
        self.hashes_due += 1
        try:
            ok = await anyio.to_thread.run_sync(check_password, password, hashed, limiter=self.hashing)
        finally:
            self.hashes_due -= 1
        if not ok:
            return await self.login_page(request, t("login.bad"), 401)
        self.by_address.succeeded(*by_address)
        self.by_name.refund(*by_name)
        request.state.new_session = self.sessions.login(session, name, self.stamps.get(name, ""))
        response = self.finish(request, RedirectResponse(_local(fields.get("next", "/live")), 303))
        response.set_cookie(DEVICE_COOKIE, device, max_age=365 * 86400, httponly=True, samesite="strict",
                            secure=self.https(request), path="/login")
        return response

    async def logout(self, request: Request) -> Response:
        session = self.admin(request)
        await self.form(request, session)
        self.sessions.drop(session)
        response = RedirectResponse("/login", 303)
        response.delete_cookie(COOKIE, path="/")
        return response

    async def lang(self, request: Request) -> Response:
        to = request.query_params.get("to", "ru")
        response = RedirectResponse(_local(request.query_params.get("next", "/live")), 303)
        response.set_cookie(LANG_COOKIE, to if to in LANGS else "ru", max_age=365 * 86400, samesite="strict", path="/")
        return response

    # -- the live log ----------------------------------------------------------------------------

    def filters(self, request: Request) -> data.Filters:
        q = request.query_params
        given = {k: q.get(k, "").strip()[:100] for k in ("server", "player", "rule", "action", "since")}
        if self.admin(request) is None and given["player"].startswith(("STEAM_", "[U:", "7656119")):
            given["player"] = ""  # the public sees no steamid, so it may not look one up to put a name to it
        return data.Filters(**given)

    def shown(self, admin: Session | None, entries: list[data.Entry]) -> list[data.Entry]:
        """An admin sees everything; the public what a public ban list shows."""
        return entries if admin is not None else [public_entry(e) for e in entries]

    async def live(self, request: Request) -> Response:
        filters = self.filters(request)
        before = request.query_params.get("before", "")[:400]
        cursor = (await self.read(data.newest, self.sources)).dump()  # before reading: an entry written between is sent, not lost
        try:
            entries, older = await self.read(data.latest, self.sources, filters, data.PAGE, before)
            entries = await self.read(data.decisions, self.sources, entries)
            problem = ""
        except AuditError as exc:
            entries, older, problem = [], "", str(exc)
        query = filters.query()
        shown = ",".join(f"{e['src']}:{e['id']}:{e['status']}" for e in entries if e["status"] in data.OPEN)  # watched for their answer
        return self.render(request, "live.html", entries=self.shown(self.admin(request), entries), filters=filters, problem=problem,
                           cursor=cursor, shown=shown, servers=self.sources.servers(), query=urlencode(query), paged=bool(before),
                           older=urlencode({**query, "before": older}) if older else "")

    async def live_events(self, request: Request) -> Response:
        filters = self.filters(request)
        try:
            filters.check()
        except AuditError as exc:
            return Response(str(exc), 400)
        cursor = (request.headers.get("last-event-id") or request.query_params.get("cursor", ""))[:400]
        watch = await self.read(data.start_watch, self.sources, filters, cursor, request.query_params.get("open", "")[:4000])
        t = self.words(request)
        row = getattr(self.templates.get_template("_entry.html").module, "entry")  # noqa: B009  the same markup as the page's
        admin = self.admin(request)
        back = "/live?" + urlencode(filters.query())  # where a pardon made in the stream's rows comes back to

        async def stream() -> AsyncIterator[str]:
            yield "retry: 1000\n\n"
            quiet = 0.0
            while not self.stopping and not await request.is_disconnected():
                if admin is not None and not self.sessions.alive(admin.sid):
                    yield "event: end\ndata: logged out\n\n"  # logged out or expired: what it showed an admin stops here
                    return
                fresh = self.shown(admin, await self.read(lambda: data.decisions(self.sources, data.changes(self.sources, filters, watch))))
                for i, e in enumerate(fresh):
                    html = str(row(e, t, admin.user if admin else None, admin.csrf if admin else "",
                                   back if self.may(admin, MODERATOR, e["server"]) else None, self.may(admin, ADMIN, e["server"])))
                    mark = f"id: {watch.dump()}\n" if i == len(fresh) - 1 else ""
                    yield f"{mark}event: entry\ndata: {json.dumps({'dom': e['dom'], 'html': html})}\n\n"
                quiet = 0.0 if fresh else quiet + self.poll
                if quiet >= 15:  # a comment now and then: proxies keep the stream open, a gone browser is noticed
                    quiet = 0.0
                    yield ": still here\n\n"
                await anyio.sleep(self.poll)

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"cache-control": "no-store", "x-accel-buffering": "no"})

    # -- pages for admins ------------------------------------------------------------------------

    async def story(self, request: Request) -> Response:
        q = request.query_params
        servers = self.sources.servers()
        server = q.get("server") or (servers[0] if servers else "")
        focus = None
        action_id = number(q.get("id"))
        if action_id is not None:
            found = await self.read(data.find, self.sources, server, action_id)
            if found is not None:
                focus, round_no = found["dom"], found["round"]
        rounds = await self.read(data.rounds, self.sources, server)
        if focus is None:
            asked = number(q.get("round"), 9)
            round_no = asked if asked is not None else (rounds[0] if rounds else 0)
        lines, decisions = await self.read(data.round_material, self.sources, server, round_no)
        decisions = await self.read(data.decisions, self.sources, decisions)  # a CT ban and its move to T: one decision
        story = tell(lines, decisions, self.words(request).lang)
        day = (max(round_no, 1) - 1) % self.sources.config(server).week_length + 1
        return self.render(request, "story.html", servers=servers, server=server, rounds=rounds, round=round_no, story=story,
                           focus=focus, day=day, decisions=decisions)

    async def players(self, request: Request) -> Response:
        query = request.query_params.get("q", "").strip()[:100]
        page = min(number(request.query_params.get("page", "").strip(), 4) or 0, 1000)
        found = await self.read(data.find_players, self.sources, query, PLAYERS, page)
        return self.render(request, "players.html", query=query, found=found[:PLAYERS], page=page, more=len(found) > PLAYERS)

    async def player(self, request: Request) -> Response:
        key = request.query_params.get("key", "").strip()[:100]
        p = await self.read(data.player, self.sources, key)
        t = self.words(request)
        if not (p["entries"] or p["ladders"] or p["ctbans"] or p["online"]):
            return self.render(request, "error.html", status=404, message=t("player.unknown", who=key or "-"))
        # What an admin may do to him, on each server by his role there; the servers he is on now first.
        admin = self.admin(request)
        servers = list(dict.fromkeys([o["server"] for o in p["online"]] + self.sources.servers()))
        acts = {level: [s for s in servers if self.may(admin, level, s)] for level in (MODERATOR, ADMIN)}
        acts["warn"] = [o["server"] for o in p["online"] if self.may(admin, MODERATOR, o["server"])]  # a warning is said to him in game
        done = request.query_params.get("done", "")
        return self.render(request, "player.html", p=p, profile=steamids.profile(key), acts=acts,
                           steamid=key if steamids.account(key) is not None and not key.startswith("#") else None,
                           done=t(f"act.done.{done}") if done in ACTS_DONE else "")

    async def servers(self, request: Request) -> Response:
        return self.render(request, "servers.html", servers=await self.read(data.servers, self.sources, self.clock()))

    async def charts(self, request: Request) -> Response:
        weeks = number(request.query_params.get("weeks", "4"), 3)
        weeks_n = min(weeks, 26) if weeks else 4
        counts = await self.read(data.per_day, self.sources, weeks_n * 7, self.clock())
        admins = await self.read(data.per_admin, self.sources, weeks_n * 7, self.clock())
        t = self.words(request)
        refs = {rule: ref for rule, ref, _ in counts["top"]}
        named = {rule: t.titled(rule, refs.get(rule)) for rule in counts["by_rule"]}
        return self.render(request, "charts.html", weeks=weeks_n, counts=counts,
                           by_rule=stacked(counts["dates"], counts["by_rule"], named, t.date),
                           by_server=stacked(counts["dates"], counts["by_server"], day=t.date),
                           top=hbars([(rule, named[rule], n) for rule, _, n in counts["top"][:12]], colours(counts["by_rule"])),
                           admins=hbars([(by, by, n) for by, n in admins[:12]], {}))

    async def live_csv(self, request: Request) -> Response:
        """The live log's filtered entries as a spreadsheet: one page of up to 1,000, newest first."""
        try:
            entries, _ = await self.read(data.latest, self.sources, self.filters(request), 1000, request.query_params.get("before", "")[:400])
        except AuditError as exc:
            return Response(str(exc), 400)
        return Response(to_csv(entries), media_type="text/csv; charset=utf-8",
                        headers={"content-disposition": 'attachment; filename="jailcore-log.csv"', "cache-control": "no-store"})

    async def pardon(self, request: Request) -> Response:
        session = self.admin(request)
        fields = await self.form(request, session)
        server, action_id = fields.get("server", "")[:100], number(fields.get("id"))
        reason = fields.get("reason", "").strip()[:300]
        try:
            entry = await self.read(data.find, self.sources, server, action_id) if action_id is not None else None
        except errors_or(StateError, AuditError) as exc:  # the database away: judged on the server asked, checked again when applied
            self.must(session, MODERATOR, server)
            assert action_id is not None and session is not None and session.user is not None
            return await queue_away(self, request, self.sources.of(server, look=False), exc, "pardon", action_id=action_id, by=session.user,
                                    reason=reason, server=server, may_ban=self.may(session, ADMIN, server))
        if entry is None:
            return self.render(request, "error.html", status=404, message=f"{server} #{fields.get('id', '')[:20]}: ?")
        self.must(session, ADMIN if entry["action"] == "ban" else MODERATOR, server)  # lifting a server ban is an admin's
        source = self.sources.of(server, look=False)  # `find` above looked, in a worker thread
        if source is None or session is None or session.user is None:  # `find` and `must` let none of these through
            raise NotAllowed(MODERATOR)
        try:
            done = await ask(self, source, "pardon", action_id=entry["id"], by=session.user, reason=reason, server=server,
                             may_ban=self.may(session, ADMIN, server))
        except AdminRequestError as exc:
            return self.render(request, "error.html", status=409, message=str(exc))
        if isinstance(done, Queued):
            return queued_page(self, request, done)
        back = _local(fields.get("next", "")) if fields.get("next") else "/story?" + urlencode({"server": server, "id": entry["id"]})
        return RedirectResponse(f"{back}#{entry['dom']}", 303)


async def _capped_body(request: Request, cap: int) -> bytes:
    """The body, read no further than `cap` bytes: a huge POST is refused as it arrives,
    not after it has filled the memory."""
    declared = request.headers.get("content-length", "")
    if declared and (not declared.isascii() or not declared.isdigit() or int(declared) > cap):
        raise TooLarge(declared)
    got = bytearray()
    async for chunk in request.stream():
        got += chunk
        if len(got) > cap:
            raise TooLarge(len(got))
    return bytes(got)


_CSV = ("time", "server", "round", "day", "action", "rule", "ref", "userid", "steamid", "name", "reason", "status", "reply")


def to_csv(entries: list[data.Entry]) -> str:
    """A spreadsheet cannot run a cell a player wrote, whatever it splits on: every field is
    quoted, and every piece of one that a `;`, `,` or tab could make a cell of its own (a
    Russian-locale Excel splits on `;`) is defused where it starts like a formula."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL)
    writer.writerow([*_CSV, "pardoned_by", "pardon_reason"])
    for e in entries:
        pardon = e.get("pardon") or {}
        cells = [*(e.get(k) for k in _CSV), pardon.get("by"), pardon.get("reason")]
        writer.writerow([_cell(c) for c in cells])
    return out.getvalue()


_FORMULA = re.compile(r"(^|[;,\t\r\n])(?=[=+\-@\t\r])")


def _cell(value: object) -> str:
    text = "" if value is None else visible(str(value))
    return _FORMULA.sub(lambda m: m.group(1) + "'", text)


_local = local_path
