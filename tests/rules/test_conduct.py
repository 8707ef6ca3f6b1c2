"""Scenarios for conduct.*: 001 privileges 1, general 16, 17, 19, 22, written from the rulebooks."""

from __future__ import annotations

import pytest

from tests.logtext import P, run
from tests.scenes import WARDEN, rules_of, setup


@pytest.mark.parametrize(("kind", "before_order", "slain"), [("hook", True, True), ("money", True, False), ("hook", False, False)])
def test_n12_privileges_before_the_first_order(kind, before_order, slain):
    log, ts = setup()
    if not before_order:
        log.order(WARDEN, "стоять")
    log.start_here().trig(ts[0], "jb_privilege", f' (kind "{kind}")')
    actions, _ = run("", log)
    assert rules_of(actions) == ([("slay", "conduct.privileges")] if slain else [])


def test_n13_team_kill_ladder_and_special_day_exception():
    log, ts = setup()
    log.kill(ts[0], ts[1]).kill(ts[0], ts[2])
    actions, _ = run('[conduct.teamkill]\nconfirm = "none"\n', log)
    assert rules_of(actions) == [("slay", "conduct.teamkill"), ("kick", "conduct.teamkill")]
    # 001 Общие 17 «Намеренно»: intent is an admin's to judge by default, one question at a time
    actions, _ = run("", log)
    assert [(a.action, a.step) for a in actions] == [("propose", "slay")]
    log, ts = setup()
    log.specialday(WARDEN, "Голодные игры").kill(ts[0], ts[1])
    actions, _ = run("", log)
    assert actions == []


def test_n14_advertising_is_a_permanent_ban():
    log, ts = setup()
    log.say(ts[0], "заходите на наш сервер 212.129.25.133:27015").say(ts[1], "в 20.30 играем")
    actions, _ = run("", log)
    assert [(a.action, a.rule, a.minutes, a.target.userid) for a in actions] == [("ban", "conduct.advertising", 0, ts[0].userid)]


@pytest.mark.parametrize(
    ("name", "kicked"),
    [("[ADMIN] Вася", True), ("(Админ)Петя", True), ("♥♥♥", True), ("Начальник", True), ("Вася", False), ("Admiral", False)],
)
def test_n14_impersonating_or_unreadable_names(name, kicked):
    log, _ = setup()
    log.connect(P(name, 70, "STEAM_1:0:7070"), "TERRORIST")
    actions, _ = run("", log)
    assert rules_of(actions) == ([("kick", "conduct.names")] if kicked else [])


@pytest.mark.parametrize(("grenades", "slain"), [(3, False), (4, True)])
def test_n15_grenade_spam(grenades, slain):
    log, ts = setup()
    for _ in range(grenades):
        log.add(f'{ts[0].ident()} threw hegrenade [1 2 3]')
    actions, _ = run("", log)
    assert rules_of(actions) == ([("slay", "conduct.grenade_spam")] if slain else [])


# 001 Общие 19 «Рекламировать что либо [Бан Навсегда]»: a link to Steam's own pages (a
# prisoner reporting a cheater's profile) or to the server's own site is no advertising.
@pytest.mark.parametrize(("text", "banned"), [
    ("читер вот: https://steamcommunity.com/profiles/76561198000000000", False),
    ("его профиль steamcommunity.com/id/cheater", False),
    ("https://s.team/p/abcd-efgh", False),
    ("https://store.steampowered.com/app/240", False),
    ("наш форум https://myjail.ru/forum", False),
    ("https://steamcommunity.com.evil.ru/id/x", True),
    ("https://evil.ru/steamcommunity.com", True),
    ("мой профиль https://steamcommunity.com/id/me и заходите www.other-jail.ru", True),
    ("заходите 212.129.25.133:27015", True),
])
def test_general_19_steam_and_the_servers_own_site_are_not_advertising(text, banned):
    log, ts = setup()
    log.say(ts[0], text)
    actions, _ = run('[conduct.advertising]\nallowed_domains = ["steamcommunity.com", "s.team", "steampowered.com", "myjail.ru"]\n', log)
    assert rules_of(actions) == ([("ban", "conduct.advertising")] if banned else [])


# 001 Общие 16 «…непонятные, оскорбительные, тяжело читаемые ники, выдавать себя за
# администратора или за другого игрока»: a staff title as a word of the name poses as an
# administrator with or without brackets; offensive names from a short word list.
@pytest.mark.parametrize(("name", "why"), [
    ("Админ Вася", "администратора"), ("Администратор Вася", "администратора"), ("[ADMIN] Петя", "администратора"),
    ("Модератор", "администратора"), ("Гл.Админ", "администратора"), ("Admin_Kolya", "администратора"),
    ("Сука", "Оскорбительный"), ("xуйло", "Оскорбительный"), ("Ёбаный Рот", "Оскорбительный"), ("FuckYou", "Оскорбительный"),
    ("Барсук", None), ("Адмирал", None), ("Badminton", None), ("Рубля", None), ("Вася", None),
])
def test_general_16_posing_as_an_admin_and_offensive_names(name, why):
    log, _ = setup()
    log.connect(P(name, 70, "STEAM_1:0:7070"), "TERRORIST")
    actions, _ = run("", log)
    if why is None:
        assert actions == []
    else:
        (a,) = actions
        assert (a.action, a.rule) == ("kick", "conduct.names") and why in a.reason


def test_general_16_offensive_words_are_a_setting():
    log, _ = setup()
    log.connect(P("Лох Педальный", 70, "STEAM_1:0:7070"), "TERRORIST")
    assert run("", log)[0] == []
    assert rules_of(run('[conduct.names]\noffensive = ["лох"]\n', log)[0]) == [("kick", "conduct.names")]


def test_the_shipped_servers_send_advertising_and_names_to_an_admin():
    from pathlib import Path

    from jailcore.config.config import Config

    configs = Path(__file__).resolve().parents[2] / "configs"
    for name in ("server-a", "example"):
        config = Config.from_toml(configs / f"{name}.toml", env={})
        for key in ("conduct.advertising", "conduct.names"):
            assert config.rules[key].confirm == "admin", (name, key)
        assert "steamcommunity.com" in config.rules["conduct.advertising"].allowed_domains
