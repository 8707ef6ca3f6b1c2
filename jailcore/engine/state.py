"""Everything the engine decides with, as typed values.

Contract: `State` holds the shared facts of the server (players, round, warden, the round's
orders, prohibitions, game and special day, the ladders, CT bans and autoslays) and, under
`rules`, each rule's own small state (one attrs class per rule that needs one).
`dump(state)` gives plain JSON and `restore(data, rule_states)` takes it back exactly: a
daemon that restarts, or a test that restores in the middle of a log, carries on as if
nothing happened. Snapshots written before this layout (version 1) are read too.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, TypeVar, cast

import attrs
import cattrs

from jailcore.log import events as ev
from jailcore.log import limits
from jailcore.log.errors import StateError
from jailcore.log.inbound import NetworkBan, Refusals, typed
from jailcore.log.limits import fit

CT, T = ev.CT, ev.T
PLAYING = (CT, T)
VERSION = 2
Own = TypeVar("Own")  # a rule's own state class


class HasState(Protocol[Own]):
    """A rule class as `State.rule` reads it (`rules/base.py` sits above this module): its key,
    and the type of the state it keeps."""

    key: ClassVar[str]
    state: Own


@attrs.define(slots=True)
class Seat:
    """A player as the engine knows him now."""

    userid: int
    steamid: str
    name: str
    team: str = ev.UNASSIGNED
    alive: bool = False
    gagged: bool = False
    joined: int = 0  # order of joining CT: the newest guard is the first moved for balance

    @property
    def key(self) -> str:
        return ev.player_key(self.steamid, self.userid)


@attrs.frozen(slots=True)
class Order:
    text: str
    time: str
    by: int


@attrs.frozen(slots=True)
class Prohibition:
    text: str
    time: str


@attrs.define(slots=True)
class GameRun:
    """The game being played this round."""

    name: str
    host: int
    started: str
    tags: tuple[str, ...] = ()
    reminded: bool = False  # games.duration: the 5-minute reminder went out
    reminded_at: str = ""  # and when: the host has the whole grace after it, even after a quiet log
    punished: bool = False  # games.duration: the host was punished once
    playing: int = 0  # prisoners alive when it began: a game of half (Король, Морской бой) ends at half of them
    died: int = 0  # prisoners the guards killed in it, rebels apart
    result: bool = False  # a prisoner lost (a guard killed him) or the referee named a winner: 004 5.11's winners
    # What came after its start that may have ended it by voice, without `!endgame` (a new
    # order of the warden's that is not the game's own): whose the game's rules are since is an admin's call
    after: str = ""


# Морской бой's last cell: kills within this many seconds of the one before them, from the
# kill that reached the half, are one volley at the cell the admiral named.
VOLLEY_SECONDS = 2


@attrs.define(slots=True)
class HalfReached:
    """A game of half (000 Король, Морской бой) whose half died: the game is over («Игра
    завершается тогда, когда умрет половина заключенных»). A guard's kill past it before
    anything else happens in the round (an order, a prohibition, a game, its end, a special
    day, a freeday, a last request, a new warden) is what the clause forbids, or the
    volley's last shot: the log cannot tell, an admin judges (`games.deaths`)."""

    game: str
    host: int
    started: str  # the game's start: one question a game
    playing: int  # prisoners alive when it began
    died: int  # the guards' kills of it (rebels apart), the half and what came after
    at: str  # the kill that reached the half, then the last of its volley (Морской бой's last cell)
    cells: bool = False  # Морской бой: the last cell named may hold more than the half needs


@attrs.define(slots=True)
class CtBan:
    """A ban from the guards' team: until a time, or for a number of rounds, or forever."""

    steamid: str
    name: str
    until: str | None
    rounds: int | None
    since: int  # the round it was given in
    rule: str
    ref: str
    reason: str
    origin: str = ""  # the server of the network that gave it, for a ban that came over MQTT
    by: str = ""  # the admin who gave it; empty for a rule's ladder
    fresh: bool = True  # still in the round it was given in, which does not count
    row: int | None = None  # given to one who had left: its audit row (`owed`), done once the door holds it


