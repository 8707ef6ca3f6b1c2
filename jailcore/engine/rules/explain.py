"""004 4.8 «Охрана обязана объяснить причину убийства в чате, если заключённый требует
разъяснить причину своей смерти. Уточнение: запрещается злоупотреблять данным правилом и
требовать объяснений в очевидных ситуациях. Наказание за отказ: перевод за ТТ → блокировка
входа за КТ на 30 минут. Наказание за злоупотребление: устное предупреждение → бан до 30
минут.» Its two halves, two rules:

- `killing.explain` (the refusal): a prisoner killed by a guard who asks in chat (a word of
  `asks`) within `ask_seconds` of his death: his killer must write in chat within
  `seconds`; silence is the refusal, and so is leaving without a word (decided as any
  leaver: marked absent and carried out at his return, or put to an admin). Whether the line he wrote explains anything is an
  admin's judgement: the shipped server sends the punishment to an admin.
- `killing.explain_abuse` (the abuse): the same question where the log itself shows why he
  died, the two «очевидные ситуации» a machine can see: he had attacked a guard this round
  before his death (a rebel, «Исключение — Бунт»: the bookkeeping's rebels, so a special
  day's, a global game's or a duel's fight is none), or he died in his own last-request
  duel. His question is put to an admin, never punished by itself (`confirm = "admin"`
  by default): what else makes a situation obvious, and whether he asked to mock or to
  know, the log cannot tell. Such a question obliges no one: it is no refusal for
  `killing.explain`.
"""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import CT, Seat, T
from jailcore.log import events as ev
from jailcore.log.logtime import plus_seconds

ASKS = ("за что", "причин", "почему", "why", "зачем убил", "объясни")


def obvious(ctx: Context, victim: Seat) -> str:
    """The message key of why this prisoner's death (as he dies) needs no explaining, as the
    log shows it, or "": he attacked a guard this round, or he dies in his own
    last-request duel."""
    s = ctx.state
    if victim.userid in s.rebels:
        return "killing.explain_abuse.rebel"
    last = s.last_prisoner
    if s.last_request and last is not None and last.uid == victim.userid:
        return "killing.explain_abuse.duel"
    return ""


def asked(text: str, asks: tuple[str, ...]) -> bool:
    text = text.casefold()
    return any(a in text for a in asks)


class ExplainKill(Rule["ExplainKill.Settings", "ExplainKill.State"]):
    key = "killing.explain"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "4.8"
        seconds: int = 60  # the killer's time to answer
        ask_seconds: int = 120  # how long after his death a prisoner's question counts
        asks: tuple[str, ...] = ASKS
        ladder: Ladder = steps("teamswap", "ctban 30m")

    @attrs.define
    class State:
        killed: dict[int, tuple[int, str]] = attrs.Factory(dict)  # victim's userid -> (killer's userid, when)
        asked: dict[int, tuple[int, str]] = attrs.Factory(dict)  # killer's userid -> (victim's userid, when asked)
        # killer's userid -> (his steamid, his name, the victim's name) when asked: a killer who
        # leaves without a word is still decided, as any leaver (`punish.py`)
        who: dict[int, tuple[str, str, str]] = attrs.Factory(dict)

    @handles(ev.Killed)
    def killed(self, ctx: Context, e: ev.Killed) -> list[Action]:
        s = ctx.state
        killer, victim = s.players.get(e.killer.userid), s.players.get(e.victim.userid)
        if killer is not None and victim is not None and killer.team == CT and victim.team == T:
            if obvious(ctx, victim):
                self.state.killed.pop(victim.userid, None)  # «в очевидных ситуациях» no answer is owed
            else:
                self.state.killed[victim.userid] = (killer.userid, e.time)
        return []

    @handles(ev.Chat)
    def chat(self, ctx: Context, e: ev.Chat) -> list[Action]:
        mine, uid = self.state, e.player.userid
        if uid in mine.asked:
            del mine.asked[uid]  # the killer wrote: he answered
            mine.who.pop(uid, None)
            return []
        death = mine.killed.get(uid)
        if death is None or ctx.seconds_since(death[1]) > self.settings.ask_seconds or not asked(e.text, self.settings.asks):
            return []
        del mine.killed[uid]
        killer = ctx.state.players.get(death[0])
        if death[0] not in mine.asked and killer is not None:
            mine.asked[death[0]] = (uid, e.time)
            mine.who[death[0]] = (killer.steamid, killer.name, ctx.seat(e.player).name)
        return []

    def tick(self, ctx: Context, now: str) -> list[Action]:
        mine, out = self.state, []
        for killer_id, (victim_id, when) in list(mine.asked.items()):
            if now <= plus_seconds(when, self.settings.seconds):
                continue
            del mine.asked[killer_id]
            steamid, name, victim = mine.who.pop(killer_id, ("", "", ""))
            killer = ctx.state.players.get(killer_id)
            if killer is None and steamid:  # he left without a word: decided all the same
                gone = Seat(killer_id, steamid, name)
                killer = ctx.online(gone.key) or gone
            if killer is None:
                continue  # (a question saved before his name was kept, and he is gone)
            victim = victim or (ctx.player(victim_id) or Seat(victim_id, "", "?")).name
            text = ctx.text("killing.explain", victim=victim, killer=killer.name, seconds=self.settings.seconds)
            out += ctx.punish(self.key, killer, text)
        return out

    def round_cleared(self, ctx: Context) -> None:
        self.state.killed = {}  # a question is about this round's death; one asked stays until answered or due


class ExplainAbuse(Rule["ExplainAbuse.Settings", "ExplainAbuse.State"]):
    """4.8's abuse: a question about a death the log shows the reason of (`obvious`)."""

    key = "killing.explain_abuse"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "4.8"
        confirm: str = attrs.field(default="admin", metadata={"choices": ("admin", "none")})
        ask_seconds: int = 120  # how long after his death a question counts, as for the refusal
        asks: tuple[str, ...] = ASKS
        ladder: Ladder = steps("warn", "ban 30m")

    @attrs.define
    class State:
        # victim's userid -> (killer's name, when, the message key of why it is obvious)
        obvious: dict[int, tuple[str, str, str]] = attrs.Factory(dict)

    @handles(ev.Killed)
    def killed(self, ctx: Context, e: ev.Killed) -> list[Action]:
        s = ctx.state
        killer, victim = s.players.get(e.killer.userid), s.players.get(e.victim.userid)
        if killer is None or victim is None or killer.team != CT or victim.team != T:
            return []
        why = obvious(ctx, victim)
        if why:
            self.state.obvious[victim.userid] = (killer.name, e.time, why)
        else:
            self.state.obvious.pop(victim.userid, None)
        return []

    @handles(ev.Chat)
    def chat(self, ctx: Context, e: ev.Chat) -> list[Action]:
        death = self.state.obvious.get(e.player.userid)
        if death is None or not asked(e.text, self.settings.asks):
            return []
        del self.state.obvious[e.player.userid]  # one question, one proposal
        if ctx.seconds_since(death[1]) > self.settings.ask_seconds:
            return []
        seat = ctx.seat(e.player)
        text = ctx.text("killing.explain_abuse", victim=seat.name, killer=death[0], text=e.text[:80], why=ctx.text(death[2]))
        return ctx.punish(self.key, seat, text)

    def round_cleared(self, ctx: Context) -> None:
        self.state.obvious = {}
