"""A server's rule set: TOML in, a validated frozen `Config` out.

Every table named in `SCHEMA` is a rule or a section; its dotted name is the rule key
that actions carry (`prohibitions.max`, `specialday.cooldown`...). Errors name the key and
the line, and `load` gathers all of them before it refuses the file, so an admin fixes a
config in one pass. Secrets and per-machine settings can come from the environment
(protocol section 3) and then win over the file.
"""

from __future__ import annotations

import ipaddress
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import attrs

from jailcore.config import notifyconfig, rulebooks
from jailcore.config.netsettings import Fail, SourceBansSettings, check_settings
from jailcore.config.owngames import own_games
from jailcore.config.tomllines import line_of, locate, parse_toml
from jailcore.config.webconfig import PASSWORD_HASH as PASSWORD_HASH  # re-exported: the web page reads these from the config
from jailcore.config.webconfig import ROLES as ROLES
from jailcore.config.webconfig import WebConfig as WebConfig
from jailcore.engine.actions import Mode
from jailcore.engine.catalogue import DEFAULT_CATALOGUE, Catalogue, OnlineLimit
from jailcore.engine.ladder import LadderError, parse_ladder
from jailcore.engine.rules import ORDER
from jailcore.engine.rules.base import Rule, SettingsT
from jailcore.engine.settings import Ladder, RuleSettings
from jailcore.log.errors import ConfigError as ConfigError  # the family is the config's own error: callers import it from here
from jailcore.log.numbers import CELL_MAX, whole


@attrs.frozen
class Config:
    server_name: str
    language: str
    mode: Mode
    ladder_reset: str
    rcon_host: str
    rcon_port: int
    rcon_password: str = attrs.field(repr=False)
    rcon_timeout: float
    log_listen: str
    log_secret: str = attrs.field(repr=False)
    log_allow: tuple[str, ...]
    log_file: str
    state_path: str
    mqtt_url: str = attrs.field(repr=False)
    mqtt_tls: Mapping[str, Any]
    week_length: int
    reset_on_map_change: bool
    rules: Mapping[str, RuleSettings]
    online_limits: tuple[OnlineLimit, ...]
    catalogue: Catalogue
    source: str = ""
    state_url: str = attrs.field(default="", repr=False)  # a MariaDB state database (mysql://...): then the file is not used
    web: WebConfig = attrs.field(factory=lambda: WebConfig())
    sourcebans: SourceBansSettings | None = attrs.field(default=None, repr=False)  # [sourcebans]: its bans beside ours
    network_key: str = attrs.field(default="", repr=False)  # signs the messages between daemons (io/mqtt.py)
    network_max_age: float = 86_400.0  # seconds a signed network message stays good
    notify: notifyconfig.NotifySettings = attrs.field(factory=notifyconfig.NotifySettings, repr=False)  # [notify...]: Discord, Telegram, a webhook

    @property
    def state_where(self) -> str:  # the state database: the MariaDB URL when one is given, else the SQLite file
        return self.state_url or self.state_path

    def on(self, key: str) -> bool:
        rule = self.rules.get(key)
        return rule is not None and rule.enabled

    def settings_of(self, rule: type[Rule[SettingsT, Any]]) -> SettingsT:
        """One rule's settings, typed as that rule declares them (`rules` holds the base class)."""
        return cast(SettingsT, self.rules[rule.key])

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> Config:
        """The config in a file; a missing, unreadable, non-UTF-8 or empty file is a
        ConfigError too (an emptied file must not run a server on the defaults)."""
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            raise ConfigError([f"{path}: cannot read the config: {exc.strerror or exc}"]) from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise ConfigError([f"{path}:{line}: not UTF-8 text (byte 0x{raw[exc.start]:02x}); save the file as UTF-8"]) from None
        config = load(text, str(path), env)
        if not tomllib.loads(text):
            raise ConfigError([f"{path}:1: config: the file sets nothing; refused, so that an emptied file never runs a server on defaults"])
        return config

    @classmethod
    def default(cls) -> Config:
        return load("", "<defaults>", {})