@attrs.define(slots=True)
class LastPrisoner:
    """The one prisoner left alive this round, from the moment he was left."""

    uid: int
    name: str
    since: str
    rebelled: bool = False  # he attacked a guard since: 001 ПЗ 4 lets the guards kill him


@attrs.define(slots=True)
class Proposal:
    """A punishment an admin must confirm (`confirm = "admin"`); the ladder is climbed
    only when he does."""

    number: int
    rule: str
    ref: str
    step: str  # as a ladder writes it: "ban 0", "kick"
    steamid: str
    userid: int
    name: str
    reason: str
    round: int
    time: str
    expires: str  # log time after which it lapses
    round_only: bool  # its step is for its round only: it lapses when the round ends

    @property
    def key(self) -> str:
        return ev.player_key(self.steamid, self.userid)


@attrs.define(slots=True)
class Owed:
    """A punishment decided for a player who had left (its ladder climbed then): carried out
    when he returns before `expires`, a slay at his next round alive, the rest at his connect."""

    rule: str
    ref: str
    step: str  # as a ladder writes it: "slay", "teamswap"
    reason: str
    expires: str
    row: int | None = None  # its audit row (status `owed`), which the session gives it once written


@attrs.define(slots=True)
class Autoslay:
    rounds: int
    rule: str
    ref: str
    reason: str
    row: int | None = None  # given to one who had left: its audit row (`owed`), carried out by his first slay


@attrs.define
class State:
    map: str = ""
    round: int = 0
    round_open: bool = False
    round_started: str = ""
    # The round begins at the freeze period's start (the shim's `jb_round_start`), play at
    # its end (srcds's Round_Start): the freeze is neither warden time nor game time. Without
    # the shim (old logs) Round_Start is both.
    play_from: str = ""
    round_by_shim: bool = False  # this round began with the shim's line
    round_by_freeze: bool = False  # CS:GO's `Starting Freeze period` of this round has been read
    round_line_seen: bool = False  # and srcds's Round_Start of it has been read
    shim_rounds: bool = False  # the plugin writes the round's line (jb_round_start): CS:GO's freeze line then begins none
    cut_short: bool = False  # the round before this one was still open when it began (no Round_End: warm-up's, or a line lost)
    warmup: bool = False
    time: str = ""
    seq: int | None = None
    plugin: str | None = None  # the version the shim's last jb_hello said
    lost: int = 0  # shim lines lost (gaps in their seq), ever: `status` counts them
    lost_at: str = ""  # the log time of the last gap
    # Lines of this round may be missing (lost, or a reload whose hello did not come): no
    # punishment that reads the shim's facts is decided from a guess (`engine/sequence.py`).
    doubt: bool = False
    players: dict[int, Seat] = attrs.Factory(dict)
    joins: int = 0
    warden: int | None = None
    dying: int | None = None  # the warden the shim said died, until srcds's line of his death
    # The warden the shim said resigned, and when: its player_team hook writes that too when he
    # is moved off CT, before or after srcds's `joined team` line of the same move.
    resigned: int | None = None
    resigned_at: str = ""
    orders: list[Order] = attrs.Factory(list)
    prohibitions: list[Prohibition] = attrs.Factory(list)
    game: GameRun | None = None
    half: HalfReached | None = None  # a game of half is over, and nothing has happened since
    freeday: bool = False  # the whole round is a freeday (Monday, or granted to all)
    before_freeday: int = 0  # prohibitions standing when it began (001 ФД 3 «добавить» counts the others)
    first_order: bool = False
    last_request: bool = False  # the last prisoner chose his request: fights are his game now
    last_prisoner: LastPrisoner | None = None
    rebels: list[int] = attrs.Factory(list)  # prisoners who attacked a guard this round: «Исключение — Бунт»
    owed: dict[str, int] = attrs.Factory(dict)  # player key -> round he was owed a freeday by a rule (001 ПЗ 1, 004 4.5)
    specialday: int | None = None  # the round of the last special day
    specialday_name: str | None = None  # today's special day
    slain: list[int] = attrs.Factory(list)  # our own slays, so their suicide lines are not a guard's
    moved: list[int] = attrs.Factory(list)  # our own moves, so their team lines do not make a living player dead
    ladders: dict[str, int] = attrs.Factory(dict)  # "rule|player key" -> offences so far
    # The same, for what `observe` or `advise` mode decided: it climbs only here, for the step the
    # audit row says it would have reached, and is dropped when the server enforces.
    observed: dict[str, int] = attrs.Factory(dict)
    ctbans: dict[str, CtBan] = attrs.Factory(dict)
    autoslay: dict[str, Autoslay] = attrs.Factory(dict)
    owing: dict[str, list[Owed]] = attrs.Factory(dict)  # player key -> punishments waiting for his return
    left: dict[int, Seat] = attrs.Factory(dict)  # this round's players who left, by userid: still answerable
    proposals: list[Proposal] = attrs.Factory(list)  # punishments waiting for an admin
    proposed: int = 0  # the number of the last proposal made
    rules: dict[str, object] = attrs.Factory(dict)  # rule key -> that rule's own state: read it with `rule(RuleClass)`
    # The duplicate window: the last line handled and the recent shim lines by seq, as
    # their text, so a line that arrives again after a restart is still recognised.
    last_line: str | None = None
    recent: dict[int, str] = attrs.Factory(dict)
    hud: str = ""  # the display line last shown: sent again only when it changes

    def rule(self, rule: type[HasState[Own]]) -> Own:
        """That rule's own state, typed: `state.rule(GlobalGames).played`."""
        return cast(Own, self.rules[rule.key])

    def seats(self, team: str, alive_only: bool = False) -> list[Seat]:
        return [p for p in self.players.values() if p.team == team and (p.alive or not alive_only)]


