"""One violation of each kind the engine enforces, made on purpose inside a lawful season
(`tests/lawful.py`): each injector writes the violation into its round and says which
rule must reach which player; some need the rounds before prepared (the same warden's
game twice, a rebel the day before, a special day the round before)."""

from __future__ import annotations

from collections.abc import Callable

from jailcore.config.config import Config
from jailcore.engine.admin import ADMIN as ADMIN_RULE
from jailcore.sim.logwriter import Who
from tests.lawful import ATTACK, ORDERS, PROHIBITIONS, ROOT, ROUTINE, Injected, Season


def _warden_first(s: Season, steamid: str = "") -> Who | None:
    """The round's warden: the one who claimed in the freeze period, unless the injection
    needs another (who takes over when he resigns: the shim gives the role to one at a time)."""
    guards = s.team("CT", True)
    if not guards:
        return None
    if s.warden is not None and (not steamid or s.warden.steamid == steamid):
        return s.warden
    if s.warden is not None:
        s.log.wait(1).trig(s.warden, "jb_warden_removed", ' (reason "resigned")')
    s.warden = next((g for g in guards if g.steamid == steamid), guards[0])
    s.log.wait(3).warden(s.warden)
    return s.warden


def _plain_game(s: Season) -> str:
    """A lawful game of no kind the rules look into (no kills of its own, no chat)."""
    fresh = [g.name for g in s.lawful_games() if not g.tags and not g.min_players]
    last = s.streak.get(s.warden.steamid) if s.warden else None
    fresh = [n for n in fresh if not (last and last[0] == n)] or fresh
    return fresh[0] if fresh else "Светофор"


def _others(s: Season) -> list[Who]:
    return [g for g in s.team("CT", True) if g is not s.warden]


def _unasked(s: Season, rule: str, people: list[Who]) -> list[Who]:
    """Those the rule has no question waiting about: a proposal is one at a time per player
    and rule, so a second offence while an admin has not answered the first asks nothing."""
    waiting = {p.steamid for p in s.engine.state.proposals if p.rule == rule}
    return [p for p in people if p.steamid not in waiting] or people


def i_unknown(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w)).game(w, "Бадминтон")
    inj.expected = [("games.unknown", w.userid)]


def i_host(s: Season, inj: Injected) -> None:
    _warden_first(s)
    g = _others(s)[0]
    s.log.game(g, "Светофор")
    inj.expected = [("games.host", g.userid)]


def i_only_warden_kills(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w)).game(w, "Саймон говорит")
    g = _others(s)[0]
    victim = s.team("TERRORIST", True)[0]
    s.log.wait(3).kill(g, victim)
    inj.expected = [("games.only_warden_kills", g.userid)]


def _king_ready(s: Season) -> None:
    """004 5.17 forbids Король above 8 prisoners: the rest watch from the spectators."""
    if s.cfg.on("games.online_limit"):
        for t in s.ts[8:]:
            s.log.join(t, "Spectator")
            s.spectators[t.userid] = s.round + 1


def _past_the_half(s: Season, inj: Injected, game: str, after: tuple[int, int]) -> None:
    """000 Король «запрещено убивать больше половины»; Морской бой «до уничтожения половины»:
    a guard's kill past the half before anything else happens in the round: put to an admin
    (issue 31), on the host's ladder."""
    w = _warden_first(s)
    _king_ready(s)
    s.log.order(w, s.varied_order(w)).game(w, game)
    playing = len(s.team("TERRORIST", True))
    for _ in range(playing // 2):
        s.log.kill(s.team("CT", True)[-1], s.team("TERRORIST", True)[0])
    s.log.wait(s.rnd.randint(*after)).kill(s.team("CT", True)[-1], s.team("TERRORIST", True)[0])
    inj.expected = [("games.deaths", w.userid)]


def i_deaths(s: Season, inj: Injected) -> None:
    _past_the_half(s, inj, "Король", (0, 100))


def i_deaths_cells(s: Season, inj: Injected) -> None:
    """Морской бой: past its last cell's volley (2 s), nothing else between."""
    _past_the_half(s, inj, "Морской бой", (2, 100))


def i_online_limit(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w)).game(w, "Король")
    inj.expected = [("games.online_limit", w.userid)]