# (type, default) per key; a tuple of strings as type means one of those values.
_LADDER = "ladder"
_STR_LIST = "list of strings"
_RULEBOOKS = "rulebooks"
SCHEMA: dict[str, dict[str, tuple[Any, Any]]] = {
    "server": {
        "name": (str, "jail"),
        "language": (("ru", "en"), "ru"),
        "mode": (("enforce", "advise", "observe"), "enforce"),
        "ladder_reset": (("map", "week", "never"), "week"),
        "rulebook": (_RULEBOOKS, []),
    },
    "rcon": {"host": (str, "127.0.0.1"), "port": (int, 27015), "password": (str, ""), "timeout": (float, 3.0)},
    "log": {
        "listen": (str, "127.0.0.1:27500"),
        "secret": (str, ""),
        "allow": (_STR_LIST, ["127.0.0.1", "::1"]),
        "file": (str, ""),
    },
    "state": {"path": (str, "jailcore.sqlite3"), "url": (str, "")},
    "sourcebans": {"url": (str, ""), "prefix": (str, "sb"), "server_id": (int, 0), "admin_id": (int, 0), "plugin": (bool, False)},
    "mqtt": {"url": (str, ""), "ca_file": (str, ""), "cert_file": (str, ""), "key_file": (str, ""), "insecure": (bool, False)},
    "network": {"key": (str, ""), "max_age": (int, 86_400)},
    "calendar": {"week": (int, 7), "reset_on_map_change": (bool, False)}, **notifyconfig.TABLES,
}


def _settings_schema(settings: type[RuleSettings]) -> dict[str, tuple[Any, Any]]:
    """A rule's table, read from its settings class: the same declaration the rule uses."""
    attrs.resolve_types(settings)
    out: dict[str, tuple[Any, Any]] = {}
    for field in attrs.fields(settings):
        default = field.default
        if "choices" in field.metadata:
            out[field.name] = (field.metadata["choices"], default)
        elif field.type == Ladder:
            out[field.name] = (_LADDER, [str(step) for step in default])
        elif field.type == tuple[str, ...]:
            out[field.name] = (_STR_LIST, list(default))
        elif field.type in (bool, int, float, str):
            out[field.name] = (field.type, default)
        else:
            raise TypeError(f"{settings.__qualname__}.{field.name}: no config form for {field.type!r}")
    return out


RULES = {rule.key: rule.Settings for rule in ORDER}
SCHEMA.update({key: _settings_schema(settings) for key, settings in RULES.items()})

_ARRAYS: dict[str, dict[str, tuple[Any, Any]]] = {
    "games.online_limit.limits": {
        "more_than": (int, None),
        "ref": (str, ""),
        "games": (_STR_LIST, []),
        "tag": (str, ""),
    },
    "games.catalogue": {
        "name": (str, None),
        "aliases": (_STR_LIST, []),
        "tags": (_STR_LIST, []),
        "min_players": (int, 0),
        "family": (str, ""),
    },
}

DEFAULT_LIMITS: list[dict[str, Any]] = [
    {
        "more_than": 8,
        "ref": "5.17",
        "games": [
            "Король",
            "Коко-Шанель",
            "Повар",
            "Первая реакция",
            "Последняя реакция",
            "Дальность дропа",
            "Спичечный коробок",
            "3-литровая банка",
        ],
        "tag": "",
    },
    {"more_than": 13, "ref": "5.18", "games": [], "tag": "turn_based"},
]

KNOWN_TAGS = {"chat", "turn_based", "global", "host_kills", "half", "cells"}

_ENV = {
    "JAILCORE_RCON_HOST": ("rcon", "host", str),
    "JAILCORE_RCON_PORT": ("rcon", "port", int),
    "JAILCORE_RCON_PASSWORD": ("rcon", "password", str),
    "JAILCORE_LOG_LISTEN": ("log", "listen", str),
    "JAILCORE_LOG_SECRET": ("log", "secret", str),
    "JAILCORE_STATE": ("state", "path", str),
    "JAILCORE_STATE_URL": ("state", "url", str),
    "JAILCORE_SOURCEBANS_URL": ("sourcebans", "url", str),
    "JAILCORE_MQTT_URL": ("mqtt", "url", str),
    "JAILCORE_NETWORK_KEY": ("network", "key", str), **notifyconfig.ENV,
}


