"""`conduct.language`: 001 Общие 18 «Неадекватное поведение (Маты, оскорбления, споры, ссоры)
[Кик/Бан до 3 часов]»: a chat line with a word of the list (`words`: whole words, each in
all its forms, and `root*` entries for the obscene roots; `engine/words.py`) is put to an
admin. «лох» is «лоха», «лохи», never «лохматый»; «чмо» is never «чмоки». Whether a line
is an insult or a quarrel is judgement: the rule always waits for an admin's word
(`confirm = "admin"`), and one question at a time per player."""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.rules.base import Rule, handles
from jailcore.engine.rules.conduct import OFFENSIVE
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.words import WordList
from jailcore.log import events as ev

# Beside the insults the names rule knows: the commonest мат and direct insults.
WORDS = (*OFFENSIVE, "блять", "ебал*", "ебу", "заеб*", "выеб*", "уеб*", "хер", "херня", "нахуй", "похуй", "долбоеб*",
         "дебил", "идиот", "урод", "чмо", "даун", "лох", "тварь", "мразь", "ублюдок")


class Language(Rule["Language.Settings", None]):
    key = "conduct.language"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "Общие 18"
        confirm: str = attrs.field(default="admin", metadata={"choices": ("admin", "none")})
        words: tuple[str, ...] = WORDS  # the server's own list: words (in all their forms) and `root*`s
        ladder: Ladder = steps("kick", "ban 180m")

    def __init__(self, settings: Language.Settings, state: None):
        super().__init__(settings, state)
        self._words = WordList.of(settings.words)

    @handles(ev.Chat)
    def said(self, ctx: Context, e: ev.Chat) -> list[Action]:
        if e.player.userid == 0 or not self._words.found(e.text):
            return []
        return ctx.punish(self.key, ctx.seat(e.player), ctx.text("conduct.language", text=e.text[:80]))
