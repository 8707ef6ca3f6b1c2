# The parser as it stood on main before the speed work of issue 9, kept as the oracle that
# the rewritten `jailcore.parse` must agree with, line for line (tests/test_parse.py). It is
# `git show main:jailcore/parse.py` with its import of `events` absolute and one deliberate
# change since (issue 10): a time the calendar lacks (02/31, a leap second) is malformed.
"""Log bytes to events.

Contract: `LogParser.parse(record)` takes one log record (a UDP payload without its
header, or one record of a log file) and returns an event, or None for a line it did not
turn into one. It never raises on input: every record is counted in `stats` as an event of
its kind, as `unknown` (well-formed, of a kind not modelled) or as `malformed` (not
readable as a log line at all).

Names and chat are written raw by the engine, so nothing here trusts a quote. A player
line is split at the first place where a well-formed identity (`Name<uid><steamid><team>`)
is followed by a verb whose whole tail reads correctly: chat text comes after the
speaker's identity and can never move the split, so it cannot impersonate another event;
each two-player line reads its second identity from the right.
"""

from __future__ import annotations

import codecs
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import datetime

import attrs

from jailcore.log import events as ev


def _latin1_fallback(err: UnicodeDecodeError) -> tuple[str, int]:
    # Real logs mix UTF-8 with stray Latin-1 bytes (old clients' names): keep them
    # readable instead of turning them into replacement marks.
    return err.object[err.start : err.end].decode("latin-1"), err.end


codecs.register_error("jailcore-latin1", _latin1_fallback)


def decode(raw: bytes | str) -> str:
    if isinstance(raw, str):
        return raw
    return raw.decode("utf-8", "jailcore-latin1")


@attrs.define
class ParseStats:
    lines: int = 0
    events: Counter = attrs.field(factory=Counter)
    unknown: int = 0
    malformed: int = 0

    def to_json(self) -> dict:
        return {
            "lines": self.lines,
            "events": dict(sorted(self.events.items())),
            "unknown": self.unknown,
            "malformed": self.malformed,
        }


class Malformed(ValueError):
    """The peer (the game server, or whoever wrote the file) sent something unreadable."""


_PREFIX = re.compile(
    r"(\d\d)/(\d\d)/(\d{4}) - (\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:: | - |:$)"
)
_IDENTITY = re.compile(r"(.*)<(-?\d{1,10})><([^<>]*)>(?:<([^<>]*)>)?", re.S)
_IDENTITY3 = re.compile(r"(.*)<(-?\d{1,10})><([^<>]*)>", re.S)
_FIRST_IDENTITY = re.compile(r'"(.*?)<(-?\d{1,10})><([^<>]*)>(?:<([^<>]*)>)?" (\S+)', re.S)
_POS = re.compile(r"\[(-?\d+) (-?\d+) (-?\d+)\] ")
_DAMAGE = re.compile(r'\(damage "(-?\d+)"\)')
_HEALTH = re.compile(r'\(health "(-?\d+)"\)')
_SWITCHED = re.compile(r"switched from team <([^<>]*)> to <([^<>]*)>")
_SEQ_TAIL = re.compile(r' \(seq "(\d{1,10})"\)$')
_FREEKILL = re.compile(r' \(victim "#?(\d{1,10})"\) \(kind "(kill|damage)"\)')
_FREEDAY = re.compile(r' \(scope "(personal|all)"\)(?: \(target "#?(\d{1,10})"\))?')
_RESTART = re.compile(r"Restart_Round_\((\d+)_seconds?\)")
_CVAR = re.compile(r'"[^"]*" = "[^"]*"$')

# Lines that are well-formed and understood, but that no rule acts on, by how they begin.
_NOTED_BODIES = (
    ("Log file started", "log_started"),
    ("Log file closed", "log_closed"),
    ("server cvars start", "cvars"),
    ("server cvars end", "cvars"),
    ("server_cvar: ", "cvar"),
    ("Molotov projectile", "molotov"),
    ("Game Over:", "game_over"),
    ("[META]", "metamod"),
    ("STEAMAUTH:", "steamauth"),
    ("server_message:", "server_message"),
    ("eBot triggered", "ebot"),
    ("Bad Rcon", "rcon"),
    ("Rcon:", "rcon"),
    ("SourceMod log file", "sourcemod"),
    ("-------- Mapchange to", "sourcemod"),
    ("Event ", "myjailbreak"),
    ("Damage Deal Result", "myjailbreak"),
    ("Player ", "myjailbreak"),
    ("[", "sourcemod"),
    ("Started ", "tf2"),
    ("Match pause", "pause"),
    ("Match unpause", "pause"),
    ("ACCOLADE", "accolade"),
    ("Your server", "server_notice"),
    ("Team playing", "team_playing"),
    ("Teams ", "team_switch"),
)

