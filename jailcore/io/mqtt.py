"""MQTT: every action and state change as JSON, and CT bans shared across a network.

Topics: `jailcore/<server>/actions` (each action), `jailcore/<server>/state` (retained, the
newest only), `jailcore/network/ctbans` (a CT ban made on one server, kept on all).

A broker outage never blocks enforcement: `publish` only appends to an in-memory queue,
and the connection loop drains it, oldest first, taking a message off only once the
broker acknowledged it (QoS 1). Messages go out in order without waiting for each one's
acknowledgement in turn (a window of `WINDOW`); a CT ban (`urgent`) has its own queue and
sender, so it leaves ahead of the actions it came with and of state messages, even while
a window of them waits for the broker. Unacknowledged messages are sent again, in order,
after a reconnection. The session is persistent (a fixed client id, no clean
session), so CT bans published while this daemon was away are delivered when it returns.
Messages carry an `id`; a message seen before is ignored, since QoS 1 may deliver twice.

Trust: with a network key (`[network] key`, JAILCORE_NETWORK_KEY) every message is signed
as it leaves (`log.inbound.seal`: the time is the moment it went to the broker, so one that
waited out an outage is not stale), and a CT ban or lift is taken only with the network's
signature, fresh (`[network] max_age`), and not older than the newest already taken from
its sender (a replay). Every message is typed by `log.inbound` before the daemon sees it;
what does not fit, is unsigned or stale is dropped, logged once per cause and counted
(`refused`: `jailcore status` shows it with the dropped datagrams, as `mqtt <cause> N`).
Without a key nothing is signed or checked, as a network that trusts its broker's ACLs.

The broker speaks for a daemon that died: the session's last will is a retained
`{"server": ..., "daemon": "offline"}` on `jailcore/<server>/state`, which the broker
publishes when the session ends without a goodbye (a crash, a kill, a lost network; a
keepalive of 10 s bounds how long a hung one goes unnoticed). A clean stop publishes the
state with `"daemon": "stopped"` in its link instead. Messages still queued at a stop are
handed back (`waiting_messages`) for the state database to keep until the next start.
"""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

import aiomqtt

from jailcore.log import jsontext
from jailcore.log.inbound import NetworkBan, NetworkLift, Refusals, ctban_message, json_of, seal, unseal
from jailcore.store import DATABASE_ERRORS

if TYPE_CHECKING:
    from jailcore.config.config import Config
    from jailcore.store import StateStore

log = logging.getLogger("jailcore.mqtt")

CTBANS = "jailcore/network/ctbans"
MAX_QUEUE = 50_000
WINDOW = 64  # messages awaiting the broker's acknowledgement at once
KEEPALIVE = 10
MAX_AGE = 86_400.0  # seconds a signed message stays good: a daemon away longer gets its bans from the store
REORDER = 120_000  # ms a sender's message may be older than its newest one taken (clock steps, two queues)


def parse_url(url: str, ca_file: str = "", cert_file: str = "", key_file: str = "", insecure: bool = False) -> dict[str, Any]:
    """`mqtt://user:password@host:port` or `mqtts://...` (TLS) to client arguments; the
    TLS files are the broker's CA and this client's certificate and key, as any MQTT
    client takes them."""
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise ValueError("MQTT URL must look like mqtt://user:password@host:port or mqtts://... (the value is not repeated: it may hold a password)")
    tls = parts.scheme == "mqtts"
    context = None
    if tls:
        context = ssl.create_default_context(cafile=ca_file or None)
        if cert_file:
            context.load_cert_chain(cert_file, key_file or None)
        if insecure:  # a self-signed broker on a LAN: the admin's explicit choice
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
    return {
        "hostname": parts.hostname,
        "port": parts.port or (8883 if tls else 1883),
        "username": unquote(parts.username) if parts.username else None,
        "password": unquote(parts.password) if parts.password else None,
        "tls_context": context,
    }


