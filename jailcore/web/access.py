"""Who may do what on the page, and the refusals: the roles as route levels, and the
exceptions the application turns into 403 and 413 pages. The numbers a request carries
are read here too: never one that int() or SQLite refuses."""

from __future__ import annotations

from markupsafe import Markup

from jailcore.config.config import ROLES
from jailcore.log.errors import AdminRequestError, LimitError
from jailcore.log.invisible import visible


class Forbidden(AdminRequestError):
    pass


class TooLarge(LimitError):
    pass


# Who may use a route: anyone; the public in public mode (and every admin); an admin of
# at least this role (config.ROLES, from viewer to owner).
OPEN, WATCH = "open", "watch"
VIEWER, MODERATOR, ADMIN, OWNER = ROLES


class NotAllowed(AdminRequestError):
    pass


def shown_text(value: object) -> object:
    """Every {{ value }} of every template: text without what hides or reorders it."""
    return visible(value) if isinstance(value, str) and not isinstance(value, Markup) else value


def number(text: str | None, digits: int = 18) -> int | None:
    """A whole number from a query or form field: ASCII digits only ('²' is a digit to
    Python, not to int()), and never one SQLite cannot hold."""
    if text and text.isascii() and text.isdigit() and len(text) <= digits:
        return int(text)
    return None


def local_path(target: str, fallback: str = "/live") -> str:
    """Only a path on this site is a place to go back to."""
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return fallback
    return target[:2000]