def i_min_players(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    while len(s.team("TERRORIST", True)) > 6:
        s.log.kill(_others(s)[0] if _others(s) else w, s.team("TERRORIST", True)[0])
    s.log.order(w, s.varied_order(w)).game(w, "Коммунизм")
    inj.expected = [("games.min_players", w.userid)]


def i_gagged(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    t = s.team("TERRORIST", True)[0]
    s.log.trig(t, "jb_gag", ' (state "on")').order(w, s.varied_order(w)).game(w, "Математика")
    s.log.trig(t, "jb_gag", ' (state "off")')
    inj.expected = [("games.gagged", w.userid)]


def i_duration(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w)).game(w, _plain_game(s)).wait(200).say(w, "зелёный").wait(200).say(w, "красный").wait(30)
    inj.expected = [("games.duration", w.userid)]


def i_duration_ended(s: Season, inj: Injected) -> None:
    """004 5.11: past 5 minutes, no winner, and the host ends it (5.10 lets him, not undecided)."""
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w)).game(w, _plain_game(s)).wait(200).say(w, "зелёный").wait(120).trig(w, "jb_game_end")
    inj.expected = [("games.duration", w.userid)]


def i_duration_left(s: Season, inj: Injected) -> None:
    """004 5.11, the host leaves his undecided game past 5 minutes: punished all the same,
    the warning waiting for his return."""
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w)).game(w, _plain_game(s)).wait(200).say(w, "зелёный").wait(120)
    s.leave(w, "Disconnect")
    s.away[w.steamid] = (w, s.round + 1)
    guards = s.team("CT", True)
    if guards:
        s.take_command(3)
    inj.expected = [("games.duration", w.userid)]


def _streak_warden(s: Season, key: str, prefer: str = "") -> Who | None:
    """The warden of a prepared streak: the same guard in each round of it, kept on the
    server (`protected`) until the injection."""
    w = _warden_first(s, s.picked.get(key, prefer))
    if w is not None and key not in s.picked:
        s.picked[key] = w.steamid
        s.protected.add(w.steamid)
    return w


def _streak_day(s: Season, key: str, game: Callable[[], str], prefer: str = "") -> None:
    """One prepared round: the streak's warden, an order, the game, the round's end."""
    w = _streak_warden(s, key, prefer)
    if w is None:
        return
    s.log.order(w, s.varied_order(w))
    if s.warden is not w:
        return  # (moved for the order: a Monday's)
    name = game()
    s.start_game(next(g for g in s.cfg.catalogue if g.name == name))
    s.log.wait(20).trig(w, "jb_game_end").wait(3).round_end()


def _streak_end(s: Season, key: str) -> Who | None:
    """The injected round's warden: the streak's, who may leave the server again after it."""
    if key not in s.picked:
        return None  # (no guard to prepare it with in the rounds before)
    w = _warden_first(s, s.picked[key])
    s.protected.discard(s.picked.pop(key))
    return w


def i_repeat(s: Season, inj: Injected) -> None:
    game = s.picked.pop("repeat.game", "")
    w = _streak_end(s, "repeat.warden")
    if w is not None:
        s.log.order(w, s.varied_order(w)).game(w, game)
        inj.expected = [("games.repeat", w.userid)]


def p_repeat(s: Season, round_: int) -> None:
    """The two rounds before: the same warden, the same game."""
    def one() -> None:
        _streak_day(s, "repeat.warden", lambda: s.picked.setdefault("repeat.game", _plain_game(s)))
    s.forced[round_ - 2] = one
    s.forced[round_ - 1] = one


def i_repeat_kind(s: Season, inj: Injected) -> None:
    """004 5.5 «однотипными играми»: Саймон, Злой Саймон, and Саймон again under his alias."""
    w = _streak_end(s, "kind.warden")
    if w is not None:
        s.log.order(w, s.varied_order(w)).game(w, s.rnd.choice(("simon", "Играем в «Злой Саймон говорит»", "саймон")))
        inj.expected = [("games.repeat", w.userid)]


def p_repeat_kind(s: Season, round_: int) -> None:
    def one(name: str) -> Callable[[], None]:
        def play() -> None:
            fresh = [g for g in s.team("CT", True) if s.streak.get(g.steamid, ("", -9))[:2] != ("Саймон говорит", s.round - 1)]
            _streak_day(s, "kind.warden", lambda: name, fresh[0].steamid if fresh else "")
        return play
    s.forced[round_ - 2] = one("Саймон говорит")
    s.forced[round_ - 1] = one("Злой Саймон говорит")


