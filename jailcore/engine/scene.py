"""What every rule may read and do, short of punishing (that is `Context`, over `punish.py`).

Contract: a rule sees the server only through a `Context`: the players and teams, the
round, day and week, the warden, the round's orders, prohibitions and game (`state`, read
only for rules), the config, and the few things it may do: build an action, announce,
punish (climb the offender's ladder, in `punish.py`), end the warden's term. The engine
owns one `Context` and updates it; rules never keep it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

from jailcore.engine.actions import Action, Say, Target
from jailcore.engine.catalogue import Catalogue, Game
from jailcore.engine.messages import say
from jailcore.engine.state import Seat, State
from jailcore.log import events as ev
from jailcore.log.logtime import seconds_between

if TYPE_CHECKING:
    from jailcore.engine.settings import RuleSettings, ServerRules

_UNSEEN = ("", "STEAM_ID_PENDING")
Own = ParamSpec("Own")  # the fields of an action's own kind, past the header and the target
Aimed = TypeVar("Aimed", bound=Action)
Told = TypeVar("Told", bound=Action)


def target_of(seat: Seat) -> Target:
    """The player an action names: as he is now, frozen into it."""
    return Target(seat.userid, seat.steamid, seat.name)


class Scene:
    def __init__(self, config: ServerRules, state: State):
        self.config = config
        self.lang = config.language
        self.state = state
        # The daemon is to ask the shim for the players, teams and warden (`jb_status`).
        self.resync_wanted = False
        self._map_games: tuple[tuple[str, ...], Catalogue | None] = ((), None)

    def take(self, config: ServerRules) -> None:
        """The config in force from now on (a reload, or a restart under a new one)."""
        self.config, self.lang = config, config.language
        if config.mode == "enforce":
            self.state.observed = {}  # what observe or advise mode decided was never done: no ladder counts it

    def ask_state(self) -> None:
        """Ask the game for its state (`jb_status`) before going on from what the log said."""
        self.resync_wanted = True

    @property
    def observing(self) -> bool:
        """`observe` and `advise` modes: every decision is said and written (advise warns the
        player of it), none is kept (`punish.py`): no ladder climbed, no ban held at the door."""
        return self.config.mode != "enforce"

    # -- players -------------------------------------------------------------------------

    def seat(self, p: ev.Player) -> Seat:
        """The seat of the player a line names, brought up to date with what it says."""
        seat = self.state.players.get(p.userid)
        if seat is None or (seat.steamid != p.steamid and p.steamid not in _UNSEEN):
            seat = self.state.players[p.userid] = Seat(p.userid, p.steamid, p.name)
        if p.team:
            seat.team = p.team
        seat.name = p.name
        if p.steamid not in _UNSEEN:
            seat.steamid = p.steamid
        return seat

    def player(self, userid: int) -> Seat | None:
        """The player with this userid: on the server, or one who left this round (answerable
        still: a punishment decided for him waits for his return, `punish.py`)."""
        return self.state.players.get(userid) or self.state.left.get(userid)

    def count(self, team: str, alive_only: bool = False) -> int:
        return len(self.state.seats(team, alive_only))

    def online(self, key: str) -> Seat | None:
        """The seat of the player with this key (steamid), if he is on the server: under
        this form, else under another form of the same account (STEAM_0/STEAM_1/[U:1:N])."""
        seat = next((p for p in self.state.players.values() if p.key == key), None)
        others = ev.same_account(key) if seat is None else ()
        return next((p for p in self.state.players.values() if p.key in others), None) if others else seat

    def alive(self, team: str) -> list[Seat]:
        return self.state.seats(team, alive_only=True)

    @property
    def warden(self) -> Seat | None:
        s = self.state
        return s.players.get(s.warden) if s.warden is not None else None

    def offered_game(self, typed: str) -> Game | None:
        """The catalogue's game for what the warden typed, or None for one it lacks."""
        return self.config.catalogue.find(typed)

    def map_game(self, typed: str) -> bool:
        """A game the map itself runs (000 6.0 «Игры на картах не в счет»): the server
        lists them in `[games.unknown] map_games`; they are never judged."""
        names: tuple[str, ...] = getattr(self.config.rules["games.unknown"], "map_games", ())  # the rule's class sits above
        if not names:
            return False
        if self._map_games[0] != names:  # built once per config, not at every game start
            self._map_games = (names, Catalogue([Game(n) for n in names]))
        catalogue = self._map_games[1]
        return catalogue is not None and catalogue.find(typed) is not None

    # -- the calendar --------------------------------------------------------------------

    @property
    def day(self) -> int:
        return (max(self.state.round, 1) - 1) % self.config.week_length + 1

    @property
    def week(self) -> int:
        return (max(self.state.round, 1) - 1) // self.config.week_length + 1

    def same_week(self, round_a: int, round_b: int) -> bool:
        week = self.config.week_length
        return (round_a - 1) // week == (round_b - 1) // week

    def seconds_since(self, moment: str) -> float:
        return seconds_between(moment, self.state.time)

    @property
    def in_freeze(self) -> bool:
        """The round's freeze period: begun, not yet played (see `State.play_from`)."""
        s = self.state
        return s.round_open and s.time < s.play_from

    def played_since(self, moment: str) -> float:
        """Seconds of play since `moment`: the freeze period is no one's time."""
        return seconds_between(max(moment, self.state.play_from), self.state.time)

    # -- saying and doing ----------------------------------------------------------------

    def text(self, key: str, **values: object) -> str:
        return say(self.lang, key, **values)

    def quoting(self, rule: RuleSettings | str, text: str) -> str:
        """A message that quotes the server's own rule number: what players argue with."""
        ref = rule if isinstance(rule, str) else rule.ref
        if not ref.strip():  # no number to quote: «[Правило ]» would only puzzle players
            return text
        return say(self.lang, "rule", ref=ref, text=text)

    def action(self, kind: Callable[Concatenate[str, int, str, str, str, Target, Own], Aimed], seat: Seat, rule: str, ref: str,
               reason: str, *args: Own.args, **own: Own.kwargs) -> Aimed:
        """An action of this kind aimed at this player, now; the kind's own fields are its
        class's, checked: `ctx.action(Ban, seat, key, ref, reason, minutes=0)`."""
        return kind(self.state.time, self.state.round, rule, ref, reason, target_of(seat), *args, **own)

    def everyone(self, kind: Callable[[str, int, str, str, str], Told], rule: str, ref: str, reason: str) -> Told:
        """A word to everyone, now (`Say`, `Hud`)."""
        return kind(self.state.time, self.state.round, rule, ref, reason)

    def announce(self, key: str, rule: RuleSettings, text: str) -> Say:
        """A message to everyone under a rule (`jb_say`), quoting its clause."""
        return self.everyone(Say, key, rule.ref, self.quoting(rule, text))

    def hud_line(self) -> str:
        """The standing state line (`jb_hud`): warden, day, orders, prohibitions, game."""
        s, none = self.state, self.text("none")
        warden = self.warden
        return self.text(
            "hud",
            warden=warden.name if warden else none,
            day=self.day,
            dayname=self.text("days").split("|")[self.day - 1] if self.config.week_length == 7 else self.day,
            orders=", ".join(o.text for o in s.orders) or none,
            prohibitions=", ".join(p.text for p in s.prohibitions) or none,
            game=s.game.name if s.game else none,
        )

    def warden_gone(self, orders_end: bool) -> None:
        """001 general 7 «После смерти начальника все приказы отменяются, игры
        заканчиваются»: his death, and his leaving the server or the guards (which ends his
        command as surely), cancel every order and end the game (a special day's goes on),
        on a server whose rulebook says so (`[orders] end_with_warden`; 004 does not).
        A warden who hands over command (resigns, or an admin moves it) leaves both standing."""
        s = self.state
        if s.warden is None and s.dying is None:
            return
        s.warden = s.dying = None
        if orders_end and getattr(self.config.rules["orders"], "end_with_warden", True):
            s.orders = []
            if s.game is not None and not s.specialday_name:
                s.game = None

