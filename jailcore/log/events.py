"""What can happen on a jail server, as the log tells it.

Every event is a small frozen value. The parser makes them from log lines, the engine
consumes them; nothing else creates or changes them. `time` is the log line's own
timestamp as ISO text (`2026-11-30T21:04:05`): the engine has no clock but this.
`kind` names the event in statistics and in `replay --stats`.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import attrs

# named here as before: `ev.player_key`, `ev.account`, ...
from jailcore.log.accounts import STEAM64_BASE as STEAM64_BASE
from jailcore.log.accounts import account as account
from jailcore.log.accounts import player_key as player_key
from jailcore.log.accounts import same_account as same_account

CT = "CT"
T = "TERRORIST"
SPECTATOR = "Spectator"
UNASSIGNED = "Unassigned"


@attrs.frozen(slots=True)
class Player:
    """A player as one log line names him: `"Name<userid><steamid><team>"`.

    `team` is None where the line does not say (SourceMod's `%L` leaves it empty and
    CS:GO's `switched from team` identities have no team field).
    """

    name: str
    userid: int
    steamid: str
    team: str | None = None

    @property
    def key(self) -> str:
        return player_key(self.steamid, self.userid)


@attrs.frozen(slots=True)
class Event:
    time: str
    kind: ClassVar[str] = "event"


# --- engine lines ---------------------------------------------------------------------


@attrs.frozen(slots=True)
class MapLoading(Event):
    map: str
    kind: ClassVar[str] = "map_loading"


@attrs.frozen(slots=True)
class MapStarted(Event):
    map: str
    kind: ClassVar[str] = "map_started"


@attrs.frozen(slots=True)
class Connected(Event):
    player: Player
    address: str
    kind: ClassVar[str] = "connected"


@attrs.frozen(slots=True)
class Validated(Event):
    player: Player
    kind: ClassVar[str] = "validated"


@attrs.frozen(slots=True)
class Entered(Event):
    player: Player
    kind: ClassVar[str] = "entered"


@attrs.frozen(slots=True)
class JoinedTeam(Event):
    player: Player
    old: str
    new: str
    kind: ClassVar[str] = "joined_team"


@attrs.frozen(slots=True)
class NameChanged(Event):
    player: Player
    new_name: str
    kind: ClassVar[str] = "name_changed"


@attrs.frozen(slots=True)
class Chat(Event):
    player: Player
    text: str
    team_only: bool = False
    kind: ClassVar[str] = "chat"


@attrs.frozen(slots=True)
class Killed(Event):
    killer: Player
    victim: Player
    weapon: str
    kind: ClassVar[str] = "killed"


@attrs.frozen(slots=True)
class Attacked(Event):
    attacker: Player
    victim: Player
    weapon: str
    damage: int
    health: int
    kind: ClassVar[str] = "attacked"


@attrs.frozen(slots=True)
class Suicide(Event):
    player: Player
    weapon: str
    kind: ClassVar[str] = "suicide"


@attrs.frozen(slots=True)
class Threw(Event):
    player: Player
    grenade: str
    kind: ClassVar[str] = "threw"


@attrs.frozen(slots=True)
class Disconnected(Event):
    player: Player
    reason: str
    kind: ClassVar[str] = "disconnected"


@attrs.frozen(slots=True)
class RoundStart(Event):
    kind: ClassVar[str] = "round_start"


@attrs.frozen(slots=True)
class FreezeEnded(Event):
    """Not a line of its own: the engine's reading of `World triggered "Round_Start"` in a
    round the shim's `jb_round_start` already began. srcds writes Round_Start when the
    freeze period ends; play (warden time, game time) begins here."""

    kind: ClassVar[str] = "freeze_end"


@attrs.frozen(slots=True)
class FreezeStarted(Event):
    """CS:GO's `Starting Freeze period`, written when a round restarts (15 s before its
    Round_Start in the corpus). A plugin older than `jb_round_start`, or one whose line was
    lost, leaves this as the round's start: the engine reads it so when the shim's line of
    that restart did not come, and not twice when both do, in either order."""

    kind: ClassVar[str] = "freeze_period"


@attrs.frozen(slots=True)
class RoundEnd(Event):
    kind: ClassVar[str] = "round_end"


@attrs.frozen(slots=True)
class RestartRound(Event):
    seconds: int
    kind: ClassVar[str] = "restart_round"


@attrs.frozen(slots=True)
class GameCommencing(Event):
    kind: ClassVar[str] = "game_commencing"


@attrs.frozen(slots=True)
class WarmupStart(Event):
    kind: ClassVar[str] = "warmup_start"


@attrs.frozen(slots=True)
class WarmupEnd(Event):
    kind: ClassVar[str] = "warmup_end"


@attrs.frozen(slots=True)
class WorldTriggered(Event):
    """A world trigger the engine does not act on (Round_Win, killlocation...)."""

    trigger: str
    kind: ClassVar[str] = "world_triggered"


@attrs.frozen(slots=True)
class Rcon(Event):
    source: str
    command: str
    kind: ClassVar[str] = "rcon"


@attrs.frozen(slots=True)
class Noted:
    """A well-formed line of a kind that matters to no rule (purchases, cvar dumps,
    grenades...). One shared instance per kind: these are most of a busy log and the
    engine ignores them, so they carry no payload."""

    kind: str
    time: str = ""


# What the parser hands on for a line it read: an event, or the shared mark of a line no
# rule reads (the engine passes those over).
Parsed = Event | Noted


# --- the shim's lines (protocol section 1) ----------------------------------------------


@attrs.frozen(slots=True)
class ShimEvent(Event):
    player: Player
    seq: int


@attrs.frozen(slots=True)
class WardenSet(ShimEvent):
    kind: ClassVar[str] = "jb_warden"


@attrs.frozen(slots=True)
class WardenRemoved(ShimEvent):
    reason: str = ""
    kind: ClassVar[str] = "jb_warden_removed"


@attrs.frozen(slots=True)
class OrderGiven(ShimEvent):
    text: str = ""
    kind: ClassVar[str] = "jb_order"


@attrs.frozen(slots=True)
class OrdersCancelled(ShimEvent):
    kind: ClassVar[str] = "jb_order_cancel"


@attrs.frozen(slots=True)
class ProhibitionSet(ShimEvent):
    text: str = ""
    kind: ClassVar[str] = "jb_prohibit"


@attrs.frozen(slots=True)
class ProhibitionLifted(ShimEvent):
    index: int = 0
    kind: ClassVar[str] = "jb_prohibit_lift"


@attrs.frozen(slots=True)
class GameStarted(ShimEvent):
    game: str = ""
    kind: ClassVar[str] = "jb_game_start"


@attrs.frozen(slots=True)
class GameEnded(ShimEvent):
    kind: ClassVar[str] = "jb_game_end"


@attrs.frozen(slots=True)
class SpecialDay(ShimEvent):
    day: str = ""
    kind: ClassVar[str] = "jb_specialday"


@attrs.frozen(slots=True)
class FreedayGranted(ShimEvent):
    scope: str = "personal"
    target: int | None = None
    kind: ClassVar[str] = "jb_freeday"


@attrs.frozen(slots=True)
class LastRequest(ShimEvent):
    choice: str = ""
    kind: ClassVar[str] = "jb_lr"


@attrs.frozen(slots=True)
class PrivilegeUsed(ShimEvent):
    privilege: str = ""
    kind: ClassVar[str] = "jb_privilege"


@attrs.frozen(slots=True)
class GagChanged(ShimEvent):
    gagged: bool = False
    kind: ClassVar[str] = "jb_gag"


@attrs.frozen(slots=True)
class GameApproved(ShimEvent):
    """An admin approved a game outside the catalogue (protocol extension, N1)."""

    game: str = ""
    kind: ClassVar[str] = "jb_game_approve"


@attrs.frozen(slots=True)
class FreekillConfirmed(ShimEvent):
    """An admin confirmed a prisoner's freekill or freedamage report (extension, N8)."""

    victim: int = 0
    damage_only: bool = False
    kind: ClassVar[str] = "jb_freekill"


