"""What admins change on the page, and the lists they change it from: server bans, CT
bans, the activity log, each server's config (edited, checked, diffed, versioned, rolled
back) and the admin accounts. A mixin of `app.Web`: the routes and the checks of who may
are there; every change here also checks the role on the server it changes."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import anyio
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from jailcore.config.config import ROLES, Config
from jailcore.config.webconfig import WebConfig
from jailcore.engine.admin import MAX_MINUTES
from jailcore.io.logsource import log_clash
from jailcore.log.errors import AdminRequestError, AuditError, StateError
from jailcore.log.logtime import seconds_between
from jailcore.store import requests
from jailcore.store.errors import errors_or
from jailcore.store.requests import Queued
from jailcore.web import configedit, data, steamids
from jailcore.web.access import ADMIN, MODERATOR, OWNER, NotAllowed, local_path, number
from jailcore.web.auth import Session, hash_password
from jailcore.web.i18n import Words

if TYPE_CHECKING:
    from jailcore.web.pageface import Page as _Page
else:
    _Page = object  # the page is `app.Web`: these handlers are mixed into it


class Manage(_Page):
    settings: WebConfig  # the page's; its users and roles are the accounts table's as last read (Web.load_accounts)

    async def ctbans(self, request: Request, problem: str = "", status: int = 200) -> Response:
        q = request.query_params
        server, query, by, state = (q.get(k, "").strip()[:100] for k in ("server", "q", "by", "state"))
        found = await self.read(data.ctbans, self.sources, server, query, by)
        if state == "active":  # in force, or about to be
            found["past"] = []
        elif state == "expired":  # what was given or lifted before
            found["active"], found["waiting"] = [], []
        return self.render(request, "ctbans.html", status=status, found=found, server=server, query=query, by=by, state=state, problem=problem,
                           servers=self.sources.servers(), profile=steamids.profile, ban_left=_ban_left)

    async def bans(self, request: Request) -> Response:
        q = request.query_params
        server, state, query, by = (q.get(k, "").strip()[:100] for k in ("server", "state", "q", "by"))
        found = await self.read(data.bans, self.sources, self.clock(), server, state if state in ("active", "expired") else "", query, by)
        sourcebans, sourcebans_problem = await self.read(data.sourcebans, self.sources, self.clock())
        return self.render(request, "bans.html", sourcebans=sourcebans, sourcebans_problem=sourcebans_problem, found=found, server=server,
                           state=state, query=query, by=by, servers=self.sources.servers(),
                           profile=steamids.profile, here="/bans?" + urlencode({k: v for k, v in (("server", server), ("state", state),
                                                                                                  ("q", query), ("by", by)) if v}))

    async def activity(self, request: Request) -> Response:
        by = request.query_params.get("by", "").strip()[:100]
        rows = await self.read(data.activity, self.sources, by)
        for server in self.sources.configs:  # config edits: the versions they replaced say who and when
            path = self.config_file(server)
            if path:
                rows += [{"kind": "config", "server": server, **v} for v in await anyio.to_thread.run_sync(configedit.versions, path)
                         if not by or v["by"] == by]
        rows.sort(key=lambda a: a["time"] or "", reverse=True)
        return self.render(request, "activity.html", rows=rows[:data.PAGE], by=by)

    def config_file(self, server: str) -> str | None:
        """The file a server's daemon reads its config from, if the page was given one."""
        config = self.sources.configs.get(server)
        return config.source if config is not None and config.source and Path(config.source).is_file() else None

    async def config_page(self, request: Request, problems: list[str] | None = None, status: int = 200, edited: str = "",
                          draft: str = "") -> Response:
        servers = sorted(self.sources.configs)
        server = request.query_params.get("server") or (servers[0] if servers else "")
        if request.method == "POST":
            server = (await self.form(request, self.admin(request))).get("server", "")
        path = self.config_file(server)
        config = self.sources.configs.get(server)
        text = await anyio.to_thread.run_sync(configedit.read, path) if path else ""
        rules = configedit.rules(config) if config else []
        for rule in rules:
            rule["body"] = draft if rule["key"] == edited and draft else configedit.body(text, config, rule["key"]) if config else ""
        return self.render(request, "config.html", status=status, servers=servers, server=server, file=path, rules=rules,
                           versions=await anyio.to_thread.run_sync(configedit.versions, path) if path else [], problems=problems or [],
                           edited=edited, saved=request.query_params.get("saved", "")[:100])

    async def config_change(self, request: Request) -> tuple[dict[str, str], str, str, str, str]:
        """The form of an edit or a rollback, and the file's text now and as it would be."""
        fields = await self.form(request, self.admin(request))
        server = fields.get("server", "")
        self.must(self.admin(request), ADMIN, server)
        path = self.config_file(server)
        if path is None:
            raise configedit.EditError([f"{server or '?'}: the page was not given this server's config file (jailcore web --config FILE)"])
        old = await anyio.to_thread.run_sync(configedit.read, path)
        if fields.get("version"):
            new = await anyio.to_thread.run_sync(configedit.version, path, fields["version"])
        else:
            new = configedit.with_table(old, fields.get("rule", ""), fields.get("body", ""))
        config = configedit.check(new, path, server)
        owners = configedit.owner_only(old, new)
        if owners and not self.is_owner(self.admin(request)):  # a rollback to a file with other accounts, secrets or ports
            raise configedit.EditError([f"{path}: this changes [{'], ['.join(owners)}], which only an owner may change"])
        clash = log_clash(config, (c for s, c in self.sources.configs.items() if s != server))
        if clash:  # the fleet would refuse it at start; a live reload would take the other's lines
            raise configedit.EditError([f"{path}: {clash}"])
        return fields, server, path, old, new

    async def config_preview(self, request: Request) -> Response:
        """The diff of an edit or a rollback, checked, before anything is written."""
        try:
            fields, server, path, old, new = await self.config_change(request)
        except configedit.EditError as exc:
            fields = await self.form(request, self.admin(request))
            return await self.config_page(request, exc.problems, 400, fields.get("rule", ""), fields.get("body", ""))
        return self.render(request, "config_diff.html", server=server, file=path, diff=configedit.diff(old, new, path), fields=fields,
                           base=configedit.fingerprint(old))

    async def config_save(self, request: Request) -> Response:
        try:
            fields, server, path, old, new = await self.config_change(request)
            if fields.get("base") != configedit.fingerprint(old):
                raise configedit.EditError([f"{path}: {configedit.CONFLICT}"])
            kept = await anyio.to_thread.run_sync(configedit.save, path, old, new, admin_name(self.admin(request)))
        except configedit.EditError as exc:
            fields = await self.form(request, self.admin(request))
            return await self.config_page(request, exc.problems, 409, fields.get("rule", ""), fields.get("body", ""))
        accounts = self.accounts_file()
        self.sources.configs[server] = config = configedit.check(new, path, server)  # the page shows what the daemon now runs
        if accounts is not None and accounts[0] == server:  # an owner's rollback of the file the accounts live in
            await self.take_accounts(config)
        return RedirectResponse("/config?" + urlencode({"server": server, "saved": kept}), 303)

    def is_owner(self, session: Session | None) -> bool:
        return self.settings.role(admin_name(session), "*") == OWNER

    def accounts_file(self) -> tuple[str, str] | None:
        """The server and the config file the page's `[web]` was read from: it keeps a copy of
        the accounts (`[web.users]`/`[web.roles]`), so the file an operator reads says who may log in."""
        source = self.sources.accounts
        for server, config in self.sources.configs.items():
            if config.web.users and self.config_file(server) and source is not None and server in source.servers:
                return server, config.source
        return None

    async def accounts_page(self, request: Request, problem: str = "", status: int = 200, confirm: str = "") -> Response:
        where = self.accounts_file()
        source = self.sources.accounts
        users = [{"name": n, "role": self.settings.role(n)} for n in sorted(self.settings.users)]
        owners = [u["name"] for u in users if self.settings.role(u["name"], "*") == OWNER]
        return self.render(request, "accounts.html", status=status, users=users, roles=ROLES, file=source.path if source else None,
                           copy=where[1] if where else None, problem=problem, confirm=confirm, last_owner=owners[0] if len(owners) == 1 else "")

    async def accounts_change(self, request: Request) -> Response:
        """An owner adds an admin, changes his role or password, or removes him: written to the
        accounts table (every page process on the database sees it within seconds) and to the
        config file's copy when the page read `[web]` from one (checked, the old version kept)."""
        me = self.admin(request)
        fields = await self.form(request, me)
        t = self.words(request)
        source = self.sources.accounts
        name, role, password = fields.get("name", "").strip()[:32], fields.get("role", ""), fields.get("password", "")
        if not self.is_owner(me):  # accounts are for an owner of every server
            raise NotAllowed(OWNER)
        users = dict(self.settings.users)
        remove = fields.get("do") == "remove"
        problem = ("accounts.nofile" if source is None else "accounts.name" if not name or any(c in name for c in ' ="\n\\.[]')
                   else "accounts.self" if name == admin_name(me) and (remove or role != OWNER)
                   else "accounts.unknown" if remove and name not in users
                   else "accounts.role_bad" if not remove and role not in ROLES
                   else "accounts.password" if not remove and (password or name not in users) and len(password) < 8 else "")
        if problem or source is None:
            return await self.accounts_page(request, t(problem or "accounts.nofile"), 400)
        if remove and fields.get("sure") != "yes":  # asked once more, on a page of its own: a removal ends his sessions at once
            return await self.accounts_page(request, confirm=name)
        hashed = await anyio.to_thread.run_sync(hash_password, password, limiter=self.hashing) if password and not remove else None
        try:
            if remove:
                await self.read(source.write, source.store.remove_account, name, admin_name(me))
            else:
                account = await self.read(source.write, source.store.put_account, name, hashed, {"*": role}, admin_name(me))
                if me is not None and name == me.user:
                    me.stamp = account.changed  # he keeps the session he changed it from; his others end
        except AdminRequestError as exc:  # the store's own refusal (the last owner): said, nothing changed
            return await self.accounts_page(request, str(exc), 409)
        except errors_or(StateError) as exc:
            return await self.accounts_page(request, str(exc), 503)
        await self.read(self.load_accounts)
        problem = await self.copy_accounts(me)
        if problem:
            return await self.accounts_page(request, problem, 409)
        return RedirectResponse("/accounts", 303)

    async def copy_accounts(self, me: Session | None) -> str:
        """The config file's `[web.users]`/`[web.roles]` written from the table (the copy), or why not."""
        where = self.accounts_file()
        if where is None:
            return ""
        server, path = where
        roles = {n: (r["*"] if set(r) == {"*"} else dict(r)) for n, r in self.settings.roles.items() if isinstance(r, Mapping)}
        try:
            old = await anyio.to_thread.run_sync(configedit.read, path)
            new = configedit.with_accounts(old, dict(self.settings.users), roles)
            if new == old:
                return ""
            config = configedit.check(new, path, server)
            await anyio.to_thread.run_sync(configedit.save, path, old, new, admin_name(me))
        except configedit.EditError as exc:
            return "; ".join(exc.problems)
        self.sources.configs[server] = config
        return ""

    async def take_accounts(self, config: Config) -> None:
        """An owner's rollback of the file the accounts' copy lives in: the pairs it holds that the
        table never had are taken (as at start), in force at once; listen and public stay as started."""
        await self.read(self.import_accounts, config.web)
        await self.read(self.load_accounts)

    # -- changes ---------------------------------------------------------------------------------

    async def ctban_request(self, request: Request) -> Response:
        """A CT ban given, changed or lifted: the same request row `jailcore ctban add|lift`
        writes; the server's running daemon applies it within a second."""
        session = self.admin(request)
        fields = await self.form(request, session)
        t = self.words(request)
        server, lift = fields.get("server", "")[:100], fields.get("do") == "lift"
        number_ = steamids.account(fields.get("steamid", "")[:100])
        minutes, rounds = number(fields.get("minutes"), 7), number(fields.get("rounds"), 4)
        source = await self.read(self.sources.of, server) if server else None
        one_length = (minutes is not None) != (rounds is not None and rounds >= 1)
        problem = ("ctban.no_server" if source is None else "ctban.no_steamid" if number_ is None
                   else "ctban.no_length" if not lift and not one_length else "")
        if problem or source is None or number_ is None:
            return await self.ctbans(request, t(problem), 400)
        self.must(session, MODERATOR, server)
        reason = fields.get("reason", "").strip()[:200]
        asked = {"server": server, "minutes": None if lift or rounds else minutes, "rounds": None if lift else rounds, "reason": reason,
                 "by": admin_name(session), "lift": lift}
        try:
            steamid = steamids.written(number_, await self.read(data.style, self.sources, server))
            name = await self.read(data.last_name, self.sources, server, steamid)
        except errors_or(StateError, AuditError) as exc:  # the database away: kept as [U:1:N], which every game's ban matches
            return await queue_away(self, request, source, exc, "ctban", steamid=f"[U:1:{number_}]", name="", **asked)
        done = await ask(self, source, "ctban", steamid=steamid, name=name, **asked)
        if isinstance(done, Queued):
            return queued_page(self, request, done)
        return RedirectResponse(back_to(fields.get("next", ""), "lift" if lift else "ctban") or "/ctbans?" + urlencode({"server": server}), 303)


    async def act_request(self, request: Request) -> Response:
        """A warning (a moderator's) or a server ban (an admin's) from a player's page: a row of
        `act_requests` the server's running daemon carries out within a second, through the
        engine's admin act, as a CT ban from the same page goes through `ctban_requests`."""
        session = self.admin(request)
        fields = await self.form(request, session)
        t = self.words(request)
        server, act, key = fields.get("server", "")[:100], fields.get("do", ""), fields.get("key", "").strip()[:100]
        number_ = steamids.account(key)
        minutes = number(fields.get("minutes"), 7)
        reason = fields.get("reason", "").strip()[:200]
        source = await self.read(self.sources.of, server) if server else None
        problem = ("ctban.no_server" if source is None else "ctban.no_steamid" if number_ is None or key.startswith("#")
                   else "act.unknown" if act not in ("warn", "ban") else "act.no_reason" if not reason
                   else "act.no_minutes" if act == "ban" and minutes is None else "")
        if problem or source is None or number_ is None:
            return self.render(request, "error.html", status=400, message=t(problem or "ctban.no_server"))
        self.must(session, ADMIN if act == "ban" else MODERATOR, server)  # a server ban is an admin's, as lifting one is
        asked = {"server": server, "act": act, "minutes": min(minutes or 0, MAX_MINUTES) if act == "ban" else None, "reason": reason,
                 "by": admin_name(session)}
        try:
            steamid = steamids.written(number_, await self.read(data.style, self.sources, server))
            name = await self.read(data.last_name, self.sources, server, steamid)
        except errors_or(StateError, AuditError) as exc:  # the database away: kept as [U:1:N], which every game's form matches
            return await queue_away(self, request, source, exc, "act", steamid=f"[U:1:{number_}]", name="", **asked)
        try:
            done = await ask(self, source, "act", steamid=steamid, name=name, **asked)
        except AdminRequestError as exc:
            return self.render(request, "error.html", status=409, message=str(exc))
        if isinstance(done, Queued):
            return queued_page(self, request, done)
        return RedirectResponse(back_to("/player?" + urlencode({"key": key}), act), 303)


