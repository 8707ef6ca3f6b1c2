"""A server's word lists (001 Общие 16 offensive names, Общие 18 мат и оскорбления), matched
as whole words in any of their forms.

An entry is a word, and it matches that word in each of its forms: «лох» is «лоха»,
«лохи», «лохом», never «лохматый»; «чмо» is never «чмоки». The forms come from pymorphy3's
dictionary of Russian (the lexeme of the entry's reading, built once per entry when the
list is read, so a chat line costs a few set look-ups, no analysis); a word the dictionary
lacks (slang, English) stands for itself. An entry ending in `*` is a root: every word
beginning so matches (`пизд*`), for the obscene roots whose every derivative is мат. Words
are compared case-folded, «ё» as «е», and once more with Latin look-alike letters read as
Cyrillic («cyka», «xуй»).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache, lru_cache
from typing import Any

import attrs

_WORD = re.compile(r"[^\W\d_]+")
_WORDS_AND_MONEY = re.compile(r"[^\W_]+|\$")
# Latin letters that pass for Cyrillic («xуй» with a Latin x).
_LOOKALIKE = str.maketrans("aeopcxyktmbh", "аеорсхуктмвн")


def fold(text: str) -> str:
    return text.casefold().replace("ё", "е")


@cache
def _analyzer() -> Any:
    import logging

    import pymorphy3  # (its dictionaries load in ~0.1 s: only where a word list is used)

    # Its dictionaries' loading says two INFO lines on the daemon's stderr, where an operator
    # reads one line for one thing (a refused port's line must be the only line).
    logging.getLogger("pymorphy3").setLevel(logging.WARNING)
    return pymorphy3.MorphAnalyzer()


@cache
def forms(word: str) -> frozenset[str]:
    """The word and its forms: the lexeme of its first reading in the dictionary (and of the
    other readings of that same word: «сука» the noun and the interjection, not «сук» the
    bough); a word the dictionary does not know is only itself."""
    word = fold(word)
    out = {word}
    parses = _analyzer().parse(word)
    top = parses[0] if parses else None
    if top is None or not top.is_known:
        return frozenset(out)
    for p in parses:
        if p.is_known and p.normal_form == top.normal_form:
            out.update(fold(f.word) for f in p.lexeme)
    return frozenset(out)


@lru_cache(maxsize=4096)
def reading(word: str) -> tuple[str, str]:
    """The part of speech and case of the word's likeliest reading in the dictionary
    («крыше»: NOUN loct), or ("", "") for a word it does not know (slang, Latin)."""
    parses = _analyzer().parse(fold(word))
    top = parses[0] if parses else None
    if top is None or not top.is_known:
        return "", ""
    return str(top.tag.POS or ""), str(top.tag.case or "")


def words_of(text: str) -> list[str]:
    """The words of a text, folded, numbers and «$» kept as words of their own."""
    found: list[str] = _WORDS_AND_MONEY.findall(fold(text))
    return found


@attrs.frozen
class WordList:
    words: frozenset[str]  # every form of the whole-word entries
    roots: tuple[str, ...]  # the `root*` entries, without the star

    @classmethod
    def of(cls, entries: Iterable[str]) -> WordList:
        words: set[str] = set()
        roots: list[str] = []
        for entry in entries:
            entry = fold(entry.strip())
            if entry.endswith("*") and entry.rstrip("*"):
                roots.append(entry.rstrip("*"))
            elif entry:
                words |= forms(entry)
        return cls(frozenset(words), tuple(roots))

    def has(self, word: str) -> bool:
        """Whether one word (folded) is on the list."""
        return word in self.words or bool(self.roots and word.startswith(self.roots))

    def found(self, text: str) -> str | None:
        """The first word of the text on the list, as written (folded), or None."""
        folded = fold(text)
        read = folded.translate(_LOOKALIKE)
        words: list[str] = _WORD.findall(folded) + (_WORD.findall(read) if read != folded else [])
        for word in words:
            if self.has(word):
                return word
        return None