def load(text: str, source: str = "<config>", env: Mapping[str, str] | None = None) -> Config:
    if env is None:
        env = os.environ
    problems: list[str] = []
    data = parse_toml(text, source)

    def fail(path: tuple[Any, ...], why: str) -> None:
        problems.append(f"{source}:{locate(text, path)}: {'.'.join(map(str, path))}: {why}")

    web = _web(data.pop("web", {}), fail)
    sections: dict[str, dict[str, Any]] = {}
    arrays: dict[str, list[dict[str, Any]]] = {}
    _walk(data, (), sections, arrays, fail)

    # A rule runs only where the server's rulebook has it: its table is in the file, or
    # a rulebook named in [server] rulebook lists it (rulebooks.py). Nothing else is on.
    books = _check(("server",), "rulebook", sections.get("server", {}), SCHEMA["server"]["rulebook"], lambda *_: None)
    preset = rulebooks.preset(books, list(RULES))
    values: dict[str, dict[str, Any]] = {}
    for name, keys in SCHEMA.items():
        given = {**preset.get(name, {}), **sections.get(name, {})} if name in RULES else sections.get(name, {})
        values[name] = {k: _check(tuple(name.split(".")), k, given, spec, fail) for k, spec in keys.items()}
        if name in RULES and name not in sections and name not in preset:
            values[name]["enabled"] = False

    from_env: dict[tuple[str, str], str] = {}
    for var, (section, key, kind) in _ENV.items():
        if env.get(var):
            raw = env[var]
            if kind is int:
                number = whole(raw, 0, 10**9)  # bounded and ASCII ('²' is no digit here); the range is checked below
                if number is None:
                    problems.append(f"environment: {var}: expected a whole number in digits 0-9, got {raw[:40]!r}")
                    continue
                values[section][key] = number
            else:
                values[section][key] = raw
            from_env[(section, key)] = var
    check_settings(values, from_env, fail, problems)
    notify = notifyconfig.check(values, from_env, fail, problems, values["server"]["language"], web.public_url)

    for section in (name for name, keys in SCHEMA.items() if "patterns" in keys):
        for i, pattern in enumerate(values[section]["patterns"]):
            try:
                re.compile(pattern)
            except re.error as exc:
                fail((*section.split("."), "patterns"), f"pattern {i + 1} {pattern!r} is not a valid regular expression: {exc}")

    for i, key in enumerate(values["ctban.return_block"]["after"]):
        if key not in RULES and key != "ladder":
            fail(("ctban", "return_block", "after"), f"entry {i + 1} {key!r} is neither a rule key nor \"ladder\"")

    secret = values["log"]["secret"]
    if secret and not whole(secret, 1, CELL_MAX):
        fail(("log", "secret"), f"sv_logsecret is a whole number from 1 to {CELL_MAX} (ASCII digits); the engine ignores anything else")
    for key in ("calendar.week",):
        section, k = key.split(".")
        if values[section][k] < 1:
            fail((section, k), "must be at least 1")

    limits_raw = arrays.get("games.online_limit.limits")
    limits: list[OnlineLimit] = []
    for i, item in enumerate(limits_raw if limits_raw is not None else DEFAULT_LIMITS):
        base: tuple[Any, ...] = ("games", "online_limit", "limits", i)
        v = _check_table(base, item, _ARRAYS["games.online_limit.limits"], fail)
        if v["tag"] and v["tag"] not in KNOWN_TAGS:
            fail((*base, "tag"), f"unknown tag {v['tag']!r}; known: {', '.join(sorted(KNOWN_TAGS))}")
        if v["more_than"] is not None:
            limits.append(OnlineLimit(v["more_than"], v["ref"], frozenset(v["games"]), v["tag"]))

    own: list[tuple[int, dict[str, Any]]] = []
    for i, item in enumerate(arrays.get("games.catalogue", [])):
        base = ("games", "catalogue", i)
        v = _check_table(base, item, _ARRAYS["games.catalogue"], fail)
        bad = set(v["tags"]) - KNOWN_TAGS
        if bad:
            fail((*base, "tags"), f"unknown tag(s) {sorted(bad)}; known: {', '.join(sorted(KNOWN_TAGS))}")
        if v["name"]:
            own.append((i, v))
    catalogue = Catalogue([*DEFAULT_CATALOGUE, *own_games(own, fail)])
    for i, limit in enumerate(limits):
        for name in sorted(limit.games):
            if catalogue.find(name) is None:
                fail(("games", "online_limit", "limits", i, "games"), f"{name!r} is not in the game catalogue")

    rules: dict[str, RuleSettings] = {}
    for name, settings in RULES.items():
        v = dict(values[name])
        if "ladder" in v:
            try:
                v["ladder"] = parse_ladder(v["ladder"])
            except LadderError as exc:
                fail((*name.split("."), "ladder"), str(exc))
                v["ladder"] = ()
        fields: dict[str, Any] = {k: tuple(x) if isinstance(x, list) else x for k, x in v.items()}
        rules[name] = settings(**fields)

    if problems:
        raise ConfigError(sorted(problems, key=line_of))
    return Config(
        server_name=values["server"]["name"],
        language=values["server"]["language"],
        mode=values["server"]["mode"],
        ladder_reset=values["server"]["ladder_reset"],
        rcon_host=values["rcon"]["host"],
        rcon_port=values["rcon"]["port"],
        rcon_password=values["rcon"]["password"],
        rcon_timeout=values["rcon"]["timeout"],
        log_listen=values["log"]["listen"],
        log_secret=values["log"]["secret"],
        log_allow=tuple(values["log"]["allow"]),
        log_file=values["log"]["file"],
        state_path=values["state"]["path"],
        state_url=values["state"]["url"], sourcebans=SourceBansSettings(**values["sourcebans"]) if values["sourcebans"]["url"] else None,
        mqtt_url=values["mqtt"]["url"],
        mqtt_tls={k: values["mqtt"][k] for k in ("ca_file", "cert_file", "key_file", "insecure")},
        week_length=values["calendar"]["week"],
        reset_on_map_change=values["calendar"]["reset_on_map_change"],
        rules=rules,
        online_limits=tuple(limits),
        catalogue=catalogue,
        source=source,
        web=web,
        network_key=values["network"]["key"],
        network_max_age=float(values["network"]["max_age"]), notify=notify,
    )


