"""The network as an admin's tools read it over MQTT: the retained state of every server
(`jailcore status --mqtt`) and the actions as they happen (`jailcore tail -f --mqtt`).

Only reads: a clean session with a client id of the broker's choosing, so an admin's
terminal leaves nothing behind on the broker. Blocking calls, for the command line; the
asyncio stays in here.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Coroutine
from typing import Any

import aiomqtt

from jailcore.io.mqtt import parse_url
from jailcore.log.errors import LinkError

# A message handler returns True when it has seen enough (`tail --count`).
Handler = Callable[[str, bytes], bool]


class NetworkError(LinkError):
    """The broker cannot be used: the message says where and why, without the password."""


def _client(args: dict[str, Any]) -> aiomqtt.Client:
    return aiomqtt.Client(**args, clean_session=True, timeout=10)


def _where(args: dict[str, Any]) -> str:
    return f"{args['hostname']}:{args['port']}"


def retained(url: str, topic: str, tls: dict[str, Any] | None = None, quiet: float = 0.5, most: float = 5.0) -> list[tuple[str, bytes]]:
    """The retained messages of `topic` (a wildcard): the broker sends them right after the
    subscription, so the first `quiet` seconds without one end the list."""
    args = parse_url(url, **(tls or {}))
    try:
        return asyncio.run(_retained(args, topic, quiet, most))
    except aiomqtt.MqttError as exc:
        raise NetworkError(f"the MQTT broker at {_where(args)} cannot be read: {exc}") from None


async def _retained(args: dict[str, Any], topic: str, quiet: float, most: float) -> list[tuple[str, bytes]]:
    out: list[tuple[str, bytes]] = []
    async with _client(args) as client:
        await client.subscribe(topic, qos=1)
        deadline = time.monotonic() + most
        messages = aiter(client.messages)
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = await asyncio.wait_for(anext(messages), min(quiet, left))
            except TimeoutError:
                break
            if message.retain:
                out.append((message.topic.value, _payload(message)))
    return out


def follow(url: str, topic: str, handle: Handler, tls: dict[str, Any] | None = None, seconds: float | None = None,
           ready: Callable[[str], None] | None = None, backoff: tuple[float, float] = (0.5, 10.0)) -> None:
    """Every message on `topic` to `handle` until it returns True, `seconds` pass, or
    Ctrl-C (KeyboardInterrupt reaches the caller). A broker that cannot be reached at
    the start is an error; one lost later is reconnected to, and said so on stderr.
    `ready(where)` is called once subscribed, each time."""
    args = parse_url(url, **(tls or {}))
    try:
        asyncio.run(_bounded(_follow(args, topic, handle, ready, backoff), seconds))
    except aiomqtt.MqttError as exc:
        raise NetworkError(f"the MQTT broker at {_where(args)} cannot be reached: {exc}") from None


async def _bounded(job: Coroutine[Any, Any, None], seconds: float | None) -> None:
    try:
        async with asyncio.timeout(seconds):
            await job
    except TimeoutError:
        pass


async def _follow(args: dict[str, Any], topic: str, handle: Handler, ready: Callable[[str], None] | None, backoff: tuple[float, float]) -> None:
    delay, connected, lost = backoff[0], False, False
    while True:
        try:
            async with _client(args) as client:
                await client.subscribe(topic, qos=1)
                connected, lost, delay = True, False, backoff[0]
                if ready is not None:
                    ready(_where(args))
                async for message in client.messages:
                    if handle(message.topic.value, _payload(message)):
                        return
        except aiomqtt.MqttError as exc:
            if not connected:
                raise
            if not lost:  # said once an outage, not at every attempt
                lost = True
                print(f"MQTT: the connection to {_where(args)} was lost ({exc}); reconnecting", file=sys.stderr, flush=True)
        await asyncio.sleep(delay)
        delay = min(delay * 2, backoff[1])


def _payload(message: aiomqtt.Message) -> bytes:
    payload = message.payload
    if isinstance(payload, bytes | bytearray):
        return bytes(payload)
    return str(payload).encode("utf-8") if payload is not None else b""
