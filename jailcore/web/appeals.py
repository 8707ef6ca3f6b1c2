"""Appeals on the page (issue 32). A player, without an account, gives his SteamID in any form
on `/appeal` and sees what stands against him on every server (bans, CT bans, punishments owed
for his return), each with the clause, the server, the time and the round's story up to it
(names and chat as the log had them; no other player's SteamID or address: the story's
sentences name players by name and #userid). He files one appeal per punishment (his text, an
optional contact) and gets a link of his own, `/appeal/<token>`, where he reads the answer.

Admins see the appeals on `/appeals`, beside the proposals, with the same evidence, and answer:
grant (a pardon through the one pardon road: store.settle_appeal) or uphold with a reason.

The public part faces the internet: looks and filings limited per address, a bounded number of
appeals waiting (store.appeals.OPEN_MAX), every field cut, a CSRF token on the form (the
visitor's session, as the login form has), and a database that fails is a page that says so,
never a 5xx.
"""

from __future__ import annotations

import ipaddress
import json
import re
import secrets
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from jailcore.log.errors import AdminRequestError, AuditError, StateError
from jailcore.log.logtime import moment
from jailcore.store import CONTACT_MAX, REASON_MAX, TEXT_MAX, AppealError, Appeals, Db, errors_or, failing, settle_appeal
from jailcore.web import data, steamids
from jailcore.web.access import ADMIN, MODERATOR, number
from jailcore.web.auth import LoginLimit
from jailcore.web.i18n import WORDS
from jailcore.web.manage import admin_name
from jailcore.web.story import tell

if TYPE_CHECKING:
    from jailcore.web.data import Source, Sources
    from jailcore.web.pageface import Page as Web

FAULTS = errors_or(StateError, AuditError)
STORY = 10  # the round's last moments shown up to the punishment
ROWS = 300  # a player's newest entries looked at, per form of his SteamID and database
_VANITY = re.compile(r"steamcommunity\.com/id/[^/?#\s]+", re.IGNORECASE)  # a custom profile link, however it was copied
_OTHERS = re.compile(r"STEAM_\d:\d:\d+|\[U:\d:\d+\]|7656119\d{10}|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b")

