"""What `manage.Manage` reads of the page it is mixed into (`app.Web`), for the type
checker: naming `Web` from `manage.py` would close an import circle (app imports manage),
so the mixin sees its page through this Protocol."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol, TypeVar, TypeVarTuple

import anyio
from starlette.requests import Request
from starlette.responses import Response

from jailcore.config.webconfig import WebConfig
from jailcore.web.auth import Session, Sessions
from jailcore.web.data import Sources
from jailcore.web.i18n import Words

T = TypeVar("T")
Args = TypeVarTuple("Args")


class Page(Protocol):
    sources: Sources
    settings: WebConfig
    sessions: Sessions
    hashing: anyio.CapacityLimiter
    clock: Callable[[], datetime]

    def load_accounts(self) -> None: ...

    def import_accounts(self, settings: WebConfig) -> None: ...

    def admin(self, request: Request) -> Session | None: ...

    def session(self, request: Request) -> Session | None: ...

    def visitor(self, request: Request) -> Session: ...

    def address(self, request: Request) -> str: ...

    def words(self, request: Request) -> Words: ...

    def render(self, request: Request, template: str, status: int = 200, **context: object) -> Response: ...

    async def form(self, request: Request, session: Session | None) -> dict[str, str]: ...

    def must(self, session: Session | None, level: str, server: str) -> None: ...

    def may(self, session: Session | None, level: str, server: str | None = None) -> bool: ...

    async def read(self, fn: Callable[[*Args], T], *args: *Args) -> T: ...
