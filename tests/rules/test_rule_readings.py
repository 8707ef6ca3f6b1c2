"""Issue 31, the rule readings: each test quotes its clause and failed before the reading
changed (docs/rules.md says what changed and why)."""

from __future__ import annotations

import pytest

from tests.logtext import run
from tests.scenes import GUARD, WARDEN, setup

A = '[server]\nrulebook = ["001", "000"]\n'
B = '[server]\nrulebook = ["004", "000"]\n'


# --- 001 Общие 18: the word list is whole words and their forms -----------------------------


@pytest.mark.parametrize(("line", "caught"), [
    ("ну ты и лох", True), ("лоха опять убили", True), ("эти лохи не умеют", True),
    ("лохматый опять в клетке", False), ("чмоки всем", False), ("ты чмо", True),
    ("сука опять", True), ("суки", True), ("Сукачёв лучший певец", False),
    ("дебилы", True), ("дебют неплохой", False), ("пиздец", True), ("cyka", True),
    ("похуй", True), ("херсон", False), ("уроды", True), ("уродливый скин", False),
])
def test_001_general_18_a_word_of_the_list_in_any_form_but_never_a_longer_word(line, caught):
    """001 Общие 18 «Неадекватное поведение (Маты, оскорбления, споры, ссоры) [Кик/Бан до 3
    часов]»: «лох» is «лоха», «лохи»; «лохматый» and «чмоки» are no insult."""
    log, ts = setup()
    log.say(ts[0], line)
    actions, _ = run(A, log)
    assert [(a.action, a.rule) for a in actions] == ([("propose", "conduct.language")] if caught else [])


def test_001_general_18_the_list_is_the_servers_words_and_roots():
    log, ts = setup()
    log.say(ts[0], "ты козлина").say(ts[1], "козлы").say(ts[2], "козёл")
    assert run(A, log)[0] == []
    actions, _ = run(A + '[conduct.language]\nwords = ["козел"]\n', log)
    assert [a.target.userid for a in actions] == [ts[1].userid, ts[2].userid]  # «козлы», «козёл»: the word's forms
    actions, _ = run(A + '[conduct.language]\nwords = ["коз*"]\n', log)
    assert [a.target.userid for a in actions] == [t.userid for t in ts[:3]]  # a root: every word beginning so