WORDS.update({
    "appeal.nav": ("Обжаловать", "Appeal"),
    "appeals.nav": ("Обжалования", "Appeals"),
    "appeal.title": ("Обжалование наказания", "Appeal a punishment"),
    "appeal.ask": ("Ваш SteamID: STEAM_0:…, STEAM_1:…, [U:1:…], 7656119… или ссылка на профиль steamcommunity.com/profiles/…",
                   "Your SteamID: STEAM_0:…, STEAM_1:…, [U:1:…], 7656119… or a profile link steamcommunity.com/profiles/…"),
    "appeal.look": ("Показать", "Look"),
    "appeal.bad": ("Это не SteamID. Подойдёт STEAM_0:1:2345, STEAM_1:1:2345, [U:1:4691], 76561197960270419 или ссылка "
                   "steamcommunity.com/profiles/7656119….", "That is no SteamID. STEAM_0:1:2345, STEAM_1:1:2345, [U:1:4691], "
                   "76561197960270419 or a link steamcommunity.com/profiles/7656119… will do."),
    "appeal.vanity": ("Ссылку с именем профиля (steamcommunity.com/id/…) сервер не может перевести в SteamID без Steam. Откройте свой "
                      "профиль и скопируйте число из адреса steamcommunity.com/profiles/7656119… или наберите status в консоли игры.",
                      "A profile link with a custom name (steamcommunity.com/id/…) cannot be turned into a SteamID without Steam. Open "
                      "your profile and copy the number from steamcommunity.com/profiles/7656119…, or type status in the game's console."),
    "appeal.nothing": ("На всех серверах против этого SteamID ничего не действует.", "Nothing stands against this SteamID on any server."),
    "appeal.owed": ("ждёт вашего возвращения", "waits for your return"),
    "appeal.story": ("Как было в раунде", "What happened in the round"),
    "appeal.text": ("Почему наказание неверно (до {n} знаков)", "Why the punishment is wrong (up to {n} characters)"),
    "appeal.contact": ("Как с вами связаться (необязательно)", "How to reach you (optional)"),
    "appeal.file": ("Обжаловать", "Appeal"),
    "appeal.filed": ("Уже обжаловано", "Appealed already"),
    "appeal.empty": ("Напишите, почему наказание неверно.", "Write why the punishment is wrong."),
    "appeal.gone": ("Это наказание больше не действует или не ваше.", "This punishment no longer stands, or is not yours."),
    "appeal.wait": ("Слишком много запросов с вашего адреса: попробуйте через {n} мин.",
                    "Too many requests from your address: try again in {n} min."),
    "appeal.away": ("База данных сейчас недоступна: попробуйте позже.", "The database cannot be reached now: try again later."),
    "appeal.yours": ("Ваше обжалование. Сохраните адрес этой страницы: по нему вы узнаете ответ.",
                     "Your appeal. Keep this page's address: the answer comes here."),
    "appeal.unknown": ("Такого обжалования нет.", "No such appeal."),
    "appeal.status.open": ("ждёт ответа администратора", "waiting for an admin's answer"),
    "appeal.status.granted": ("удовлетворено: наказание снято", "granted: the punishment is lifted"),
    "appeal.status.upheld": ("отклонено: наказание остаётся", "upheld: the punishment stands"),
    "appeal.answer": ("Ответ", "Answer"),
    "appeal.punishment": ("Наказание", "Punishment"),
    "appeals": ("Обжалования", "Appeals"),
    "appeals.none": ("Нет обжалований, ждущих ответа.", "No appeal waits for an answer."),
    "appeals.answered": ("Отвеченные", "Answered"),
    "appeals.grant": ("Удовлетворить (снять)", "Grant (lift it)"),
    "appeals.uphold": ("Отклонить", "Uphold"),
    "appeals.reason": ("Ответ игроку (для отказа обязателен)", "Answer to the player (needed to uphold)"),
    "appeals.evidence": ("История раунда", "The round's story"),
    "appeals.sinks": ("Уведомления не доходят", "Notifications fail"),
    "appeals.waiting": ("Обжалований ждёт ответа: {n}", "Appeals waiting for an answer: {n}"),
    "activity.appeal.granted": ("удовлетворил обжалование", "granted the appeal of"),
    "activity.appeal.upheld": ("отклонил обжалование", "upheld the punishment in the appeal of"),
})


class Desk:
    """The page's appeal desk: the limits per address, and one writing connection per database."""

    def __init__(self) -> None:
        self.looks = LoginLimit(tries=30, window=600.0)
        self.filings = LoginLimit(tries=5, window=3600.0)
        self._dbs: dict[int, Db] = {}

    @staticmethod
    def visitor(address: str) -> str:
        """The key an address is limited by: an IPv4 address, or an IPv6 address's /64 (one
        home or one server is given a whole /64: counted per address, it would have no limit)."""
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return f"address:{address[:64]}"
        if isinstance(ip, ipaddress.IPv6Address):
            if ip.ipv4_mapped is not None:  # ::ffff:a.b.c.d is the IPv4 address a.b.c.d
                return f"address:{ip.ipv4_mapped}"
            return f"address:{ipaddress.ip_network((ip, 64), strict=False)}"
        return f"address:{ip}"

    def db(self, source: Source) -> Db:
        """The source's own connection for appeals (in a worker thread: it may connect)."""
        if source.index not in self._dbs:
            self._dbs[source.index] = Db(getattr(source.store, "url", None) or source.store.path)
        return self._dbs[source.index]

    def close(self) -> None:
        for db in self._dbs.values():
            db.close()


# -- what stands against a player ------------------------------------------------------------------