def _programme(s: Season, w: Who) -> None:
    """The prepared programme: routine orders and one of the day, no game."""
    text = s.picked["order.text"]
    s.ordered.setdefault(w.steamid, []).append((s.round, text))  # (a fourth round of it would be another)
    s.log.order(w, ROUTINE[0]).order(w, ROUTINE[1]).wait(5).order(w, text)


def i_repeat_programme(s: Season, inj: Injected) -> None:
    """004 5.5 «разнообразные раунды, не злоупотребляя однотипными играми и приказами»: his
    round's whole programme a third round running, put to an admin at the round's end."""
    w = _streak_end(s, "order.warden")
    if w is not None:
        _programme(s, w)
        s.picked.pop("order.text")
        inj.expected = [("games.repeat", w.userid)]


def p_repeat_programme(s: Season, round_: int) -> None:
    def one() -> None:
        w = _streak_warden(s, "order.warden")
        if w is None:
            return
        if "order.text" not in s.picked:
            given = {t for r, t in s.ordered.get(w.steamid, []) if r >= s.round - 2}
            s.picked["order.text"] = next(o for o in ORDERS if o not in given)
        _programme(s, w)
        s.log.wait(20).round_end()
    s.forced[round_ - 2] = one
    s.forced[round_ - 1] = one


def i_prohibitions(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    limit = s.cfg.rules["prohibitions.max"]
    if limit.only_during_game:
        s.log.order(w, s.varied_order(w)).game(w, _plain_game(s))
    n = limit.freeday_limit if s.monday else limit.limit
    for i in range(n + 1):
        s.log.prohibit(w, PROHIBITIONS[i])
    inj.expected = [("prohibitions.max", w.userid)]


def i_specialday(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    s.log.specialday(w, "Голодные игры")
    s.last_special = s.round
    inj.expected = [("specialday.cooldown", w.userid)]


def p_specialday(s: Season, round_: int) -> None:
    """A lawful special day the round before (none in the three before that)."""
    def one() -> None:
        w = _warden_first(s)
        s.last_special = s.round
        s.log.specialday(w, "Прятки").wait(30).round_end()
    s.no_special.update(range(round_ - 4, round_))
    s.forced[round_ - 1] = one

def i_no_warden(s: Season, inj: Injected) -> None:
    if s.warden is not None:  # the one who claimed in the freeze hands command back to no one
        s.log.wait(1).trig(s.warden, "jb_warden_removed", ' (reason "resigned")')
        s.warden = None
    first = min(s.team("CT", True), key=lambda p: s.joined.get(p.userid, 0))
    s.log.wait(31).say(s.team("CT", True)[0], "кто начальник?").wait(31).say(s.team("CT", True)[0], "никто?")
    inj.expected = [("teams.no_warden", first.userid)]


def i_freeday(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w))
    inj.expected = [("calendar.freeday", w.userid)]


def i_global_games(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w))
    per_week = s.cfg.rules["calendar.global_games"].per_week
    names = iter(("Прятки", "Голодные игры", "Чай-чай выручай", "Прятки"))
    while s.globals_week.get(s.week, 0) < per_week:
        s.globals_week[s.week] = s.globals_week.get(s.week, 0) + 1
        s.log.game(w, next(names)).wait(30).trig(w, "jb_game_end")
    s.log.game(w, "Оборона")
    inj.expected = [("calendar.global_games", w.userid)]


def _lawful_global_game(s: Season, game: str) -> Who | None:
    """The warden's order and a global game he may play (001 Глобальные 1: a watcher's
    approval past the week's two)."""
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w))
    if s.globals_week.get(s.week, 0) >= s.cfg.rules["calendar.global_games"].per_week:
        s.log.trig(Who("Смотритель", 999, "STEAM_1:0:999"), "jb_game_approve", f' (game "{game}")')
    s.globals_week[s.week] = s.globals_week.get(s.week, 0) + 1
    return w


def i_global_suicide(s: Season, inj: Injected) -> None:
    w = _lawful_global_game(s, "Прятки")
    g = _unasked(s, "games.global_suicide", _others(s))[0]
    s.log.game(w, "Прятки").wait(20).suicide(g)
    inj.expected = [("games.global_suicide", g.userid)]