# Player verbs that no rule acts on; the value is the stats kind. (`changed` is not
# here: `changed name` matters; `changed role` is noted in `_verb`.)
_NOTED_VERBS = {
    "purchased": "purchased",
    "picked": "picked_up",
    "dropped": "dropped",
    "money": "money_change",
    "blinded": "blinded",
    "assisted": "assist",
    "left": "left_buyzone",
    "spawned": "spawned",
    "position_report": "position",
}


class LogParser:
    def __init__(self) -> None:
        self.stats = ParseStats()
        self._times: dict[str, str] = {}
        self._noted_cache: dict[str, ev.Noted] = {}
        self._noted_verbs = {verb: ev.Noted(kind) for verb, kind in _NOTED_VERBS.items()}

    # -- records -------------------------------------------------------------------------

    def parse(self, record: bytes | str) -> ev.Event | ev.Noted | None:
        """One record in, one event (or None) out; counted either way, never raises."""
        # The hot path of every log line: kept flat on purpose.
        line = (record.decode("utf-8", "jailcore-latin1") if type(record) is bytes else record).strip("\x00\r\n\ufeff")
        if not line or line.isspace():
            return None
        stats = self.stats
        stats.lines += 1
        try:
            if line[:2] == "L ":
                line = line[2:]
            time = self._times.get(line[:23])
            if time is None:
                time, body = self._slow_time(line)
            else:
                body = line[23:]
            if body[:1] == '"':
                event = self._player_line(time, body)
            elif body:
                event = self._other(time, body)
            else:
                raise Malformed("empty body")
        except Exception:
            stats.malformed += 1
            return None
        if event is None:
            stats.unknown += 1
            return None
        stats.events[event.kind] += 1
        return event

    def _slow_time(self, line: str) -> tuple[str, str]:
        iso, body = self._slow_time_as_before(line)
        try:
            datetime.fromisoformat(iso)
        except ValueError:
            self._times.pop(line[:23], None)
            raise Malformed("no such time") from None
        return iso, body

    def _slow_time_as_before(self, line: str) -> tuple[str, str]:
        # A new second: the standard `MM/DD/YYYY - HH:MM:SS: ` is read by position (most
        # lines), anything else (milliseconds, a bare colon) by the full pattern.
        if line[21:23] == ": " and line[2] == "/" and line[5] == "/" and line[10:13] == " - " and line[15] == ":" == line[18]:
            mo, d, y, hh, mi, ss = line[0:2], line[3:5], line[6:10], line[13:15], line[16:18], line[19:21]
            digits = mo + d + y + hh + mi + ss
            if digits.isascii() and digits.isdigit() and "01" <= mo <= "12" and "01" <= d <= "31" and hh < "24" and mi < "60" and ss < "61":
                iso = f"{y}-{mo}-{d}T{hh}:{mi}:{ss}"
                if len(self._times) > 4096:  # a long log walks through time: keep the cache small
                    self._times.clear()
                self._times[line[:23]] = iso
                return iso, line[23:]
        m = _PREFIX.match(line)
        if m is None:
            raise Malformed("no HL log timestamp")
        mo, d, y, hh, mi, ss = m.groups()
        if not (1 <= int(mo) <= 12 and 1 <= int(d) <= 31 and int(hh) < 24 and int(mi) < 60 and int(ss) < 61):
            raise Malformed("impossible timestamp")
        iso = f"{y}-{mo}-{d}T{hh}:{mi}:{ss}"
        if m.end() == 23 and line[21:23] == ": ":
            if len(self._times) > 4096:  # a long log walks through time: keep the cache small
                self._times.clear()
            self._times[line[:23]] = iso
        return iso, line[m.end() :]

    def _other(self, time: str, body: str) -> ev.Event | ev.Noted | None:
        if body.startswith("World triggered "):
            return self._world(time, body[16:])
        if body.startswith("Team "):
            return self._noted("team")
        if body.startswith("rcon from "):
            return self._rcon(time, body[10:])
        if body.startswith("Loading map "):
            return ev.MapLoading(time, _quoted(body[12:]))
        if body.startswith("Started map "):
            name = body[12:]
            return ev.MapStarted(time, _quoted(name.split(" (", 1)[0]))
        if body.startswith("Starting Freeze period"):  # CS:GO's round restart (issue 31)
            return ev.FreezeStarted(time)
        for prefix, kind in _NOTED_BODIES:
            if body.startswith(prefix):
                return self._noted(kind)
        return None

    def _noted(self, kind: str) -> ev.Noted:
        noted = self._noted_cache.get(kind)
        if noted is None:
            noted = self._noted_cache[kind] = ev.Noted(kind)
        return noted

    # -- world, rcon ---------------------------------------------------------------------

    def _world(self, time: str, rest: str) -> ev.Event | ev.Noted | None:
        if not rest.startswith('"'):
            raise Malformed("world trigger without a name")
        end = rest.find('"', 1)
        if end < 0:
            raise Malformed("unterminated world trigger")
        name = rest[1:end]
        if name == "Round_Start":
            return ev.RoundStart(time)
        if name == "Round_End":
            return ev.RoundEnd(time)
        if name == "Game_Commencing":
            return ev.GameCommencing(time)
        if name == "Warmup_Start":
            return ev.WarmupStart(time)
        if name == "Warmup_End":
            return ev.WarmupEnd(time)
        if name.startswith("Restart_Round_"):
            m = _RESTART.fullmatch(name)
            return ev.RestartRound(time, int(m.group(1)) if m else 0)
        if name == "jb_round_start":
            tail = rest[end + 1 :]
            m = _SEQ_TAIL.search(tail)
            freeze = _prop(tail[: m.start()], "freeze") if m else None
            if m is None or freeze is None or not re.fullmatch(r"[0-9]{1,9}", freeze) or len(m.group(1)) > 10:
                raise Malformed("jb_round_start without its (freeze) and (seq)")
            return ev.RoundBegins(time, ev.WORLD, int(m.group(1)), int(freeze))
        if name == "jb_hello":
            tail = rest[end + 1 :]
            m = _SEQ_TAIL.search(tail)
            version = _prop(tail[: m.start()] if m else tail, "version")
            return ev.ShimHello(time, version or "", int(m.group(1)) if m else 0)
        return ev.WorldTriggered(time, name)

    def _rcon(self, time: str, rest: str) -> ev.Rcon:
        # rcon from "1.2.3.4:5": command "..." (the command is raw, quotes and all)
        end = rest.find('": command "')
        if not rest.startswith('"') or end < 0:
            return self._noted("rcon")  # type: ignore[return-value]
        return ev.Rcon(time, rest[1:end], rest[end + 12 : -1] if rest.endswith('"') else rest[end + 12 :])

    # -- player lines --------------------------------------------------------------------

    def _player_line(self, time: str, body: str) -> ev.Event | ev.Noted | None:
        # The first well-formed identity and the verb after it, in one match: the common
        # case. Most of a busy log is purchases, pickups, money: no rule reads them, so
        # they are counted by their verb without building anything.
        m = _FIRST_IDENTITY.match(body)
        if m is not None:
            word = m.group(5)
            noted = self._noted_verbs.get(word)
            if noted is not None:
                return noted
            if word == "triggered" and not body.startswith('"jb_', m.end(5) + 1):
                return self._noted("player_triggered")  # the game's own (Got_The_Bomb...)
            event = self._verb(time, m, body[m.start(5) :])
            if event is not None:
                return event
        return self._player_line_slow(time, body)

    def _player_line_slow(self, time: str, body: str) -> ev.Event | ev.Noted | None:
        """Every other split, left to right: a name that holds `" ` or `<1><x><y>`."""
        start = 0
        seen_identity = False
        while True:
            split = body.find('" ', start)
            if split < 0:
                break
            start = split + 1
            ident = body[1:split]
            tail = body[split + 2 :]
            if ident.endswith(">"):
                space = tail.find(" ")
                noted = self._noted_verbs.get(tail[:space] if space > 0 else tail)
                if noted is not None:
                    return noted
                m = _IDENTITY.fullmatch(ident)
                if m is None:
                    continue
                seen_identity = True
                event = self._verb(time, m, tail)
                if event is not None:
                    return event
        if _CVAR.match(body):
            return self._noted("cvar")
        if seen_identity:
            return None
        raise Malformed("player line without a readable identity")

    def _verb(self, time: str, m: re.Match, tail: str) -> ev.Event | ev.Noted | None:
        if tail[:1] == "[":
            pm = _POS.match(tail)
            if pm is None:
                return None
            tail = tail[pm.end() :]
        word = tail.split(" ", 1)[0]
        if word == "say" or word == "say_team":
            text = _chat_text(tail[len(word) + 1 :])
            if text is None:
                return None
            return ev.Chat(time, _player(m), text, word == "say_team")
        if word == "triggered":
            return self._player_trigger(time, m, tail[10:])
        if word == "killed" or word == "attacked":
            parts = _against(tail, len(word) + 2)
            if parts is None:
                return None
            victim, weapon, rest = parts
            if word == "killed":
                return ev.Killed(time, _player(m), victim, weapon)
            dm, hm = _DAMAGE.search(rest), _HEALTH.search(rest)
            if dm is None or hm is None:
                return None
            return ev.Attacked(time, _player(m), victim, weapon, int(dm.group(1)), int(hm.group(1)))
        if word == "joined":
            if not tail.startswith('joined team "') or not tail.endswith('"'):
                return None
            player = _player(m)
            return ev.JoinedTeam(time, player, player.team or "", _team(tail[13:-1]))
        if word == "switched":
            sm = _SWITCHED.fullmatch(tail)
            if sm is None:
                return None
            im = _IDENTITY3.fullmatch(m.group(0))
            player = _player(im) if im else _player(m)
            return ev.JoinedTeam(time, player, _team(sm.group(1)), _team(sm.group(2)))
        if word == "committed":
            if not tail.startswith('committed suicide with "'):
                return None
            return ev.Suicide(time, _player(m), tail[24:].rstrip('"'))
        if word == "disconnected":
            if not tail.startswith("disconnected"):
                return None
            reason = tail[12:].strip()
            if reason.startswith('(reason "'):
                reason = reason[9:]
                if reason.endswith('")'):
                    reason = reason[:-2]
            return ev.Disconnected(time, _player(m), reason)
        if word == "connected,":
            if not tail.startswith('connected, address "'):
                return None
            return ev.Connected(time, _player(m), tail[20:].rstrip('"'))
        if word == "entered":
            return ev.Entered(time, _player(m)) if tail == "entered the game" else None
        if word == "STEAM":
            return ev.Validated(time, _player(m)) if tail.startswith("STEAM USERID validated") else None
        if word == "threw":
            return ev.Threw(time, _player(m), tail[6:].split(" ", 1)[0])
        if word == "changed":
            if tail.startswith('changed name to "') and tail.endswith('"'):
                return ev.NameChanged(time, _player(m), tail[17:-1])
            return self._noted("changed_role")
        if word == "was":
            return self._noted("killed_by_bomb")
        return None

    def _player_trigger(self, time: str, m: re.Match, rest: str) -> ev.Event | ev.Noted | None:
        if not rest.startswith('"'):
            return None
        end = rest.find('"', 1)
        if end < 0:
            return None
        name = rest[1:end]
        props = rest[end + 1 :]
        if not name.startswith("jb_"):
            return self._noted("player_triggered")  # the game's own (Got_The_Bomb...)
        seq_m = _SEQ_TAIL.search(props)
        if seq_m is None:
            return None
        seq = int(seq_m.group(1))
        props = props[: seq_m.start()]
        player = _player(m)
        if name == "jb_warden":
            return ev.WardenSet(time, player, seq) if not props else None
        if name == "jb_order_cancel":
            return ev.OrdersCancelled(time, player, seq) if not props else None
        if name == "jb_game_end":
            return ev.GameEnded(time, player, seq) if not props else None
        if name == "jb_freekill":
            km = _FREEKILL.fullmatch(props)
            if km is None:
                return None
            return ev.FreekillConfirmed(time, player, seq, int(km.group(1)), km.group(2) == "damage")
        if name == "jb_freeday":
            fm = _FREEDAY.fullmatch(props)
            if fm is None:
                return None
            target = int(fm.group(2)) if fm.group(2) else None
            return ev.FreedayGranted(time, player, seq, fm.group(1), target)
        maker = _ONE_PROP.get(name)
        if maker is None:
            return None
        key, make = maker
        value = _prop(props, key)
        if value is None:
            return None
        return make(time, player, seq, value)


