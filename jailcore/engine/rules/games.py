"""Mini-games: who may start one, when, with how many players, and how long it may run.

A game announced with `jb_game_start` is offered to these rules in the engine's order; the
first that refuses it wins, and the game does not start.
- `games.unknown`: 000 6.0 «Любая нестандартная игра должна получить одобрение
  Администрации (Игры на картах не в счет)»: a game outside the catalogue, unless an admin
  approved it this round; the maps' own games (`map_games`) are never judged at all.
- `games.online_limit`: 004 5.17 (more than 8 prisoners), 5.18 (more than 13: turn-based).
- `games.min_players`: 000 «Коммунизм … Минимальное количество игроков: 7».
- `games.host`: 000 VI «Любую игру проводит только Начальник Тюрьмы».
- `games.gagged`: 004 5.16: no chat game while a prisoner is gagged.
- `games.repeat`: 004 5.5 «…не злоупотребляя однотипными играми и приказами», 001
  Начальник обязан 5 «Давать/Проводить интересные и РАЗНООБРАЗНЫЕ игры/приказы»: not the
  same warden's game of one type (under any name he types it) a third round in a row; his
  round's whole programme (orders and games) a third time is put to an admin.
- `games.duration`: 004 5.11: a reminder at 5 minutes; the host's ladder if the round ends
  with his game past 5 minutes and undecided (or, the other reading, winners by minute 5).
- `games.host_death`: 000 VI «Любая игра заканчивается тогда, когда умирает ведущий игры»
  (special days excepted).
"""

from __future__ import annotations

import attrs

from jailcore.engine.actions import Action
from jailcore.engine.catalogue import fold
from jailcore.engine.context import Context
from jailcore.engine.ledger import Entry, GameDecided, GameOver, GamePunished, GameReminded
from jailcore.engine.rules.base import Rule, handles, vetoes
from jailcore.engine.settings import Ladder, RuleSettings, choice, steps
from jailcore.engine.state import Seat, T
from jailcore.log import events as ev


