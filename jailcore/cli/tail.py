"""`jailcore tail` and `jailcore history`: the enforcement audit log, for admins.

Reads the state database the daemon writes (`JAILCORE_STATE`, `--state-db` or the
config's `[state] path`); never writes to it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from jailcore.engine.vocabulary import VOCABULARY
from jailcore.log.errors import ConfigError

if TYPE_CHECKING:
    from jailcore.config.config import Config

from jailcore.log.invisible import INVISIBLE
from jailcore.store.audit import DAYS, AuditError, as_json, ban_left, locate, open_reader, standing
from jailcore.store.errors import errors_or
from jailcore.store.filter import Filter

if TYPE_CHECKING:
    from jailcore.store.reader import Reader

COLOURS = {kind: entry.colour for kind, entry in VOCABULARY.items()}
STATUS_COLOURS = {"delivered": "32", "failed": "31;1", "pending": "33", "observed": "36", "advised": "36", "expired": "90",
                  "unanswered": "33;1", "dropped": "90", "proposed": "35;1", "confirmed": "32", "dismissed": "90",
                  "owed": "35"}
# A row whose status ends a story shows why (a proposal: by whom, or why it lapsed).
_WITH_REPLY = ("failed", "expired", "unanswered", "dropped", "confirmed", "dismissed", "owed")
# An `owed` row (decided for one who had left) not carried out yet, and the row that carries
# one out at his return, which names it.
_OWED = {"ru": ("ушёл: будет исполнено при возвращении", "исполнение #{row}"),
         "en": ("he left: carried out when he returns", "carries out #{row}")}
# What a player may put in a name or chat that would move, recolour or retitle an admin's
# terminal (control characters: C0, DEL, C1), or make him read a name that is not there
# (bidi overrides, zero-width and blank characters: log/invisible.py).
_UNSAFE = re.compile(f"[\t\n{INVISIBLE.pattern[1:-1]}]")


def safe(value: object) -> str:
    """Text for a terminal: every control character shown escaped, never executed."""
    text = str(value)
    return _UNSAFE.sub(_escaped, text)


def _escaped(m: re.Match[str]) -> str:
    n = ord(m.group())
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def json_line(data: object) -> str:
    """One JSON object per line; json escapes C0 itself, the rest is escaped here."""
    return _UNSAFE.sub(lambda m: json.dumps(m.group())[1:-1], json.dumps(data, ensure_ascii=False))


def coloured(json_out: bool = False) -> bool:
    """Colours for a person at a terminal: not in JSON, a pipe, or under NO_COLOR."""
    return sys.stdout.isatty() and not json_out and not os.environ.get("NO_COLOR")


def paint(text: str, code: str | None, colour: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if colour and code else text


def human(row: Mapping[str, Any], colour: bool, lang: str = "ru", pardon: Mapping[str, Any] | None = None) -> str:
    when = safe(row["time"].replace("T", " "))
    day = row["day"]
    dayname = DAYS[lang][(day - 1) % 7] if day else "-"
    who = safe(f"{row['name']} #{row['userid']} {row['steamid']}") if row["userid"] is not None else ("всем" if lang == "ru" else "everyone")
    action = paint(safe(f"{row['action']:<8}"), COLOURS.get(row["action"]), colour)
    status = paint(safe(row["status"]), STATUS_COLOURS.get(row["status"]), colour)
    rule = paint(safe(f"[{row['ref']} {row['rule']}]"), "1", colour)
    told = row["status"] in _WITH_REPLY or (row["status"] == "delivered" and not str(row["reply"]).startswith("ok"))  # an owed one carried out
    reply = f" ({safe(row['reply'])})" if told and row["reply"] else ""
    if row["status"] == "proposed":
        reply = f" ({safe(json.loads(row['detail']).get('step') or '')}: awaiting an admin, jailcore confirm|dismiss {row['id']})"
    words = _OWED["en" if lang == "en" else "ru"]
    if row["status"] == "owed" and not row["reply"]:
        reply = f" ({words[0]})"
    owed_row = json.loads(row["detail"] or "{}").get("owed_row") if "owed_row" in (row["detail"] or "") else None
    if isinstance(owed_row, int):
        reply += f" ({words[1].format(row=owed_row)})"
    pardoned = paint(safe(f"  pardoned by {pardon['by']}: {pardon['reason']}"), "32", colour) if pardon else ""
    return f"#{row['id']} {when}  {safe(row['server'])} r{row['round']} {dayname}  {rule} {action} {who}: {safe(row['reason'])}  {status}{reply}{pardoned}"


def main_tail(args: argparse.Namespace) -> int:
    if getattr(args, "mqtt", None) is not None:
        return _tail_network(args)
    try:
        wanted = asked(args)
        return _tail(args, open_reader(locate(args.state_db, args.config)), wanted)
    except (AuditError, ConfigError) as exc:
        print(f"jailcore tail: {exc}", file=sys.stderr)
        return 1
    except errors_or(ValueError, KeyError) as exc:
        print(f"jailcore tail: the state database cannot be read: {exc}", file=sys.stderr)
        return 1


def asked(args: argparse.Namespace) -> Filter:
    """The command line's filters, checked before any database is opened."""
    wanted = Filter.of(**vars(args))
    wanted.check()
    return wanted