# The shim's lines written for the server itself (`World triggered "jb_..."`).
WORLD = Player("World", 0, "Console", None)


@attrs.frozen(slots=True)
class RoundBegins(ShimEvent):
    """`World triggered "jb_round_start" (freeze "N")`: the shim's line at SourceMod's
    `round_start` event, the moment the round restarts and its freeze period of N seconds
    begins. srcds writes Round_Start only when the freeze ends (CS:S writes nothing at the
    restart), so this is where the round, and everything counted per round, begins."""

    freeze: int = 0
    kind: ClassVar[str] = "jb_round_start"


@attrs.frozen(slots=True)
class ShimHello(Event):
    version: str
    seq: int = 0
    kind: ClassVar[str] = "jb_hello"


# --- admins in game (extensions of protocol section 1, named in the shim's README) --------


@attrs.frozen(slots=True)
class CtBanGiven(ShimEvent):
    """An admin's `!ctban <#userid|name> <minutes|Nr> [reason]`."""

    target: int = 0
    minutes: int | None = None
    rounds: int | None = None
    reason: str = ""
    kind: ClassVar[str] = "jb_ctban"


@attrs.frozen(slots=True)
class CtBanLifted(ShimEvent):
    """An admin's `!unctban <#userid|name>`."""

    target: int = 0
    kind: ClassVar[str] = "jb_unctban"


