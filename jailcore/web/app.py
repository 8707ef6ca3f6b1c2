"""The ASGI application (Starlette): pages rendered on the server with Jinja2 (autoescape:
every name and chat line a player wrote is text, never markup), the live log as
server-sent events, and the one change an admin makes here, a pardon.

Security: sessions are server-side (the cookie holds a random id; HttpOnly,
SameSite=Strict); every POST needs a logged-in session (the login form its visitor
session) and that session's CSRF token, or it is refused with 403; failed logins are
limited per address and per name; a Content-Security-Policy allows only this page's
own script and style.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qs, urlencode

import anyio
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp

from jailcore.config.config import WebConfig
from jailcore.io.audit import AuditError
from jailcore.io.store import PardonError
from jailcore.log.errors import AdminRequestError
from jailcore.web import data
from jailcore.web.auth import LoginLimit, Session, Sessions, check_password, csrf_ok
from jailcore.web.charts import hbars, stacked
from jailcore.web.i18n import LANGS, Words
from jailcore.web.story import tell

HERE = Path(__file__).parent
COOKIE = "jc_session"
LANG_COOKIE = "jc_lang"
MAX_FORM = 16 * 1024
_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                 b"frame-ancestors 'none'; form-action 'self'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]


class _SecurityHeaders:
    """Pure ASGI, so the live stream is not buffered by a middleware."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with(message):
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with)


class Forbidden(AdminRequestError):
    pass