class SnapshotError(StateError, ValueError):
    """A state snapshot that is not one of ours."""


_convert = cattrs.Converter()
_SEATS = dict[int, Seat]
# Seats are written as a list (each carries its userid), as version 1 wrote them.
_convert.register_unstructure_hook_func(lambda t: t == _SEATS, lambda d: [_convert.unstructure(s, Seat) for s in d.values()])
_convert.register_structure_hook_func(lambda t: t == _SEATS, lambda items, _: {s["userid"]: _convert.structure(s, Seat) for s in items})
# The rules' own states are each rule's class: `restore` structures them by the classes the engine names.
_convert.register_structure_hook_func(lambda t: t == dict[str, object], lambda rules, _: dict(rules))


def dump(state: State) -> dict[str, Any]:
    data: dict[str, Any] = _convert.unstructure(state)
    data["rules"] = {key: _convert.unstructure(value) for key, value in state.rules.items()}
    data["version"] = VERSION
    return data


def restore(data: dict[str, Any], rule_states: dict[str, type], refused: Refusals | None = None) -> State:
    """A snapshot back into a `State`; `rule_states` names each rule's state class.
    A CT ban that does not fit (written by a version that stored a network message as it
    came) is left out and told to `refused`; the rest is kept. Raises SnapshotError (a
    ValueError), naming what is wrong, for a snapshot that is not one of ours."""
    try:
        return _restore(data, rule_states, refused or Refusals("a saved CT ban"))
    except (cattrs.BaseValidationError, TypeError, KeyError, AttributeError) as exc:
        notes = "; ".join(cattrs.transform_error(exc)) if isinstance(exc, cattrs.BaseValidationError) else repr(exc)
        raise SnapshotError(f"not a jailcore state snapshot: {notes}") from None


