"""The referee for chat games (N18): who won, judged from chat order alone.

Pure functions and one small state machine per game; the engine feeds it the chat lines
of a running game and says whatever verdict comes back, with the evidence (who wrote what,
in what order). Chat colour codes and control bytes are removed before anything is read,
so they cannot hide a right answer. Arithmetic is evaluated by walking a parsed tree of
numbers and operators, never by `eval`.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from jailcore.log.errors import InputError

ALPHABET = "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u200b-\u200f\u2060\ufeff]")
_SPACES = re.compile(r"\s+")
ROCK, SCISSORS, PAPER = "камень", "ножницы", "бумага"
_RPS = {
    "камень": ROCK, "к": ROCK, "rock": ROCK, "r": ROCK,
    "ножницы": SCISSORS, "н": SCISSORS, "scissors": SCISSORS, "s": SCISSORS,
    "бумага": PAPER, "б": PAPER, "paper": PAPER, "p": PAPER,
}
_BEATS = {ROCK: SCISSORS, SCISSORS: PAPER, PAPER: ROCK}


def clean(text: str) -> str:
    return _SPACES.sub(" ", _CONTROL.sub("", text)).strip()


# --- arithmetic -----------------------------------------------------------------------------

_OPS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


class NotArithmetic(InputError):
    pass


def evaluate(expression: str) -> float:
    """The value of a warden's example ("2+2*2", "(7-3)^2", "10:4", "3×4")."""
    text = clean(expression).rstrip("=?").strip().replace("^", "**").replace("×", "*").replace("х", "*").replace("÷", "/")
    text = re.sub(r"(?<=\d)\s*:\s*(?=\d)", "/", text).replace(",", ".")
    if not text or len(text) > 80 or not re.fullmatch(r"[\d\s.+\-*/%()]+", text):
        raise NotArithmetic(expression)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise NotArithmetic(expression) from None
    return _walk(tree.body)