class MqttLink:
    _unsigned_said = False  # the warning that messages go unsigned: once a process

    def __init__(
        self,
        url: str,
        server: str,
        on_ctban: Callable[[NetworkBan | NetworkLift], None] | None = None,
        backoff: tuple[float, float] = (0.5, 30.0),
        tls: dict[str, Any] | None = None,
        key: str = "",
        max_age: float = MAX_AGE,
    ):
        self.args = parse_url(url, **(tls or {}))
        self.server = server
        self.on_ctban = on_ctban
        self.backoff_min, self.backoff_max = backoff
        self.connected = asyncio.Event()
        self.published = 0
        self.local = {server}  # servers of this process: their bans reach each other without the broker
        self._queue: deque[tuple[str, str, bool]] = deque()
        self._urgent: deque[tuple[str, str, bool]] = deque()
        self._state: str | None = None
        self._wake = asyncio.Event()
        self._wake_urgent = asyncio.Event()
        self._seen: deque[str] = deque(maxlen=4096)
        self.key = key.encode("utf-8")
        self.max_age = max_age
        self.refused = Refusals("MQTT: a network message")
        self._newest: dict[str, int] = {}  # sender -> the time of its newest message taken (ms)
        if not key and not MqttLink._unsigned_said:  # once a process: a fleet of 200 servers said it 200 times
            MqttLink._unsigned_said = True
            log.warning("MQTT: no [network] key (JAILCORE_NETWORK_KEY): messages between daemons are not signed, so any "
                        "client that may publish to the broker can give or lift a CT ban on every server; set the same key on every daemon")

    # -- what the daemon calls (never blocks) ---------------------------------------------

    def publish(self, topic: str, payload: dict[str, Any], retain: bool = False, urgent: bool = False) -> None:
        queue = self._urgent if urgent else self._queue
        if len(queue) >= MAX_QUEUE:
            queue.popleft()
            log.warning("MQTT queue full: the oldest message was dropped")
        queue.append((topic, jsontext.dumps(payload), retain))
        (self._wake_urgent if urgent else self._wake).set()

    def publish_state(self, state: dict[str, Any]) -> None:
        self._state = jsontext.dumps({"server": self.server, **state})
        self._wake.set()

    @property
    def waiting(self) -> int:
        return len(self._queue) + len(self._urgent) + (self._state is not None)

    def will_payload(self) -> str:
        return self._signed(jsontext.dumps({"server": self.server, "daemon": "offline"}))

    def _signed(self, payload: str) -> str:
        """The message as it goes to the broker now: sealed with the network key, if there is one."""
        if not self.key:
            return payload
        return jsontext.dumps(seal(json.loads(payload), self.key, self.server, int(time.time() * 1000)))

    def waiting_messages(self) -> list[tuple[str, str, bool]]:
        """What the broker has not taken yet, oldest first, the newest state last."""
        out = list(self._urgent) + list(self._queue)
        if self._state is not None:
            out.append((f"jailcore/{self.server}/state", self._state, True))
        return out

    def restore(self, messages: list[tuple[str, str, bool]]) -> None:
        """Messages kept from before the last stop go out first, in their order."""
        for topic, payload, retain in reversed(messages):
            (self._urgent if topic == CTBANS else self._queue).appendleft((topic, payload, retain))
        if messages:
            self._wake.set()
            self._wake_urgent.set()

    async def drain(self, timeout: float) -> None:
        """At a stop: give a connected broker a moment to take what is queued."""
        if not self.connected.is_set():
            return
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while self.waiting and self.connected.is_set() and loop.time() < end:
            await asyncio.sleep(0.02)

    # -- the connection loop --------------------------------------------------------------

    async def run(self) -> None:
        delay = self.backoff_min
        while True:
            try:
                will = aiomqtt.Will(f"jailcore/{self.server}/state", self.will_payload(), qos=1, retain=True)
                async with aiomqtt.Client(
                    **self.args, identifier=f"jailcore-{self.server}", clean_session=False, timeout=10, will=will, keepalive=KEEPALIVE
                ) as client:
                    client.pending_calls_threshold = 2 * WINDOW + 16  # two windows in flight are the plan, not a backlog
                    await client.subscribe(CTBANS, qos=1)
                    self.connected.set()
                    delay = self.backoff_min
                    log.info("MQTT connected to %s:%s", self.args["hostname"], self.args["port"])
                    async with asyncio.TaskGroup() as group:
                        group.create_task(self._send(client, self._urgent, self._wake_urgent, with_state=False))
                        group.create_task(self._send(client, self._queue, self._wake, with_state=True))
                        group.create_task(self._receive(client))
            except* aiomqtt.MqttError as group:
                log.warning("MQTT: %s; retrying in %.1fs", group.exceptions[0], delay)
            self.connected.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.backoff_max)

    async def _send(self, client: aiomqtt.Client, queue: deque[tuple[str, str, bool]], wake: asyncio.Event, with_state: bool) -> None:
        while True:
            if not queue and not (with_state and self._state is not None):
                wake.clear()
                await wake.wait()
                continue
            batch = [queue.popleft() for _ in range(min(len(queue), WINDOW))]
            state = self._state if with_state and len(batch) < WINDOW else None
            try:
                # Issued in order, so they reach the broker (and each subscriber) in order.
                sends = [client.publish(topic, self._signed(payload), qos=1, retain=retain) for topic, payload, retain in batch]
                if state is not None:
                    sends.append(client.publish(f"jailcore/{self.server}/state", self._signed(state), qos=1, retain=True))
                await asyncio.gather(*sends)
            except BaseException:
                queue.extendleft(reversed(batch))  # not acknowledged: first again after reconnecting
                raise
            if state is not None and self._state is state:
                self._state = None
            self.published += len(batch) + (state is not None)

    async def _receive(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            self.take(message.payload)

    def take(self, payload: object) -> None:
        """One message of the CT-ban topic: typed, its signature checked, then to the daemon.
        Nothing a publisher wrote can raise out of here: it is refused and counted."""
        where = CTBANS
        data = json_of(payload if isinstance(payload, bytes | bytearray | str) else None, self.refused, where)
        if data is None:
            return
        if isinstance(data, dict) and isinstance(data.get("origin"), str) and data["origin"] in self.local:
            return  # a ban of this process's own servers, which reached them without the broker: not even checked
        sig = None
        if self.key:
            sealed = unseal(data, self.key, int(time.time() * 1000), self.max_age, self.refused, where)
            if sealed is None:
                return
            data, sig = sealed
            if sig.at < self._newest.get(sig.by, 0) - REORDER:
                self.refused.refuse("replayed", where, "older than its sender's newest message")
                return
        elif isinstance(data, dict):
            data.pop("sig", None)
        ban = ctban_message(data, self.refused, where)
        if ban is None or ban.origin in self.local:
            return
        if ban.id:
            if ban.id in self._seen:
                return
            self._seen.append(ban.id)
        if sig is not None:
            self._newest[sig.by] = max(sig.at, self._newest.get(sig.by, 0))
        if self.on_ctban is not None:
            self.on_ctban(ban)


def link_for(config: Config, on_ctban: Callable[[NetworkBan | NetworkLift], None], store: StateStore) -> MqttLink | None:
    """A server's link to the network (None without `[mqtt] url`), with what the broker never
    took before the last stop queued first."""
    if not config.mqtt_url:
        return None
    link = MqttLink(config.mqtt_url, config.server_name, on_ctban, tls=dict(config.mqtt_tls), key=config.network_key,
                    max_age=config.network_max_age)
    link.restore(store.kept_messages(config.server_name))
    return link


def keep_unsent(link: MqttLink | None, store: StateStore, server: str) -> None:
    """At a stop: what the broker has not taken is kept in the state database and published
    after the next start; said in one line, so nothing is dropped without a word."""
    if link is None:
        return
    waiting = link.waiting_messages()
    try:
        store.keep_messages(server, waiting)
    except DATABASE_ERRORS as exc:
        log.error("%d MQTT message(s) the broker never took are lost: the state database cannot be written (%s)", len(waiting), exc)
        return
    if waiting:
        log.warning("%d MQTT message(s) the broker never took are kept in %s and published after the next start", len(waiting), store.path)