def _mk_lift(time: str, player: ev.Player, seq: int, value: str) -> ev.Event | None:
    return ev.ProhibitionLifted(time, player, seq, int(value)) if value.isdigit() else None


def _mk_gag(time: str, player: ev.Player, seq: int, value: str) -> ev.Event | None:
    return ev.GagChanged(time, player, seq, value == "on") if value in ("on", "off") else None


_ONE_PROP = {
    "jb_warden_removed": ("reason", ev.WardenRemoved),
    "jb_order": ("text", ev.OrderGiven),
    "jb_prohibit": ("text", ev.ProhibitionSet),
    "jb_prohibit_lift": ("index", _mk_lift),
    "jb_game_start": ("game", ev.GameStarted),
    "jb_specialday": ("day", ev.SpecialDay),
    "jb_lr": ("choice", ev.LastRequest),
    "jb_privilege": ("kind", ev.PrivilegeUsed),
    "jb_gag": ("state", _mk_gag),
    "jb_game_approve": ("game", ev.GameApproved),
}

# The triggers the daemon reads from the shim; tests check the plugin emits each of them.
SHIM_TRIGGERS = ("jb_warden", "jb_order_cancel", "jb_game_end", "jb_freeday", "jb_freekill", "jb_hello", "jb_round_start", *_ONE_PROP)
# Lines the shim writes beyond protocol section 1 (see sourcemod_bridge/README.md).
EXTENSION_TRIGGERS = ("jb_game_approve", "jb_freekill")


