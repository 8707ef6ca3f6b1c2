"""A config value against its schema's spec `(type, default)`: the one check every table of
config.py's SCHEMA, its arrays and `[web]` go through, with the reason a value is refused."""

from __future__ import annotations

from typing import Any

from jailcore.config import advice, rulebooks
from jailcore.config.netsettings import Fail
from jailcore.log.limits import KEY

# Types beside bool, int, float and str; a tuple of strings as type means one of those values.
LADDER = "ladder"
STR_LIST = "list of strings"
RULEBOOKS = "rulebooks"


def type_error(spec: Any, value: Any) -> str | None:
    if spec is bool:
        return None if isinstance(value, bool) else "expected true or false"
    if spec is int:
        return None if isinstance(value, int) and not isinstance(value, bool) else "expected a whole number"
    if spec is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return None if ok else "expected a number"
    if spec is str:
        return None if isinstance(value, str) else "expected a string"
    if spec == RULEBOOKS:
        names = ([value] if value else []) if isinstance(value, str) else value
        if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
            return "expected a rulebook name or a list of them"
        unknown = [x for x in names if x not in (*rulebooks.PRESETS, "all")]
        return f"unknown rulebook(s) {unknown}; known: {', '.join([*rulebooks.PRESETS, 'all'])}" if unknown else None
    if spec in (STR_LIST, LADDER):
        ok = isinstance(value, list) and all(isinstance(x, str) for x in value)
        return None if ok else "expected a list of strings"
    if isinstance(spec, tuple):
        return None if value in spec else f"expected one of {', '.join(map(repr, spec))}"
    return spec(value)  # type: ignore[no-any-return]  # a key with a check of its own (notifyconfig.chat_id)


def check(path: tuple[Any, ...], key: str, given: dict[str, Any], spec: tuple[Any, ...], fail: Fail) -> Any:
    """One key of a table (or of one table of an array): its value, or its default after
    reporting why the given one is refused. A default of None means the key is required."""
    kind, default = spec
    fresh = list(default) if isinstance(default, list) else default
    if key not in given:
        if default is None:
            fail((*path, key), "required")
        return fresh
    value = given[key]
    why = type_error(kind, value)
    if why:
        fail((*path, key), f"{why}, got {value!r}")
        return fresh
    if kind == RULEBOOKS:
        return ([value] if value else []) if isinstance(value, str) else value
    if kind is str and (key == "ref" or (*path, key) == ("server", "name")) and len(value) > KEY:  # its column's width (log/limits.py)
        fail((*path, key), f"at most {KEY} characters (the state database's column), got {len(value)}")
    if kind is int and value < 0:
        fail((*path, key), f"must not be negative, got {value}")
    return float(value) if kind is float else value


def check_table(path: tuple[Any, ...], item: dict[str, Any], schema: dict[str, Any], fail: Fail) -> dict[str, Any]:
    for extra in sorted(set(item) - set(schema)):
        fail((*path, extra), "unknown key" + advice.did_you_mean(extra, schema))
    return {k: check(path, k, item, spec, fail) for k, spec in schema.items()}
