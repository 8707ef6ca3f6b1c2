"""The page of punishments waiting for an admin (`confirm = "admin"`): each proposal still
open on every server, with confirm and dismiss buttons. An answer is the same `answers` row
`jailcore confirm|dismiss` writes; the server's daemon applies it within a second."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from jailcore.log.errors import AdminRequestError, AuditError, StateError
from jailcore.store.errors import errors_or
from jailcore.store.requests import Queued
from jailcore.web.access import ADMIN, MODERATOR, local_path, number
from jailcore.web.data import WAITING, Entry, Sources, proposed_step
from jailcore.web.i18n import STATUS, WORDS
from jailcore.web.manage import admin_name, ask, queue_away, queued_page

if TYPE_CHECKING:
    from jailcore.web.pageface import Page as Web  # the application, `app.Web`

WORDS.update({
    "proposals": ("На решение", "To decide"),
    "proposals.none": ("Нет наказаний, ждущих решения администратора.", "No punishment waits for an admin."),
    "proposals.step": ("Предложено", "Proposed"),
    "proposals.expires": ("Истекает", "Lapses"),
    "proposals.round_only": ("или с концом раунда", "or when the round ends"),
    "confirm": ("Подтвердить", "Confirm"),
    "dismiss": ("Отклонить", "Dismiss"),
    "answer.note": ("Комментарий", "A note"),
    "answer.admin_only": ("Подтвердить бан может только администратор сервера.", "Only an admin of the server may confirm a ban."),
})
for lang, words in (("ru", {"proposed": "ждёт решения", "confirmed": "подтверждено", "dismissed": "отклонено"}),
                    ("en", {"proposed": "awaiting an admin", "confirmed": "confirmed", "dismissed": "dismissed"})):
    STATUS[lang].update(words)


def waiting(sources: Sources) -> list[Entry]:
    """Every proposal still open, oldest first (the first to lapse)."""
    out = []
    for source in sources.sources:
        for row in source.reader.open_proposals():
            out.append({**row, "step": proposed_step(row["detail"]), "dom": f"p{source.index}-{row['id']}", "src": source.index})
    out.sort(key=lambda e: (e["time"], e["id"]))
    return out


def counts(sources: Sources) -> dict[str, int]:
    """How many proposals wait on each server (the menu's count beside «На решение»)."""
    out: dict[str, int] = {}
    for source in sources.sources:
        for row in source.reader.open_proposals():
            out[row["server"]] = out.get(row["server"], 0) + 1
    return out


WAITING["/proposals"] = counts


async def page(web: Web, request: Request) -> Response:
    from jailcore.web.appeals import waiting_count  # the players' appeals wait beside the proposals

    try:
        proposals = await web.read(waiting, web.sources)
    except errors_or(StateError, AuditError) as exc:  # a database that fails is a page that says so, never a 500
        return web.render(request, "error.html", status=409, message=str(exc))
    try:
        appeals = await web.read(waiting_count, web)
    except errors_or(StateError, AuditError):
        appeals = 0
    return web.render(request, "proposals.html", proposals=proposals, appeals_waiting=appeals)  # the route's guard lets only admins in


async def answer(web: Web, request: Request) -> Response:
    session = web.admin(request)
    fields = await web.form(request, session)
    server, verb = fields.get("server", ""), fields.get("answer", "")
    action_id = number(fields.get("id"))
    source = await web.read(web.sources.of, server)
    if source is None or action_id is None or verb not in ("confirm", "dismiss"):
        return web.render(request, "error.html", status=404, message=f"{server[:100]} #{fields.get('id', '')[:20]}: ?")
    reason = fields.get("reason", "").strip()[:300]
    # Judged on the proposal's own server, never on the form's field: a database may hold
    # several servers, and a moderator of one posting another's id is asking for the other.
    try:
        row = await web.read(source.reader.entry, action_id)
    except errors_or(StateError, AuditError) as exc:  # the database away: judged on the server asked, checked again when applied
        web.must(session, MODERATOR, server)
        return await queue_away(web, request, source, exc, "answer", action_id=action_id, answer=verb, by=admin_name(session),
                                reason=reason, server=server, may_ban=web.may(session, ADMIN, server))
    if row is None or row["action"] != "propose" or row["server"] != server:
        return web.render(request, "error.html", status=404, message=f"{server[:100]} #{action_id}: ?")
    # Carrying out a server ban is an admin's, as lifting one is; the rest a moderator's.
    step = proposed_step(row["detail"])
    web.must(session, ADMIN if verb == "confirm" and step.startswith("ban") else MODERATOR, row["server"])
    try:
        done = await ask(web, source, "answer", action_id=action_id, answer=verb, by=admin_name(session), reason=reason,
                         server=row["server"])
    except AdminRequestError as exc:
        return web.render(request, "error.html", status=409, message=str(exc))
    if isinstance(done, Queued):
        return queued_page(web, request, done)
    back = local_path(fields.get("next", ""), "/proposals")  # the live log or the round's story it was answered on
    return RedirectResponse(back if back == "/proposals" else f"{back.split('#')[0]}#e{source.index}-{action_id}", 303)