def _forms(account: int) -> list[str]:
    return [steamids.written(account, style) for style in ("STEAM_0", "STEAM_1", "[U:1:")]


def _held_ctbans(source: Source, forms: list[str]) -> set[str]:
    """The servers whose saved state holds a CT ban of this account."""
    out = set()
    for row in source.reader.states():
        snap = json.loads(row["snapshot"])
        now = snap.get("time") or ""
        for ban in (snap.get("ctbans") or {}).values():
            if ban.get("steamid") in forms and not ((ban.get("until") and now and ban["until"] <= now) or
                                                     (ban.get("rounds") is not None and ban["rounds"] <= 0)):
                out.add(row["server"])
    return out


def against(sources: Sources, account: int, now: datetime) -> list[dict[str, Any]]:
    """What stands against this account on every server, newest first: a ban in force, a CT ban
    the server holds (its newest entry), a punishment owed for his return; never one pardoned."""
    forms = _forms(account)
    out: list[dict[str, Any]] = []
    for source in sources.sources:
        rows = sorted({r["id"]: r for f in forms for r in source.reader.of_steamid(f, ROWS)}.values(), key=lambda r: r["pos"], reverse=True)
        if not rows:
            continue
        pardoned = source.reader.pardons_for(r["id"] for r in rows)
        held = _held_ctbans(source, forms)
        ctban_seen: set[str] = set()
        for r in rows:
            if r["id"] in pardoned:
                continue
            detail = json.loads(r["detail"] or "{}")
            kind, status = r["action"], r["status"]
            item = None
            if kind == "ban" and status in ("delivered", "pending", "owed"):
                minutes = detail.get("minutes") or 0
                until = moment(r["time"]) + timedelta(minutes=minutes) if minutes else None
                if until is None or until > now:
                    item = {"until": until.isoformat(timespec="seconds") if until else None, "minutes": minutes}
            elif kind == "ctban" and r["server"] in held and r["server"] not in ctban_seen and status not in ("observed", "advised", "dropped"):
                ctban_seen.add(r["server"])
                item = {"minutes": detail.get("minutes"), "rounds": detail.get("rounds")}
            elif status == "owed" and kind in ("warn", "slay", "teamswap", "kick", "autoslay"):
                item = {"owed": True}
            if item is not None:
                out.append({**r, **item, "src": source.index, "dom": f"item-{source.index}-{r['id']}"})
    out.sort(key=lambda e: (e["time"], e["id"]), reverse=True)
    return out


def story_of(sources: Sources, server: str, round_no: int, action_id: int, lang: str) -> list[dict[str, str]]:
    """The round's last moments up to the punishment, as the story tells them: a time and a
    sentence each (never a raw line: those carry SteamIDs and addresses)."""
    lines, decisions = data.round_material(sources, server, round_no)
    told = tell(lines, decisions, lang)
    upto: list[Any] = []
    for m in told.moments:
        upto.append(m)
        if any(d["id"] == action_id for d in m.decisions):
            break
    shown = [m for m in upto if not m.minor and m.category != "other"][-STORY:]
    return [{"time": str(m.time)[11:19], "text": _OTHERS.sub("…", m.text)} for m in shown]


def _with_story(sources: Sources, items: list[dict[str, Any]], lang: str) -> list[dict[str, Any]]:
    for item in items:
        item["story"] = story_of(sources, item["server"], int(item["round"]), int(item["id"]), lang)
    return items


def _appealed(web: Web, desk: Desk, items: list[dict[str, Any]]) -> None:
    """Marks the items appealed already (with the appeal's state, never its link)."""
    for source in web.sources.sources:
        mine = [i for i in items if i["src"] == source.index]
        by_server: dict[str, list[int]] = {}
        for i in mine:
            by_server.setdefault(i["server"], []).append(int(i["id"]))
        for server, ids in by_server.items():
            found = source.reader.appeals().for_actions(server, ids)
            for i in mine:
                if i["server"] == server and int(i["id"]) in found:
                    i["appeal"] = found[int(i["id"])]["status"]