def i_rebellion(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    t = next(p for p in s.team("TERRORIST", True) if p.steamid == s.picked["rebel"])
    s.protected.discard(t.steamid)
    s.log.order(w, s.varied_order(w)).add(ATTACK.format(a=t.ident(), v=w.ident(), d=20, h=80))
    inj.expected = [("calendar.rebellion", t.userid)]


def p_rebellion(s: Season, round_: int) -> None:
    def one() -> None:
        w = _warden_first(s)
        fresh = [p for p in s.team("TERRORIST", True) if s.rebelled.get(p.steamid, -9) < s.round - 1]
        t = _unasked(s, "calendar.rebellion", fresh)[0]
        s.picked["rebel"] = t.steamid
        s.protected.add(t.steamid)
        s.rebelled[t.steamid] = s.round
        s.log.order(w, s.varied_order(w)).add(ATTACK.format(a=t.ident(), v=w.ident(), d=20, h=80)).wait(3).round_end()
    s.forced[round_ - 1] = one


def i_personal_freeday(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    t = next(p for p in s.team("TERRORIST", True) if s.freedays.get(p.steamid) != s.week and s.duel_won.get(p.steamid, -9) < s.round - 1
             and s.owed.get(p.steamid, -9) < s.round - 1)  # (a freeday owed him by ПЗ 1 is not one he acquired)
    s.freedays[t.steamid] = s.week
    fd = f' (scope "personal") (target "#{t.userid}")'
    s.log.trig(w, "jb_freeday", fd).wait(5).trig(w, "jb_freeday", fd)
    inj.expected = [("calendar.personal_freeday", t.userid)]


def _down_to_last_prisoner(s: Season, by_warden: bool) -> tuple[Who | None, Who]:
    """The warden orders, then the warden (or another guard) kills every prisoner but one: (warden, guard)."""
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w))
    g = _others(s)[0]
    killer = w if by_warden else g
    while len(s.team("TERRORIST", True)) > 1:
        s.log.kill(killer, s.team("TERRORIST", True)[0])
    return w, g


def i_last_prisoner(s: Season, inj: Injected) -> None:
    w, _ = _down_to_last_prisoner(s, by_warden=False)
    s.log.wait(2).kill(w, s.team("TERRORIST", True)[0])
    inj.expected = [("warden.last_prisoner", w.userid)]


def i_guard_suicide(s: Season, inj: Injected) -> None:
    _, g = _down_to_last_prisoner(s, by_warden=True)
    last = s.team("TERRORIST", True)[0]
    s.log.trig(last, "jb_lr", ' (choice "дуэль")').wait(2).suicide(g)
    inj.expected = [("lastrequest.guard_suicide", last.userid)]


def i_immortality(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w))
    key = (w.steamid, s.week)
    per_week = s.cfg.rules["warden.immortality"].per_week
    while s.immortal.get(key, 0) < per_week:
        s.immortal[key] = s.immortal.get(key, 0) + 1
        s.log.trig(w, "jb_privilege", ' (kind "immortality")')
    s.log.trig(w, "jb_privilege", ' (kind "invisibility")')
    inj.expected = [("warden.immortality", w.userid)]


def i_privileges(s: Season, inj: Injected) -> None:
    _warden_first(s)
    t = s.team("TERRORIST", True)[0]
    s.log.trig(t, "jb_privilege", ' (kind "vip_gun")')
    inj.expected = [("conduct.privileges", t.userid)]


def i_teamkill(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w))
    g = _unasked(s, "conduct.teamkill", _others(s))[0]
    s.log.kill(g, w)
    inj.expected = [("conduct.teamkill", g.userid)]


def i_grenades(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    t = s.team("TERRORIST", True)[0]
    s.log.order(w, s.varied_order(w))
    for _ in range(4):
        s.log.add(f"{t.ident()} threw hegrenade [1 2 3]")
    inj.expected = [("conduct.grenade_spam", t.userid)]


def i_balance(s: Season, inj: Injected) -> None:
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w))
    while len(s.cts) + 1 <= s.guards_allowed(len(s.ts) - 1):
        s.join_ct(next(p for p in s.ts if s.may_guard(p)))
    t = next(p for p in s.ts if s.may_guard(p))
    s.join_ct(t)
    s.log.wait(5).join(t, "CT")
    inj.expected = [("teams.balance", t.userid), ("ctban.return_block", t.userid)]


def i_game_privileges(s: Season, inj: Injected) -> None:
    """001 Привилегии 3 «Любые привилегии во время любых игр»."""
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w)).game(w, _plain_game(s))
    t = s.team("TERRORIST", True)[0]
    s.log.wait(5).trig(t, "jb_privilege", f' (kind "{s.rnd.choice(("vip_gun", "hook"))}")')
    inj.expected = [("conduct.game_privileges", t.userid)]