def _tail(args: argparse.Namespace, db: Reader, wanted: Filter) -> int:
    colour = coloured(args.json)
    rows = db.entries(wanted)
    last = rows[-1]["pos"] if rows else db.max_id()  # followed by place in the log (store.reader's `pos`)

    def emit(row: Mapping[str, Any], pardon: Mapping[str, Any] | None = None) -> None:
        print(json_line(as_json(row, pardon)) if args.json else human(row, colour, args.lang, pardon))

    shown = rows[-args.lines :] if args.lines > 0 else []
    given = db.pardons_for(r["id"] for r in shown)
    for row in shown:
        emit(row, given.get(row["id"]))
    sys.stdout.flush()
    if not args.follow:
        return 0
    last_pardon = db.max_id("pardons")
    deadline = time.monotonic() + args.seconds if getattr(args, "seconds", None) else None
    try:
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.3)
            for row in db.entries(wanted, after=last):
                last = row["pos"]
                emit(row)
            # A pardon given since: the original entry again, with who pardoned it and why.
            new = {p["action_id"]: p for p in db.pardons_after(last_pardon)}
            for row in db.entries_among(new, wanted):
                emit(row, new[row["id"]])
            last_pardon = max((p["id"] for p in new.values()), default=last_pardon)
            sys.stdout.flush()
    except KeyboardInterrupt:
        pass
    return 0


def main_history(args: argparse.Namespace) -> int:
    try:
        where = locate(args.state_db, args.config)
        if args.config:
            from jailcore.config.config import Config

        # without --config the next steps come from what each daemon saved: no rule is loaded
        config = Config.from_toml(args.config) if args.config else None
        return _history(args, open_reader(where), config)
    except (AuditError, ConfigError) as exc:
        print(f"jailcore history: {exc}", file=sys.stderr)
        return 1
    except errors_or(ValueError, KeyError, TypeError) as exc:
        print(f"jailcore history: the state database cannot be read: {exc!r}", file=sys.stderr)
        return 1


def _history(args: argparse.Namespace, db: Reader, config: Config | None) -> int:
    rows = db.entries(Filter(server=args.server or "", player=args.player or ""))
    from jailcore.log.accounts import player_key

    keys = {player_key(r["steamid"] or "", r["userid"] or 0) for r in rows if r["steamid"]}
    if args.player.startswith(("STEAM_", "[U:")):
        keys.add(args.player)
    given = db.pardons_for(r["id"] for r in rows)
    stands = standing(db, keys, config)
    if args.json:
        print(json_line({"player": args.player, "entries": [as_json(r, given.get(r["id"])) for r in rows], "standing": stands}))
        return 0
    colour = coloured()
    print(paint(f"{safe(args.player)}: {len(rows)} enforcement(s)", "1", colour))
    for row in rows:
        print("  " + human(row, colour, args.lang, given.get(row["id"])))
    for line in standing_lines(stands):
        print(safe(line))
    return 0 if rows or keys else 1


def standing_lines(items: list[dict[str, Any]]) -> list[str]:
    lines = ["ladders:" if items else "ladders: clean"]
    for item in items:
        if "ctban" in item:
            left = ban_left(item["ctban"]["until"], item["ctban"]["rounds"])
            lines.append(f"  {item['server']}: CT ban ({item['rule']}), {left}")
        else:
            nxt = f", next step: {item['next']}" if item["next"] else ""
            lines.append(f"  {item['server']}: {item['rule']}: {item['offences']} offence(s){nxt}")
    return lines


# -- the network over MQTT (`tail -f --mqtt`) ---------------------------------------------------

ACTIONS = "jailcore/+/actions"
_COLUMNS = ("id", "server", "time", "round", "day", "action", "rule", "ref", "userid", "steamid", "name", "reason", "detail",
            "command", "status", "reply")
_NOT_ACTION = frozenset(("server", "id", "status", "pardon", "reply", "command", "day"))


def mqtt_target(args: argparse.Namespace, who: str) -> tuple[str, dict[str, Any]]:
    """The broker's URL (`--mqtt URL`, else JAILCORE_MQTT_URL, else the config's [mqtt] url)
    and its TLS files (the config's). A URL in the environment keeps its password out of `ps`."""
    configs = getattr(args, "config", None) or []
    from jailcore.config.config import Config

    config = Config.from_toml(configs if isinstance(configs, str) else configs[0]) if configs else None
    url = args.mqtt or os.environ.get("JAILCORE_MQTT_URL") or (config.mqtt_url if config else "")
    if not url:
        raise AuditError(f"{who} --mqtt needs the broker: --mqtt mqtt://host:port, JAILCORE_MQTT_URL, or a --config with [mqtt] url")
    return url, dict(config.mqtt_tls) if config else {}


