"""Editing one rule's table of a config file (web/configedit.py): the rest of the file, its
comments and the next table's header comments stay; a header smuggled in is refused; the
whole file is checked by check-config's loader; versions are kept and read back."""

from __future__ import annotations

import pytest

pytest.importorskip("jinja2", reason="the web extra is not installed: pip install -e '.[web]'")

from jailcore.web import configedit

TEXT = '''[server]
name = "a"
rulebook = "all"

# 6.5 «Особые дни не чаще раза в 3 раунда»
[specialday.cooldown]
ref = "6.5"  # the clause
rounds = 3

# Общие 5 «Баланс»
[teams.balance]
ratio = 3
'''


def test_one_table_changes_and_every_other_line_stays():
    new = configedit.with_table(TEXT, "specialday.cooldown", 'ref = "6.5"  # the clause\nrounds = 4')
    assert new == TEXT.replace("rounds = 3", "rounds = 4")
    added = configedit.with_table(TEXT, "games.repeat", "in_a_row = 3")
    assert added == TEXT + "\n[games.repeat]\nin_a_row = 3\n"
    last = configedit.with_table(TEXT, "teams.balance", "ratio = 4")
    assert last == TEXT.replace("ratio = 3", "ratio = 4")


@pytest.mark.parametrize("body", ["[server]\nname = 'b'", "  [[online_limits]]", 'rounds = 3\n[web.users]\nx = "y"'])
def test_a_table_header_in_the_body_is_refused(body):
    with pytest.raises(configedit.EditError):
        configedit.with_table(TEXT, "specialday.cooldown", body)


def test_the_whole_file_is_checked_and_must_stay_this_servers(tmp_path):
    path = str(tmp_path / "a.toml")
    assert configedit.check(TEXT, path, "a").rules["specialday.cooldown"].rounds == 3
    with pytest.raises(configedit.EditError) as bad:
        configedit.check(configedit.with_table(TEXT, "specialday.cooldown", "rounds = -1"), path, "a")
    assert any(":7: specialday.cooldown.rounds: must not be negative" in p for p in bad.value.problems), bad.value.problems
    with pytest.raises(configedit.EditError):
        configedit.check(TEXT.replace('name = "a"', 'name = "b"'), path, "a")


def test_versions_are_kept_named_by_when_and_who_and_a_stale_save_is_refused(tmp_path):
    path = tmp_path / "a.toml"
    path.write_text(TEXT, encoding="utf-8")
    path.chmod(0o640)
    new = TEXT.replace("rounds = 3", "rounds = 4")
    kept = configedit.save(str(path), TEXT, new, "vasya")
    assert path.read_text(encoding="utf-8") == new and oct(path.stat().st_mode & 0o777) == "0o640"
    (version,) = configedit.versions(str(path))
    assert version["name"] == kept and version["by"] == "vasya"
    assert configedit.version(str(path), kept) == TEXT
    with pytest.raises(configedit.EditError):
        configedit.save(str(path), TEXT, TEXT, "vasya")  # the file moved on since TEXT was read
    with pytest.raises(configedit.EditError):
        configedit.version(str(path), "../a.toml")


def test_a_rule_table_that_brings_its_parent_table_is_the_rules_and_the_parents_own_keys_the_owners():
    bare = '[server]\nname = "a"\n'
    assert configedit.owner_only(bare, bare + "[specialday.cooldown]\nrounds = 4\n") == []
    assert configedit.owner_only(bare, bare + "[specialday]\nnote = 1\n[specialday.cooldown]\nrounds = 4\n") == ["specialday"]
