"""One request to a sink and what its answer means, as each API documents it: Discord's
webhook (204, or 200 with `?wait=true`; 429 with `retry_after` in seconds), Telegram's
`sendMessage` (`{"ok": true}`; 429 with `parameters.retry_after`), a plain webhook (2xx; 429
with a Retry-After header). httpx, with bounded timeouts: a sink that hangs costs its own task
a few seconds, never the enforcement. A bot token never appears in what is said (it is part of
Telegram's URL)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import attrs
import httpx

from jailcore.config.notifyconfig import Sink

TIMEOUT = httpx.Timeout(10.0, connect=5.0)
DEADLINE = 15.0  # seconds a request may take in all: httpx's timeouts are per read, and a sink that trickles its answer never trips them
RETRY_AFTER = (0.05, 600.0)  # seconds: a wait asked is taken within these (a 0 would be a request in a tight loop; a longer one is
# cut, and the sink is then asked again)

Outcome = Literal["sent", "wait", "refused", "failed"]


@attrs.frozen
class Answer:
    """What became of one request: `sent`; `wait` (a 429: `retry_after` seconds, then the same
    message again); `refused` (the message itself is bad: kept as refused, never sent again);
    `failed` (the sink is away or misconfigured: the message waits, the sink is tried later)."""

    outcome: Outcome
    said: str  # the sink's answer in one line (status and a piece of its body), for `notify test` and the logs
    retry_after: float = 0.0


def address(sink: Sink) -> str:
    if sink.kind == "telegram":
        return f"{sink.url}/bot{sink.token}/sendMessage"
    if sink.kind == "discord":  # ?wait=true: Discord answers 200 with the message, not an empty 204
        parts = urlsplit(sink.url)
        query = [(k, v) for k, v in parse_qsl(parts.query) if k != "wait"] + [("wait", "true")]
        return urlunsplit(parts._replace(query=urlencode(query)))
    return sink.url


def secret_free(sink: Sink, text: str) -> str:
    """A message without the sink's token or webhook path (an error may quote the URL)."""
    for secret in (sink.token, urlsplit(sink.url).path if sink.kind != "telegram" else ""):
        if secret and len(secret) > 3:
            text = text.replace(secret, "…")
    return " ".join(text.split())[:300]


async def post(client: httpx.AsyncClient, sink: Sink, body: dict[str, Any], deadline: float = DEADLINE) -> Answer:
    try:
        async with asyncio.timeout(deadline):
            response = await client.post(address(sink), json=body, timeout=TIMEOUT)
    except TimeoutError:
        return Answer("failed", f"no whole answer in {deadline:g} s")
    except httpx.HTTPError as exc:
        return Answer("failed", secret_free(sink, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__))
    return judge(sink, response.status_code, response.headers, response.content)


def judge(sink: Sink, status: int, headers: Any, content: bytes) -> Answer:
    try:
        data = json.loads(content) if content else None
    except ValueError:
        data = None
    said = secret_free(sink, f"{status} {content[:200].decode('utf-8', 'replace')}".strip())
    if status == 429:
        return Answer("wait", said, _retry_after(sink, data, headers))
    if sink.kind == "telegram":
        if 200 <= status < 300 and isinstance(data, dict) and data.get("ok") is True:
            return Answer("sent", said)
        description = str(data.get("description", "")) if isinstance(data, dict) else ""
        if status == 400 and any(w in description.lower() for w in ("parse", "too long", "empty")):
            return Answer("refused", said)
        return Answer("failed", said)
    if 200 <= status < 300:
        return Answer("sent", said)
    if status in (400, 413, 422):  # the message itself (its size, its shape): never sent again, nor in the way of the next
        return Answer("refused", said)
    return Answer("failed", said)


def _retry_after(sink: Sink, data: Any, headers: Any) -> float:
    wait: Any = None
    if isinstance(data, dict):
        wait = data.get("retry_after")
        if wait is None and isinstance(data.get("parameters"), dict):
            wait = data["parameters"].get("retry_after")
    if wait is None:
        wait = headers.get("retry-after") if headers is not None else None
    try:
        seconds = float(wait)
    except (TypeError, ValueError):
        seconds = 1.0
    return min(max(seconds, RETRY_AFTER[0]), RETRY_AFTER[1]) if seconds == seconds else 1.0  # NaN: a second
