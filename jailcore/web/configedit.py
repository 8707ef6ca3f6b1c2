"""A server's config edited from the page, one rule's table at a time. No web framework here.

The file stays the admins' file: an edit replaces the lines of one `[rule]` table (its
header's comments and every other table stay as they were), the whole new text is checked
by the same loader as `jailcore check-config` before anything is written, the file is
replaced in one rename, and the running daemon's watcher reloads it within a second (all
of it or none of it). Every version it replaces is kept beside it, in `FILE.versions/`,
named by when and by whom, so an edit can be rolled back from the page.
"""

from __future__ import annotations

import contextlib
import difflib
import fcntl
import hashlib
import os
import re
import shutil
import stat
import tempfile
import tomllib
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, NotRequired, TypedDict

import attrs

from jailcore.config.config import RULES, Config, ConfigError, load
from jailcore.engine.settings import RuleSettings

_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\-]+)\s*\]\s*(#.*)?$")
_VERSION = re.compile(r"(\d{8}T\d{6})\.\d{6}-([A-Za-z0-9_\-]{1,64})\.toml")


class EditError(ConfigError):
    """Why an edit is refused: the loader's problems, one per line, or a conflict."""

    def __init__(self, problems: list[str]):
        super().__init__(problems)
        self.args = ("; ".join(problems),)  # one line on the page


def fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def read(path: str) -> str:
    return Path(path).read_text(encoding="utf-8")


class RuleRow(TypedDict):
    """One rule of the config page's table."""

    key: str
    ref: str  # the rulebook's clause
    enabled: bool
    ladder: list[str]
    settings: dict[str, str]  # its own settings, as the file writes them
    waits: bool  # its punishments wait for an admin (`confirm = "admin"`)
    confirm_minutes: int
    return_minutes: int | None  # None: the default
    body: NotRequired[str]  # its table's text, as the file has it or as the admin is editing it (the page adds it)


class Version(TypedDict):
    """An earlier version of a config file: its name in the versions folder, when it was replaced, and by whom."""

    name: str
    time: str
    by: str


def rules(config: Config) -> list[RuleRow]:
    """The rule table: each rule's key, clause, switch, ladder and other settings."""
    out: list[RuleRow] = []
    for key, settings in sorted(config.rules.items()):
        values = attrs.asdict(settings, recurse=False)
        ladder = [str(step) for step in values.pop("ladder", ())]
        enabled, ref = values.pop("enabled"), values.pop("ref")
        # Every rule's own settings are shown as the file writes them; the ones every rule has are said
        # in words, and only where they do something: the wait for an admin, a return wait not the default.
        confirm, confirm_minutes, return_minutes = (values.pop(k, d) for k, d in (("confirm", "none"), ("confirm_minutes", 30),
                                                                                 ("return_minutes", 60)))
        out.append({"key": key, "ref": ref, "enabled": enabled, "ladder": ladder, "settings": {k: _shown(v) for k, v in values.items()},
                    # only a rule whose punishments an admin confirms waits (`confirm = "admin"`)
                    "waits": confirm == "admin", "confirm_minutes": confirm_minutes,
                    "return_minutes": return_minutes if return_minutes != _RETURN_DEFAULT else None})
    return out


_RETURN_DEFAULT = attrs.fields_dict(RuleSettings)["return_minutes"].default


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return ", ".join(map(str, value)) if isinstance(value, tuple | list) else str(value)


def _span(lines: list[str], key: str) -> tuple[int, int] | None:
    """The lines of `[key]`'s body: after its header, before the next header and the
    comments that belong to that next header."""
    start = next((i for i, line in enumerate(lines) if (m := _HEADER.match(line)) and m.group(1) == key), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
    while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")) and end < len(lines):
        end -= 1
    return start + 1, end


def body(text: str, config: Config, key: str) -> str:
    """The table's lines as the file has them, or, for a rule the file does not name, its
    settings as they run (the defaults), to edit from."""
    lines = text.splitlines()
    span = _span(lines, key)
    if span is not None:
        return "\n".join(lines[span[0]:span[1]]).strip("\n")
    settings = config.rules.get(key)
    if settings is None:
        return ""
    return "\n".join(f"{k} = {toml_value(v)}" for k, v in attrs.asdict(settings, recurse=False).items())


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{toml_value(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    text = str(value)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def with_table(text: str, key: str, new_body: str) -> str:
    """The file's text with rule `[key]`'s body replaced (or the table added at the end).
    Only a rule's table (or [calendar]): roles, accounts, secrets and ports are an owner's."""
    if key not in RULE_TABLES:
        raise EditError([f"{key[:60]!r} is not a rule's name: the rule editor edits rule tables only "
                         "([web], [rcon], [log], [state], [mqtt], [network] and [server] are the owner's, in the file)"])
    return _with_any_table(text, key, new_body)


def _with_any_table(text: str, key: str, new_body: str) -> str:
    if not _HEADER.match(f"[{key}]"):
        raise EditError([f"{key!r} is not a table's name"])
    if any(line.lstrip().startswith("[") for line in new_body.splitlines()):  # [table] and [[array]] alike
        raise EditError(["one rule's table at a time: no [table] headers in it"])
    lines = text.splitlines()
    fresh = [line.rstrip() for line in new_body.strip("\n").splitlines()]
    span = _span(lines, key)
    if span is None:
        lines += ["", f"[{key}]", *fresh]
    else:
        lines[span[0]:span[1]] = fresh
    return "\n".join(lines).rstrip("\n") + "\n"


RULE_TABLES = frozenset(RULES) | {"calendar"}
# What an admin may change besides the rule tables: how the rules run. The rest (accounts,
# roles, secrets, ports, paths, the broker, the network key) is an owner's.
_RULE_SETTINGS = {"server": ("rulebook", "mode", "language", "ladder_reset"), "games": ("catalogue",)}


def owners_part(text: str) -> dict[str, Any]:
    """The file as parsed, without the rule tables and rule settings: what only an owner changes."""
    data = tomllib.loads(text)
    for key in RULE_TABLES:
        *parents, last = key.split(".")
        path: list[dict[str, Any]] = [data]  # the tables from the top down to the rule's own
        for part in parents:
            node = path[-1].get(part)
            if not isinstance(node, dict):
                break
            path.append(node)
        else:
            path[-1].pop(last, None)
            # A table that held nothing but rule tables goes with them: `[specialday.cooldown]` makes
            # `specialday` appear, and the rule's own table, not the parent it implies, is what is judged.
            for parent, part in zip(reversed(path[:-1]), reversed(parents), strict=True):
                if parent.get(part) == {}:
                    del parent[part]
    for table, keys in _RULE_SETTINGS.items():
        for key in keys:
            if isinstance(data.get(table), dict):
                data[table].pop(key, None)
    return data


def owner_only(old: str, new: str) -> list[str]:
    """The tables outside the rules that `new` changes (a rollback to an older file may)."""
    before, after = owners_part(old), owners_part(new)
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


def check(text: str, path: str, server: str) -> Config:
    """The whole new file, through `check-config`'s loader, with this machine's environment
    (the daemon reads it the same way). A file for another server is refused."""
    try:
        config = load(text, path, os.environ)
    except ConfigError as exc:
        raise EditError(exc.problems) from None
    if config.server_name != server:
        raise EditError([f"{path}: [server] name is {config.server_name!r}, not {server!r}: the page would lose this server"])
    return config


def diff(old: str, new: str, path: str) -> list[tuple[str, str]]:
    """The change, line by line: ('+', line), ('-', line), ('@', hunk) or (' ', context)."""
    out = []
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), f"{path} (now)", f"{path} (new)", n=2, lineterm=""):
        if line.startswith(("---", "+++")):
            continue
        out.append((line[:1] if line[:1] in "+-@" else " ", line))
    return out


def save(path: str, old: str, new: str, by: str, now: datetime | None = None) -> str:
    """Keeps the version being replaced, then writes the new one in one rename; refuses if
    the file changed since `old` was read. Returns the kept version's name.

    Under a lock (`lock_path`, flock): the check that the file is still `old` and the rename
    are one step, so of admins saving at once one wins and the others are told their edit
    conflicts. A kept version has the file's own permissions (it holds the RCON password).
    A folder this process may not write is refused before anything is written, in one line
    that names it and what to change (docs/install.md keeps the configs read-only to the
    services until an owner allows the page to save)."""
    writable(path)
    with _locked(path):
        return _save(path, old, new, by, now)


def lock_folder() -> Path:
    """Where the page's locks live: a folder this service may write, never the configs'
    (docs/install.md makes that one read-only to it). Under systemd the unit's
    RuntimeDirectory= or StateDirectory= (/var/lib/jailcore), else the login session's
    runtime folder, else one of this user's own in the temporary folder. Pages that save
    the same file share a lock when they run with the same environment (the service does)."""
    for name in ("RUNTIME_DIRECTORY", "STATE_DIRECTORY"):
        if os.environ.get(name):
            return Path(os.environ[name].split(":")[0])
    if os.environ.get("XDG_RUNTIME_DIR") and os.path.isdir(os.environ["XDG_RUNTIME_DIR"]):
        return Path(os.environ["XDG_RUNTIME_DIR"]) / "jailcore"
    return Path(tempfile.gettempdir()) / f"jailcore-{os.geteuid()}"


def lock_path(path: str) -> Path:
    """The lock of one config file: named by its real path, so two names of one file share it."""
    real = os.path.realpath(path)
    return lock_folder() / f"config-{hashlib.sha256(real.encode()).hexdigest()[:16]}-{os.path.basename(real)[:64]}.lock"


def _user() -> str:
    import pwd

    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return f"uid {os.geteuid()}"


def writable(path: str) -> None:
    """Refuses, in one line, a save this process could not finish: the new file is written
    beside the old one and renamed over it, and the old one kept in FILE.versions/."""
    folder = os.path.dirname(os.path.abspath(path))
    keep = versions_dir(path)
    for where in (folder, *([str(keep)] if keep.is_dir() else [])):
        if not os.access(where, os.W_OK):
            raise EditError([f"cannot save {path}: this page runs as {_user()}, who may not write in {where} (nothing was written). "
                             f"To let the page save configs: chmod 0770 {where} (its group is the service's, as docs/install.md sets it "
                             "up), or edit the file there as its owner"])


@contextlib.contextmanager
def _locked(path: str) -> Iterator[None]:
    lock = lock_path(path)
    try:
        lock.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if lock.parent.stat().st_uid != os.geteuid():  # a shared temporary folder: another user's folder is not ours to lock in
            raise PermissionError(0, f"{lock.parent} belongs to another user")
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise EditError([f"cannot save {path}: its lock {lock} cannot be made ({exc.strerror or exc}; nothing was written). "
                         "Give the service a folder of its own to write: StateDirectory= or RuntimeDirectory= in its unit"]) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


# Another admin saved the file since this one's diff was shown: said the same whether it is seen
# before the file's lock is taken or under it.
CONFLICT = "your edit conflicts with another saved since you opened it (nothing of yours was written): open it again and redo your change on top of theirs"


def _save(path: str, old: str, new: str, by: str, now: datetime | None) -> str:
    target = Path(path)
    if fingerprint(read(path)) != fingerprint(old):
        raise EditError([f"{path}: {CONFLICT}"])
    try:
        return _write(target, old, new, by, now)
    except OSError as exc:  # a disk full, a folder changed under us: one line, never the page's 500
        raise EditError([f"cannot save {path}: {exc.filename or path}: {exc.strerror or exc}"]) from None


def _write(target: Path, old: str, new: str, by: str, now: datetime | None) -> str:
    mode = stat.S_IMODE(target.stat().st_mode)
    keep = versions_dir(str(target))
    keep.mkdir(mode=0o700 if not mode & 0o077 else 0o750, exist_ok=True)
    name = f"{(now or datetime.now()).strftime('%Y%m%dT%H%M%S.%f')}-{re.sub(r'[^A-Za-z0-9_-]', '_', by)[:64] or '_'}.toml"
    fd = os.open(keep / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode & 0o666)
    os.fchmod(fd, mode & 0o666)  # exactly the file's: os.open's mode went through the umask
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(old)
    fd, tmp = tempfile.mkstemp(prefix=".jailcore-", suffix=".toml", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(new)
        shutil.copymode(target, tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return name


def versions_dir(path: str) -> Path:
    return Path(f"{path}.versions")


def versions(path: str, limit: int = 50) -> list[Version]:
    """Earlier versions of the file, newest first: when it was replaced, and by whom."""
    folder = versions_dir(path)
    if not folder.is_dir():
        return []
    out: list[Version] = []
    for entry in sorted(folder.iterdir(), reverse=True):
        m = _VERSION.fullmatch(entry.name)
        if m:
            when = datetime.strptime(m.group(1), "%Y%m%dT%H%M%S").isoformat(timespec="seconds")
            out.append({"name": entry.name, "time": when, "by": m.group(2)})
    return out[:limit]


def version(path: str, name: str) -> str:
    if not _VERSION.fullmatch(name):
        raise EditError([f"no version {name!r}"])
    try:
        return (versions_dir(path) / name).read_text(encoding="utf-8")
    except OSError:
        raise EditError([f"no version {name!r}"]) from None


def with_accounts(text: str, users: dict[str, str], roles: Mapping[str, object]) -> str:
    """The file with its `[web.users]` and `[web.roles]` tables written from these."""
    quoted: Callable[[str], str] = lambda name: toml_value(name)  # noqa: E731 - any name, Cyrillic too, as a quoted key
    text = _with_any_table(text, "web.users", "\n".join(f"{quoted(n)} = {toml_value(h)}" for n, h in sorted(users.items())))
    return _with_any_table(text, "web.roles", "\n".join(f"{quoted(n)} = {toml_value(r)}" for n, r in sorted(roles.items()) if n in users))
