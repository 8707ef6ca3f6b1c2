"""The grammar of one log line: what each HL log line jailcore knows says, and how it reads.

`LineReader.read_line` reads any line step by step: it is the definition. `master.py`
holds its common shapes as one compiled pattern, the parser's fast path.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from jailcore.log import events as ev
from jailcore.log.limits import NAME, STEAMID
from jailcore.log.shimlines import WORLD_LINES, Malformed, number, shim_event

_V = TypeVar("_V")

_PREFIX = re.compile(r"(\d\d)/(\d\d)/(\d{4}) - (\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:: | - |:$)")
# A whole identity read from the right (the longest name that leaves `<uid><steamid><team>`),
# and the first identity of a player line read from the left (the shortest such name).
_IDENTITY = re.compile(r"(.*)<(-?\d{1,10})><([^<>]*)>(?:<([^<>]*)>)?", re.S)
_ACTOR = re.compile(r"(.*?)<(-?\d{1,10})><([^<>]*)>(?:<([^<>]*)>)?", re.S)
_FIRST_IDENTITY = re.compile(r'"((.*?)<-?\d{1,10}><[^<>]*>(?:<[^<>]*>)?)" (\S+)', re.S)
_POS = re.compile(r"\[(-?\d+) (-?\d+) (-?\d+)\] ")
_DAMAGE = re.compile(r'\(damage "(-?\d+)"\)')
_HEALTH = re.compile(r'\(health "(-?\d+)"\)')
_SWITCHED = re.compile(r"switched from team <([^<>]*)> to <([^<>]*)>")
_RESTART = re.compile(r"Restart_Round_\((\d+)_seconds?\)")
_CVAR = re.compile(r'"[^"]*" = "[^"]*"$')

# How a line that is not a player's begins (after `World triggered `, tried first), in the
# order they are tried: where one prefix begins another, the first listed wins. The kind,
# and the name of the reader of the rest (None: a noted line, that no rule acts on).
_BODIES = (
    ("Team ", "team", None),
    ("rcon from ", "rcon", "_rcon"),
    ("Loading map ", "map_loading", "_map_loading"),
    ("Started map ", "map_started", "_map_started"),
    ("Log file started", "log_started", None),
    ("Log file closed", "log_closed", None),
    ("server cvars start", "cvars", None),
    ("server cvars end", "cvars", None),
    ("server_cvar: ", "cvar", None),
    ("Starting Freeze period", "freeze_period", "_freeze_period"),
    ("Molotov projectile", "molotov", None),
    ("Game Over:", "game_over", None),
    ("[META]", "metamod", None),
    ("STEAMAUTH:", "steamauth", None),
    ("server_message:", "server_message", None),
    ("eBot triggered", "ebot", None),
    ("Bad Rcon", "rcon", None),
    ("Rcon:", "rcon", None),
    ("SourceMod log file", "sourcemod", None),
    ("-------- Mapchange to", "sourcemod", None),
    ("Event ", "myjailbreak", None),
    ("Damage Deal Result", "myjailbreak", None),
    ("Player ", "myjailbreak", None),
    ("[", "sourcemod", None),
    ("Started ", "tf2", None),
    ("Match pause", "pause", None),
    ("Match unpause", "pause", None),
    ("ACCOLADE", "accolade", None),
    ("Your server", "server_notice", None),
    ("Team playing", "team_playing", None),
    ("Teams ", "team_switch", None),
)

# Player verbs that no rule acts on; the value is the stats kind. (`changed` is not
# here: `changed name` matters; `changed role` is noted in `_changed`.)
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

_OTHER_NOTED = ("rcon", "player_triggered", "changed_role", "killed_by_bomb", "cvar")
# One shared, payload-free value per noted kind: they are most of a busy log.
NOTED = {kind: ev.Noted(kind) for kind in (*(k for _, k, read in _BODIES if read is None), *_NOTED_VERBS.values(), *_OTHER_NOTED)}
_NOTED_BY_VERB = {verb: NOTED[kind] for verb, kind in _NOTED_VERBS.items()}

# Caches grow with the distinct timestamps and names a log shows: past this many entries
# they start again, so a long log cannot grow them without end.
_CACHE_SIZE = 4096


def _keep(cache: dict[Any, _V], key: bytes | str, value: _V) -> _V:
    if len(cache) > _CACHE_SIZE:
        cache.clear()
    cache[key] = value
    return value


def _iso(y: str, mo: str, d: str, hh: str, mi: str, ss: str) -> str:
    """The ISO text of a time the calendar has: `02/31` or a leap second `:60` would make
    every later reckoning with it fail, so such a line is malformed, not an event."""
    iso = f"{y}-{mo}-{d}T{hh}:{mi}:{ss}"
    try:
        datetime.fromisoformat(iso)  # the engine reads it so: ASCII digits, real days
    except ValueError:
        raise Malformed(f"no such time: {mo}/{d}/{y} - {hh}:{mi}:{ss}") from None
    return iso


class LineReader:
    """Reads one line at a time. Holds only caches: the same text always reads the same."""

    def __init__(self) -> None:
        self._times: dict[str | bytes, str] = {}  # `MM/DD/YYYY - HH:MM:SS` -> ISO: one per second of log time
        self._days: dict[str, str] = {}  # `MM/DD/YYYY` -> `YYYY-MM-DD`, a day the calendar has
        self._actors: dict[str | bytes, ev.Player] = {}  # identity text read from the left
        self._identities: dict[str | bytes, ev.Player] = {}  # identity text read whole, from the right

    # -- caches ----------------------------------------------------------------------------

    # Keys are the text as the line holds it, bytes or str: MASTER reads either.

    def _new_second(self, key: bytes | str) -> str:
        """`MM/DD/YYYY - HH:MM:SS` in MASTER's ranges: each day checked once, no datetime a second."""
        stamp = key.decode("ascii") if isinstance(key, bytes) else key
        if stamp[19:21] == "60" or (day := self._days.get(stamp[:10])) is None:  # a leap second fails in _iso
            day = _keep(self._days, stamp[:10], _iso(stamp[6:10], stamp[0:2], stamp[3:5], "00", "00", stamp[19:21])[:10])
        return _keep(self._times, key, f"{day}T{stamp[13:21]}")

    # The identity caches hold well-formed identities only: text that is none is rare (and
    # then read step by step anyway), so it is not worth a place.

    def _new_actor(self, key: bytes | str) -> ev.Player | None:
        m = _ACTOR.fullmatch(_text(key))
        return None if m is None else _keep(self._actors, key, _player(m))

    def _identity(self, key: bytes | str) -> ev.Player | None:
        player = self._identities.get(key)
        return self._new_identity(key) if player is None else player

    def _new_identity(self, key: bytes | str) -> ev.Player | None:
        m = _IDENTITY.fullmatch(_text(key))
        return None if m is None else _keep(self._identities, key, _player(m))

    # -- one line --------------------------------------------------------------------------

    def read_line(self, line: str) -> ev.Event | ev.Noted | None:
        """The event of a line, or None for a well-formed line of a kind not modelled.
        Raises Malformed for a line that is not a log line at all."""
        if line[:2] == "L ":
            line = line[2:]
        time, body = self._stamp(line)
        if body[:1] == '"':
            return self._player_line(time, body)
        if body:
            return self._other(time, body)
        raise Malformed("empty body")

    def _stamp(self, line: str) -> tuple[str, str]:
        if line[21:23] == ": ":  # the usual `MM/DD/YYYY - HH:MM:SS: `, seen this second
            time = self._times.get(line[:21])
            if time is not None:
                return time, line[23:]
        m = _PREFIX.match(line)
        if m is None:
            raise Malformed("no HL log timestamp")
        mo, d, y, hh, mi, ss = m.groups()
        iso = _iso(y, mo, d, hh, mi, ss)
        if m.end() == 23:  # no milliseconds, the usual separator: worth keeping
            _keep(self._times, line[:21], iso)
        return iso, line[m.end() :]

    def _body(self, time: str, player: ev.Player | None, body: str) -> ev.Event | ev.Noted | None:
        return self._other(time, body)

    def _other(self, time: str, body: str) -> ev.Event | ev.Noted | None:
        if body.startswith("World triggered "):
            return self._world(time, body[16:])
        for prefix, kind, read in _BODIES:
            if body.startswith(prefix):
                return NOTED[kind] if read is None else getattr(self, read)(time, body[len(prefix) :])
        return None

    def _freeze_period(self, time: str, rest: str) -> ev.FreezeStarted:
        return ev.FreezeStarted(time)

    # -- world, rcon -----------------------------------------------------------------------

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
            return ev.RestartRound(time, number(m.group(1)) if m else 0)
        if name in WORLD_LINES:  # the shim's own: jb_hello, jb_round_start
            return WORLD_LINES[name](time, rest[end + 1 :])
        return ev.WorldTriggered(time, name)

    def _map_loading(self, time: str, rest: str) -> ev.MapLoading:
        return ev.MapLoading(time, _quoted(rest))

    def _map_started(self, time: str, rest: str) -> ev.MapStarted:
        return ev.MapStarted(time, _quoted(rest.split(" (", 1)[0]))

    def _rcon(self, time: str, rest: str) -> ev.Rcon | ev.Noted:
        # rcon from "1.2.3.4:5": command "..." (the command is raw, quotes and all)
        end = rest.find('": command "')
        if not rest.startswith('"') or end < 0:
            return NOTED["rcon"]
        return ev.Rcon(time, rest[1:end], rest[end + 12 : -1] if rest.endswith('"') else rest[end + 12 :])

    # -- player lines ----------------------------------------------------------------------

    def _player_line(self, time: str, body: str) -> ev.Event | ev.Noted | None:
        # The first well-formed identity and the verb after it, in one match: the common
        # case. Verbs no rule reads are counted by their word without building anything.
        m = _FIRST_IDENTITY.match(body)
        if m is not None:
            word = m.group(3)
            noted = _NOTED_BY_VERB.get(word)
            if noted is not None:
                return noted
            if word == "triggered" and not body.startswith('"jb_', m.end(3) + 1):
                return NOTED["player_triggered"]  # the game's own (Got_The_Bomb...)
            player = self._actors.get(m.group(1)) or self._new_actor(m.group(1))  # well-formed: it matched
            event = self._verb(time, player, body[m.start(3) :])  # type: ignore[arg-type]
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
                noted = _NOTED_BY_VERB.get(tail[:space] if space > 0 else tail)
                if noted is not None:
                    return noted
                player = self._identity(ident)
                if not player:
                    continue
                seen_identity = True
                event = self._verb(time, player, tail)
                if event is not None:
                    return event
        if _CVAR.match(body):
            return NOTED["cvar"]
        if seen_identity:
            return None
        raise Malformed("player line without a readable identity")

    def _verb(self, time: str, player: ev.Player, tail: str) -> ev.Event | ev.Noted | None:
        if tail[:1] == "[":
            pm = _POS.match(tail)
            if pm is None:
                return None
            tail = tail[pm.end() :]
        read = _VERBS.get(tail.split(" ", 1)[0])
        return read(self, time, player, tail) if read is not None else None

    # One reader per verb, `tail` starting at the verb: `_verb` picks one by the word, and
    # MASTER's alternatives name theirs in PLAN.

    def _say(self, time: str, player: ev.Player, tail: str) -> ev.Chat | None:
        text = _chat_text(tail[4:])
        return None if text is None else ev.Chat(time, player, text, False)

    def _say_team(self, time: str, player: ev.Player, tail: str) -> ev.Chat | None:
        text = _chat_text(tail[9:])
        return None if text is None else ev.Chat(time, player, text, True)

    def _triggered(self, time: str, player: ev.Player, tail: str) -> ev.Event | ev.Noted | None:
        return self._player_trigger(time, player, tail[10:])

    def _killed(self, time: str, player: ev.Player, tail: str) -> ev.Killed | None:
        parts = self._against(tail, 8)
        return None if parts is None else ev.Killed(time, player, parts[0], parts[1])

    def _attacked(self, time: str, player: ev.Player, tail: str) -> ev.Attacked | None:
        parts = self._against(tail, 10)
        if parts is None:
            return None
        victim, weapon, rest = parts
        dm, hm = _DAMAGE.search(rest), _HEALTH.search(rest)
        if dm is None or hm is None:
            return None
        return ev.Attacked(time, player, victim, weapon, number(dm.group(1)), number(hm.group(1)))

    def _joined(self, time: str, player: ev.Player, tail: str) -> ev.JoinedTeam | None:
        if not tail.startswith('joined team "') or not tail.endswith('"'):
            return None
        return ev.JoinedTeam(time, player, player.team or "", _team(tail[13:-1]))

    def _switched(self, time: str, player: ev.Player, tail: str) -> ev.JoinedTeam | None:
        sm = _SWITCHED.fullmatch(tail)
        return None if sm is None else ev.JoinedTeam(time, player, _team(sm.group(1)), _team(sm.group(2)))

    def _committed(self, time: str, player: ev.Player, tail: str) -> ev.Suicide | None:
        if not tail.startswith('committed suicide with "'):
            return None
        return ev.Suicide(time, player, tail[24:].rstrip('"'))

    def _disconnected(self, time: str, player: ev.Player, tail: str) -> ev.Disconnected:
        reason = tail[12:].strip()
        if reason.startswith('(reason "'):
            reason = reason[9:]
            if reason.endswith('")'):
                reason = reason[:-2]
        return ev.Disconnected(time, player, reason)

    def _connected(self, time: str, player: ev.Player, tail: str) -> ev.Connected | None:
        if not tail.startswith('connected, address "'):
            return None
        return ev.Connected(time, player, tail[20:].rstrip('"'))

    def _entered(self, time: str, player: ev.Player, tail: str) -> ev.Entered | None:
        return ev.Entered(time, player) if tail == "entered the game" else None

    def _validated(self, time: str, player: ev.Player, tail: str) -> ev.Validated | None:
        return ev.Validated(time, player) if tail.startswith("STEAM USERID validated") else None

    def _threw(self, time: str, player: ev.Player, tail: str) -> ev.Threw:
        return ev.Threw(time, player, tail[6:].split(" ", 1)[0])

    def _changed(self, time: str, player: ev.Player, tail: str) -> ev.NameChanged | ev.Noted:
        if tail.startswith('changed name to "') and tail.endswith('"'):
            return ev.NameChanged(time, player, tail[17:-1])
        return NOTED["changed_role"]

    def _was(self, time: str, player: ev.Player, tail: str) -> ev.Noted:
        return NOTED["killed_by_bomb"]

    def _against(self, tail: str, start: int) -> tuple[ev.Player, str, str] | None:
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
        player = self._identity(victim)
        if not player:
            return None
        return player, tail[w + 7 : end], tail[end + 1 :]

    def _player_trigger(self, time: str, player: ev.Player, rest: str) -> ev.Event | ev.Noted | None:
        if not rest.startswith('"'):
            return None
        end = rest.find('"', 1)
        if end < 0:
            return None
        name = rest[1:end]
        props = rest[end + 1 :]
        if not name.startswith("jb_"):
            return NOTED["player_triggered"]  # the game's own (Got_The_Bomb...)
        return shim_event(time, player, name, props)


