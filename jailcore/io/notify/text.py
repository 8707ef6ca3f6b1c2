"""What a notification says, and how each sink gets it: pure, events in, request bodies out.

An event is a dict (its `kind`, `server`, `time` and the facts: the clause, the player, the
round's excerpt, a link). It is said in the sink's language as a block of lines made of
pieces (`Piece`): a piece is plain text, escaped for the sink as it is joined (Discord's
markdown, Telegram's HTML), so what a player wrote (his name, his chat) is never markup; a
link is the page's own address (`[web] public_url`).

A burst is one message: the blocks of what waits are packed into as few requests as each
API's limits allow (Discord: `content` 2,000 characters, an embed's description 4,096;
Telegram: a text of 4,096), and Discord is told to parse no mention (`allowed_mentions`), so a
player named `@everyone` pings nobody. The plain webhook gets one request per kind and server,
with each event's facts as JSON.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from jailcore.config.notifyconfig import Sink
from jailcore.engine.vocabulary import kind_name
from jailcore.log import events as ev
from jailcore.log.invisible import visible
from jailcore.log.parse import LogParser
from jailcore.session.audit import step_text

Event = dict[str, Any]
DISCORD_CONTENT = 2000
DISCORD_DESCRIPTION = 4096
TELEGRAM_TEXT = 4096
ROOM = 96  # kept free under each limit: the joints, a last "…"
EXCERPT_LINES = 8
FIELD = 300  # characters of one field a player or a rule wrote (a name, a reason, a chat line)


@attrs.frozen
class Piece:
    text: str
    bold: bool = False
    link: bool = False  # the page's own address: not escaped as text (Discord), an <a> (Telegram)


Line = tuple[Piece, ...]


def cut(text: object, size: int = FIELD) -> str:
    """A player's or a rule's text as one line: no line breaks, no characters that hide or
    reorder text (log/invisible.py), at most `size` characters."""
    one = " ".join(visible(str(text or "")).split())
    return one if len(one) <= size else one[: size - 1] + "…"


# -- the words ----------------------------------------------------------------------------------

_SAY: dict[str, tuple[str, str]] = {
    "proposal": ("Ждёт решения админа: {what} — {name}", "Waiting for an admin: {what} — {name}"),
    "ban": ("Бан {what} — {name}", "Ban {what} — {name}"),
    "ban.lift": ("Бан снят — {name}", "Ban lifted — {name}"),
    "ctban": ("Запрет за КТ {what} — {name}", "CT ban {what} — {name}"),
    "ctban.lift": ("Запрет за КТ снят — {name}", "CT ban lifted — {name}"),
    "appeal": ("Обжалование #{id}: {name} ({what})", "Appeal #{id}: {name} ({what})"),
    "stopped": ("jailcore остановлен: {what}", "jailcore stopped: {what}"),
    "link.silent": ("Нет связи: {what} молчит {n} с", "No link: {what} silent for {n} s"),
    "link.back": ("Связь восстановлена: {what} (молчал {n} с)", "Link back: {what} (silent for {n} s)"),
    "drops": ("Отброшено за минуту: {n} ({what})", "Refused in a minute: {n} ({what})"),
    "test": ("Проверка уведомлений jailcore", "jailcore notification test"),
}
_WORDS: dict[str, tuple[str, str]] = {
    "server": ("Сервер", "Server"),
    "clause": ("Пункт", "Clause"),
    "player": ("Игрок", "Player"),
    "round": ("раунд", "round"),
    "by": ("Кто", "By"),
    "appeal": ("Текст", "Text"),
    "last": ("Последнее предупреждение jailcore", "jailcore's last warning"),  # what it logged last (not the game's log)
    "answer": ("Ответить", "Answer"),
    "forever": ("навсегда", "for ever"),
    "rounds": ("раундов", "rounds"),
    "min": ("мин", "min"),
    "rcon": ("RCON", "RCON"),
    "log": ("лог", "log"),
    "events": ("событий", "events"),
    "test": ("Если вы это видите, jailcore доставляет сюда уведомления.", "If you can read this, jailcore delivers notifications here."),
    "why": ("Причина", "Why"),
    "port": ("Порт лога", "Log port"),
}
CLAUSED = ("proposal", "ban", "ctban", "appeal")  # the events a rule's clause stands behind


def _w(key: str, lang: str) -> str:
    ru, en = _WORDS[key]
    return en if lang == "en" else ru


def length(e: Event, lang: str) -> str:
    """A ban's or a CT ban's length as admins read it: 30 мин, 3 раундов, навсегда."""
    if e.get("rounds"):
        return f"{e['rounds']} {_w('rounds', lang)}"
    minutes = e.get("minutes")
    return _w("forever", lang) if not minutes else f"{minutes} {_w('min', lang)}"


def title(e: Event, lang: str) -> str:
    """The event in one line (plain text, not yet escaped)."""
    kind = e.get("kind", "")
    say = 1 if lang == "en" else 0
    name = cut(e.get("name") or "?", 64)
    if kind == "proposal":
        return _SAY["proposal"][say].format(what=cut(step_text(lang, str(e["step"])) if e.get("step") else "?", 64), name=name)
    if kind in ("ban", "ctban"):
        key = f"{kind}.lift" if e.get("lift") else kind
        return _SAY[key][say].format(what=length(e, lang), name=name)
    if kind == "appeal":
        return _SAY["appeal"][say].format(id=e.get("id"), name=name, what=kind_name(lang, str(e.get("action") or "")))
    if kind == "stopped":
        return _SAY["stopped"][say].format(what=cut(e.get("reason") or "?", 200))
    if kind == "link":
        return _SAY[f"link.{'back' if e.get('state') == 'back' else 'silent'}"][say].format(what=_w(str(e.get("what") or "log"), lang),
                                                                                             n=int(e.get("seconds") or 0))
    if kind == "drops":
        return _SAY["drops"][say].format(n=int(e.get("count") or 0), what=cut(e.get("summary") or "", 200))
    if kind == "test":
        return _SAY["test"][say]
    return cut(kind)


def block(e: Event, lang: str, short: bool = False) -> list[Line]:
    """The event's lines: its title, where and when, the clause, the player, the round's
    excerpt, the link. `short`: without the excerpt and with shorter fields (a block that
    would not fit a message alone)."""
    size = 80 if short else FIELD
    lines: list[Line] = [(Piece(title(e, lang), bold=True),)]
    place = f"{_w('port', lang)}: {cut(e['port'], 64)}" if e.get("port") else f"{_w('server', lang)}: {cut(e.get('server') or '-', 64)}"
    where = f"{place} · {cut(e.get('time') or '', 19).replace('T', ' ')}"
    if e.get("round"):
        where += f" · {_w('round', lang)} {e['round']}"
    lines.append((Piece(where),))
    if e.get("kind") in CLAUSED and (e.get("ref") or e.get("reason")):
        lines.append((Piece(f"{_w('clause', lang)} {cut(e.get('ref') or '-', 40)}: "), Piece(cut(e.get("reason") or e.get("rule") or "", size))))
    elif e.get("kind") == "link" and e.get("reason"):  # what the RCON link last said (a stopped one's reason is its title)
        lines.append((Piece(f"{_w('why', lang)}: "), Piece(cut(e["reason"], size))))
    if e.get("kind") in CLAUSED and (e.get("name") or e.get("steamid")):
        lines.append((Piece(f"{_w('player', lang)}: "), Piece(cut(e.get("name") or "?", 64)), Piece(f" {cut(e.get('steamid') or '', 40)}".rstrip())))
    if e.get("by"):
        lines.append((Piece(f"{_w('by', lang)}: "), Piece(cut(e["by"], 64))))
    if e.get("text"):
        lines.append((Piece(f"{_w('appeal', lang)}: "), Piece(cut(e["text"], 120 if short else 600))))
    if e.get("last_line"):
        lines.append((Piece(f"{_w('last', lang)}: "), Piece(cut(e["last_line"], size))))
    if e.get("kind") == "test":
        lines.append((Piece(_w("test", lang)),))
    if not short:
        for said in list(e.get("excerpt") or [])[-EXCERPT_LINES:]:
            lines.append((Piece("│ "), Piece(cut(said, 200))))
    if e.get("link"):
        lines.append((Piece(str(e["link"]), link=True),))
    return lines


# -- escaping -----------------------------------------------------------------------------------

# Discord's markdown: every character that can start or end a format (bold, italics,
# underline, strike, spoiler, code), a masked link, a mention or an emoji (`<@id>`, `<:x:id>`),
# a quote; a backslash shows the next ASCII punctuation as it is. Lines never begin with a
# player's text, so `#`, `-` and `1.` cannot make a header or a list of it.
_MARKDOWN = re.compile(r"([\\*_~`|\[\]()<>])")


def markdown(text: str) -> str:
    return _MARKDOWN.sub(r"\\\1", text)


def _render(lines: Sequence[Line], text: Callable[[str], str], bold: Callable[[str], str], link: Callable[[str], str]) -> str:
    return "\n".join("".join(link(p.text) if p.link else bold(text(p.text)) if p.bold else text(p.text) for p in line) for line in lines)


def as_markdown(lines: Sequence[Line]) -> str:
    # The page's own address, from the config, stays as it is: Discord links it by itself.
    return _render(lines, markdown, lambda t: f"**{t}**", lambda url: url)


def as_html(lines: Sequence[Line]) -> str:
    return _render(lines, lambda t: html.escape(t, quote=False), lambda t: f"<b>{t}</b>",
                   lambda url: f'<a href="{html.escape(url, quote=True)}">{html.escape(url, quote=False)}</a>')


def as_plain(lines: Sequence[Line]) -> str:
    return "\n".join("".join(p.text for p in line) for line in lines)


# -- packing a burst into requests ----------------------------------------------------------------


def size(text: str) -> int:
    """A text's length as the APIs may count it: in UTF-16 code units (an emoji is two), never
    less than its characters, so a message within this is within the limit however it is counted."""
    return len(text.encode("utf-16-le")) // 2


def clip(text: str, limit: int) -> str:
    """At most `limit` (by `size`), with "…" where it was cut."""
    if size(text) <= limit:
        return text
    while size(text) > limit - 1:
        text = text[: max(len(text) - max(size(text) - limit + 1, 1), 0)]
    return text + "…"


def _pack(texts: list[tuple[int, str]], limit: int) -> list[tuple[list[int], str]]:
    """(row id, block) in order, into as few messages of at most `limit` characters as fit."""
    out: list[tuple[list[int], str]] = []
    ids: list[int] = []
    body = ""
    for row_id, text in texts:
        joined = f"{body}\n\n{text}" if body else text
        if body and size(joined) > limit:
            out.append((ids, body))
            ids, joined = [], text
        ids.append(row_id)
        body = joined
    if ids:
        out.append((ids, body))
    return out


def _fitted(e: Event, lang: str, render: Callable[[Sequence[Line]], str], limit: int) -> str:
    text = render(block(e, lang))
    if size(text) > limit:
        text = render(block(e, lang, short=True))
    return clip(text, limit)


def requests_for(sink: Sink, rows: Sequence[tuple[int, Event]]) -> list[tuple[list[int], dict[str, Any]]]:
    """The request bodies that carry these waiting rows (id, event) to the sink, oldest first,
    each with the row ids it carries."""
    lang = sink.language
    if sink.kind == "discord":
        limit = DISCORD_DESCRIPTION - ROOM
        packed = _pack([(i, _fitted(e, lang, as_markdown, limit)) for i, e in rows], limit)
        by_id = dict(rows)
        out = []
        for ids, description in packed:
            events = [by_id[i] for i in ids]
            heads = [markdown(f"{title(e, lang)}" + (f" [{cut(e.get('ref'), 40)}]" if e.get("ref") else "")) for e in events]
            content = "\n".join(heads)
            if size(content) > DISCORD_CONTENT - ROOM:
                kept = clip(content, DISCORD_CONTENT - ROOM).rsplit("\n", 1)[0]  # whole lines, and how many more the embed tells
                content = f"{kept}\n… +{len(events) - kept.count(chr(10)) - 1} {_w('events', lang)}"
            embed: dict[str, Any] = {"description": description, "color": _COLOURS.get(events[0].get("kind", ""), 0x5865F2)}
            if len(events) == 1 and events[0].get("link"):
                embed["url"] = str(events[0]["link"])
                embed["title"] = clip(markdown(cut(title(events[0], lang), 250)), 250)  # a title reads markdown too
            out.append((ids, {"content": content, "embeds": [embed], "allowed_mentions": {"parse": []}}))
        return out
    if sink.kind == "telegram":
        limit = TELEGRAM_TEXT - ROOM
        return [(ids, {"chat_id": sink.chat, "text": text, "parse_mode": "HTML", "disable_web_page_preview": True})
                for ids, text in _pack([(i, _fitted(e, lang, as_html, limit)) for i, e in rows], limit)]
    groups: dict[tuple[str, str], list[tuple[int, Event]]] = {}
    for i, e in rows:
        groups.setdefault((str(e.get("kind")), str(e.get("server") or "")), []).append((i, e))
    out = []
    for (kind, server), members in groups.items():
        events = [{"event": kind, "server": server, "time": e.get("time"), "text": as_plain(block(e, lang)),
                   **{k: v for k, v in e.items() if k not in ("kind", "server", "time")}} for _, e in members]
        body = {**events[0], "text": "\n\n".join(x["text"] for x in events), "count": len(events), "events": events}
        out.append(([i for i, _ in members], body))
    return out


def plain_request(body: dict[str, Any]) -> dict[str, Any]:
    """A Telegram message its API refused to parse, as plain text (no parse_mode): the same words,
    read as they are, rather than a message lost."""
    text = html.unescape(re.sub(r"<[^>]*(?:>|$)", "", str(body.get("text") or "")))
    return {"chat_id": body.get("chat_id"), "text": clip(text, TELEGRAM_TEXT - ROOM) or "…", "disable_web_page_preview": True}


_COLOURS = {"proposal": 0xF1C40F, "ban": 0xE74C3C, "ctban": 0xE67E22, "appeal": 0x3498DB, "stopped": 0x992D22, "link": 0x95A5A6,
            "drops": 0x95A5A6, "test": 0x2ECC71}


# -- the round's excerpt ----------------------------------------------------------------------------


def _who(p: ev.Player) -> str:
    return p.name


def excerpt(lines: Sequence[str], limit: int = EXCERPT_LINES) -> list[str]:
    """The round's last lines that tell what happened (kills, chat, the warden's orders and
    prohibitions, games, days), as the log had the names and chat: never a SteamID or an
    address; `HH:MM:SS text`."""
    parser = LogParser()
    out: list[str] = []
    for raw in lines:
        e = parser.parse(raw)
        said = _said(e) if isinstance(e, ev.Event) else None
        if said:
            out.append(f"{(e.time or '')[11:19]} {said}".strip() if isinstance(e, ev.Event) else said)
    return out[-limit:]


def _said(e: ev.Event) -> str | None:
    if isinstance(e, ev.Chat):
        return f"{_who(e.player)}: {e.text}"
    if isinstance(e, ev.Killed):
        return f"{_who(e.killer)} ✕ {_who(e.victim)} ({e.weapon})"
    if isinstance(e, ev.WardenSet):
        return f"{_who(e.player)} — warden"
    if isinstance(e, ev.OrderGiven | ev.ProhibitionSet):
        return f"{_who(e.player)} » {e.text}"
    if isinstance(e, ev.GameStarted):
        return f"{_who(e.player)} » {e.game}"
    if isinstance(e, ev.SpecialDay):
        return f"{_who(e.player)} » {e.day}"
    if isinstance(e, ev.RoundStart | ev.RoundBegins):
        return "— round start —"
    return None