# An admin's word on one audit entry, by its id: the three are one line's shape, `(id "N")
# (reason "...")`, read and carried alike (the shim's line, the engine's `Ask`, the session's
# `AskedInGame`, the store's request, `request_kinds.IN_GAME`); `step` names which.
AdminStep = Literal["pardon", "confirm", "dismiss"]


@attrs.frozen(slots=True)
class AdminWord(ShimEvent):
    id: int = 0
    reason: str = ""
    step: ClassVar[AdminStep]


@attrs.frozen(slots=True)
class PardonAsked(AdminWord):
    """An admin's `!jcpardon ID [reason]`: the daemon writes it beside the enforcement."""

    kind: ClassVar[str] = "jb_pardon"
    step: ClassVar[AdminStep] = "pardon"


@attrs.frozen(slots=True)
class ConfirmAsked(AdminWord):
    """An admin's `!jcconfirm ID`: the proposed punishment ID is to be carried out."""

    kind: ClassVar[str] = "jb_confirm"
    step: ClassVar[AdminStep] = "confirm"


@attrs.frozen(slots=True)
class DismissAsked(AdminWord):
    """An admin's `!jcdismiss ID [reason]`: the proposed punishment ID is not to be."""

    kind: ClassVar[str] = "jb_dismiss"
    step: ClassVar[AdminStep] = "dismiss"


ADMIN_WORDS: tuple[type[AdminWord], ...] = (PardonAsked, ConfirmAsked, DismissAsked)


@attrs.frozen(slots=True)
class FreekillChoice(ShimEvent):
    """A freekilled prisoner's choice from the shim's menu (004 4.5): respawn or freeday."""

    choice: str = ""
    kind: ClassVar[str] = "jb_fk_choice"


def shim_events() -> tuple[type[ShimEvent], ...]:
    """Every kind of shim line the daemon reads (its classes, however deep: the admin words sit
    under `AdminWord`), each counted by its seq: a gap is a lost line."""
    out: list[type[ShimEvent]] = []
    todo = list(ShimEvent.__subclasses__())
    while todo:
        cls = todo.pop(0)
        todo += cls.__subclasses__()
        # `AdminWord` is only their shape; attrs' slotted copy leaves the class it replaced behind
        if "kind" in cls.__dict__ and globals().get(cls.__name__) is cls:
            out.append(cls)
    return tuple(out)
