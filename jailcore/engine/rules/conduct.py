"""How players behave (rulebook 001, general and privileges).

- `conduct.privileges`: privileges 1 «Любые привилегии до 1 приказа Начальника» (money,
  voice and freeday allowed).
- `conduct.teamkill`: general 17 «Намеренно убивать членов команды» (not on special days
  and in global games, where teammates may be set against each other).
- `conduct.advertising`: general 19 «Рекламировать что либо»; links to the domains of
  `allowed_domains` (Steam's own, the server's site) are not advertising: a prisoner who
  posts a Steam profile to report a cheater is helping.
- `conduct.names`: general 16 «…непонятные, оскорбительные, тяжело читаемые ники, выдавать
  себя за администратора или за другого игрока»: unreadable, admin-like («Админ Вася»,
  «[ADMIN]», «Модератор»), offensive (a short word list) or copied names.
Both judge what a player wrote: the shipped configs send them to an admin (`confirm`).
- `conduct.grenade_spam`: general 22 «"Спамить" любыми гранатами»: more than 3 in 10 s.
"""

from __future__ import annotations

import re

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.ledger import Entry, FirstCommand
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.rules.common import open_fight
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import CT, Seat, T
from jailcore.engine.words import WordList
from jailcore.log import events as ev

# A name wearing a staff tag: "[ADMIN] Вася", "(Админ)Петя", "|Модер| X", "Admin | Y".
ADMIN_TAG = r"(?i)(?:^|[\[\(\{<|])\s*(?:admin|админ|модер|moder|staff|owner|владелец)\w*\s*(?:[\]\)\}>|]|$)"
# A staff title as a word of the name: "Админ Вася", "Администратор Вася", "Модератор",
# "Гл.Админ"; not "Badminton" or "Адмирал".
ADMIN_WORD = r"(?i)(?<![^\W\d_])(?:админ\w*|администратор\w*|модер|модератор\w*|admin\w*|moder|moderator\w*)(?![^\W\d_])"
# The commonest insults (`engine/words.py`: a word in any of its forms, `root*` every word
# beginning so: «Барсук», «рубля» or «Сукачёв» never match); a server adds its own in `offensive`.
OFFENSIVE = ("хуй*", "хуе*", "пизд*", "ебан*", "ебат*", "еблан*", "бляд*", "блят*", "сука", "пидор*", "пидар*",
             "гандон", "мудак", "шлюха", "fuck*", "shit*", "bitch*", "nigger*", "faggot*")


class Privileges(Rule["Privileges.Settings", None]):
    key = "conduct.privileges"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Привилегии 1"
        allowed: tuple[str, ...] = ("money", "voice", "freeday")
        ladder: Ladder = steps("slay")

    @handles(ev.GameStarted, ev.ProhibitionSet, ev.SpecialDay)
    def commanded(self, ctx: Context, e: ev.GameStarted | ev.ProhibitionSet | ev.SpecialDay) -> list[Action | Entry]:
        """A game the warden announces, a prohibition he sets, a special day he declares, is a
        command of his as an order is: «до 1 приказа Начальника» is over (a warden who gives
        his orders by voice and registers only his game)."""
        return [FirstCommand()] if ctx.seat(e.player).userid == ctx.state.warden else []

    @handles(ev.PrivilegeUsed)
    def used(self, ctx: Context, e: ev.PrivilegeUsed) -> list[Action]:
        s = ctx.state
        # 001 ФД 2 «Во время ФД … действуют все правила, кроме тех, что связывают Зеков и
        # приказы»: a freeday has no first order to wait for.
        if not s.round_open or s.first_order or s.freeday or e.privilege in self.settings.allowed:
            return []
        return ctx.punish(self.key, ctx.seat(e.player), ctx.text("conduct.privileges", kind=e.privilege))


class Teamkill(Rule["Teamkill.Settings", None]):
    key = "conduct.teamkill"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Общие 17"
        # «Намеренно» is intent, which the log cannot see: an admin confirms the kick and the ban
        confirm: str = attrs.field(default="admin", metadata={"choices": ("admin", "none")})
        # «Намеренно»: a grenade's or a fire's kill of a team mate shows no intent
        unintended: tuple[str, ...] = ("hegrenade", "inferno", "molotov", "incgrenade", "env_explosion", "world")
        ladder: Ladder = steps("slay", "kick", "ban 15m")

    @handles(ev.Killed)
    def killed(self, ctx: Context, e: ev.Killed) -> list[Action]:
        s = ctx.state
        killer, victim = s.players[e.killer.userid], s.players[e.victim.userid]
        if killer.userid == victim.userid or killer.team != victim.team or killer.team not in (CT, T):
            return []
        if e.weapon in self.settings.unintended:
            return []
        if open_fight(s):
            return []
        return ctx.punish(self.key, killer, ctx.text("conduct.teamkill", victim=victim.name))