class Web:
    def __init__(self, sources: data.Sources, settings: WebConfig, poll: float = 0.25,
                 clock: Callable[[], datetime] = datetime.now):
        self.sources = sources
        self.settings = settings
        self.poll = poll
        self.clock = clock
        self.sessions = Sessions()
        self.limit = LoginLimit()
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        self.templates.env.globals["urlencode"] = urlencode
        self.stopping = False

    def app(self) -> ASGIApp:
        routes = [
            Route("/", lambda r: RedirectResponse("/live", 303)),
            Route("/login", self.login_page, methods=["GET"]),
            Route("/login", self.login, methods=["POST"]),
            Route("/logout", self.logout, methods=["POST"]),
            Route("/lang", self.lang),
            Route("/live", self.live),
            Route("/live/events", self.live_events),
            Route("/story", self.story),
            Route("/players", self.players),
            Route("/player", self.player),
            Route("/servers", self.servers),
            Route("/charts", self.charts),
            Route("/pardon", self.pardon, methods=["POST"]),
            Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
        ]
        app = Starlette(routes=routes, exception_handlers={Forbidden: self.forbidden})
        return _SecurityHeaders(app)

    # -- sessions --------------------------------------------------------------------------------

    def session(self, request: Request) -> Session | None:
        return self.sessions.get(request.cookies.get(COOKIE))

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
        return Words(lang if lang in LANGS else self.settings.language)

    def render(self, request: Request, template: str, status: int = 200, **context) -> Response:
        session = self.session(request) or getattr(request.state, "new_session", None)
        context.update(request=request, t=self.words(request), session=session,
                       admin=session.user if session is not None else None, public=self.settings.public, path=request.url.path)
        response = self.templates.TemplateResponse(request, template, context, status_code=status)
        return self.finish(request, response)

    def finish(self, request: Request, response: Response) -> Response:
        new = getattr(request.state, "new_session", None)
        if new is not None:
            response.set_cookie(COOKIE, new.sid, httponly=True, samesite="strict", secure=request.url.scheme == "https", path="/")
        response.headers["cache-control"] = "no-store"
        return response

    async def form(self, request: Request, session: Session | None) -> dict[str, str]:
        """The posted form, once its CSRF token and origin are checked."""
        origin = request.headers.get("origin")
        if origin is not None and origin.split("://", 1)[-1] != request.headers.get("host"):
            raise Forbidden("cross-origin form")
        body = await request.body()
        if len(body) > MAX_FORM:
            raise Forbidden("form too large")
        fields = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}
        if not csrf_ok(session, fields.get("csrf")):
            raise Forbidden("no session or no CSRF token")
        return fields

    async def forbidden(self, request: Request, exc: Exception) -> Response:
        return self.render(request, "error.html", status=403, message=self.words(request)("forbidden"))

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
        name = fields.get("name", "").strip()
        address = request.client.host if request.client else "?"
        keys = (f"address:{address}", f"name:{name.casefold()}")
        wait = self.limit.wait(*keys)
        if wait:
            return await self.login_page(request, t("login.wait", n=int(wait) + 1), 429)
        if not await run_in_threadpool(check_password, fields.get("password", ""), self.settings.users.get(name)):
            self.limit.failed(*keys)
            return await self.login_page(request, t("login.bad"), 401)
        self.limit.succeeded(*keys)
        request.state.new_session = self.sessions.login(session, name)
        return self.finish(request, RedirectResponse(_local(fields.get("next", "/live")), 303))

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
        return data.Filters(**{k: q.get(k, "").strip()[:100] for k in ("server", "player", "rule", "action", "since")})

    async def live(self, request: Request) -> Response:
        if self.admin(request) is None and not self.settings.public:
            return self.to_login(request)
        filters = self.filters(request)
        cursor = data.newest(self.sources).dump()  # before reading: an entry written between is sent, not lost
        try:
            entries = data.latest(self.sources, filters)
            problem = ""
        except AuditError as exc:
            entries, problem = [], str(exc)
        return self.render(request, "live.html", entries=entries, filters=filters, problem=problem, cursor=cursor,
                           servers=self.sources.servers(), query=urlencode(filters.query()))

    async def live_events(self, request: Request) -> Response:
        if self.admin(request) is None and not self.settings.public:
            raise Forbidden("no session")
        filters = self.filters(request)
        try:
            filters.sql()
        except AuditError as exc:
            return Response(str(exc), 400)
        cursor = request.headers.get("last-event-id") or request.query_params.get("cursor", "")
        watch = data.start_watch(self.sources, filters, cursor)
        t = self.words(request)
        row = getattr(self.templates.get_template("_entry.html").module, "entry")  # noqa: B009  the same markup as the page's

        async def stream():
            yield "retry: 1000\n\n"
            quiet = 0.0
            while not self.stopping and not await request.is_disconnected():
                fresh = data.changes(self.sources, filters, watch)
                for i, e in enumerate(fresh):
                    admin = self.admin(request)
                    html = str(row(e, t, admin.user if admin else None, admin.csrf if admin else ""))
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
        if self.admin(request) is None:
            return self.to_login(request)
        q = request.query_params
        servers = self.sources.servers()
        server = q.get("server") or (servers[0] if servers else "")
        focus = None
        if q.get("id", "").isdigit():
            found = data.find(self.sources, server, int(q["id"]))
            if found is not None:
                focus, round_no = found["dom"], found["round"]
        rounds = data.rounds(self.sources, server)
        if focus is None:
            round_no = int(q["round"]) if q.get("round", "").isdigit() else (rounds[0] if rounds else 0)
        lines, decisions = data.round_material(self.sources, server, round_no)
        story = tell(lines, decisions, self.words(request).lang)
        day = (max(round_no, 1) - 1) % self.sources.config(server).week_length + 1
        return self.render(request, "story.html", servers=servers, server=server, rounds=rounds, round=round_no, story=story,
                           focus=focus, day=day, decisions=decisions)

    async def players(self, request: Request) -> Response:
        if self.admin(request) is None:
            return self.to_login(request)
        query = request.query_params.get("q", "").strip()[:100]
        return self.render(request, "players.html", query=query, found=data.find_players(self.sources, query))

    async def player(self, request: Request) -> Response:
        if self.admin(request) is None:
            return self.to_login(request)
        key = request.query_params.get("key", "").strip()[:100]
        return self.render(request, "player.html", p=data.player(self.sources, key))

    async def servers(self, request: Request) -> Response:
        if self.admin(request) is None:
            return self.to_login(request)
        return self.render(request, "servers.html", servers=data.servers(self.sources, self.clock()))

    async def charts(self, request: Request) -> Response:
        if self.admin(request) is None:
            return self.to_login(request)
        weeks = request.query_params.get("weeks", "4")
        weeks_n = min(int(weeks), 26) if weeks.isdigit() and int(weeks) > 0 else 4
        counts = data.per_day(self.sources, weeks_n * 7, self.clock())
        return self.render(request, "charts.html", weeks=weeks_n, counts=counts,
                           by_rule=stacked(counts["dates"], counts["by_rule"]),
                           by_server=stacked(counts["dates"], counts["by_server"]),
                           top=hbars([(f"{ref} {rule}".strip(), n) for rule, ref, n in counts["top"][:12]]))

    # -- the one change --------------------------------------------------------------------------

    async def pardon(self, request: Request) -> Response:
        session = self.admin(request)
        fields = await self.form(request, session)  # refuses a request without an admin's session
        server, action_id = fields.get("server", ""), fields.get("id", "")
        entry = data.find(self.sources, server, int(action_id)) if action_id.isdigit() else None
        source = self.sources.of(server)
        if entry is None or source is None:
            return self.render(request, "error.html", status=404, message=f"{server} #{action_id}: ?")
        if session is None or session.user is None:
            raise Forbidden("not an admin")
        try:
            source.store.request_pardon(entry["id"], session.user, fields.get("reason", "").strip()[:300])
        except PardonError as exc:
            return self.render(request, "error.html", status=409, message=str(exc))
        back = _local(fields.get("next", "")) if fields.get("next") else "/story?" + urlencode({"server": server, "id": entry["id"]})
        return RedirectResponse(f"{back}#{entry['dom']}", 303)


def _local(target: str) -> str:
    """Only a path on this site is a place to go back to."""
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/live"
    return target
