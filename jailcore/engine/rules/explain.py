"""`killing.explain`: 004 4.8 «Охрана обязана объяснить причину убийства в чате, если
заключённый требует разъяснить причину своей смерти. … Наказание за отказ: перевод за ТТ →
блокировка входа за КТ на 30 минут.» A prisoner killed by a guard who asks in chat (a word of
`asks`) within `ask_seconds` of his death: his killer must write in chat within `seconds`;
silence is the refusal. Whether the line he wrote explains anything, and whether the
question was «в очевидных ситуациях» (the clause's abuse), is an admin's judgement: the
shipped server sends the punishment to an admin (`confirm = "admin"`)."""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import CT, T
from jailcore.log import events as ev
from jailcore.log.logtime import plus_seconds


class ExplainKill(Rule["ExplainKill.Settings", "ExplainKill.State"]):
    key = "killing.explain"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "4.8"
        seconds: int = 60  # the killer's time to answer
        ask_seconds: int = 120  # how long after his death a prisoner's question counts
        asks: tuple[str, ...] = ("за что", "причин", "почему", "why", "зачем убил", "объясни")
        ladder: Ladder = steps("teamswap", "ctban 30m")

    @attrs.define
    class State:
        killed: dict[int, tuple[int, str]] = attrs.Factory(dict)  # victim's userid -> (killer's userid, when)
        asked: dict[int, tuple[int, str]] = attrs.Factory(dict)  # killer's userid -> (victim's userid, when asked)

    @handles(ev.Killed)
    def killed(self, ctx: Context, e: ev.Killed) -> list[Action]:
        s = ctx.state
        killer, victim = s.players.get(e.killer.userid), s.players.get(e.victim.userid)
        if killer is not None and victim is not None and killer.team == CT and victim.team == T:
            self.state.killed[victim.userid] = (killer.userid, e.time)
        return []

    @handles(ev.Chat)
    def chat(self, ctx: Context, e: ev.Chat) -> list[Action]:
        mine, uid = self.state, e.player.userid
        if uid in mine.asked:
            del mine.asked[uid]  # the killer wrote: he answered
            return []
        death = mine.killed.get(uid)
        text = e.text.casefold()
        if death is None or ctx.seconds_since(death[1]) > self.settings.ask_seconds or not any(a in text for a in self.settings.asks):
            return []
        del mine.killed[uid]
        if death[0] not in mine.asked and death[0] in ctx.state.players:
            mine.asked[death[0]] = (uid, e.time)
        return []

    def tick(self, ctx: Context, now: str) -> list[Action]:
        mine, out = self.state, []
        for killer_id, (victim_id, when) in list(mine.asked.items()):
            if now <= plus_seconds(when, self.settings.seconds):
                continue
            del mine.asked[killer_id]
            killer, victim = ctx.state.players.get(killer_id), ctx.player(victim_id)
            if killer is None or victim is None:
                continue  # he has left: no answer could be asked of him
            text = ctx.text("killing.explain", victim=victim.name, killer=killer.name, seconds=self.settings.seconds)
            out += ctx.punish(self.key, killer, text)
        return out

    def round_cleared(self, ctx: Context) -> None:
        self.state.killed = {}  # a question is about this round's death; one asked stays until answered or due