def i_head_start(s: Season, inj: Injected) -> None:
    """001 Глобальные 2 «дать заключенным от 15 до 30 секунд, чтобы разбежаться»."""
    w = _lawful_global_game(s, "Голодные игры")
    g = _others(s)[0] if _others(s) else w
    s.log.game(w, "Голодные игры").wait(s.rnd.randint(2, 10)).kill(g, s.team("TERRORIST", True)[0])
    inj.expected = [("games.head_start", g.userid)]


def _last_prisoner_asks(s: Season, choice: str) -> Who:
    w = _warden_first(s)
    s.log.order(w, s.varied_order(w))
    while len(s.team("TERRORIST", True)) > 1:
        s.log.kill(w, s.team("TERRORIST", True)[0])
    last = s.team("TERRORIST", True)[0]
    s.log.wait(2).trig(last, "jb_lr", f' (choice "{choice}")')
    return last


def i_one_wish(s: Season, inj: Injected) -> None:
    """001 ПЗ 2 «Одна дуэль с Охранником - одно желание заключённого»."""
    last = _last_prisoner_asks(s, "дуэль на ножах")
    s.log.wait(5).trig(last, "jb_lr", ' (choice "ФД")')
    inj.expected = [("lastrequest.one_wish", last.userid)]


def i_duel_stakes(s: Season, inj: Injected) -> None:
    """001 Дуэли 4 «Дуэль можно играть только на одиночное Фд, Голос, деньги»."""
    last = _last_prisoner_asks(s, s.rnd.choice(("дуэль на общий ФД", "дуэль на дробовиках на ФД", "дуэль за КТ",
                                                 # «только»: a stake the list does not name (issue 31)
                                                 "дуэль на респ", "дуэль на ножах на дигл", "дуэль за awp", "дуэль на диглах на скин")))
    inj.expected = [("lastrequest.duel_stakes", last.userid)]


def i_language(s: Season, inj: Injected) -> None:
    """001 Общие 18 «Маты, оскорбления»: put to an admin."""
    w = _warden_first(s)
    t = _unasked(s, "conduct.language", s.team("TERRORIST"))[0]
    s.log.order(w, s.varied_order(w)).say(t, s.rnd.choice(("начальник ты мудак", "сука опять", "да пошёл ты нахуй",
                                                           "эти лохи опять", "охрана одни дебилы", "ну ты и чмо")))
    inj.expected = [("conduct.language", t.userid)]


def i_guard_freekill(s: Season, inj: Injected) -> None:
    """001 Охрана 11 «Убивать … без причины»: an admin confirms the prisoner's report."""
    w = _warden_first(s)
    g = _others(s)[0] if _others(s) else w
    t = s.team("TERRORIST", True)[0]
    s.log.order(w, s.varied_order(w)).kill(g, t).wait(10).trig(s.admin, "jb_freekill", f' (victim "#{t.userid}") (kind "kill")')
    inj.expected = [("fairness.guard_freekill", g.userid)]


def i_guard_freekill_late(s: Season, inj: Injected) -> None:
    """001 Охрана 11: the admin confirms early in this round a kill of the round before."""
    guard, victim = s.picked.pop("fk.guard"), s.picked.pop("fk.victim")
    g = next(p for p in s.players.values() if p.steamid == guard)
    t = next(p for p in s.players.values() if p.steamid == victim)
    s.protected -= {guard, victim}
    s.log.wait(3).trig(s.admin, "jb_freekill", f' (victim "#{t.userid}") (kind "kill")')
    inj.expected = [("fairness.guard_freekill", g.userid)]


def p_guard_freekill_late(s: Season, round_: int) -> None:
    def one() -> None:
        w = _warden_first(s)
        g = _others(s)[0] if _others(s) else w
        t = s.team("TERRORIST", True)[0]
        s.picked["fk.guard"], s.picked["fk.victim"] = g.steamid, t.steamid
        s.protected |= {g.steamid, t.steamid}
        s.log.order(w, s.varied_order(w)).wait(5).kill(g, t).wait(20).round_end()
    s.forced[round_ - 1] = one


