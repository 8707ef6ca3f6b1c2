"""The game catalogue: the rulebooks' mini-games with their names, aliases and tags.

Seed 000 section VI is the source, plus the games that 004 5.17 names. Tags:
`chat` (won by writing in chat), `turn_based` (prisoners one at a time, in turn, more
than one attempt: what 004 5.18 limits), `global` (a whole-map game, 001 global 1),
`host_kills` (000 «Убивает только Начальник»: Саймон, Злой Саймон, Реакция), `half` (at
most half the prisoners may die, and the game ends when half have: 000 Король, Морской
бой), `cells` (the last volley may take more than the half: Морской бой's admiral names a
whole cell).
A warden types a game's name however he likes ("Играем в Математику", "кнб", "rps"),
so names are compared in a folded form: lower case, ё as е, letters and digits only,
and a Russian case ending is allowed to differ.

Checked against 004 5.17 and 5.18: «Первая-последняя реакция» contains both reactions of
5.17 and carries their limit. 5.18 («по одному, по очереди и имеют более одной попытки»)
adds «Метание дигла» («Оба по очереди метают дигл»: throw after throw, in turn) beyond
5.17's list; «Накорми надзирателей» and the good «Король» are one answer each. The tag is
also on 5.17's own «Дальность дропа», «Спичечный коробок», «3-литровая банка», which 000
does not describe.
«Мёртвый король» and «Коммунизм» open with «Король»'s choice of a king but are other
games, which 5.17 does not name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import attrs


@attrs.frozen
class Game:
    name: str
    aliases: tuple[str, ...] = ()
    tags: frozenset[str] = frozenset()
    min_players: int = 0
    # Games of a rulebook's own lists that this one contains: 000's «Первая-последняя
    # реакция» is both of 004 5.17's «Первая реакция» и «Последняя реакция».
    contains: tuple[str, ...] = ()
    # Its type (004 5.5 «однотипными играми», 001 Начальник обязан 5 «РАЗНООБРАЗНЫЕ»): the
    # games that are one game played with a twist (Саймон and Злой Саймон; the reactions).
    family: str = ""

    @property
    def kind(self) -> str:
        """What 5.5 compares: its type, or the game itself."""
        return self.family or self.name

    def named(self, names: frozenset[str]) -> bool:
        return self.name in names or any(n in names for n in self.contains)


def _g(name: str, aliases: str = "", tags: str = "", min_players: int = 0, contains: str = "", family: str = "") -> Game:
    def split(text: str) -> tuple[str, ...]:
        return tuple(x for x in text.split("|") if x)

    return Game(name, split(aliases), frozenset(t for t in tags.split() if t), min_players, split(contains), family)


DEFAULT_CATALOGUE = (
    _g("Саймон говорит", "саймон|simon says|simon", "host_kills", family="Саймон говорит"),
    _g("Злой Саймон говорит", "злой саймон|evil simon", "host_kills", family="Саймон говорит"),
    _g("А-б", "аб|а б|a-b|ab", "chat"),
    _g("Алфавит", "alphabet", "chat"),
    _g("Диктант", "dictation", "chat"),
    _g("Математика", "матан|math|maths", "chat"),
    _g("Светофор", "traffic light|red light green light"),
    _g("Накорми надзирателей", "накорми кт|feed the guards"),
    # 000 Король «Если З хочет быть добрым королём … Если З хочет быть злым королём»: one game
    _g("Король", "king|злой король|добрый король|король злой|король добрый", "chat half"),
    _g("Шарады", "charades", "chat"),
    _g("Реакция", "reaction", "host_kills", family="Реакция"),
    _g("Интуиция", "intuition", "chat"),
    _g("Третий лишний", "third wheel", "chat"),
    _g("Первая-последняя реакция", "первая последняя реакция|первая и последняя реакция|first last reaction",
       contains="Первая реакция|Последняя реакция",
       family="Реакция"),
    _g("Первая реакция", "first reaction", family="Реакция"),
    _g("Последняя реакция", "last reaction", family="Реакция"),
    _g("Сталин", "stalin"),
    _g("Камень-ножницы-бумага", "камень ножницы бумага|кнб|rock paper scissors|rps", "chat"),
    # 000 «Оба по очереди метают дигл»: in turn, throw after throw until one lands it: 004
    # 5.18's «по одному, по очереди и имеют более одной попытки», the one game of 000 it adds
    # beyond 5.17's list
    _g("Метание дигла", "дигл|deagle throw", "turn_based"),
    _g("Мёртвый король", "мертвый король|dead king"),
    _g("Американец", "american"),
    _g("Коммунизм", "communism", "", 7),
    # 004 5.16 «исключительно от возможности писать сообщения в чат»: the admiral names cells
    # in chat, but the game is won or lost where one stands, so no `chat` tag
    _g("Морской бой", "battleship", "half cells"),
    _g("Коко-Шанель", "коко шанель|coco chanel"),
    _g("Повар", "cook"),
    _g("Дальность дропа", "дроп|drop distance", "turn_based"),
    _g("Спичечный коробок", "коробок|matchbox", "turn_based"),
    _g("3-литровая банка", "банка|трехлитровая банка|3 litre jar|jar", "turn_based"),
    _g("Оборона", "defence|defense", "global"),
    _g("Прятки", "hide and seek|hns", "global"),
    _g("Голодные игры", "hunger games", "global"),
    _g("Чай-чай выручай", "чай чай|tea tea", "global"),
)

_NOT_WORD = re.compile(r"[\W_]+")
_LEAD = re.compile(r"^(?:давайте\s+)?(?:играем|сыграем|играть|игра|начинаем|game|play)\s+(?:в|во|in)?\s*", re.I)
_QUOTES = re.compile(r"[«»\"'“”„`‘’]")
_MARKER = re.compile(r"\b(?:играем|сыграем|играть|поиграем)\s+(?:в|во)\s+")
_QUOTED = re.compile(r"[«\"“„'‘]([^«»\"“”„'‘’]{2,40})[»\"”“'’]")


_CYRILLIC = re.compile(r"[а-я]")
# Latin letters that pass for Cyrillic, in a word that mixes the two («Кoроль» with a Latin o).
_LOOKALIKE = str.maketrans("aeopcxykmtbh", "аеорсхукмтвн")
# «Играем в 3 лишнего»: a number for the ordinal it stands for, tried when nothing else matched.
_ORDINALS = {"1": "первая", "1я": "первая", "3": "третий", "3й": "третий", "3ий": "третий"}


def _word(w: str) -> str:
    return w.translate(_LOOKALIKE) if _CYRILLIC.search(w) and re.search(r"[a-z]", w) else w


def _words(name: str) -> list[str]:
    """The words of a name as a warden types it: lower case, ё as е, quotes and «играем
    в» gone («Играем в "Алфавит"», «…'Американца'», «Играем в Мертвого Короля!»), Latin
    look-alikes in a Cyrillic word read as Cyrillic."""
    name = _QUOTES.sub(" ", name.lower().replace("ё", "е")).strip()
    return [_word(w) for w in _NOT_WORD.split(_LEAD.sub("", name)) if w]


def fold(name: str) -> str:
    return "".join(_words(name))


def _near(a: str, b: str, most: int) -> bool:
    """At most `most` letters typed wrong, left out or added (Levenshtein)."""
    if abs(len(a) - len(b)) > most:
        return False
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
        if min(row) > most:
            return False
    return row[-1] <= most


def _same_word(typed: str, label: str) -> bool:
    """One word in another Russian case: «Мертвого» is «Мертвый», «третьего» «третий»,
    «Американца» «Американец», «злого» «злой» (the dictionary's forms of it); or with a typo
    («кароль», «светафор», «комунизм»: one letter in a word of five or more, two in one of
    eight or more). Two different words of the dictionary are never one («кораблики» is no
    «король», «Сталкер» no «Сталин», «Королева» no «Король»). Short words must be written as
    they are."""
    if typed == label:
        return True
    if _CYRILLIC.match(label) and _CYRILLIC.match(typed) and len(label) >= 3:
        same, another = _lemma_of(typed, label)
        if same:
            return True
        if another:
            return False
    if len(label) >= 5 and _near(typed, label, 2 if len(label) >= 8 else 1):
        return True
    if len(label) < 4 or len(typed) < 4 or abs(len(typed) - len(label)) > 3:
        return False
    common = 0
    for a, b in zip(typed, label, strict=False):
        if a != b:
            break
        common += 1
    return common >= max(4, min(len(label), len(typed)) - 2)


def _lemma_of(typed: str, label: str) -> tuple[bool, bool]:
    """Whether `typed` is a form of `label`, and whether it is another word the dictionary
    knows (a first name is no word here: «кароль» is a typo of «король» before it is Karol)."""
    from jailcore.engine.words import forms, known_word  # (pymorphy3's dictionary: loaded at the first name it is needed for)

    if typed in forms(label):
        return True, True
    return False, known_word(typed)


class Catalogue:
    def __init__(self, games: Iterable[Game]):
        self.games = tuple(games)
        self._exact: dict[str, Game] = {}
        self._worded: list[tuple[list[str], Game]] = []
        for game in self.games:
            for label in (game.name, *game.aliases):
                self._exact.setdefault(fold(label), game)
                self._worded.append((_words(label), game))

    def find(self, typed: str) -> Game | None:
        game = self._find(typed)
        if game is not None:
            return game
        # «в короля», «на реакцию»: the preposition of «играем в …» left alone; «3 лишний»
        words = _words(typed)
        if words and words[0] in ("в", "во", "на") and len(words) > 1:
            return self._find(" ".join(words[1:]))
        if any(w in _ORDINALS for w in words):
            return self._find(" ".join(_ORDINALS.get(w, w) for w in words))
        return None

    def _find(self, typed: str) -> Game | None:
        key = fold(typed)
        if not key:
            return None
        game = self._exact.get(key)
        if game is not None:
            return game
        words = _words(typed)
        matches = {id(g): g for label, g in self._worded
                   if len(label) == len(words) and all(_same_word(w, x) for w, x in zip(words, label, strict=True))}
        if len(matches) == 1:
            return next(iter(matches.values()))
        # Russian case endings on a name written as one word: "Математику", "Короля".
        if len(key) >= 4:
            for label, game in self._exact.items():
                stem = label[:-1] if len(label) >= 5 else label
                if key.startswith(stem) and len(key) - len(label) <= 2 and len(label) >= 4 and _same_word(key, label):
                    return game
        # A whole start phrase with the game's name in quotes: 000 «Саймон говорит, что игра
        # «Саймон говорит» началась».
        quoted = {fold(q) for q in _QUOTED.findall(typed)} - {key}
        found = {id(g): g for g in (self._find(q) for q in quoted if q) if g is not None}
        if found:
            return next(iter(found.values())) if len(found) == 1 else None
        # «Сейчас играем в математику, все в линию»: the words after «играем в», the longest
        # run of them that names a game.
        m = _MARKER.search(typed.lower().replace("ё", "е"))
        if m is None:
            return None
        after = _words(typed.lower().replace("ё", "е")[m.end():].split(",")[0])
        for n in range(min(len(after), 4), 0, -1):
            game = self._find(" ".join(after[:n])) if n < len(after) or m.start() > 0 else None
            if game is not None:
                return game
        return None

    def mentions(self, text: str, name: str) -> bool:
        """Whether an order's text is the game's own: it names the game, or begins as the game's
        (or its type's) first word does («Саймон говорит: присесть» in Злой Саймон)."""
        game, named = self.find(name), self.find(text)
        if named is not None and game is not None and named.name == game.name:
            return True
        words = text.casefold().replace("ё", "е")
        firsts = {n.casefold().replace("ё", "е").split()[0] for n in (name, game.kind if game else "") if n.split()}
        return any((w[:-1] if len(w) > 4 else w) in words for w in firsts)

    def __iter__(self) -> Iterator[Game]:
        return iter(self.games)


@attrs.frozen
class OnlineLimit:
    """A server's online-based game restriction: above `more_than` players only `games` (its clause `ref`)."""

    more_than: int
    ref: str
    games: frozenset[str]
    tag: str
