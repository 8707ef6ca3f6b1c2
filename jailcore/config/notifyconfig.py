"""`[notify]`: where admins hear of what needs them (protocol section 4): a Discord webhook, a
Telegram chat, a plain webhook. Checked in config.py's one pass; a secret (a webhook URL holds
its token, a bot token is one) is never repeated in a message, nor shown by `repr`.

Each sink takes `events` (a subset of EVENTS, all by default) and `servers` (all by default).
The sinks of every config a process serves are that process's sinks: one webhook named in
several configs is one sink, and its messages group the events of all of them."""

from __future__ import annotations

import hashlib
from typing import Any, Literal
from urllib.parse import urlsplit

import attrs

from jailcore.config.netsettings import refuser

# What a sink may hear: a proposal waiting for an admin; a server ban or a CT ban given or
# lifted; an appeal filed; a daemon stopped or unable to start; the game's RCON or log silent
# too long, and back; datagrams or network messages refused in a burst.
EVENTS = ("proposal", "ban", "ctban", "appeal", "stopped", "link", "drops")
KINDS = ("discord", "telegram", "webhook")
TELEGRAM_API = "https://api.telegram.org"



def chat_id(value: Any) -> str | None:
    """Telegram's chat: its id, which TOML may give as a number (-1001234567890) or a string, or
    "@channel"; None when it is one."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return None
    return 'expected the chat\'s id (-1001234567890) or "@channel"'


# The tables and their keys, as config.py's SCHEMA reads them (type, default).
STR_LIST = "list of strings"
TABLES: dict[str, dict[str, tuple[Any, Any]]] = {
    "notify": {"language": (("", "ru", "en"), ""), "silence": (int, 120), "drops": (int, 100)},
    "notify.discord": {"url": (str, ""), "events": (STR_LIST, list(EVENTS)), "servers": (STR_LIST, [])},
    "notify.telegram": {"token": (str, ""), "chat": (chat_id, ""), "api": (str, TELEGRAM_API), "events": (STR_LIST, list(EVENTS)),
                        "servers": (STR_LIST, [])},
    "notify.webhook": {"url": (str, ""), "events": (STR_LIST, list(EVENTS)), "servers": (STR_LIST, [])},
}
# The environment wins over the file: no secret has to live in a config.
ENV = {
    "JAILCORE_DISCORD_WEBHOOK": ("notify.discord", "url", str),
    "JAILCORE_TELEGRAM_TOKEN": ("notify.telegram", "token", str),
    "JAILCORE_NOTIFY_WEBHOOK": ("notify.webhook", "url", str),
}


@attrs.frozen
class Sink:
    """One place messages go. `key` names it in the store (its kind and a digest of where it
    points, never the secret itself); `shown` names it for an admin (no token)."""

    kind: Literal["discord", "telegram", "webhook"]
    url: str = attrs.field(repr=False, default="")  # discord / webhook: the URL; telegram: the API's base
    token: str = attrs.field(repr=False, default="")
    chat: str = ""
    events: tuple[str, ...] = EVENTS
    servers: tuple[str, ...] = ()
    language: str = "ru"

    @property
    def key(self) -> str:
        where = f"{self.url}\n{self.token}\n{self.chat}".encode()
        return f"{self.kind}:{hashlib.sha256(where).hexdigest()[:12]}"

    @property
    def shown(self) -> str:
        if self.kind == "telegram":
            return f"telegram chat {self.chat}"
        host = urlsplit(self.url).hostname or "?"
        return f"{self.kind} {host}"

    def hears(self, event: str, server: str) -> bool:
        return event in self.events and (not self.servers or not server or server in self.servers)

    def merged(self, other: Sink) -> Sink:
        """The same sink named by two configs: it hears what either lets it hear."""
        events = tuple(e for e in EVENTS if e in self.events or e in other.events)
        servers = () if not self.servers or not other.servers else tuple(dict.fromkeys((*self.servers, *other.servers)))
        return attrs.evolve(self, events=events, servers=servers)


@attrs.frozen
class NotifySettings:
    """`silence`: seconds the game's RCON or log may be silent before a `link` message;
    `drops`: refused datagrams or network messages within a minute that make a `drops` message."""

    sinks: tuple[Sink, ...] = ()
    silence: int = 120
    drops: int = 100


def sinks_of(configs: Any) -> list[Sink]:
    """The sinks of these configs, each once (by its key)."""
    out: dict[str, Sink] = {}
    for config in configs:
        for sink in config.notify.sinks:
            out[sink.key] = out[sink.key].merged(sink) if sink.key in out else sink
    return list(out.values())


def check(values: dict[str, dict[str, Any]], from_env: dict[tuple[str, str], str], fail: Any, problems: list[str],
          language: str, public_url: str = "") -> NotifySettings:
    """The `[notify...]` tables as settings, each refusal with its key (a URL or a token never
    repeated), and `[web] public_url`, the address the messages link to."""

    bad = refuser(from_env, fail, problems)

    why = _url_error(public_url) if public_url else None
    if why:
        fail(("web", "public_url"), f"{why}, got {public_url[:100]!r}")
    lang = values["notify"]["language"] or language
    sinks: list[Sink] = []
    for kind in KINDS:
        section = f"notify.{kind}"
        v = values[section]
        for key in ("events", "servers"):
            if key == "events":
                unknown = [e for e in v[key] if e not in EVENTS]
                if unknown:
                    bad(section, key, f"unknown event(s) {unknown}; known: {', '.join(EVENTS)}")
        if kind == "telegram":
            v["chat"] = str(v["chat"])  # an id given as a number is the same id
            if not v["token"]:
                if v["chat"]:
                    bad(section, "token", "a chat without a bot token (JAILCORE_TELEGRAM_TOKEN or token = ...)")
                continue
            if not v["chat"]:
                bad(section, "chat", "required with a token: the chat's id (-100...) or @channel")
            if any(c.isspace() or c == "/" for c in v["token"]):
                bad(section, "token", "a bot token has no spaces or slashes (123456:ABC-...); the value is not repeated")
            why = _url_error(v["api"])
            if why:
                bad(section, "api", why)
            sinks.append(Sink("telegram", v["api"].rstrip("/"), v["token"], v["chat"], tuple(v["events"]), tuple(v["servers"]), lang))
            continue
        if not v["url"]:
            continue
        why = _url_error(v["url"])
        if why:
            bad(section, "url", why + "; the value is not repeated")
            continue
        sinks.append(Sink("discord" if kind == "discord" else "webhook", v["url"], "", "", tuple(v["events"]), tuple(v["servers"]), lang))
    if not 10 <= values["notify"]["silence"] <= 86_400:
        bad("notify", "silence", f"seconds from 10 to 86400, got {values['notify']['silence']}")
    if values["notify"]["drops"] < 1:
        bad("notify", "drops", "at least 1")
    return NotifySettings(tuple(sinks), values["notify"]["silence"], values["notify"]["drops"])


def _url_error(url: str) -> str | None:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port out of range
    except ValueError:
        return "not a URL (its port?)"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "expected an http:// or https:// URL"
    return None