def _walk(node: dict[str, Any], path: tuple[Any, ...], sections: dict[str, Any], arrays: dict[str, Any], fail: Fail) -> None:
    """Sort the parsed TOML into known sections and arrays; anything else is an error."""
    name = ".".join(path)
    if name in SCHEMA:
        sections[name] = {}
    for key, value in node.items():
        sub = (*path, key)
        subname = ".".join(sub)
        if subname in _ARRAYS:
            if not isinstance(value, list) or not all(isinstance(x, dict) for x in value):
                fail(sub, f"expected an array of tables ([[{subname}]])")
            else:
                arrays[subname] = value
        elif isinstance(value, dict) and (subname in SCHEMA or any(s.startswith(subname + ".") for s in (*SCHEMA, *_ARRAYS))):
            _walk(value, sub, sections, arrays, fail)
        elif name in SCHEMA and key in SCHEMA[name]:
            sections[name][key] = value
        else:
            fail(sub, "unknown key" + (f" in [{name}]" if name else ""))


def _type_error(spec: Any, value: Any) -> str | None:
    if spec is bool:
        return None if isinstance(value, bool) else "expected true or false"
    if spec is int:
        return None if isinstance(value, int) and not isinstance(value, bool) else "expected a whole number"
    if spec is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return None if ok else "expected a number"
    if spec is str:
        return None if isinstance(value, str) else "expected a string"
    if spec == _RULEBOOKS:
        names = ([value] if value else []) if isinstance(value, str) else value
        if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
            return "expected a rulebook name or a list of them"
        unknown = [x for x in names if x not in (*rulebooks.PRESETS, "all")]
        return f"unknown rulebook(s) {unknown}; known: {', '.join([*rulebooks.PRESETS, 'all'])}" if unknown else None
    if spec in (_STR_LIST, _LADDER):
        ok = isinstance(value, list) and all(isinstance(x, str) for x in value)
        return None if ok else "expected a list of strings"
    if isinstance(spec, tuple):
        return None if value in spec else f"expected one of {', '.join(map(repr, spec))}"
    return spec(value)  # type: ignore[no-any-return]  # a key with a check of its own (notifyconfig.chat_id)


