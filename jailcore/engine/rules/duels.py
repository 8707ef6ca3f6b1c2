"""The last prisoner's duels (rulebook 001, last prisoner and duels), opt-in.

- `lastrequest.one_wish`: ПЗ 2 «Одна дуэль с Охранником - одно желание заключённого»: a
  second request (`jb_lr`) by the same prisoner before he has won a duel (killed a guard)
  since his first is void; he is told so.
- `lastrequest.duel_stakes`: Дуэли 4 «Дуэль можно играть только на одиночное Фд, Голос,
  деньги (себе или другому заключенному). А так же, просто так.» and «Дуэль на
  дробовиках играется ПРОСТО ТАК.»: «только» closes the list: a duel's request that names
  another stake (`forbidden`: a general freeday, a place among the guards, immortality...;
  or any «на …», «за …» that is not the duel's weapon, a place, a manner, nor one of the
  `allowed`: a respawn, a weapon, a skin) or a shotgun duel with any stake; the prisoner
  is told the duel is played «просто так». The stake is read from free text: the ladder is
  a warning, and a server may send it to an admin (`confirm`).
"""

from __future__ import annotations

import re

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import CT, T
from jailcore.engine.words import WordList, reading, words_of
from jailcore.log import events as ev


class OneWish(Rule["OneWish.Settings", "OneWish.State"]):
    key = "lastrequest.one_wish"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "ПЗ 2"
        ladder: Ladder = steps("warn")

    @attrs.define
    class State:
        wished: list[int] = attrs.Factory(list)  # prisoners with a request and no duel won since

    @handles(ev.LastRequest)
    def chosen(self, ctx: Context, e: ev.LastRequest) -> list[Action]:
        seat = ctx.seat(e.player)
        if seat.team != T:
            return []
        if seat.userid not in self.state.wished:
            self.state.wished.append(seat.userid)
            return []
        return ctx.punish(self.key, seat, ctx.text("lastrequest.one_wish", choice=e.choice))

    @handles(ev.Killed)
    def killed(self, ctx: Context, e: ev.Killed) -> list[Action]:
        s = ctx.state
        killer, victim = s.players.get(e.killer.userid), s.players.get(e.victim.userid)
        if killer is not None and victim is not None and victim.team == CT and killer.userid in self.state.wished:
            self.state.wished.remove(killer.userid)  # a duel won: the next one earns a wish of its own
        return []

    def round_cleared(self, ctx: Context) -> None:
        self.state.wished = []


# The words of a duel's request (`engine/words.py` lists: a word in its forms, `root*`).
# The clause's stakes: a single freeday, the voice, money (a sum is money too).
ALLOWED = ("фд", "фдшка", "freeday", "fd", "день", "голос", "войс", "voice", "мик*", "деньги", "бабки", "бабло", "money", "cash",
           "доллар", "бакс*", "рубл*", "$")
# The duel's instrument, not its stake: «дуэль на ножах», «на awp».
WEAPONS = ("нож", "knife*", "kniv*", "дигл*", "deagle*", "desert*", "awp", "авп*", "скаут*", "scout*", "ssg*", "калаш*", "ак", "ak*",
           "m4*", "м4*", "usp*", "юсп*", "glock*", "глок*", "пистолет", "pistol*", "автомат", "снайп*", "винтовка", "дробовик", "шотган*",
           "shotgun*", "nova", "xm1014", "m3", "граната", "grenade*", "зевс*", "zeus*", "taser*", "тазер*", "кулак", "fist*", "famas*",
           "фамас*", "galil*", "галил*", "aug", "p90", "ump*", "negev*", "негев*", "m249", "пулемет", "revolver*", "револьвер", "r8",
           "тэйзер*", "scar*", "сг", "sg*", "mp*", "elite*", "элитк*", "berett*", "беретт*", "five*", "p250", "p2000", "tec*", "cz*")
# What follows «на» and says how the duel is played, not for what.
MANNER = ("интерес", "выживание", "смерть", "вылет", "время", "скорость", "точность", "хедшот*", "хэдшот*", "headshot*", "hs",
          "прыжок", "реакция", "что", "ничто")
