"""Stand-ins for Discord's webhook and Telegram's Bot API, as their documentation describes the
requests they take and what they answer: real HTTP on 127.0.0.1 (uvicorn), started by a test,
stopped and started again on the same port to play an outage.

Discord (`POST /api/webhooks/{id}/{token}`): JSON with `content` (at most 2,000 characters)
and/or `embeds` (at most 10, a description of at most 4,096, all of their text at most
6,000), `allowed_mentions`; answers 204, or 200 with the message with `?wait=true`; 400 with
`{"code": 50035, "message": "Invalid Form Body"}` for a body past its limits; 429 with
`{"message": "You are being rate limited.", "retry_after": seconds, "global": false}` and a
Retry-After header, when the test asks for one.

Telegram (`POST /bot{token}/sendMessage`): JSON with `chat_id`, `text` (1 to 4,096 characters
after its entities are parsed), `parse_mode` `HTML` (only Telegram's tags, well nested, else
400 "can't parse entities"); answers `{"ok": true, "result": {message}}` where the message's
`text` is what a reader sees (the tags gone, the entities read); 429 `{"ok": false,
"error_code": 429, "description": "Too Many Requests: retry after N", "parameters":
{"retry_after": N}}` when the test asks for one.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import time
from html.parser import HTMLParser

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

TELEGRAM_TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a", "code", "pre", "tg-spoiler", "span", "blockquote",
                 "tg-emoji"}


class StandIn:
    """One fake API: what it took (`received`: each accepted request's JSON, with its time),
    every request it saw (`seen`: also the refused and the 429s), and the 429s still to give."""

    def __init__(self) -> None:
        self.received: list[dict] = []
        self.seen: list[tuple[float, int]] = []  # (monotonic time, status answered)
        self.limited: list[float] = []  # retry_after values to answer with, one per request, first
        self.hanging = False  # while True, a request is taken in and never answered (until `release`)
        self.released = asyncio.Event()
        self.port = 0
        self.news = asyncio.Event()
        self._server: uvicorn.Server | None = None
        self._task: asyncio.Task | None = None

    def app(self) -> Starlette:
        raise NotImplementedError

    async def start(self) -> None:
        config = uvicorn.Config(self.app(), host="127.0.0.1", port=self.port, log_level="warning", access_log=False, lifespan="off")
        self._server = uvicorn.Server(config)
        self._server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        self._task = asyncio.create_task(self._server.serve())
        end = time.monotonic() + 10
        while not self._server.started:
            if self._task.done() or time.monotonic() > end:
                raise RuntimeError("the stand-in did not start")
            await asyncio.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]

    async def stop(self) -> None:
        self.release()  # a request left hanging would hold the server's stop
        if self._server is not None and self._task is not None:
            self._server.should_exit = True
            await self._task
            self._server = self._task = None

    def took(self, body: dict) -> None:
        self.received.append({**body, "_at": time.monotonic()})
        self.news.set()

    def rate_limited(self) -> float | None:
        return self.limited.pop(0) if self.limited else None

    async def hang(self, request: Request) -> bool:
        """A sink that hangs: the request waits, unanswered, as long as `hanging` holds. False
        when its client has gone meanwhile (a sender killed): the message never reached us."""
        hung = False
        while self.hanging:
            hung = True
            self.seen.append((time.monotonic(), 0))
            self.released.clear()
            await self.released.wait()
        return not (hung and await request.is_disconnected())

    def release(self) -> None:
        self.hanging = False
        self.released.set()

    async def until(self, check, timeout: float = 30.0) -> None:
        """Waits (wide margin) until `check()` holds, woken by each request taken."""
        end = time.monotonic() + timeout
        while not check():
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"not received in {timeout} s; got {len(self.received)} request(s)")
            self.news.clear()
            try:
                await asyncio.wait_for(self.news.wait(), min(left, 0.5))
            except TimeoutError:
                pass


class Discord(StandIn):
    def __init__(self, hook: str = "123456/tok-en_secret") -> None:
        super().__init__()
        self.hook = hook

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/webhooks/{self.hook}"

    def app(self) -> Starlette:
        async def execute(request: Request) -> Response:
            if f"{request.path_params['id']}/{request.path_params['token']}" != self.hook:
                self.seen.append((time.monotonic(), 404))
                return JSONResponse({"message": "Unknown Webhook", "code": 10015}, 404)
            if not await self.hang(request):
                return Response(status_code=499)
            wait = self.rate_limited()
            if wait is not None:
                self.seen.append((time.monotonic(), 429))
                return JSONResponse({"message": "You are being rate limited.", "retry_after": wait, "global": False}, 429,
                                    headers={"retry-after": str(max(1, round(wait)))})
            try:
                body = json.loads(await request.body())
            except ValueError:
                body = None
            if not _discord_ok(body):
                self.seen.append((time.monotonic(), 400))
                return JSONResponse({"code": 50035, "message": "Invalid Form Body"}, 400)
            self.seen.append((time.monotonic(), 200))
            self.took(body)
            if request.query_params.get("wait") == "true":
                return JSONResponse({"id": str(len(self.received)), "type": 0, "content": body.get("content", ""),
                                     "embeds": body.get("embeds", [])})
            return Response(status_code=204)

        return Starlette(routes=[Route("/api/webhooks/{id}/{token}", execute, methods=["POST"])])


def _discord_ok(body: object) -> bool:
    if not isinstance(body, dict) or not (body.get("content") or body.get("embeds")):
        return False
    if len(str(body.get("content") or "")) > 2000:
        return False
    embeds = body.get("embeds") or []
    if not isinstance(embeds, list) or len(embeds) > 10:
        return False
    total = 0
    for e in embeds:
        if len(str(e.get("description") or "")) > 4096 or len(str(e.get("title") or "")) > 256:
            return False
        total += len(str(e.get("description") or "")) + len(str(e.get("title") or ""))
    return total <= 6000


def discord_seen(text: str) -> str:
    """What a reader sees of Discord's markdown we write: bold marks gone, `\\x` is `x`."""
    return re.sub(r"\\(.)", r"\1", text.replace("**", ""))


class Telegram(StandIn):
    def __init__(self, token: str = "123456:ABC-secret") -> None:
        super().__init__()
        self.token = token
        self.unparsable = 0  # HTML messages still to refuse as Telegram refuses what it cannot parse

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def app(self) -> Starlette:
        async def send(request: Request) -> Response:
            if request.path_params["token"] != self.token:
                self.seen.append((time.monotonic(), 401))
                return JSONResponse({"ok": False, "error_code": 401, "description": "Unauthorized"}, 401)
            wait = self.rate_limited()
            if wait is not None:
                self.seen.append((time.monotonic(), 429))
                return JSONResponse({"ok": False, "error_code": 429, "description": f"Too Many Requests: retry after {int(wait)}",
                                     "parameters": {"retry_after": int(wait)}}, 429)
            if not await self.hang(request):
                return Response(status_code=499)
            body = json.loads(await request.body())
            text = body.get("text") or ""
            plain = telegram_seen(text) if body.get("parse_mode") == "HTML" else text
            if body.get("parse_mode") == "HTML" and self.unparsable > 0:
                self.unparsable -= 1
                plain = None
            if plain is None:
                self.seen.append((time.monotonic(), 400))
                return JSONResponse({"ok": False, "error_code": 400, "description": "Bad Request: can't parse entities"}, 400)
            if not 1 <= len(plain) <= 4096:
                self.seen.append((time.monotonic(), 400))
                return JSONResponse({"ok": False, "error_code": 400, "description": "Bad Request: message is too long"}, 400)
            self.seen.append((time.monotonic(), 200))
            self.took({**body, "_plain": plain})
            return JSONResponse({"ok": True, "result": {"message_id": len(self.received), "date": int(time.time()),
                                                        "chat": {"id": body.get("chat_id")}, "text": plain}})

        return Starlette(routes=[Route("/bot{token}/sendMessage", send, methods=["POST"])])


def telegram_seen(text: str) -> str | None:
    """The text a reader sees of Telegram's HTML, or None where Telegram would refuse it."""

    class Reader(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.out: list[str] = []
            self.open: list[str] = []
            self.bad = False

        def handle_starttag(self, tag, attrs):
            if tag not in TELEGRAM_TAGS:
                self.bad = True
            self.open.append(tag)

        def handle_endtag(self, tag):
            if not self.open or self.open.pop() != tag:
                self.bad = True

        def handle_data(self, data):
            self.out.append(data)

    if re.search(r"&(?!(?:lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);)", text):
        return None  # a bare & is an entity Telegram cannot parse
    reader = Reader()
    reader.feed(text)
    reader.close()
    return None if reader.bad or reader.open else html.unescape("".join(reader.out))