def i_explain_left(s: Season, inj: Injected) -> None:
    """004 4.8: asked why, the guard leaves the server without a word: decided all the same."""
    w = _warden_first(s)
    g = _unasked(s, "killing.explain", _others(s) or [w])[0]
    t = s.team("TERRORIST", True)[0]
    s.log.order(w, s.varied_order(w)).kill(g, t).wait(4).say(t, "за что?").wait(10)
    s.leave(g, "Disconnect")
    s.away[g.steamid] = (g, s.round + 2)
    s.log.wait(65)
    inj.expected = [("killing.explain", g.userid)]


def i_explain(s: Season, inj: Injected) -> None:
    """004 4.8: the victim asks why, the guard says nothing."""
    w = _warden_first(s)
    g = _unasked(s, "killing.explain", _others(s) or [w])[0]
    t = s.team("TERRORIST", True)[0]
    s.log.order(w, s.varied_order(w)).kill(g, t).wait(4).say(t, "за что?").wait(65)
    inj.expected = [("killing.explain", g.userid)]


def i_explain_abuse(s: Season, inj: Injected) -> None:
    """004 4.8 «запрещается … требовать объяснений в очевидных ситуациях»: a prisoner shoots a
    guard, is killed for it and asks why; put to an admin."""
    w = _warden_first(s)
    alive = s.team("TERRORIST", True)
    fresh = [p for p in alive if s.rebelled.get(p.steamid, -9) < s.round - 1] or alive
    t = _unasked(s, "killing.explain_abuse", fresh)[0]
    g = (_others(s) or [w])[0]
    s.rebelled[t.steamid] = s.round
    s.log.order(w, s.varied_order(w)).add(ATTACK.format(a=t.ident(), v=g.ident(), d=20, h=80)).wait(2).kill(w, t)
    s.log.wait(4).say(t, "за что?")
    inj.expected = [("killing.explain_abuse", t.userid)]


def i_online_limit_5_18(s: Season, inj: Injected) -> None:
    """004 5.18: a turn-based game (Метание дигла) with more than 13 prisoners online."""
    w = _warden_first(s)
    while len(s.ts) <= 13:
        s.new_player("TERRORIST")
    s.log.order(w, s.varied_order(w)).game(w, "Метание дигла")
    inj.expected = [("games.online_limit", w.userid)]


def i_ctban(s: Season, inj: Injected) -> None:
    """A prisoner an admin banned from CT (`!ctban`) tries the guards' door."""
    w = _warden_first(s)
    t = next(p for p in s.team("TERRORIST", True) if s.may_guard(p))
    s.log.order(w, s.varied_order(w)).trig(s.admin, "jb_ctban", f' (target "#{t.userid}") (length "30") (reason "грубил")')
    s.log.wait(5).join(t, "CT")
    inj.expected = [(ADMIN_RULE, t.userid), ("ctban", t.userid)]