async def ask(page: _Page, source: data.Source, kind: str, **args: object) -> int | Queued:
    """An admin's request through the store (store.requests.ask): its row id, or Queued while the
    database is away; a refusal of its checks is raised. In a worker thread, one write at a time."""
    return await page.read(lambda: source.write(requests.ask, source.store, source.requests, "", kind, **args))


async def queue_away(page: _Page, request: Request, source: data.Source | None, exc: BaseException, kind: str, **args: object) -> Response:
    """The database could not be read to check a request: on a database server it waits in this
    machine's queue (checked when it is applied), else the refusal, each said on a page."""
    if source is None or source.requests is None:
        return page.render(request, "error.html", status=503, message=str(exc))
    queue, why = source.requests, str(exc).split(": ", 1)[-1]
    queued = await anyio.to_thread.run_sync(lambda: requests.ask(None, queue, why, kind, **args))
    assert isinstance(queued, Queued)
    return queued_page(page, request, queued)


def queued_page(page: _Page, request: Request, queued: Queued) -> Response:
    return page.render(request, "error.html", status=202, message=page.words(request)("queued", why=queued.why))




def back_to(target: str, done: str) -> str:
    """The page a form came from (a player's page), told what was asked there; '' if none was given."""
    if not target:
        return ""
    back = local_path(target.split("#")[0], "")
    return f"{back}{'&' if '?' in back else '?'}{urlencode({'done': done})}" if back else ""


def admin_name(session: Session | None) -> str:
    """The admin behind a change: the routes' guard lets only admins reach one."""
    if session is None or session.user is None:
        raise NotAllowed(MODERATOR)
    return session.user


def _ban_left(ban: Mapping[str, Any], t: Words) -> str:
    """What is left of a CT ban, in the page's language, as of its server's last log line."""
    if ban.get("rounds") is not None:
        return t("ctban.rounds", n=ban["rounds"])
    if not ban.get("until"):
        return t("ctban.forever")
    until = t("ctban.until", t=ban["until"].replace("T", " ")[:16])
    now = ban.get("now")
    return f"{until} ({t('ctban.left', n=max(1, -(-int(seconds_between(now, ban['until'])) // 60)))})" if now else until
