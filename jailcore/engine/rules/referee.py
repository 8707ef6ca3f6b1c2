"""`referee`: the chat games of 000 VI judged from chat order alone (А-б, Алфавит,
Математика, Интуиция, Камень-ножницы-бумага, Третий лишний, Американец, and the «+»/«−» of
Коммунизм, Король and Сталин), with the evidence. The judging itself is
`jailcore/engine/referee.py`; this rule feeds it the chat of the game it was started for."""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.ledger import Entry, GameDecided
from jailcore.engine.referee import JUDGED, Round
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.settings import RuleSettings
from jailcore.engine.state import T
from jailcore.log import events as ev

# A verdict's yes/no facts, worded in the server's language.
_OUTCOMES = {
    "shot": ("referee.tally.shot", "referee.tally.spared", "outcome"),
    "dies": ("fate.dies", "fate.lives", "fate"),
    "shoot": ("fate.shoot", "fate.spare", "fate"),
}


class Referee(Rule["Referee.Settings", "Referee.State"]):
    key = "referee"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "VI"

    @attrs.define
    class State:
        game: Round | None = None
        started: str = ""  # the game run it judges: another game, or none, ends the judging

    @handles(ev.GameStarted)
    def started(self, ctx: Context, e: ev.GameStarted) -> list[Action]:
        game = ctx.state.game
        if game is not None and game.name in JUDGED:
            self.state.game, self.state.started = Round(game.name, game.host), game.started
        else:
            self.state.game, self.state.started = None, ""
        return []

    @handles(ev.Chat)
    def chat(self, ctx: Context, e: ev.Chat) -> list[Action | Entry]:
        judging, game = self.state.game, ctx.state.game
        if judging is None or judging.done:
            return []
        if game is None or game.host != judging.host or game.started != self.state.started:
            self.state.game = None  # the game ended (its host or the warden died)
            return []
        seat = ctx.state.players[e.player.userid]
        if seat.userid == judging.host:
            verdict = judging.host_says(e.text)
        elif seat.team != T or not seat.alive:
            return []  # 000: «З пишут ответ»: the prisoners in the game answer, not a guard nor the dead
        else:
            prisoners = {p.userid: p.name for p in ctx.alive(T)}
            verdict = judging.player_says(seat.userid, seat.name, e.text, prisoners)
        if verdict is None:
            return []
        decided: list[Action | Entry] = [GameDecided()] if verdict.kind not in ("draw",) else []  # 004 5.11's winners: an outcome named
        values = dict(verdict.values)
        for flag, (yes, no, slot) in _OUTCOMES.items():
            if flag in values:
                values[slot] = ctx.text(yes if values.pop(flag) else no)
        text = ctx.text("referee", game=judging.game, text=ctx.text(f"referee.{verdict.kind}", **values))
        return [*decided, ctx.announce(self.key, self.settings, text)]

    @handles(ev.GameEnded)
    def ended(self, ctx: Context, e: ev.GameEnded) -> list[Action]:
        self.state.game = None
        return []

    def round_cleared(self, ctx: Context) -> None:
        self.state.game = None