def network_key(args: argparse.Namespace, configs: list[Config] | None = None) -> bytes:
    """The network's key, to show only messages signed with it: JAILCORE_NETWORK_KEY, else the
    first config (given, or `--config`) that has one; empty when none does."""
    if os.environ.get("JAILCORE_NETWORK_KEY"):
        return os.environ["JAILCORE_NETWORK_KEY"].encode()
    if configs is None:
        from jailcore.config.config import Config

        paths = getattr(args, "config", None) or []
        configs = [Config.from_toml(p) for p in ([paths] if isinstance(paths, str) else paths)]
    return next((c.network_key for c in configs if c.network_key), "").encode()


def json_object(payload: bytes) -> dict[str, Any]:
    """A message's JSON object; ValueError for anything else (a broker carries what anyone publishes)."""
    data = json.loads(payload)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return data


class Network:
    """The actions of every server as they arrive, through the same filters and lines as the
    audit log: each message becomes one audit row, matched by the same `Filter`."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.wanted = asked(args)
        # What each entry was last seen as (its status, its pardon): a later message may carry
        # only the news. Bounded: a network runs for months.
        self.seen: dict[tuple[str, Any], tuple[str, dict[str, Any] | None]] = {}
        self.skipped = 0
        from jailcore.log.inbound import Refusals  # the network's shapes: only for --mqtt

        self.refused = Refusals("an action message", say=lambda _: None)
        self.key = network_key(args)  # given, only the network's own messages are shown

    def row(self, topic: str, payload: bytes) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
        """The message as an audit row and its pardon, or None when the filters leave it out
        or it is not an action's JSON. The server is the message's, else the topic's."""
        from jailcore.log.inbound import read_message
        from jailcore.log.shapes import action_message

        try:
            msg = read_message(payload, action_message, self.refused, topic, self.key, int(time.time() * 1000))
            if msg is None:
                self.skipped += 1
                return None
            key = (str(msg.get("server") or topic.split("/")[1]), msg.get("id"))
            before, pardon = self.seen.pop(key, (None, None))
            status = str(msg.get("status") or before or "-")
            if isinstance(msg.get("pardon"), dict):
                pardon = {"id": None, "time": None, "applied_at": None, "by": "", "reason": "", **msg["pardon"]}
                status = before or status
            self.seen[key] = (status, pardon)
            if len(self.seen) > 10_000:
                del self.seen[next(iter(self.seen))]
            target = msg.get("target") or {}
            detail = json.dumps({k: v for k, v in msg.items() if k not in _NOT_ACTION}, ensure_ascii=False)
            values = (msg.get("id"), key[0], str(msg.get("time", "")), msg.get("round"), msg.get("day"), str(msg.get("action", "")),
                      str(msg.get("rule", "")), str(msg.get("ref", "")), target.get("userid"), target.get("steamid"), target.get("name"),
                      str(msg.get("reason", "")), detail, msg.get("command"), status, msg.get("reply"))
            if not all(v is None or isinstance(v, str | int | float) for v in values):
                raise TypeError("a field that is not a string or a number")
            found = dict(zip(_COLUMNS, values, strict=True))
        except (ValueError, TypeError, AttributeError):
            self.skipped += 1
            return None
        if not self.wanted.matches(found):
            return None
        return found, pardon


def _tail_network(args: argparse.Namespace) -> int:
    from jailcore.io.network import NetworkError, follow

    colour = coloured(args.json)
    try:
        url, tls = mqtt_target(args, "tail")
        network = Network(args)
    except (AuditError, ConfigError) as exc:
        print(f"jailcore tail: {exc}", file=sys.stderr)
        return 1
    shown = 0

    def handle(topic: str, payload: bytes) -> bool:
        nonlocal shown
        found = network.row(topic, payload)
        if found is None:
            return False
        row, pardon = found
        print(json_line(as_json(row, pardon)) if args.json else human(row, colour, args.lang, pardon), flush=True)
        shown += 1
        return bool(args.count) and shown >= args.count

    def ready(where: str) -> None:
        print(f"following {ACTIONS} on {where} (Ctrl-C stops)", file=sys.stderr, flush=True)

    try:
        follow(url, ACTIONS, handle, tls, args.seconds, ready)
    except (NetworkError, ValueError) as exc:
        print(f"jailcore tail: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    if network.skipped:
        print(f"{network.skipped} message(s) that were not an action's JSON were skipped"
              + (f": {network.refused.summary()}" if network.refused.total else ""),
              file=sys.stderr)
    return 0
