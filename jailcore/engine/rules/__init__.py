"""Every rule jailcore knows, in the order the engine consults them.

The order matters where several rules see the same event: a join to CT meets the door
(CT bans) before the balance; a game is offered to its refusals from the most specific
(outside the catalogue, Monday) to the most general (the host, a repeat), and the first
refusal wins; a kill is judged as rebellion and teamkill before the game of a dead host
ends; the clocks tick in the order game, last prisoner, no warden.
"""

from __future__ import annotations

from typing import Any

from jailcore.engine.rules.base import Rule
from jailcore.engine.rules.calendar import GlobalGames, Rebellion
from jailcore.engine.rules.conduct import Advertising, GrenadeSpam, Names, Privileges, Teamkill
from jailcore.engine.rules.ctban import CtBanDoor, ReturnBlock
from jailcore.engine.rules.duels import DuelStakes, OneWish
from jailcore.engine.rules.explain import ExplainAbuse, ExplainKill
from jailcore.engine.rules.fairness import Freekill
from jailcore.engine.rules.freedays import FreedayEnd, MondayFreeday, PersonalFreeday
from jailcore.engine.rules.games import (
    GaggedChatGame,
    GameDuration,
    HostDeath,
    HostIsWarden,
    MinPlayers,
    OnlineLimit,
    RepeatedGame,
    UnknownGame,
)
from jailcore.engine.rules.guardfreekill import GuardFreekill
from jailcore.engine.rules.headstart import HeadStart
from jailcore.engine.rules.killing import GlobalSuicide, HalfMayDie, OnlyWardenKills
from jailcore.engine.rules.language import Language
from jailcore.engine.rules.lastrequest import GuardSuicide, LastRequestTimeout
from jailcore.engine.rules.orders import Orders
from jailcore.engine.rules.privileges import GamePrivileges
from jailcore.engine.rules.prohibitions import MaxProhibitions
from jailcore.engine.rules.referee import Referee
from jailcore.engine.rules.specialday import SpecialDayCooldown
from jailcore.engine.rules.teams import Balance, NoWarden
from jailcore.engine.rules.warden import Immortality, LastPrisoner

ORDER: tuple[type[Rule[Any, Any]], ...] = (
    CtBanDoor,
    ReturnBlock,
    Balance,
    Freekill,
    GuardFreekill,
    Rebellion,
    Teamkill,
    Advertising,
    Names,
    Language,
    GrenadeSpam,
    Privileges,
    GamePrivileges,
    Immortality,
    LastPrisoner,
    UnknownGame,
    MondayFreeday,
    OnlineLimit,
    MinPlayers,
    GlobalGames,
    HostIsWarden,
    GaggedChatGame,
    RepeatedGame,
    GameDuration,
    OnlyWardenKills,
    HalfMayDie,
    GlobalSuicide,
    HeadStart,
    HostDeath,
    Orders,
    MaxProhibitions,
    SpecialDayCooldown,
    PersonalFreeday,
    FreedayEnd,
    LastRequestTimeout,
    GuardSuicide,
    OneWish,
    DuelStakes,
    NoWarden,
    ExplainKill,
    ExplainAbuse,
    Referee,
)
