"""A round's story: its kept log lines read again by the same parser the daemon uses, as
a timeline, with each decision placed right after the line it was made from.

The round's start is read as the engine reads it (`Bookkeeping.round_line`): the shim's
`jb_round_start (freeze "N")` begins the round and its freeze period, srcds's Round_Start
after it is the freeze's end, the start of play; Round_Start alone (no shim, old logs) is
both; with `mp_freezetime 0` the two lines are one start, in either order.

A kept line carries `audit`, the newest audit id once the daemon had handled it, so the
decisions a line made are the ids above the previous line's mark up to its own. Pure:
lines and decisions in, a `Story` out.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import attrs

from jailcore.log import events as ev
from jailcore.log.logtime import plus_seconds, seconds_between
from jailcore.log.parse import LogParser
from jailcore.web.i18n import LOG_WORDS, TEAMS

if TYPE_CHECKING:
    from jailcore.web.data import Entry

# What a line is, for the page: (category, minor). Minor lines are hidden unless asked for.
_KIND: dict[type, tuple[str, bool]] = {
    ev.WardenSet: ("warden", False), ev.WardenRemoved: ("warden", False),
    ev.OrderGiven: ("order", False), ev.OrdersCancelled: ("order", False),
    ev.ProhibitionSet: ("prohibition", False), ev.ProhibitionLifted: ("prohibition", False),
    ev.GameStarted: ("game", False), ev.GameEnded: ("game", False), ev.GameApproved: ("game", False),
    ev.SpecialDay: ("specialday", False), ev.FreedayGranted: ("specialday", False), ev.LastRequest: ("game", False),
    ev.Killed: ("kill", False), ev.Suicide: ("kill", False), ev.Attacked: ("kill", True), ev.Threw: ("kill", True),
    ev.JoinedTeam: ("team", False), ev.Chat: ("chat", False),
    ev.RoundStart: ("round", False), ev.RoundBegins: ("round", False), ev.RoundEnd: ("round", False), ev.RestartRound: ("round", False),
    ev.GameCommencing: ("round", False), ev.MapStarted: ("round", False), ev.MapLoading: ("round", True),
    ev.PrivilegeUsed: ("conduct", False), ev.FreekillConfirmed: ("conduct", False), ev.GagChanged: ("conduct", False),
    ev.Connected: ("team", True), ev.Entered: ("team", True), ev.Validated: ("team", True), ev.Disconnected: ("team", False),
    ev.NameChanged: ("team", False), ev.CtBanGiven: ("admin", False), ev.CtBanLifted: ("admin", False), ev.PardonAsked: ("admin", False),
}


def _who(p: ev.Player) -> str:
    return f"{p.name} #{p.userid}"


# One sentence per kind of line. Values are filled in with `str.format`, which never
# reads a player's text as a pattern; the template escapes the result.
_SAY: dict[type, tuple[str, str]] = {  # (Russian, English)
    ev.WardenSet: ("{player} — начальник", "{player} is the warden"),
    ev.WardenRemoved: ("{player} больше не начальник ({reason})", "{player} is no longer the warden ({reason})"),
    ev.OrderGiven: ("Приказ {player}: «{text}»", "Order by {player}: “{text}”"),
    ev.OrdersCancelled: ("{player} отменил приказы", "{player} cancelled the orders"),
    ev.ProhibitionSet: ("Запрет {player}: «{text}»", "Prohibition by {player}: “{text}”"),
    ev.ProhibitionLifted: ("{player} снял запрет №{index}", "{player} lifted prohibition #{index}"),
    ev.GameStarted: ("Игра «{game}» ({player})", "Game “{game}” ({player})"),
    ev.GameEnded: ("Игра окончена ({player})", "Game over ({player})"),
    ev.GameApproved: ("{player} одобрил игру «{game}»", "{player} approved the game “{game}”"),
    ev.SpecialDay: ("Особый день «{day}» ({player})", "Special day “{day}” ({player})"),
    ev.FreedayGranted: ("ФД ({scope}) от {player}", "Freeday ({scope}) from {player}"),
    ev.LastRequest: ("Последнее желание {player}: {choice}", "Last request of {player}: {choice}"),
    ev.Killed: ("{killer} убил {victim} ({weapon})", "{killer} killed {victim} ({weapon})"),
    ev.Suicide: ("{player} погиб ({weapon})", "{player} died ({weapon})"),
    ev.Attacked: ("{attacker} ранил {victim}: −{damage}, осталось {health}", "{attacker} hit {victim}: −{damage}, {health} left"),
    ev.Threw: ("{player} бросил {grenade}", "{player} threw {grenade}"),
    ev.JoinedTeam: ("{player}: {old} → {new}", "{player}: {old} → {new}"),
    ev.Chat: ("{player}: {text}", "{player}: {text}"),
    ev.RoundStart: ("Начало раунда", "Round start"),
    ev.RoundEnd: ("Конец раунда", "Round end"),
    ev.RestartRound: ("Рестарт раунда", "Round restart"),
    ev.GameCommencing: ("Игра начинается", "Game commencing"),
    ev.MapStarted: ("Карта {map}", "Map {map}"),
    ev.MapLoading: ("Загрузка карты {map}", "Loading map {map}"),
    ev.PrivilegeUsed: ("{player} взял привилегию «{privilege}»", "{player} took the privilege “{privilege}”"),
    ev.FreekillConfirmed: ("{player} подтвердил фрикилл #{victim}", "{player} confirmed a freekill of #{victim}"),
    ev.GagChanged: ("{player}: мут {gagged}", "{player}: gagged {gagged}"),
    ev.Connected: ("{player} подключается", "{player} is connecting"),
    ev.Validated: ("{player}: SteamID подтверждён", "{player}: SteamID validated"),
    ev.Entered: ("{player} вошёл в игру", "{player} entered the game"),
    ev.Disconnected: ("{player} вышел ({reason})", "{player} left ({reason})"),
    ev.NameChanged: ("{player} сменил ник на «{new_name}»", "{player} changed name to “{new_name}”"),
    ev.CtBanGiven: ("{player} выдал запрет за КТ игроку #{target}: {reason}", "{player} CT-banned #{target}: {reason}"),
    ev.CtBanLifted: ("{player} снял запрет за КТ с #{target}", "{player} lifted the CT ban of #{target}"),
    ev.PardonAsked: ("{player} помиловал #{id}: {reason}", "{player} pardoned #{id}: {reason}"),
}
_KICKED = ("{player} кикнут ({reason})", "{player} was kicked ({reason})")
# The round's start as the engine reads it (see the module's text).
_BEGINS = ("Начало раунда, заморозка {freeze} с", "Round start, freeze period {freeze} s")
_BEGINS_NOW = ("Начало раунда, без заморозки", "Round start, no freeze period")
_SAME_START = ("Начало раунда (вторая строка того же начала)", "Round start (the same start's second line)")
_FREEZE_OVER = ("Конец заморозки: игра началась", "Freeze period over: play begins")
# SourceMod's chat colours: \x01-\x10, and CS:GO's \x07RRGGBB / \x08RRGGBBAA hex colours
_COLOUR = re.compile(r"\x07[0-9A-Fa-f]{6}|\x08[0-9A-Fa-f]{8}|[\x01-\x10]")


def _sentence(pattern: str, event: ev.Event) -> str:
    values = {f.name: getattr(event, f.name) for f in attrs.fields(type(event))}
    return pattern.format(**{k: _who(v) if isinstance(v, ev.Player) else _COLOUR.sub("", v) if isinstance(v, str) else v
                             for k, v in values.items()})


def _pattern(event: ev.Event, say: int) -> str:
    if isinstance(event, ev.Disconnected) and "kick" in event.reason.casefold():
        return _KICKED[say]
    return _SAY[type(event)][say]


@attrs.frozen
class Moment:
    """One line of the round: when, what kind, what happened, the raw line, and the
    decisions made from it."""

    time: str
    category: str
    text: str
    line: str
    minor: bool
    decisions: tuple[Entry, ...] = ()


@attrs.frozen
class Story:
    moments: tuple[Moment, ...]
    orphans: tuple[Entry, ...]  # decisions with no kept line (pruned, or made by a resync)
    wardens: tuple[str, ...]
    orders: tuple[str, ...]
    prohibitions: tuple[str, ...]
    games: tuple[str, ...]
    specialday: str | None
    map: str | None
    started: str | None = None  # when the round began: the freeze period's start
    freeze: int | None = None  # its freeze period in seconds, as the shim said it; None: no shim line
    play: str | None = None  # when play began: the freeze's end


@attrs.define
class _Start:
    """The round's start as it is read line by line, as the engine's bookkeeping reads it."""

    started: str | None = None
    freeze: int | None = None
    play: str | None = None
    by_shim: bool = False
    srcds_seen: bool = False

    def read(self, event: ev.RoundBegins | ev.RoundStart) -> tuple[str, ...]:
        """The sentence for this round line: (Russian, English) with `{freeze}` to fill."""
        if isinstance(event, ev.RoundBegins):
            if (self.started is not None and not self.by_shim and self.srcds_seen and event.freeze == 0
                    and seconds_between(self.started, event.time) <= 2):
                self.by_shim, self.freeze = True, 0  # no freeze: srcds's line came first, the same start
                return _SAME_START
            self.started, self.freeze, self.play = event.time, event.freeze, plus_seconds(event.time, event.freeze)
            self.by_shim, self.srcds_seen = True, False
            return _BEGINS if event.freeze else _BEGINS_NOW
        if self.by_shim and not self.srcds_seen:
            self.srcds_seen, self.play = True, event.time
            return _FREEZE_OVER if self.freeze else _SAME_START
        self.started = self.play = event.time
        self.freeze, self.by_shim, self.srcds_seen = None, False, True
        return _SAY[ev.RoundStart]


def tell(lines: Sequence[Mapping[str, Any]], decisions: Sequence[Entry], lang: str = "ru") -> Story:
    """`lines`: kept rows (time, line, audit) in order; `decisions`: audit entries of the round."""
    say = 1 if lang == "en" else 0
    parser = LogParser()
    marks = [row["audit"] for row in lines]
    placed: dict[int, list[Entry]] = {}
    orphans = []
    for d in sorted(decisions, key=lambda d: d["id"]):
        at = bisect_left(marks, d["id"])
        if at < len(marks):
            placed.setdefault(at, []).append(d)
        else:
            orphans.append(d)
    moments = []
    wardens: list[str] = []
    orders: list[str] = []
    prohibitions: list[str] = []
    games: list[str] = []
    special = game_map = None
    start = _Start()
    for i, row in enumerate(lines):
        event = parser.parse(row["line"])
        kind = type(event)
        category, minor = _KIND.get(kind, ("other", True))
        if isinstance(event, ev.RoundBegins | ev.RoundStart):
            said = start.read(event)
            text, minor = said[say].format(freeze=start.freeze), said is _SAME_START
        else:
            words, teams = LOG_WORDS["en" if lang == "en" else "ru"], TEAMS["en" if lang == "en" else "ru"]
            if isinstance(event, ev.JoinedTeam):  # the teams in the page's words: «Т → КТ», not "TERRORIST → CT"
                event = attrs.evolve(event, old=teams.get(event.old, event.old), new=teams.get(event.new, event.new))
            elif isinstance(event, ev.WardenRemoved):
                event = attrs.evolve(event, reason=words.get(event.reason, event.reason))
            elif isinstance(event, ev.Suicide):
                event = attrs.evolve(event, weapon=words.get(event.weapon, event.weapon))
            text = _sentence(_pattern(cast(ev.Event, event), say), cast(ev.Event, event)) if kind in _SAY else row["line"]
        made = tuple(placed.get(i, ()))
        moments.append(Moment(row["time"], category, text, row["line"], minor and not made, made))
        if isinstance(event, ev.WardenSet) and _who(event.player) not in wardens:
            wardens.append(_who(event.player))
        elif isinstance(event, ev.OrderGiven):
            orders.append(event.text)
        elif isinstance(event, ev.ProhibitionSet):
            prohibitions.append(event.text)
        elif isinstance(event, ev.GameStarted):
            games.append(event.game)
        elif isinstance(event, ev.SpecialDay):
            special = event.day
        elif isinstance(event, ev.MapStarted):
            game_map = event.map
    return Story(tuple(moments), tuple(orphans), tuple(wardens), tuple(orders), tuple(prohibitions), tuple(games), special, game_map,
                 start.started, start.freeze, start.play)