class UnknownGame(Rule["UnknownGame.Settings", "UnknownGame.State"]):
    key = "games.unknown"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "6.0"
        ladder: Ladder = steps("warn")
        # «(Игры на картах не в счет)»: the games a server's maps run themselves, never judged
        map_games: tuple[str, ...] = ()

    @attrs.define
    class State:
        approved: list[str] = attrs.Factory(list)  # games an admin approved this round, folded

    @vetoes(ev.GameStarted)
    def unknown(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        if ctx.offered_game(e.game) is not None or fold(e.game) in self.state.approved:
            return None
        # A name the catalogue does not know may be a non-standard game, a map's own game or a
        # standard one typed its own way: «должна получить одобрение Администрации» is the
        # clause's own answer, so an admin judges (issue 31).
        return ctx.punish(self.key, ctx.seat(e.player), ctx.text("games.unknown", game=e.game), judgement=True)

    @handles(ev.GameApproved)
    def approved(self, ctx: Context, e: ev.GameApproved) -> list[Action]:
        self.state.approved.append(fold(e.game))
        return []

    def round_cleared(self, ctx: Context) -> None:
        self.state.approved = []


class OnlineLimit(Rule["OnlineLimit.Settings", None]):
    key = "games.online_limit"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "5.17"
        ladder: Ladder = steps("warn", "teamswap")

    @vetoes(ev.GameStarted)
    def too_many(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        game = ctx.offered_game(e.game)
        if game is None:
            return None
        prisoners = ctx.count(T)
        people = len([p for p in ctx.state.seats(T) if p.steamid != "BOT"])  # bots online: prisoners by one reading only
        for limit in ctx.config.online_limits:
            hit = game.named(limit.games) or (limit.tag and limit.tag in game.tags)
            if hit and prisoners > limit.more_than:
                text = ctx.text("games.online_limit", game=game.name, limit=limit.more_than, online=prisoners)
                return ctx.punish(self.key, ctx.seat(e.player), text, ref=limit.ref or None, judgement=people <= limit.more_than)
        return None


class MinPlayers(Rule["MinPlayers.Settings", None]):
    key = "games.min_players"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "VI"
        ladder: Ladder = steps("warn")

    @vetoes(ev.GameStarted)
    def too_few(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        game = ctx.offered_game(e.game)
        if game is None or not game.min_players:
            return None
        playing = ctx.count(T, alive_only=ctx.state.round_open)
        if playing >= game.min_players:
            return None
        # «Минимальное количество игроков»: the prisoners alive to play it; the team online is
        # the other reading, an admin's call
        text = ctx.text("games.min_players", game=game.name, need=game.min_players, have=playing)
        return ctx.punish(self.key, ctx.seat(e.player), text, judgement=ctx.count(T) >= game.min_players)


def _name(ctx: Context, e: ev.GameStarted) -> tuple[str, frozenset[str]]:
    game = ctx.offered_game(e.game)
    return (game.name, game.tags) if game else (e.game, frozenset())


class HostIsWarden(Rule["HostIsWarden.Settings", None]):
    key = "games.host"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "VI"
        ladder: Ladder = steps("warn")

    @vetoes(ev.GameStarted)
    def not_warden(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        seat = ctx.seat(e.player)
        if seat.userid == ctx.state.warden or seat.userid in ctx.state.moved:
            return None  # (a warden jailcore moved, before the log shows the move: no cascade)
        return ctx.punish(self.key, seat, ctx.text("games.host", game=_name(ctx, e)[0]))


class GaggedChatGame(Rule["GaggedChatGame.Settings", None]):
    key = "games.gagged"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "5.16"
        ladder: Ladder = steps("warn", "teamswap")

    @vetoes(ev.GameStarted)
    def gagged(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        name, tags = _name(ctx, e)
        gagged = [p.name for p in ctx.alive(T) if p.gagged] if "chat" in tags else []
        if not gagged:
            return None
        return ctx.punish(self.key, ctx.seat(e.player), ctx.text("games.gagged", game=name, names=", ".join(gagged)))


@attrs.define
class Programme:
    """What one warden gave in one round: his orders (folded) and his games' types."""

    round: int
    warden: str  # his key
    userid: int
    name: str
    orders: list[str] = attrs.Factory(list)
    games: list[str] = attrs.Factory(list)


class RepeatedGame(Rule["RepeatedGame.Settings", "RepeatedGame.State"]):
    """004 5.5 «Начальник обязан проводить интересные и разнообразные раунды, не
    злоупотребляя однотипными играми и приказами» (001 Начальник обязан 5 «Давать/Проводить
    интересные и РАЗНООБРАЗНЫЕ игры/приказы», the same duty) is about the round, and each
    warden's own: never other wardens' games.

    The clear case is the game: his game of one type (the catalogue's `family`, so Злой
    Саймон after Саймон, or «Король» typed as «king», is the same) a third round running
    climbs his ladder at that start, even if he leaves a second later. An order alone is no
    monotony: «строимся», «все в клетку» are every round's routine (001 «Правила
    Начальника: … 5. Приказ. 6. Отсчёт»). With `orders` on, the round's whole programme (the
    same orders, and the same games or none, as in each of his rounds before) a third round
    running is put to an admin when the round ends: whether rounds were «интересные» is
    his judgement, never a punishment by itself."""

    key = "games.repeat"
    HISTORY = 20  # rounds of games remembered; more than any `in_a_row` needs

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "5.5"
        in_a_row: int = 2
        orders: bool = False  # the round's whole programme repeating: a question for an admin
        ladder: Ladder = steps("warn", "teamswap")

    @attrs.define
    class State:
        games: list[tuple[int, str, str]] = attrs.Factory(list)  # (round, game, warden's key)
        # The layout before issue 18 (round, game), nobody's: a saved state still loads, and
        # counts for no warden's streak.
        played: list[tuple[int, str]] = attrs.Factory(list)
        programmes: list[Programme] = attrs.Factory(list)  # each warden's rounds, the last `in_a_row` + 1
        punished: list[str] = attrs.Factory(list)  # wardens the game's ladder reached this round
        judged: int = 0  # the last round whose programmes were judged (a Round_End seen twice asks once)

    def _streak(self, ctx: Context, history: list[tuple[int, str, str]], what: str, key: str) -> int:
        seen = {(r, w, k) for r, w, k in history}
        streak = 0
        while (ctx.state.round - streak - 1, what, key) in seen:
            streak += 1
        return streak

    @staticmethod
    def _kind(ctx: Context, typed: str) -> str:
        """The game's type («однотипными»): Злой Саймон is Саймон, every reaction Реакция,
        whatever name the warden typed it under."""
        game = ctx.offered_game(typed)
        return game.kind if game is not None else typed

    @vetoes(ev.GameStarted)
    def again(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        kind, seat = self._kind(ctx, e.game), ctx.seat(e.player)
        streak = self._streak(ctx, self.state.games, kind, seat.key)
        if streak < self.settings.in_a_row or any(h[0] == ctx.state.round and h[1:] == (kind, seat.key) for h in self.state.games):
            return None  # the same game again in one round is one round's game
        self.state.punished.append(seat.key)
        return ctx.punish(self.key, seat, ctx.text("games.repeat", game=_name(ctx, e)[0], rounds=streak + 1))

    @handles(ev.GameStarted)
    def started(self, ctx: Context, e: ev.GameStarted) -> list[Action]:
        r, game = ctx.state.round, ctx.state.game  # the bookkeeping has recorded the game
        if game is None:
            return []
        kind = self._kind(ctx, e.game) if ctx.offered_game(e.game) else game.name
        seat = ctx.seat(e.player)
        entry = (r, kind, seat.key)
        self.state.games = [h for h in self.state.games if h[0] > r - self.HISTORY and h != entry] + [entry]
        self.state.played = []
        mine = self._programme(ctx, seat)
        if mine is not None and kind not in mine.games:
            mine.games.append(kind)
        return []

    @handles(ev.OrderGiven)
    def order(self, ctx: Context, e: ev.OrderGiven) -> list[Action]:
        text = fold(e.text)
        mine = self._programme(ctx, ctx.seat(e.player)) if text else None
        if mine is not None and text not in mine.orders:
            mine.orders.append(text)
        return []

    def _programme(self, ctx: Context, seat: Seat) -> Programme | None:
        """This round's programme of this warden, kept only where `orders` asks for it."""
        if not self.settings.orders or not ctx.state.round_open:
            return None
        r = ctx.state.round
        mine = next((p for p in self.state.programmes if p.round == r and p.warden == seat.key), None)
        if mine is None:
            mine = Programme(r, seat.key, seat.userid, seat.name)
            keep = r - self.settings.in_a_row
            self.state.programmes = [p for p in self.state.programmes if p.round >= keep] + [mine]
        return mine

    @handles(ev.RoundEnd)
    def judged(self, ctx: Context, e: ev.RoundEnd) -> list[Action]:
        """The round is over: a warden whose whole programme was the same in each of his
        rounds before is put to an admin (unless the game's ladder reached him this round)."""
        mine, r, out = self.state, ctx.state.round, []
        punished, mine.punished = mine.punished, []
        if mine.judged == r:
            return []
        mine.judged = r
        for p in [p for p in mine.programmes if p.round == r and p.orders and p.warden not in punished]:
            same = (sorted(p.orders), sorted(p.games))
            before = {q.round for q in mine.programmes if q.warden == p.warden and (sorted(q.orders), sorted(q.games)) == same}
            if not all(r - k in before for k in range(1, self.settings.in_a_row + 1)):
                continue
            seat = ctx.online(p.warden) or ctx.player(p.userid) or Seat(p.userid, p.warden, p.name)
            text = ctx.text("games.repeat.programme", orders="», «".join(p.orders), games=", ".join(p.games) or "—",
                            rounds=self.settings.in_a_row + 1)
            out += ctx.punish(self.key, seat, text, judgement=True)
        return out

    @handles(ev.RoundStart)
    def round_start(self, ctx: Context, e: ev.RoundStart) -> list[Action]:
        # a round voided by a restart is played again under its number: its programme and games go
        self.state.programmes = [p for p in self.state.programmes if p.round < ctx.state.round]
        self.state.games = [h for h in self.state.games if h[0] < ctx.state.round]
        self.state.punished = []
        return []

    def calendar_reset(self, ctx: Context) -> None:
        self.state.games, self.state.programmes, self.state.judged = [], [], 0


class GameDuration(Rule["GameDuration.Settings", "GameDuration.State"]):
    """004 5.11 «Если игра продолжается более 5 минут, в ней обязательно должны быть
    определены победители»: a game may run past 5 minutes; what it may not do is end
    without winners. `reading = "winners"` (shipped): a reminder at 5 minutes, and the
    host's ladder when his game, past 5 minutes, ends with nothing decided in it that the
    log shows (no prisoner died, the referee named no one, no freeday was given, the host or
    the warden named no winner in chat: a word of `winner_words`, or a prisoner's name):
    the round ends on it, he ends it himself (5.10 lets him end it, not undecided past 5
    minutes), or he leaves the server (a punishment that waits for his return). A global
    game is won by those it leaves alive, so the round's end decides it. The other
    reading, `"deadline"`: winners by the 5th minute, the ladder `grace_seconds` after the
    reminder."""

    key = "games.duration"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "5.11"
        minutes: int = 5
        grace_seconds: int = 60
        reading: str = choice("winners", "deadline")
        winner_words: tuple[str, ...] = ("побед", "выиграл", "выигра", "winner", "won")
        ladder: Ladder = steps("warn", "teamswap")

    @attrs.define
    class State:
        # The round's game as the last clock tick saw it, for the round's end (which clears
        # the game before the rules hear of it): its host, name, and whether it was past its
        # minutes with nothing decided.
        host: int = 0
        name: str = ""
        undecided: bool = False

    @handles(ev.Chat)
    def named(self, ctx: Context, e: ev.Chat) -> list[Action | Entry]:
        s, game = ctx.state, ctx.state.game
        if game is None or game.result or e.player.userid not in (game.host, s.warden):
            return []
        text = e.text.casefold()
        if any(w in text for w in self.settings.winner_words) or any(p.name.casefold() in text for p in ctx.alive(T) if len(p.name) >= 3):
            return [GameDecided()]  # «победитель Вася»: winners named
        return []

    @handles(ev.RoundEnd, ev.GameEnded, ev.Disconnected)
    def ended(self, ctx: Context, e: ev.RoundEnd | ev.GameEnded | ev.Disconnected) -> list[Action]:
        """The game past its minutes ends undecided: the round's end, its host's end of it, or
        his leaving (the last clock tick, before this line, judged it as it stood)."""
        mine = self.state
        if self.settings.reading != "winners" or not mine.undecided:
            return []
        if isinstance(e, ev.GameEnded | ev.Disconnected) and e.player.userid != mine.host:
            return []
        mine.undecided = False
        host = ctx.player(mine.host)
        return ctx.punish(self.key, host, ctx.text("games.duration.undecided", game=mine.name, minutes=self.settings.minutes)) if host else []

    @handles(ev.RoundStart)
    def round_start(self, ctx: Context, e: ev.RoundStart) -> list[Action]:
        self.state.undecided = False
        return []

    def tick(self, ctx: Context, now: str) -> list[Action | Entry]:
        game, rule = ctx.state.game, self.settings
        self.state.undecided = False
        if game is None or game.punished or "map" in game.tags:
            return []
        elapsed = ctx.played_since(game.started)  # the freeze period is no game time
        if "global" in game.tags and rule.reading == "winners":
            return []  # a global game is won by those it leaves alive when the round ends
        limit = rule.minutes * 60
        if elapsed > limit and not game.result:
            self.state.host, self.state.name, self.state.undecided = game.host, game.name, True
        graced = game.reminded and ctx.seconds_since(game.reminded_at or game.started) > rule.grace_seconds
        if rule.reading == "deadline" and elapsed > limit + rule.grace_seconds and graced:
            host = ctx.player(game.host)
            return [GamePunished(), *(ctx.punish(self.key, host, ctx.text("games.duration", game=game.name, minutes=rule.minutes)) if host else [])]
        if elapsed > limit and not game.reminded:
            return [GameReminded(now), ctx.announce(self.key, rule, ctx.text("games.duration.remind", game=game.name, minutes=rule.minutes))]
        return []


class HostDeath(Rule["HostDeath.Settings", None]):
    key = "games.host_death"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "VI"

    @handles(ev.Killed)
    def killed(self, ctx: Context, e: ev.Killed) -> list[Action | Entry]:
        return self._gone(ctx, e.victim.userid)

    @handles(ev.Suicide, ev.Disconnected)
    def died(self, ctx: Context, e: ev.Suicide | ev.Disconnected) -> list[Action | Entry]:
        return self._gone(ctx, e.player.userid)

    @handles(ev.JoinedTeam)
    def left_the_guards(self, ctx: Context, e: ev.JoinedTeam) -> list[Action | Entry]:
        return self._gone(ctx, e.player.userid) if e.new != ev.CT else []

    def _gone(self, ctx: Context, userid: int) -> list[Action | Entry]:
        s = ctx.state
        return [GameOver()] if s.game is not None and s.game.host == userid and not s.specialday_name else []