def _restore(data: dict[str, Any], rule_states: dict[str, type], refused: Refusals) -> State:
    data = dict(data)
    if data.pop("version", 1) < VERSION:
        data = _from_v1(data)
    if isinstance(data.get("ctbans"), dict):
        data["ctbans"] = {key: ban for key, ban in data["ctbans"].items() if _ban_fits(key, ban, refused)}
    rules = data.pop("rules", {}) or {}
    known = {a.name for a in attrs.fields(State)}
    state = _convert.structure({k: v for k, v in data.items() if k in known}, State)
    state.rules = {key: _convert.structure(rules[key], cls) for key, cls in rule_states.items() if key in rules}
    return state


_SAVED_TEXT = {"name": limits.NAME, "ref": limits.KEY, "origin": limits.KEY, "by": limits.KEY, "reason": limits.TEXT}


def _ban_fits(key: Any, ban: Any, refused: Refusals) -> bool:
    """One saved CT ban read as the network's schema reads a ban: a bad one is refused alone."""
    if not isinstance(ban, dict):
        refused.refuse("not an object", f"key {str(key)[:60]}")
        return False
    if not isinstance(ban.get("steamid"), str):
        refused.refuse("steamid: not a text", str(key)[:60])
        return False
    # A ban of ours may name a player without a SteamID (a bot, a LAN player: `#userid`);
    # every other field is read as the network's schema reads it.
    fields = {k: ban[k] for k in ("name", "until", "rounds", "ref", "reason", "origin", "by") if k in ban}
    # Its texts are measured as they were when it was saved (a ref of an older config may be
    # longer than the network now takes: the ban is kept, its row's copy is cut by the store);
    # its time and numbers are read as any other (a `until` past the calendar is refused).
    fields = {k: fit(v, _SAVED_TEXT[k]) if k in _SAVED_TEXT and isinstance(v, str) else v for k, v in fields.items()}
    if typed(NetworkBan, {**fields, "steamid": "STEAM_0:0:0"}, refused, ban["steamid"][:60]) is None:
        return False
    if type(ban.get("since", 0)) is not int or type(ban.get("fresh", True)) is not bool or type(ban.get("row")) not in (int, type(None)):
        refused.refuse("since, fresh or row: not of its type", str(key)[:60])
        return False
    return True


# Where each rule kept its state in the one flat layout of version 1.
_V1_RULES = {
    "calendar.global_games": {"global_games": "played"},
    "calendar.rebellion": {"rebels": "rebels"},
    "calendar.personal_freeday": {"personal_freedays": "granted"},
    "warden.immortality": {"immortality": "used"},
    "conduct.grenade_spam": {"grenades": "thrown"},
    "games.unknown": {"approved": "approved"},
    "games.repeat": {"game_history": "played"},
    "fairness.freekill": {"next_freedays": "next_round"},
    "teams.no_warden": {"warden_asked": "asked", "warden_punished": "punished"},
}


def _from_v1(data: dict[str, Any]) -> dict[str, Any]:
    rules: dict[str, dict[str, Any]] = {}
    for key, fields in _V1_RULES.items():
        for old, new in fields.items():
            if old in data:
                rules.setdefault(key, {})[new] = data.pop(old)
    lr = data.pop("lr", None)
    if lr:
        data["last_prisoner"] = {"uid": lr["uid"], "name": lr["name"], "since": lr["start"]}
        rules["lastrequest.timeout"] = {"done": bool(lr.get("done"))}
    if isinstance(data.get("game"), dict):
        game = data["game"]
        data["game"] = {k: game[k] for k in ("name", "host", "started", "tags", "reminded", "punished") if k in game}
    for ban in data.get("ctbans", {}).values():
        ban.setdefault("origin", "")
        ban["fresh"] = ban.get("since", 0) >= data.get("round", 0)
    data["orders"] = [{"text": o["text"], "time": o.get("time", ""), "by": o.get("by", 0)} for o in data.get("orders", [])]
    data["prohibitions"] = [{"text": p["text"], "time": p.get("time", "")} for p in data.get("prohibitions", [])]
    data["rules"] = rules
    return data