def _check(path: tuple[Any, ...], key: str, given: dict[str, Any], spec: tuple[Any, ...], fail: Fail) -> Any:
    """One key of a table (or of one table of an array): its value, or its default after
    reporting why the given one is refused. A default of None means the key is required."""
    kind, default = spec
    fresh = list(default) if isinstance(default, list) else default
    if key not in given:
        if default is None:
            fail((*path, key), "required")
        return fresh
    value = given[key]
    why = _type_error(kind, value)
    if why:
        fail((*path, key), f"{why}, got {value!r}")
        return fresh
    if kind == _RULEBOOKS:
        return ([value] if value else []) if isinstance(value, str) else value
    if kind is int and value < 0:
        fail((*path, key), f"must not be negative, got {value}")
    return float(value) if kind is float else value


def _check_table(path: tuple[Any, ...], item: dict[str, Any], schema: dict[str, Any], fail: Fail) -> dict[str, Any]:
    for extra in sorted(set(item) - set(schema)):
        fail((*path, extra), "unknown key")
    return {k: _check(path, k, item, spec, fail) for k, spec in schema.items()}


_WEB = {
    "listen": (str, "127.0.0.1:8080"),
    "public": (bool, False),
    "language": (("ru", "en"), "ru"),
    "story_days": (int, 14),
    "trusted_proxies": (_STR_LIST, []), "public_url": (str, ""),
}


def _web(given: Any, fail: Fail) -> WebConfig:
    if not isinstance(given, dict):
        fail(("web",), "expected a table ([web])")
        return WebConfig()
    given = dict(given)
    users = given.pop("users", {})
    roles = given.pop("roles", {})
    if not isinstance(roles, dict):
        fail(("web", "roles"), 'expected a table ([web.roles]: name = "moderator")')
        roles = {}
    for name, role in list(roles.items()):
        per_server = role if isinstance(role, dict) else {"*": role}
        for where, one in per_server.items():
            if one not in ROLES:
                fail(("web", "roles", name, *([where] if isinstance(role, dict) else [])),
                     f"expected one of {', '.join(ROLES)} (or a table of them per server), got {one!r}")
                roles.pop(name, None)
        if name not in (users if isinstance(users, dict) else {}):
            fail(("web", "roles", name), "no such user in [web.users]")
    v = _check_table(("web",), given, _WEB, fail)
    host, _, port = v["listen"].rpartition(":")
    if not host or whole(port, 0, 65535) is None:
        fail(("web", "listen"), f"expected host:port, got {v['listen']!r}")
    if not isinstance(users, dict):
        fail(("web", "users"), "expected a table ([web.users]: name = \"hash\")")
        users = {}
    for name, hashed in users.items():
        if not isinstance(hashed, str) or not PASSWORD_HASH.fullmatch(hashed):
            fail(("web", "users", name), "expected a password hash from `jailcore web adduser`, never the password itself")
    proxies = []
    for i, net in enumerate(v["trusted_proxies"]):
        try:
            proxies.append(str(ipaddress.ip_network(net, strict=False)))
        except (TypeError, ValueError):
            fail(("web", "trusted_proxies", str(i)), f"expected an address or network (10.0.0.5, 10.0.0.0/8), got {net!r}")
    return WebConfig(v["listen"], v["public"], v["language"], v["story_days"],
                     {k: x for k, x in users.items() if isinstance(x, str)}, tuple(proxies),
                     dict(roles), v["public_url"].rstrip("/"))