class Advertising(Rule["Advertising.Settings", None]):
    key = "conduct.advertising"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Общие 19"
        patterns: tuple[str, ...] = (
            r"(?i)\b(?:https?://|www\.)\S+",
            r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{2,5})?\b",
            r"(?i)\b[\w-]+\.(?:ru|com|net|org|su|pro|gg)\b",
        )
        # Never advertising: Steam's own pages (a profile posted to report a cheater) and
        # the server's own site or address, which a server adds here. A domain covers its
        # subdomains; an address may carry its port.
        allowed_domains: tuple[str, ...] = ("steamcommunity.com", "s.team", "steampowered.com")
        ladder: Ladder = steps("ban 0")

    def __init__(self, settings: Advertising.Settings, state: None):
        super().__init__(settings, state)
        # Every chat line meets these: compiled and folded once, at (re)configuration.
        self._patterns = tuple(re.compile(p) for p in settings.patterns)
        self._domains = tuple(d for d in (x.strip().casefold() for x in settings.allowed_domains) if d)

    @handles(ev.Chat)
    def chat(self, ctx: Context, e: ev.Chat) -> list[Action]:
        if e.player.userid == 0:
            return []
        for pattern in self._patterns:
            for m in pattern.finditer(e.text):
                if not allowed(m.group(0), self._domains):
                    return ctx.punish(self.key, ctx.seat(e.player), ctx.text("conduct.advertising", text=m.group(0)))
        return []


_SCHEME = re.compile(r"(?i)^[a-z][a-z0-9+.-]*://")


def host_of(link: str) -> str:
    """The host a link names: `https://user@Www.Site.ru:80/x?y` -> `www.site.ru`."""
    rest = _SCHEME.sub("", link.strip())
    rest = re.split(r"[/?#\\]", rest, maxsplit=1)[0]
    rest = rest.rsplit("@", 1)[-1]
    host = rest.split(":", 1)[0] if rest.count(":") == 1 else rest
    return host.strip(".,!?;)'\"»").casefold()


def allowed(link: str, domains: tuple[str, ...]) -> bool:
    """Whether a link goes to one of `domains` (stripped, case-folded, none empty)."""
    host = host_of(link)
    whole = link.strip().casefold()
    return any(host == d or host.endswith("." + d) or whole == d for d in domains)


class Names(Rule["Names.Settings", None]):
    key = "conduct.names"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Общие 16"
        patterns: tuple[str, ...] = (ADMIN_TAG, ADMIN_WORD, r"(?i)^\s*console\s*$")
        offensive: tuple[str, ...] = OFFENSIVE  # words (each in all its forms) and `root*`s
        ladder: Ladder = steps("kick")

    def __init__(self, settings: Names.Settings, state: None):
        super().__init__(settings, state)
        self._patterns = tuple(re.compile(p) for p in settings.patterns)
        self._offensive = WordList.of(settings.offensive)

    @handles(ev.Connected, ev.NameChanged)
    def named(self, ctx: Context, e: ev.Connected | ev.NameChanged) -> list[Action]:
        seat = ctx.state.players[e.player.userid]
        why = self._why(ctx, seat)
        return ctx.punish(self.key, seat, why) if why else []

    def _why(self, ctx: Context, seat: Seat) -> str | None:
        if seat.userid == 0 or seat.steamid == "BOT":
            return None
        name = seat.name
        if not any(ch.isalnum() for ch in name):
            return ctx.text("conduct.names.unreadable", name=name)
        if any(p.search(name) for p in self._patterns):
            return ctx.text("conduct.names.admin", name=name)
        if self._offensive.found(name):
            return ctx.text("conduct.names.offensive", name=name)
        folded = name.casefold().strip()
        others = (p for p in ctx.state.players.values() if p.userid != seat.userid and p.steamid != seat.steamid)
        if any(p.name.casefold().strip() == folded for p in others):
            return ctx.text("conduct.names.copy", name=name)
        return None


class GrenadeSpam(Rule["GrenadeSpam.Settings", "GrenadeSpam.State"]):
    key = "conduct.grenade_spam"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Общие 22"
        count: int = 3
        seconds: int = 10
        ladder: Ladder = steps("slay", "ban 10m")

    @attrs.define
    class State:
        thrown: dict[str, list[str]] = attrs.Factory(dict)  # player key -> times of his recent grenades

    @handles(ev.Threw)
    def threw(self, ctx: Context, e: ev.Threw) -> list[Action]:
        s = ctx.state
        seat, rule = ctx.seat(e.player), self.settings
        if open_fight(s) or s.last_request or seat.userid in s.rebels:
            # the day's, the global game's or the last request's own fight, not a flood; and Общие
            # 9 «Любая брошенная граната в сторону КТ приравнивается к бунту»: a rebel's are his rebellion
            return []
        times = [t for t in self.state.thrown.get(seat.key, ()) if ctx.seconds_since(t) <= rule.seconds]
        times.append(e.time)
        if len(times) > rule.count:
            self.state.thrown.pop(seat.key, None)
            return ctx.punish(self.key, seat, ctx.text("conduct.grenade_spam", count=len(times), seconds=rule.seconds))
        self.state.thrown[seat.key] = times
        return []

    @handles(ev.Disconnected)
    def left(self, ctx: Context, e: ev.Disconnected) -> list[Action]:
        # His grenade window goes with him: a server that sees thousands of players a day
        # keeps only those here now (a reconnect within the window starts it again).
        self.state.thrown.pop(ev.player_key(e.player.steamid, e.player.userid), None)
        return []

    def round_cleared(self, ctx: Context) -> None:
        # Only throws inside the window can count again: the rest is forgotten, so the
        # table stays as small as the players throwing right now.
        window = self.settings.seconds
        self.state.thrown = {k: v for k, v in self.state.thrown.items() if v and ctx.seconds_since(v[-1]) <= window}