# -- the public part -----------------------------------------------------------------------------------


async def lookup(web: Web, desk: Desk, request: Request, problem: str = "", status: int = 200, asked: str | None = None) -> Response:
    """`GET /appeal[?steamid=...]`: the form, and what stands against the SteamID asked."""
    web.visitor(request)  # the form's CSRF token lives in the visitor's session
    t = web.words(request)
    asked = (request.query_params.get("steamid", "") if asked is None else asked).strip()[:200]
    items: list[dict[str, Any]] | None = None
    if asked and not problem:
        account = steamids.account(asked)
        if account is None:
            problem, status = t("appeal.vanity" if _VANITY.search(asked) else "appeal.bad"), 400
        else:
            wait = desk.looks.attempt(desk.visitor(web.address(request)))
            if wait:
                problem, status = t("appeal.wait", n=int(wait // 60) + 1), 429
            else:
                try:
                    items = await web.read(lambda: _with_story(web.sources, against(web.sources, account, web.clock()), t.lang))
                    await web.read(_appealed, web, desk, items)
                except FAULTS:
                    problem, status, items = t("appeal.away"), 409, None
    return web.render(request, "appeal.html", status=status, asked=asked, items=items, problem=problem, text_max=TEXT_MAX,
                      contact_max=CONTACT_MAX)


async def file(web: Web, desk: Desk, request: Request) -> Response:
    """`POST /appeal`: one appeal of one punishment that stands against the SteamID looked up."""
    fields = await web.form(request, web.session(request))
    t = web.words(request)
    asked = fields.get("steamid", "").strip()[:200]
    account = steamids.account(asked)
    server, action_id = fields.get("server", "")[:191], number(fields.get("id"))
    text = fields.get("text", "").strip()[:TEXT_MAX]
    contact = " ".join(fields.get("contact", "").split())[:CONTACT_MAX]
    if account is None or action_id is None:
        return await lookup(web, desk, request, t("appeal.bad"), 400, asked)
    if not text:
        return await lookup(web, desk, request, t("appeal.empty"), 400, asked)
    address = web.address(request)
    visitor = desk.visitor(address)
    # Counted as they start, before any await: parallel posts cannot slip past the count. A post
    # is a look (it reads what stands against the SteamID) and, until it proves not to be one,
    # a filing; one that files nothing takes its filing back.
    wait = desk.looks.wait(visitor) or desk.filings.attempt(visitor)
    if wait:
        return await lookup(web, desk, request, t("appeal.wait", n=int(wait // 60) + 1), 429, asked)
    desk.looks.failed(visitor)
    filed = False
    try:
        try:
            items = await web.read(against, web.sources, account, web.clock())
        except FAULTS:
            return await lookup(web, desk, request, t("appeal.away"), 409, asked)
        item = next((i for i in items if i["server"] == server and int(i["id"]) == action_id), None)
        source = web.sources.sources[item["src"]] if item is not None else None
        if item is None or source is None:
            return await lookup(web, desk, request, t("appeal.gone"), 409, asked)
        token = secrets.token_urlsafe(24)
        try:
            await web.read(lambda: Appeals(desk.db(source)).file(server, action_id, item["action"], item["steamid"] or asked, item["name"],
                                                              text, contact, address, token))
        except AppealError as exc:
            return await lookup(web, desk, request, str(exc), 409, asked)
        except FAULTS:
            return await lookup(web, desk, request, t("appeal.away"), 409, asked)
        filed = True
    finally:
        if not filed:
            desk.filings.refund(visitor)
    return RedirectResponse(f"/appeal/{token}", 303)


async def follow(web: Web, desk: Desk, request: Request) -> Response:
    """`GET /appeal/<token>`: the player's own page: his appeal, its state, the admin's answer."""
    t = web.words(request)
    token = str(request.path_params.get("token", ""))[:64]
    found = None
    try:
        for source in web.sources.sources:
            row = await web.read(source.reader.appeals().by_token, token) if re.fullmatch(r"[A-Za-z0-9_-]{16,64}", token) else None
            if row is not None:
                entry = await web.read(source.reader.entry, int(row["action_id"]))
                found = {**row, "entry": entry}
                break
    except FAULTS:
        return web.render(request, "error.html", status=409, message=t("appeal.away"))
    if found is None:
        return web.render(request, "error.html", status=404, message=t("appeal.unknown"))
    return web.render(request, "appeal_status.html", appeal=found)


# -- the admins' part ------------------------------------------------------------------------------------


def listed(web: Web, lang: str) -> dict[str, Any]:
    """Every database's appeals waiting (oldest first) with their evidence, the newest answered,
    and the notifications' sinks that keep failing."""
    waiting: list[dict[str, Any]] = []
    answered: list[dict[str, Any]] = []
    sinks: list[dict[str, Any]] = []
    for source in web.sources.sources:
        appeals = source.reader.appeals()
        for row in appeals.listed("open", 200):
            entry = source.reader.entry(int(row["action_id"]))
            story = story_of(web.sources, row["server"], int(entry["round"]), int(entry["id"]), lang) if entry else []
            waiting.append({**row, "entry": entry, "story": story, "src": source.index, "dom": f"appeal-{source.index}-{row['id']}"})
        answered += [{**r, "src": source.index} for r in appeals.listed("", 100) if r["status"] != "open"][:30]
        sinks += failing(source.reader.sinks())
    waiting.sort(key=lambda a: (a["time"], a["id"]))
    answered.sort(key=lambda a: a["answered"] or "", reverse=True)
    return {"waiting": waiting, "answered": answered[:30], "sinks": sinks}


def waiting_count(web: Web) -> int:
    return sum(len(s.reader.appeals().listed("open", 1000)) for s in web.sources.sources)


async def page(web: Web, desk: Desk, request: Request) -> Response:
    try:
        found = await web.read(listed, web, web.words(request).lang)
    except FAULTS as exc:
        return web.render(request, "error.html", status=409, message=str(exc))
    return web.render(request, "appeals.html", **found)


async def answer(web: Web, desk: Desk, request: Request) -> Response:
    """`POST /appeals/answer`: grant (a pardon) or uphold with a reason; judged on the appeal's own
    server (a moderator there; granting an appeal of a server ban is an admin's, as lifting one is)."""
    session = web.admin(request)
    fields = await web.form(request, session)
    verdict, src, appeal_id = fields.get("do", ""), number(fields.get("src"), 4), number(fields.get("id"))
    reason = fields.get("reason", "").strip()[:REASON_MAX]
    source = web.sources.sources[src] if src is not None and src < len(web.sources.sources) else None
    if source is None or appeal_id is None or verdict not in ("grant", "uphold"):
        return web.render(request, "error.html", status=404, message=f"#{fields.get('id', '')[:20]}: ?")
    try:
        row = await web.read(source.reader.appeals().get, appeal_id)
    except FAULTS as exc:
        return web.render(request, "error.html", status=409, message=str(exc))
    if row is None:
        return web.render(request, "error.html", status=404, message=f"#{appeal_id}: ?")
    web.must(session, ADMIN if verdict == "grant" and row["action"] == "ban" else MODERATOR, row["server"])
    try:
        await web.read(lambda: source.write(settle_appeal, source.store, source.requests, "", Appeals(desk.db(source)), appeal_id, verdict,
                                            admin_name(session), reason, web.may(session, ADMIN, row["server"])))
    except errors_or(AdminRequestError, StateError, AuditError) as exc:
        return web.render(request, "error.html", status=409, message=str(exc))
    return RedirectResponse("/appeals", 303)

