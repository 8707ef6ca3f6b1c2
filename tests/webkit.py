"""For the web page's tests and its benchmark: a state database filled with enforcements as
the daemon writes them (real SQLite, the store's own schema), and a small ASGI client that
calls the real application the way uvicorn does, so a test can see how much of a body was
read, or read a live stream a part at a time."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from jailcore.config.config import Config, WebConfig, load
from jailcore.store.sqlite import Store
from jailcore.web.app import COOKIE, Web
from jailcore.web.data import Sources

SERVERS = ("jail-a", "jail-b")
KINDS = [("warn", "orders.disobey", "2.1"), ("slay", "orders.disobey", "2.1"), ("ctban", "specialday.cooldown", "6.5"),
         ("slay", "games.freekill", "3.2"), ("teamswap", "ct.ratio", "1.4"), ("say", "specialday.announce", "6.1")]


def fill(path: Path, rows: int, per_day: int = 900, end: datetime | None = None, seed: int = 20) -> None:
    """`rows` enforcements over `rows / per_day` days up to `end`, on two servers, with a
    pardon for one in fifty, a failed reply for one in a hundred, and kept log lines for
    the newest rounds."""
    rnd = random.Random(seed)
    end = end or datetime(2026, 11, 30, 22, 0)
    start = end - timedelta(days=rows / per_day)
    store = Store(path)
    store.close()
    import sqlite3

    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("BEGIN")
    batch = []
    step = (end - start) / max(rows, 1)
    for i in range(rows):
        server = SERVERS[i % 2]
        action, rule, ref = KINDS[rnd.randrange(len(KINDS))]
        when = (start + step * i).isoformat(timespec="seconds")
        rnd_no = 1 + i // 40
        uid = rnd.randrange(2, 64)
        account = 100000 + rnd.randrange(5000)
        steamid = f"STEAM_1:{account % 2}:{account}"
        name = f"Игрок {account}" if i % 97 else f"\u202eнимдА {account}"
        status = "failed" if i % 100 == 0 else "delivered"
        detail = json.dumps({"action": action, "rule": rule}, ensure_ascii=False)
        batch.append((server, when, rnd_no, (rnd_no - 1) % 7 + 1, action, rule, ref, uid, steamid, name,
                      f"нарушил {ref} (зайди на cheap-skins.ru)", detail, f"jb_{action} #{uid}", status,
                      "[SM] Unknown command: /home/srcds/cstrike/addons" if status == "failed" else "ok"))
        if len(batch) == 20000:
            _insert(db, batch)
            batch = []
    _insert(db, batch)
    db.execute("INSERT INTO pardons (server, action_id, by, reason, time, applied_at) SELECT server, id, 'adminka', 'ошибся начальник', time, time "
               "FROM audit WHERE id % 50 = 0 AND action IN ('warn', 'slay', 'ctban', 'teamswap')")
    top = db.execute("SELECT MAX(round) FROM audit").fetchone()[0] or 0
    lines = []
    for server in SERVERS:
        for r in range(max(top - 30, 1), top + 1):
            for k in range(40):
                lines.append((server, r, end.isoformat(timespec="seconds"),
                              f'L 11/30/2026 - 22:00:{k % 60:02d}: "Игрок {k}<{k + 2}><STEAM_1:0:{k}><TERRORIST>" say "привет"', 0))
    db.executemany("INSERT INTO loglines (server, round, time, line, audit) VALUES (?, ?, ?, ?, ?)", lines)
    for server in SERVERS:
        snapshot = {"time": end.isoformat(timespec="seconds"), "round": top, "players": [
            {"userid": 2 + k, "steamid": f"STEAM_1:0:{100000 + k}", "name": f"Игрок {100000 + k}", "team": "T"} for k in range(30)]}
        db.execute("INSERT INTO state (server, snapshot, updated) VALUES (?, ?, ?) ON CONFLICT(server) DO UPDATE SET snapshot = excluded.snapshot",
                   (server, json.dumps(snapshot, ensure_ascii=False), end.isoformat(timespec="seconds")))
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def _insert(db, batch: list) -> None:
    db.executemany("INSERT INTO audit (server, time, round, day, action, rule, ref, userid, steamid, name, reason, detail, command, status, reply) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", batch)


def configs(path: Path) -> list[Config]:
    return [load(f'[server]\nname = "{s}"\nrulebook = "all"\n[rcon]\npassword = "x"\n[state]\npath = "{path}"\n', "<test>", {})
            for s in SERVERS]


def web(path: Path, **settings) -> Web:
    return Web(Sources(configs(path)), WebConfig(**settings), poll=0.05, clock=lambda: datetime(2026, 11, 30, 22, 0))


class Answer:
    def __init__(self, status: int, headers: list[tuple[bytes, bytes]], body: bytes):
        self.status, self.headers, self.body = status, headers, body

    def header(self, name: str) -> str | None:
        return next((v.decode("latin-1") for k, v in self.headers if k.decode("latin-1").lower() == name), None)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def cookies(self) -> dict[str, str]:
        out = {}
        for k, v in self.headers:
            if k.lower() == b"set-cookie":
                pair = v.decode("latin-1").split(";", 1)[0]
                name, _, value = pair.partition("=")
                out[name] = value.strip('"')
        return out


def _scope(method: str, target: str, headers: dict[str, str], client: tuple[str, int]) -> dict:
    url = urlsplit(target)
    raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in {"host": "testserver", **headers}.items()]
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
            "path": url.path, "raw_path": url.path.encode(), "query_string": url.query.encode("latin-1"), "root_path": "",
            "headers": raw, "client": client, "server": ("testserver", 80)}


async def call(app, method: str, target: str, headers: dict[str, str] | None = None, body: bytes | list[bytes] = b"",
               client: tuple[str, int] = ("127.0.0.1", 50000), read: Callable[[int], None] | None = None) -> Answer:
    """One request to the ASGI app; `body` given as chunks is sent a chunk per receive, and
    `read` is told how many bytes the app has taken so far."""
    chunks = body if isinstance(body, list) else [body]
    sent = {"start": None, "body": bytearray()}
    taken = 0
    queue = list(chunks)

    async def receive():
        nonlocal taken
        if queue:
            chunk = queue.pop(0)
            taken += len(chunk)
            if read:
                read(taken)
            return {"type": "http.request", "body": chunk, "more_body": bool(queue)}
        await asyncio.sleep(3600)  # the client stays; a streaming app is cancelled by the caller
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.start":
            sent["start"] = message
        elif message["type"] == "http.response.body":
            sent["body"] += message.get("body", b"")

    await app(_scope(method, target, headers or {}, client), receive, send)
    start = sent["start"]
    return Answer(start["status"], list(start.get("headers", [])), bytes(sent["body"]))


@asynccontextmanager
async def stream(app, target: str, headers: dict[str, str] | None = None) -> AsyncIterator[tuple[asyncio.Queue, asyncio.Task]]:
    """A streaming GET: its body parts arrive on the queue (None once it ended); the
    queue's `status` is the response's."""
    parts: asyncio.Queue = asyncio.Queue()
    gone = asyncio.Event()

    async def receive():
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.start":
            parts.status = message["status"]  # type: ignore[attr-defined]
        if message["type"] == "http.response.body":
            await parts.put(message.get("body", b""))
            if not message.get("more_body", False):
                await parts.put(None)

    task = asyncio.create_task(app(_scope("GET", target, headers or {}, ("127.0.0.1", 50001)), receive, send))
    try:
        yield parts, task
    finally:
        gone.set()
        try:
            await asyncio.wait_for(task, 5)
        except (TimeoutError, asyncio.CancelledError):
            task.cancel()


class Browser:
    """Cookies and the CSRF token of one visitor, over `call`."""

    def __init__(self, app, client: tuple[str, int] = ("127.0.0.1", 50000), headers: dict[str, str] | None = None):
        self.app, self.client, self.headers, self.jar = app, client, headers or {}, {}

    def cookie_header(self) -> dict[str, str]:
        return {"cookie": "; ".join(f"{k}={v}" for k, v in self.jar.items())} if self.jar else {}

    async def get(self, target: str) -> Answer:
        answer = await call(self.app, "GET", target, {**self.headers, **self.cookie_header()}, client=self.client)
        self.jar.update({k: v for k, v in answer.cookies().items() if v})
        return answer

    async def csrf(self, page: str = "/login") -> str:
        text = (await self.get(page)).text
        marker = 'name="csrf" value="'
        return text[text.index(marker) + len(marker):].split('"', 1)[0]

    async def post(self, target: str, form: dict[str, str], token: str | None = None) -> Answer:
        fields = {**form, "csrf": token if token is not None else await self.csrf()}
        body = urlencode(fields).encode()
        answer = await call(self.app, "POST", target, {**self.headers, **self.cookie_header(), "content-type": "application/x-www-form-urlencoded",
                                                        "content-length": str(len(body))}, body, client=self.client)
        self.jar.update({k: v for k, v in answer.cookies().items() if v})
        return answer

    async def login(self, name: str, password: str) -> Answer:
        return await self.post("/login", {"name": name, "password": password, "next": "/live"})

    @property
    def session(self) -> str | None:
        return self.jar.get(COOKIE)


async def http(port: int, method: str, target: str, headers: dict[str, str] | None = None, body: bytes = b"") -> Answer:
    """One HTTP/1.1 request over a real TCP connection (to uvicorn), connection closed after."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = {"host": f"127.0.0.1:{port}", "connection": "close", "content-length": str(len(body)), **(headers or {})}
    writer.write(f"{method} {target} HTTP/1.1\r\n".encode() + "".join(f"{k}: {v}\r\n" for k, v in head.items()).encode("latin-1")
                 + b"\r\n" + body)
    await writer.drain()
    raw = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    top, _, rest = raw.partition(b"\r\n\r\n")
    lines = top.split(b"\r\n")
    status = int(lines[0].split()[1])
    pairs = [tuple(x.strip() for x in line.split(b":", 1)) for line in lines[1:]]
    return Answer(status, [(k.lower(), v) for k, v in pairs], rest)


async def login_over_http(port: int, name: str, password: str, headers: dict[str, str] | None = None,
                          cookies: str = "") -> tuple[int, dict[str, str]]:
    """A login as a browser makes it: the form (its visitor cookie, its token), then the post."""
    headers = headers or {}
    form = await http(port, "GET", "/login", {**headers, **({"cookie": cookies} if cookies else {})})
    jar = dict(x.split("=", 1) for x in cookies.split("; ") if x) | form.cookies()
    text = form.text
    marker = 'name="csrf" value="'
    token = text[text.index(marker) + len(marker):].split('"', 1)[0]
    body = urlencode({"name": name, "password": password, "csrf": token, "next": "/live"}).encode()
    answer = await http(port, "POST", "/login", {**headers, "cookie": "; ".join(f"{k}={v}" for k, v in jar.items()),
                                                  "content-type": "application/x-www-form-urlencoded"}, body)
    return answer.status, jar | answer.cookies()