_VERBS: dict[str, Callable[..., Any]] = {
    "say": LineReader._say,
    "say_team": LineReader._say_team,
    "triggered": LineReader._triggered,
    "killed": LineReader._killed,
    "attacked": LineReader._attacked,
    "joined": LineReader._joined,
    "switched": LineReader._switched,
    "committed": LineReader._committed,
    "disconnected": LineReader._disconnected,
    "connected,": LineReader._connected,
    "entered": LineReader._entered,
    "STEAM": LineReader._validated,
    "threw": LineReader._threw,
    "changed": LineReader._changed,
    "was": LineReader._was,
}


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


def _text(raw: bytes | str) -> str:
    # A piece of a record cut at ASCII delimiters decodes as it reads inside the whole line.
    return raw.decode("utf-8", "jailcore-latin1") if isinstance(raw, bytes) else raw


def _team(raw: str) -> str:
    return _TEAMS.get(raw, raw)


def _player(m: re.Match[str]) -> ev.Player:
    if len(m.group(1)) > NAME or len(m.group(3)) > STEAMID:  # longer than any game writes: a forged line (log/limits.py)
        raise Malformed(f"a player's name over {NAME} or SteamID over {STEAMID} characters: no game writes one")
    return ev.Player(m.group(1), int(m.group(2)), m.group(3), _TEAMS.get(m.group(4), m.group(4)) if m.group(4) else None)