def _prop(props: str, key: str) -> str | None:
    """The value of ` (key "value")` when it is the only property; the value is free
    text read from both ends, so quotes inside it do no harm."""
    head = f' ({key} "'
    if props.startswith(head) and props.endswith('")') and len(props) >= len(head) + 2:
        return props[len(head) : -2]
    return None


def _quoted(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        return text[1:-1]
    return text


def _chat_text(rest: str) -> str | None:
    if rest.endswith(" (dead)") and rest[-8:-7] == '"':
        rest = rest[:-7]
    if len(rest) >= 2 and rest[0] == '"' and rest[-1] == '"':
        return rest[1:-1]
    if rest[:1] == '"':  # CS:GO cuts lines over 1024 bytes: keep what arrived
        return rest[1:]
    return None


_TEAMS = {
    "CT": ev.CT,
    "TERRORIST": ev.T,
    "T": ev.T,
    "Spectator": ev.SPECTATOR,
    "SPECTATOR": ev.SPECTATOR,
    "Unassigned": ev.UNASSIGNED,
    "": ev.UNASSIGNED,
}


def _team(raw: str) -> str:
    return _TEAMS.get(raw, raw)


def _player(m: re.Match) -> ev.Player:
    team = None if m.re is _IDENTITY3 else m.group(4)
    return ev.Player(m.group(1), int(m.group(2)), m.group(3), _TEAMS.get(team, team) if team else None)


def _against(tail: str, start: int) -> tuple[ev.Player, str, str] | None:
    """The second player, the weapon and what follows, of `killed "V" [x y z] with "w" ...`,
    read from the right: a name may hold anything, a weapon and the properties may not."""
    w = tail.rfind(' with "')
    if w < 0 or tail[start - 1 : start] != '"':
        return None
    end = tail.find('"', w + 7)
    if end < 0:
        return None
    victim = tail[start:w]
    if victim.endswith("]"):
        victim = victim[: victim.rfind('" [')]
    elif victim.endswith('"'):
        victim = victim[:-1]
    else:
        return None
    vm = _IDENTITY.fullmatch(victim)
    if vm is None:
        return None
    return _player(vm), tail[w + 7 : end], tail[end + 1 :]

_MARKS = {bytes: (b"\x00", b"\r\n", b'"', b"\n", b"L ", b"/"), str: ("\x00", "\r\n", '"', "\n", "L ", "/")}


def records(lines: Iterable[bytes | str]) -> Iterator[bytes | str]:
    """Log-file lines to records, joining a record that a newline inside quotes split."""
    pending = None
    for line in lines:
        nul, eol, quote, newline, prefix, slash = _MARKS[type(line)]
        head = line.lstrip(nul)
        line = line.rstrip(eol)
        # A record continues only while a quote is open (a reason with a newline in it);
        # any other line without a timestamp is a record of its own, counted as junk.
        if head[:2] == prefix or head[2:3] == slash or pending is None or pending.count(quote) % 2 == 0:
            if pending is not None:
                yield pending
            pending = line
        else:
            pending = pending + newline + line
    if pending is not None:
        yield pending
