"""Clauses a machine can check that nothing enforced before issue 26: 001 Общие 18 (мат,
оскорбления: put to an admin, with an editable word list), 004 4.8 (a killer explains in
chat when his victim asks), and server A's own 001 clauses whose rules were written but off
(Привилегии 3 / Хук 7, Глобальные 2, ПЗ 2, Дуэли 4)."""

from __future__ import annotations

from jailcore.config.config import Config
from tests.lawful import ROOT
from tests.logtext import run
from tests.scenes import GUARD, WARDEN, setup

A = '[server]\nrulebook = ["001", "000"]\n'
B = '[server]\nrulebook = ["004", "000"]\n'


def test_001_general_18_swearing_in_chat_is_put_to_an_admin():
    """001 Общие 18 «Неадекватное поведение (Маты, оскорбления, споры, ссоры) [Кик/Бан до 3 часов]»."""
    log, ts = setup()
    log.say(ts[0], "ну ты и сука").say(ts[1], "норм раунд").say(ts[2], "барсук рубля")
    actions, _ = run(A, log)
    assert [(a.action, a.rule, a.ref, a.step, a.target.userid) for a in actions] == [
        ("propose", "conduct.language", "Общие 18", "kick", ts[0].userid)]


def test_001_general_18_the_word_list_is_the_servers():
    log, ts = setup()
    log.say(ts[0], "ты нубяра")
    assert run(A, log)[0] == []
    actions, _ = run(A + '[conduct.language]\nwords = ["нуб*"]\n', log)  # a root: every word beginning so (issue 31)
    assert [a.rule for a in actions] == ["conduct.language"]


def test_004_4_8_a_killer_who_does_not_explain_when_asked():
    """004 4.8 «Охрана обязана объяснить причину убийства в чате, если заключённый требует
    разъяснить причину своей смерти. … Наказание за отказ: перевод за ТТ → блокировка входа
    за КТ на 30 минут.» An admin confirms on server B (the clause's abuse is his to judge)."""
    log, ts = setup()
    log.kill(GUARD, ts[0]).wait(5).say(ts[0], "за что??").wait(61).say(ts[1], "гг")
    actions, _ = run(B, log)
    assert [(a.action, a.rule, a.step, a.target.userid) for a in actions] == [("propose", "killing.explain", "teamswap", GUARD.userid)]
    actions, _ = run(B + '[killing.explain]\nconfirm = "none"\n', log)
    assert [(a.action, a.rule, a.target.userid) for a in actions] == [("teamswap", "killing.explain", GUARD.userid)]


def test_004_4_8_an_answer_or_no_question_is_no_refusal():
    log, ts = setup()
    log.kill(GUARD, ts[0]).wait(5).say(ts[0], "почему?").wait(10).say(GUARD, "ты вышел из клетки").wait(70).say(ts[1], "гг")
    log.kill(WARDEN, ts[1]).wait(80).say(ts[2], "гг")  # no question
    log.kill(WARDEN, ts[2]).wait(200).say(ts[2], "за что?").wait(70).say(ts[3], "гг")  # asked too late
    assert [a for a in run(B + '[killing.explain]\nconfirm = "none"\n', log)[0] if a.rule == "killing.explain"] == []


ATTACK = '{a} [1 2 3] attacked {v} [4 5 6] with "glock" (damage "25") (damage_armor "0") (health "75") (armor "0") (hitgroup "chest")'
B_NOW = B + '[killing.explain]\nconfirm = "none"\n'


def test_004_4_8_abuse_a_rebel_who_demands_a_reason_is_put_to_an_admin():
    """004 4.8 «Уточнение: запрещается злоупотреблять данным правилом и требовать объяснений
    в очевидных ситуациях. … Наказание за злоупотребление: устное предупреждение → бан до 30
    минут.» He shot a guard this round, another guard killed him: his question is the
    clause's abuse (an admin judges), and his killer's silence is no refusal."""
    log, ts = setup()
    log.add(ATTACK.format(a=ts[0].ident(), v=GUARD.ident())).wait(3).kill(WARDEN, ts[0]).wait(5).say(ts[0], "за что???")
    log.wait(70).say(ts[1], "гг")
    actions, _ = run(B_NOW, log)
    assert [(a.action, a.rule, a.ref, a.step, a.target.userid) for a in actions] == [
        ("propose", "killing.explain_abuse", "4.8", "warn", ts[0].userid)]
    assert "напал на охранника" in actions[0].reason and "за что???" in actions[0].reason
    actions, _ = run(B_NOW + '[killing.explain_abuse]\nconfirm = "none"\n', log)
    assert [(a.action, a.rule, a.target.userid) for a in actions] == [("warn", "killing.explain_abuse", ts[0].userid)]