# kind -> (the rule it breaks, the injector, the day it needs (0 any but Monday and Sunday, 1
# Monday, 3 a day with two of the week before it, 4 with three), a preparation in the rounds before)
INJECTORS: dict[str, tuple[str, Callable[[Season, Injected], None], int, Callable[[Season, int], None] | None]] = {
    "games.unknown": ("games.unknown", i_unknown, 0, None),
    "games.host": ("games.host", i_host, 0, None),
    "games.only_warden_kills": ("games.only_warden_kills", i_only_warden_kills, 0, None),
    "games.deaths": ("games.deaths", i_deaths, 0, None),
    "games.deaths.cells": ("games.deaths", i_deaths_cells, 0, None),
    "games.online_limit": ("games.online_limit", i_online_limit, 0, None),
    "games.min_players": ("games.min_players", i_min_players, 0, None),
    "games.gagged": ("games.gagged", i_gagged, 0, None),
    "games.duration": ("games.duration", i_duration, 0, None),
    "games.duration.ended": ("games.duration", i_duration_ended, 0, None),
    "games.duration.left": ("games.duration", i_duration_left, 0, None),
    # (day 4: the two rounds before are no Monday either, where a freeday forbids the games)
    "games.repeat": ("games.repeat", i_repeat, 4, p_repeat),
    "games.repeat.kind": ("games.repeat", i_repeat_kind, 4, p_repeat_kind),
    "games.repeat.programme": ("games.repeat", i_repeat_programme, 4, p_repeat_programme),
    "prohibitions.max": ("prohibitions.max", i_prohibitions, 1, None),
    "specialday.cooldown": ("specialday.cooldown", i_specialday, 0, p_specialday),
    "teams.no_warden": ("teams.no_warden", i_no_warden, 0, None),
    "calendar.freeday": ("calendar.freeday", i_freeday, 1, None),
    "calendar.global_games": ("calendar.global_games", i_global_games, 0, None),
    "games.global_suicide": ("games.global_suicide", i_global_suicide, 0, None),
    "calendar.rebellion": ("calendar.rebellion", i_rebellion, 3, p_rebellion),
    "calendar.personal_freeday": ("calendar.personal_freeday", i_personal_freeday, 0, None),
    "warden.last_prisoner": ("warden.last_prisoner", i_last_prisoner, 0, None),
    "lastrequest.guard_suicide": ("lastrequest.guard_suicide", i_guard_suicide, 0, None),
    "warden.immortality": ("warden.immortality", i_immortality, 0, None),
    "conduct.privileges": ("conduct.privileges", i_privileges, 0, None),
    "conduct.teamkill": ("conduct.teamkill", i_teamkill, 0, None),
    "conduct.grenade_spam": ("conduct.grenade_spam", i_grenades, 0, None),
    "teams.balance": ("teams.balance", i_balance, 0, None),
    "ctban": ("ctban", i_ctban, 0, None),
    "conduct.game_privileges": ("conduct.game_privileges", i_game_privileges, 0, None),
    "games.head_start": ("games.head_start", i_head_start, 0, None),
    "lastrequest.one_wish": ("lastrequest.one_wish", i_one_wish, 0, None),
    "lastrequest.duel_stakes": ("lastrequest.duel_stakes", i_duel_stakes, 0, None),
    "conduct.language": ("conduct.language", i_language, 0, None),
    "fairness.guard_freekill": ("fairness.guard_freekill", i_guard_freekill, 0, None),
    "fairness.guard_freekill.late": ("fairness.guard_freekill", i_guard_freekill_late, 3, p_guard_freekill_late),
    "killing.explain": ("killing.explain", i_explain, 0, None),
    "killing.explain.left": ("killing.explain", i_explain_left, 0, None),
    "killing.explain_abuse": ("killing.explain_abuse", i_explain_abuse, 0, None),
    "games.online_limit.5_18": ("games.online_limit", i_online_limit_5_18, 0, None),
}
# Not injected here: conduct.advertising and conduct.names (their judgement goes to an admin,
# issue 18 part B), fairness.freekill (an admin's confirmation is the finding), and the rules
# that only announce or keep the state (orders, freeday_end, lastrequest.timeout, referee,
# games.host_death).


def injectable(cfg: Config) -> list[str]:
    """The kinds a server's config enforces."""
    return [kind for kind, (rule, *_rest) in INJECTORS.items() if cfg.on(rule)]


def schedule(cfg: Config, kinds: list[str], start: int = 30, gap: int = 12) -> dict[int, str]:
    """A round for each kind: on the day it needs (counted as the generator counts them,
    without a map reset), well apart from the others. Preparations take the rounds before."""
    out: dict[int, str] = {}
    r = start
    for kind in kinds:
        day = INJECTORS[kind][2]
        if day == 1 and not cfg.on("calendar.freeday"):
            day = 0
        if day == 4 and not cfg.on("calendar.freeday"):
            day = 0
        while ((day == 1 and (r - 1) % cfg.week_length != 0) or (day == 3 and (r - 1) % cfg.week_length < 2)
               or (day == 4 and not 3 <= (r - 1) % cfg.week_length < cfg.week_length - 1)
               or (day == 0 and cfg.on("calendar.freeday") and (r - 1) % cfg.week_length in (0, cfg.week_length - 1))):
            r += 1
        out[r] = kind
        r += gap
    return out


def season(server: str, seed: int, rounds: int, kinds: list[str] | None = None, old_plugin: bool = False) -> Season:
    """Plays a season; with `kinds`, one injected violation of each; `old_plugin`, with a
    plugin older than the round line (no `jb_round_start`)."""
    cfg = Config.from_toml(ROOT / "configs" / f"{server}.toml", env={})
    inject = schedule(cfg, kinds) if kinds else {}
    s = Season(server, seed, rounds, {r: (kind, INJECTORS[kind][1]) for r, kind in inject.items()}, old_plugin=old_plugin)
    for r, kind in inject.items():
        prepare = INJECTORS[kind][3]
        if prepare is not None:
            prepare(s, r)
    return s.play()