_STAKE_WORDS = frozenset({"на", "за", "for", "on"})
_PLACE_CASES = frozenset({"loct", "loc2", "ablt", "datv"})  # «на крыше», «за клеткой»: where, not for what
_SKIPPED = frozenset({"ADJF", "ADJS", "PRTF", "NUMR"})  # «на одиночное фд»: the noun decides


def unnamed_stakes(text: str, allowed: WordList, weapons: WordList, manner: WordList) -> list[str]:
    """The stakes a duel's request names that are not `allowed`: each «на …», «за …» whose
    word is neither the duel's weapon (the first «на» weapon; «за» a weapon is a stake), nor
    a place («на крыше»), a pronoun («ни на что»), a manner («на интерес»), nor a stake of
    the list; a number is money. A request that names no duel and no weapon (a freeday wish,
    «ФД на следующий раунд») has no stake."""
    words = words_of(text)
    if not any(w.startswith(("дуэл", "дуел", "duel")) or weapons.has(w) for w in words):
        return []
    out, armed = [], False
    for i, word in enumerate(words):
        if word not in _STAKE_WORDS:
            continue
        phrase = words[i + 1:]
        phrase = phrase[:next((k for k, w in enumerate(phrase) if w in _STAKE_WORDS), len(phrase))]
        head = next((w for w in phrase if reading(w)[0] not in _SKIPPED), "")
        pos, case = reading(head) if head else ("", "")
        if weapons.has(head) and word in ("на", "on") and not armed:
            armed = True  # «дуэль на ножах»: what it is played with
            continue
        if not head or pos == "NPRO" or case in _PLACE_CASES or manner.has(head):
            continue
        if head[0].isdigit() or allowed.has(head):
            continue
        out.append(" ".join([word, *phrase]))
    return out


class DuelStakes(Rule["DuelStakes.Settings", None]):
    key = "lastrequest.duel_stakes"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Дуэли 4"
        # Stakes the clause does not name, read first: a freeday for everyone, a place among the
        # guards, immortality, the warden's role, privileges.
        forbidden: tuple[str, ...] = (
            r"(?i)общ\w*\s+(?:фд|freeday)", r"(?i)(?:фд|freeday)\s+(?:всем|для\s+всех|на\s+всех)", r"(?i)\bвсем\s+(?:фд|freeday)",
            r"(?i)\bза\s+кт\b", r"(?i)\bв\s+кт\b", r"(?i)бессмерт", r"(?i)\bначальник", r"(?i)\b(?:вип|vip|админ\w*)\b",
        )
        # «только на одиночное Фд, Голос, деньги»: the list is closed; any other stake is void
        allowed: tuple[str, ...] = ALLOWED
        weapons: tuple[str, ...] = WEAPONS
        manner: tuple[str, ...] = MANNER
        shotgun: str = r"(?i)дробовик|шотган|shotgun|\bnova\b|\bxm1014\b|\bm3\b|\bmag-?7\b|\bsawed"
        stake: str = r"(?i)(?:\bна\s+|\bfor\s+)(?:\w+\s+)?(?:фд|freeday|голос|voice|деньг|\d+\s*\$|\$)"
        ladder: Ladder = steps("warn")

    def __init__(self, settings: DuelStakes.Settings, state: None):
        super().__init__(settings, state)
        self._lists = (WordList.of(settings.allowed), WordList.of(settings.weapons), WordList.of(settings.manner))

    @handles(ev.LastRequest)
    def chosen(self, ctx: Context, e: ev.LastRequest) -> list[Action]:
        seat = ctx.seat(e.player)
        if seat.team != T:
            return []
        rule = self.settings
        for pattern in rule.forbidden:
            m = re.search(pattern, e.choice)
            if m:
                return ctx.punish(self.key, seat, ctx.text("lastrequest.duel_stakes", stake=m.group(0)))
        if re.search(rule.shotgun, e.choice) and re.search(rule.stake, e.choice):
            return ctx.punish(self.key, seat, ctx.text("lastrequest.duel_shotgun"))
        unnamed = unnamed_stakes(e.choice, *self._lists)
        if unnamed:
            return ctx.punish(self.key, seat, ctx.text("lastrequest.duel_stakes", stake=unnamed[0]))
        return []
