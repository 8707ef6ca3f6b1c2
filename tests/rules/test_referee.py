"""Scenarios for referee: the chat games of 000 VI, written from the rulebooks."""

from __future__ import annotations

import pytest

from jailcore.engine.referee import NotArithmetic, evaluate
from tests.logtext import run
from tests.scenes import WARDEN, setup


def referee(game: str, lines, lang: str = "en", prisoners: int = 6) -> list[str]:
    log, ts = setup(prisoners)
    log.game(WARDEN, game)
    for who, text in lines:
        log.say(WARDEN if who == "W" else ts[who], text)
    actions, _ = run(f"[server]\nlanguage = '{lang}'\n", log)
    return [a.reason for a in actions if a.rule == "referee"]


def test_n18_a_b_reversed_combination():
    (verdict,) = referee("А-б", [("W", "абба"), (0, "абба"), (1, "бааб"), (2, "бааб")], lang="ru")
    assert "«бааб»: первым ответил T1" in verdict and "T0: «абба», T1: «бааб»" in verdict


def test_n18_a_b_at_most_five_letters():
    assert referee("А-б", [("W", "аббааб"), (0, "абббаа")]) == []


def test_n18_alphabet_and_colour_codes_do_not_hide_the_answer():
    (verdict,) = referee("Алфавит", [("W", "к"), (0, "м"), (1, "\x04л\x01")])
    assert "'л': first right answer by T1" in verdict


def test_n18_maths():
    (verdict,) = referee("Математика", [("W", "2+2*2"), (0, "8"), (1, "6")])
    assert "'6': first right answer by T1" in verdict


def test_n18_intuition_closest_ties_to_the_first():
    (verdict,) = referee("Интуиция", [(0, "30"), (1, "26"), (2, "28"), ("W", "27")])
    assert "closest T1 (26)" in verdict


@pytest.mark.parametrize(
    ("throws", "winner"),
    [
        (["камень", "ножницы"], "T0"),
        (["бумага", "бумага", "камень", "камень", "ножницы", "камень"], "T1"),
        (["бумага", "бумага", "камень", "камень", "ножницы", "ножницы"], None),
    ],
)
def test_n18_rock_paper_scissors_at_most_two_draws(throws, winner):
    verdicts = referee("Камень-ножницы-бумага", [(i % 2, t) for i, t in enumerate(throws)])
    last = verdicts[-1]
    if winner:
        assert last.split("] ", 1)[1].startswith(f"Камень-ножницы-бумага: {winner}:") and "beats" in last
    else:
        assert "both lose" in last


@pytest.mark.parametrize("text", ["__import__('os')", "2**99999", "1/0", "a+1", "()", "9" * 100])
def test_n18_the_evaluator_refuses_anything_but_arithmetic(text):
    with pytest.raises(NotArithmetic):
        evaluate(text)


def test_third_wheel_the_first_name_chosen_twice_dies():
    """000 «Третий лишний»: «З пишут в чат имя З которого хотят убить, пишется по одному
    разу, при Одинаковом выборе, выбранный умирает»."""
    (verdict,) = referee("Третий лишний", [(0, "T3"), (1, "T4"), (0, "T4"), (2, "t3")], lang="ru")
    assert "«T3» выбран дважды (T0, затем T2)" in verdict and "T0: «T3», T1: «T4», T2: «T3»" in verdict


def test_american_the_first_plus_or_ya():
    """000 «Американец»: «Первый, кто напишет в чат "+" или "я", становится американцем»."""
    (verdict,) = referee("Американец", [(0, "хочу"), (1, "я"), (2, "+")])
    assert verdict.endswith("first to write 'я': T1 is the American")


def test_communism_the_tsar_is_shot_on_more_minuses():
    """000 «Коммунизм»: «желающие расстрелять царя ставят "-"; желающие пощадить "+"; при
    перевесе минусов царя убивают, при перевесе плюсов или равенстве царь… остается в живых»."""
    (shot,) = referee("Коммунизм", [("W", "голосуем"), (0, "-"), (1, "-"), (2, "+"), (0, "+"), ("W", "итог")], prisoners=8)
    assert "'-' 2 (T0, T1), '+' 1 (T2): the tsar is shot" in shot
    (spared,) = referee("Коммунизм", [("W", "голосуем"), (0, "-"), (2, "+"), ("W", "итог")], prisoners=8)
    assert spared.endswith("the tsar lives")


def test_king_judges_the_prisoner_who_spoke_last():
    """000 «Король»: «Король оценивает… путём написания в чат "-", либо "+". В случае минуса З умирает»."""
    verdicts = referee("Король", [(1, "машина"), (0, "-"), (2, "еда"), (0, "+")])
    assert [v.split(": ", 1)[1] for v in verdicts] == ["king T0: '-': T1 dies", "king T0: '+': T2 lives"]
