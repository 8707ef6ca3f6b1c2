"""A server's rule set: TOML in, a validated frozen `Config` out.

Every table named in `SCHEMA` is a rule or a section; its dotted name is the rule key
that actions carry (`prohibitions.max`, `specialday.cooldown`...). Errors name the key and
the line, and `load` gathers all of them before it refuses the file, so an admin fixes a
config in one pass. Secrets and per-machine settings can come from the environment
(protocol section 3) and then win over the file.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import attrs

from jailcore.config import advice, notifyconfig, rulebooks
from jailcore.config.netsettings import Fail, SourceBansSettings, check_settings
from jailcore.config.owngames import own_games
from jailcore.config.tomllines import line_of, locate, parse_toml
from jailcore.config.values import LADDER, RULEBOOKS, STR_LIST, check, check_table
from jailcore.config.webconfig import PASSWORD_HASH as PASSWORD_HASH  # re-exported: the web page reads these from the config
from jailcore.config.webconfig import ROLES as ROLES
from jailcore.config.webconfig import WebConfig as WebConfig
from jailcore.config.webconfig import web_from
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


# (type, default) per key; a tuple of strings as type means one of those values (config/values.py).
SCHEMA: dict[str, dict[str, tuple[Any, Any]]] = {
    "server": {
        "name": (str, "jail"),
        "language": (("ru", "en"), "ru"),
        "mode": (("enforce", "advise", "observe"), "enforce"),
        "ladder_reset": (("map", "week", "never"), "week"),
        "rulebook": (RULEBOOKS, []),
    },
    "rcon": {"host": (str, "127.0.0.1"), "port": (int, 27015), "password": (str, ""), "timeout": (float, 3.0)},
    "log": {
        "listen": (str, "127.0.0.1:27500"),
        "secret": (str, ""),
        "allow": (STR_LIST, ["127.0.0.1", "::1"]),
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
            out[field.name] = (LADDER, [str(step) for step in default])
        elif field.type == tuple[str, ...]:
            out[field.name] = (STR_LIST, list(default))
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
        "games": (STR_LIST, []),
        "tag": (str, ""),
    },
    "games.catalogue": {
        "name": (str, None),
        "aliases": (STR_LIST, []),
        "tags": (STR_LIST, []),
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
    env = os.environ if env is None else env
    problems: list[str] = []
    data = parse_toml(text, source)

    def fail(path: tuple[Any, ...], why: str) -> None:
        problems.append(f"{source}:{locate(text, path)}: {'.'.join(map(str, path))}: {why}")

    web = web_from(data.pop("web", {}), fail)
    sections: dict[str, dict[str, Any]] = {}
    arrays: dict[str, list[dict[str, Any]]] = {}
    _walk(data, (), sections, arrays, fail)

    # A rule runs only where the server's rulebook has it: its table is in the file, or
    # a rulebook named in [server] rulebook lists it (rulebooks.py). Nothing else is on.
    books = check(("server",), "rulebook", sections.get("server", {}), SCHEMA["server"]["rulebook"], lambda *_: None)
    preset = rulebooks.preset(books, list(RULES))
    values: dict[str, dict[str, Any]] = {}
    for name, keys in SCHEMA.items():
        given = {**preset.get(name, {}), **sections.get(name, {})} if name in RULES else sections.get(name, {})
        values[name] = {k: check(tuple(name.split(".")), k, given, spec, fail) for k, spec in keys.items()}
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
        v = check_table(base, item, _ARRAYS["games.online_limit.limits"], fail)
        if v["tag"] and v["tag"] not in KNOWN_TAGS:
            fail((*base, "tag"), f"unknown tag {v['tag']!r}; known: {', '.join(sorted(KNOWN_TAGS))}")
        if v["more_than"] is not None:
            limits.append(OnlineLimit(v["more_than"], v["ref"], frozenset(v["games"]), v["tag"]))

    own: list[tuple[int, dict[str, Any]]] = []
    for i, item in enumerate(arrays.get("games.catalogue", [])):
        base = ("games", "catalogue", i)
        v = check_table(base, item, _ARRAYS["games.catalogue"], fail)
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
            fail(sub, "unknown key" + (f" in [{name}]" if name else "") + advice.did_you_mean(key, advice.known_under(name, SCHEMA, _ARRAYS)))
