"""Every rule jailcore knows, in the order the engine consults them.

The order matters where several rules see the same event: a join to CT meets the door
(CT bans) before the balance; a game is offered to its refusals from the most specific
(outside the catalogue, Monday) to the most general (the host, a repeat), and the first
refusal wins; a kill is judged as rebellion and teamkill before the game of a dead host
ends; the clocks tick in the order game, last prisoner, no warden.
"""

from __future__ import annotations

from .base import Rule
from .calendar import GlobalGames, Rebellion
from .conduct import Advertising, GrenadeSpam, Names, Privileges, Teamkill
from .ctban import CtBanDoor, ReturnBlock
from .fairness import Freekill
from .freedays import FreedayEnd, MondayFreeday, PersonalFreeday
from .games import (
    GaggedChatGame,
    GameDuration,
    HostDeath,
    HostIsWarden,
    MinPlayers,
    OnlineLimit,
    RepeatedGame,
    UnknownGame,
)
from .killing import GlobalSuicide, HalfMayDie, OnlyWardenKills
from .lastrequest import GuardSuicide, LastRequestTimeout
from .orders import Orders
from .prohibitions import MaxProhibitions
from .referee import Referee
from .specialday import SpecialDayCooldown
from .teams import Balance, NoWarden
from .warden import Immortality, LastPrisoner

ORDER: tuple[type[Rule], ...] = (
    CtBanDoor,
    ReturnBlock,
    Balance,
    Freekill,
    Rebellion,
    Teamkill,
    Advertising,
    Names,
    GrenadeSpam,
    Privileges,
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
    HostDeath,
    Orders,
    MaxProhibitions,
    SpecialDayCooldown,
    PersonalFreeday,
    FreedayEnd,
    LastRequestTimeout,
    GuardSuicide,
    NoWarden,
    Referee,
)

BY_KEY: dict[str, type[Rule]] = {rule.key: rule for rule in ORDER}