def _walk(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _walk(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _walk(node.left), _walk(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > 12 or abs(left) > 1e6):
            raise NotArithmetic("power too large")
        try:
            return _OPS[type(node.op)](left, right)
        except ZeroDivisionError:
            raise NotArithmetic("division by zero") from None
    raise NotArithmetic(ast.dump(node))


def _number(text: str) -> float | None:
    try:
        return float(clean(text).replace(",", "."))
    except ValueError:
        return None


# --- the games ------------------------------------------------------------------------------


@attrs.frozen
class Verdict:
    """What the referee saw. `kind` names the message (`referee.<kind>` in messages.py);
    `values` fill it: the evidence, in the players' own words and order."""

    winner: int | None  # userid; None when nobody (or both) lost
    kind: str
    values: dict[str, Any] = attrs.field(factory=dict)


@attrs.define
class Round:
    """One chat game in progress. `question` is set by the host's chat line."""

    game: str
    host: int
    question: str | None = None
    answers: list[tuple[int, str, str]] = attrs.field(factory=list)  # userid, name, text
    draws: int = 0
    done: bool = False

    def host_says(self, text: str) -> Verdict | None:
        text = clean(text)
        if self.game in VOTES:
            return self._new_question()
        if self.game == "Интуиция":
            value = _number(text)
            if value is None or not self.answers:
                return None
            return self._closest(value)
        if self._question_ok(text):
            self.question, self.answers, self.done = text.lower(), [], False
        return None

    def _question_ok(self, text: str) -> bool:
        if self.game == "А-б":
            return 1 <= len(text) <= 5 and set(text.lower()) <= {"а", "б"}
        if self.game == "Алфавит":
            return len(text) == 1 and text.lower() in ALPHABET
        if self.game == "Математика":
            try:
                evaluate(text)
            except NotArithmetic:
                return False
            return True
        return False

    def expected(self) -> str | None:
        q = self.question
        if q is None:
            return None
        if self.game == "А-б":
            return q.translate(str.maketrans("аб", "ба"))[::-1]
        if self.game == "Алфавит":
            i = ALPHABET.index(q)
            return ALPHABET[i + 1] if i + 1 < len(ALPHABET) else None
        if self.game == "Математика":
            value = evaluate(q)
            return _fmt(value)
        return None

    def player_says(self, userid: int, name: str, text: str, prisoners: Mapping[int, str] | None = None) -> Verdict | None:
        """A prisoner's chat line; `prisoners` (userid: name) are those still in the game,
        for the games in which a prisoner names another."""
        if self.done:
            return None
        text = clean(text)
        if self.game in VOTES:
            return self._vote(userid, name, text)
        if self.game == "Третий лишний":
            return self._third(userid, name, text, prisoners or {})
        if self.game == "Американец":
            if text.lower() not in ("+", "я"):
                return None
            self.done = True
            return Verdict(userid, "american", {"name": name, "text": text})
        if self.game == "Интуиция":
            if _number(text) is not None and all(u != userid for u, _, _ in self.answers):
                self.answers.append((userid, name, text))  # one guess each: the first counts
            return None
        if self.game == "Камень-ножницы-бумага":
            return self._rps(userid, name, text)
        want = self.expected()
        if want is None:
            return None
        self.answers.append((userid, name, text))
        if self.game == "Математика":
            got = _number(text)
            right = got is not None and abs(got - evaluate(self.question or "0")) < 1e-9
        else:
            right = text.lower().replace("ё", "е") == want.replace("ё", "е")
        if not right:
            return None
        self.done = True
        tried = ", ".join(f"{n}: «{t}»" for _, n, t in self.answers)
        return Verdict(userid, "first", {"question": self.question, "answer": want, "name": name, "order": tried})

    def _closest(self, value: float) -> Verdict:
        self.done = True
        best = min(self.answers, key=lambda a: abs(float(a[2].replace(",", ".")) - value))  # min keeps the first of a tie
        order = ", ".join(f"{n}: {t}" for _, n, t in self.answers)
        return Verdict(best[0], "closest", {"answer": _fmt(value), "name": best[1], "guess": best[2], "order": order})

    def _rps(self, userid: int, name: str, text: str) -> Verdict | None:
        choice = _RPS.get(text.lower())
        if choice is None:
            return None
        if any(u == userid for u, _, _ in self.answers):
            return None  # one throw each per try
        self.answers.append((userid, name, choice))
        if len(self.answers) < 2:
            return None
        (u1, n1, c1), (u2, n2, c2) = self.answers
        self.answers = []
        if c1 == c2:
            self.draws += 1
            values = {"a": n1, "b": n2, "choice": c1, "draws": self.draws}
            if self.draws > 2:
                self.done = True
                return Verdict(None, "both_lose", values)
            return Verdict(None, "draw", values)
        self.done = True
        if _BEATS[c2] == c1:
            (u1, n1, c1), (u2, n2, c2) = (u2, n2, c2), (u1, n1, c1)
        return Verdict(u1, "beats", {"winner": n1, "win": c1, "loser": n2, "lose": c2})


    # --- 000 «Третий лишний»: «З пишут в чат имя З которого хотят убить, пишется по одному
    # разу, при Одинаковом выборе, выбранный умирает»

    def _third(self, userid: int, name: str, text: str, prisoners: Mapping[int, str]) -> Verdict | None:
        if any(u == userid for u, _, _ in self.answers):
            return None  # «пишется по одному разу»: his first choice stands
        wanted = text.casefold()
        chosen = [n for u, n in prisoners.items() if u != userid and n.casefold() == wanted]
        if len(chosen) != 1:
            return None
        self.answers.append((userid, name, chosen[0]))
        first = [n for _, n, c in self.answers[:-1] if c == chosen[0]]
        if not first:
            return None
        self.done = True
        order = ", ".join(f"{n}: «{c}»" for _, n, c in self.answers)
        return Verdict(None, "third", {"target": chosen[0], "a": first[0], "b": name, "order": order})

    # --- the «+» / «−» of Коммунизм (the tsar: a majority of «−» shoots him), Король (the
    # king's word on the prisoner who spoke last) and Сталин (his word: «+» shoot, «−» spare)

    def _new_question(self) -> Verdict | None:
        votes, self.answers = self.answers, []
        if VOTES[self.game] != "majority" or not votes:
            return None
        minus = [n for _, n, v in votes if v == "-"]
        plus = [n for _, n, v in votes if v == "+"]
        return Verdict(None, "tally", {"minus": len(minus), "plus": len(plus), "minus_names": ", ".join(minus) or "-",
                                       "plus_names": ", ".join(plus) or "-", "shot": len(minus) > len(plus)})

    def _vote(self, userid: int, name: str, text: str) -> Verdict | None:
        sign = {"+": "+", "-": "-", "−": "-", "–": "-"}.get(text)
        mode = VOTES[self.game]
        if sign is None:
            if mode == "king":
                self.question = name  # the prisoner whose word the king judges next
            return None
        if mode == "majority":
            if all(u != userid for u, _, _ in self.answers):
                self.answers.append((userid, name, sign))  # one vote each: the first counts
            return None
        if mode == "king":
            if self.question is None or self.question == name:
                return None
            subject, self.question = self.question, None
            return Verdict(None, "king", {"king": name, "sign": sign, "subject": subject, "dies": sign == "-"})
        return Verdict(None, "stalin", {"name": name, "sign": sign, "shoot": sign == "+"})


VOTES = {"Коммунизм": "majority", "Король": "king", "Сталин": "stalin"}
JUDGED = ("А-б", "Алфавит", "Математика", "Интуиция", "Камень-ножницы-бумага", "Третий лишний", "Американец", *VOTES)


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