def test_004_4_8_abuse_a_question_about_a_death_in_his_own_last_request_duel():
    log, ts = setup(3)
    log.kill(WARDEN, ts[1]).kill(WARDEN, ts[2]).wait(12).trig(ts[0], "jb_lr", ' (choice "дуэль")').wait(20).kill(GUARD, ts[0])
    log.wait(4).say(ts[0], "почему").wait(70).say(WARDEN, "гг")
    actions, _ = run(B_NOW, log)
    assert [(a.action, a.rule, a.target.userid) for a in actions if a.rule.startswith("killing.")] == [
        ("propose", "killing.explain_abuse", ts[0].userid)]
    assert "последнего желания" in actions[-1].reason


def test_004_4_8_abuse_an_ordinary_question_and_a_special_days_fight_are_no_abuse():
    """The prisoner who hurt a guard in a special day's fight is no rebel (the day's game),
    and one who never hurt anyone asks lawfully: both are the killer's to answer."""
    log, ts = setup()
    log.kill(GUARD, ts[1]).wait(5).say(ts[1], "за что?").wait(65).say(ts[2], "гг")
    log.round_end().round_start().warden(WARDEN).specialday(WARDEN, "Голодные игры")
    log.add(ATTACK.format(a=ts[0].ident(), v=GUARD.ident())).kill(GUARD, ts[0]).wait(5).say(ts[0], "за что?").wait(65).say(ts[2], "гг")
    actions, _ = run(B_NOW, log)
    explained = [a for a in actions if a.rule.startswith("killing.")]
    assert {(a.rule, a.target.userid) for a in explained} == {("killing.explain", GUARD.userid)}
    assert [a.action for a in explained] == ["teamswap", "ctban", "teamswap"]  # the second step: a CT ban, and the move


def test_004_4_8_abuse_runs_only_where_the_rulebook_has_it():
    a = Config.from_toml(ROOT / "configs" / "server-a.toml", env={})
    b = Config.from_toml(ROOT / "configs" / "server-b.toml", env={})
    assert not a.on("killing.explain_abuse") and b.on("killing.explain_abuse")
    rule = b.rules["killing.explain_abuse"]
    assert (rule.ref, rule.confirm, [str(s) for s in rule.ladder]) == ("4.8", "admin", ["warn", "ban 30m"])
    log, ts = setup()
    log.add(ATTACK.format(a=ts[0].ident(), v=GUARD.ident())).kill(WARDEN, ts[0]).say(ts[0], "за что???")
    assert run(A, log)[0] == []


def test_server_a_runs_its_rulebooks_written_clauses():
    a = Config.from_toml(ROOT / "configs" / "server-a.toml", env={})
    on = {k: a.rules[k].ref for k in ("conduct.game_privileges", "games.head_start", "lastrequest.one_wish", "lastrequest.duel_stakes",
                                      "conduct.language", "fairness.guard_freekill", "games.repeat") if a.on(k)}
    assert on == {"conduct.game_privileges": "Привилегии 3", "games.head_start": "Глобальные 2", "lastrequest.one_wish": "ПЗ 2",
                  "lastrequest.duel_stakes": "Дуэли 4", "conduct.language": "Общие 18", "fairness.guard_freekill": "Охрана 11",
                  "games.repeat": "Начальник обязан 5"}
    b = Config.from_toml(ROOT / "configs" / "server-b.toml", env={})
    assert b.on("killing.explain") and not a.on("killing.explain") and not b.on("conduct.language")


def test_5_5_a_game_of_one_type_under_other_names():
    """004 5.5 «не злоупотребляя однотипными играми»: Саймон, then Злой Саймон, then «simon»."""
    log, _ = setup()
    log.game(WARDEN, "Саймон говорит").round_end().round_start().warden(WARDEN).game(WARDEN, "Злой Саймон говорит")
    log.round_end().round_start().warden(WARDEN).start_here().game(WARDEN, "simon")
    actions, _ = run(B, log)
    assert [(a.action, a.rule, a.ref) for a in actions] == [("warn", "games.repeat", "5.5")]


def test_5_5_and_001_warden_5_the_same_programme_a_third_round_running():
    """004 5.5 «…и приказами»; 001 Начальник обязан 5 «РАЗНООБРАЗНЫЕ игры/приказы»: the
    round's whole programme (here one order and no game) a third round running is put to an
    admin when the round ends (issue 31: an order alone is routine, not monotony)."""
    for cfg, ref in ((B, "5.5"), (A, "Начальник обязан 5")):
        log, _ = setup()
        log.order(WARDEN, "все в клетку").round_end().round_start().warden(WARDEN).order(WARDEN, "Все в клетку!")
        log.round_end().round_start().warden(WARDEN).start_here().order(WARDEN, "все в клетку").round_end()
        actions, _ = run(cfg, log)
        assert [(a.action, a.rule, a.ref) for a in actions if a.rule == "games.repeat"] == [("propose", "games.repeat", ref)]
