"""The errors an operator reads (issue 33), each one line that names the file, key or port
and what to change: a misspelt key with its right spelling, a missing RCON password (in
check-config, and a daemon that never logs in without one), `status` looking where `init`
writes and naming the folder or file a user may not read, a log or web port in use with
what holds it and no "up" line before it, and a config the page may not save."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from jailcore.io.rcon import RconAuthError, RconClient
from jailcore.sim.simserver import SimServer
from jailcore.store.access import DEFAULT_STATE
from jailcore.store.location import daemon_store
from tests.privileges import foreign, unprivileged

ROOT = Path(__file__).resolve().parents[1]


def env(**extra: str) -> dict[str, str]:
    """An operator's shell: this checkout's code, none of the JAILCORE_ settings of the test's."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith("JAILCORE_")}, "PYTHONPATH": str(ROOT), **extra}


def jc(*argv: str | Path, cwd: Path | None = None, prefix: list[str] | None = None, timeout: float = 60, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([*(prefix or []), sys.executable, "-m", "jailcore", *map(str, argv)], capture_output=True, text=True,
                          env=env(**extra), cwd=cwd, timeout=timeout)


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def config(path: Path, body: str = "") -> Path:
    path.write_text(f'[server]\nname = "srv"\nrulebook = "001"\n{body}', encoding="utf-8")
    return path


# -- the config -----------------------------------------------------------------------------


def test_an_unknown_key_or_table_suggests_the_spelling_it_is_near(tmp_path):
    path = config(tmp_path / "srv.toml", '[specialday.cooldown]\nroundz = 3\n[rcon]\npasswrod = "x"\n[specialdya.cooldown]\nrounds = 2\n'
                                         "[teams.balance]\nzzz = 1\n")
    done = jc("check-config", path)
    assert done.returncode == 1 and done.stdout == ""
    assert lines(done.stderr) == [
        f"{path}:5: specialday.cooldown.roundz: unknown key in [specialday.cooldown]; did you mean 'rounds'?",
        f"{path}:7: rcon.passwrod: unknown key in [rcon]; did you mean 'password'?",
        f"{path}:8: specialdya: unknown key; did you mean 'specialday'?",
        f"{path}:11: teams.balance.zzz: unknown key in [teams.balance]",  # nothing near: no guess
        f"{path}: 4 error(s); config refused",
    ]


def test_check_config_says_a_missing_rcon_password_and_where_it_comes_from_and_passes(tmp_path):
    path = config(tmp_path / "srv.toml")
    done = jc("check-config", path)
    assert done.returncode == 0 and done.stdout.startswith(f"{path}: ok (srv, ")
    (warning,) = lines(done.stderr)
    assert warning.startswith(f"{path}: rcon.password: warning: no RCON password")
    assert "[rcon] password in this file or JAILCORE_RCON_PASSWORD in its environment" in warning
    # the service's environment file gives it, or the file does: nothing to say
    assert jc("check-config", path, JAILCORE_RCON_PASSWORD="from-env").stderr == ""
    assert jc("check-config", config(tmp_path / "with.toml", '[rcon]\npassword = "in-file"\n')).stderr == ""


async def test_the_daemon_never_tries_an_empty_rcon_password_and_says_where_one_comes_from(caplog):
    sim = SimServer(password="pw")
    port = await sim.start()
    client = RconClient("127.0.0.1", port, "")
    try:
        with caplog.at_level(logging.ERROR, "jailcore.rcon"), pytest.raises(RconAuthError, match="no RCON password"):
            await client.open()
        assert client.state == "stopped" and client.next_try() is None  # waits for SIGHUP or a saved config, tries nothing
        assert sim.auth_packets == 0 and not sim.failures  # srcds never saw a login to count towards a ban
        (said,) = [r.getMessage() for r in caplog.records if r.name == "jailcore.rcon"]
        assert said.startswith(f"RCON: no password for 127.0.0.1:{port}: set [rcon] password") and "JAILCORE_RCON_PASSWORD" in said
        client.rearm(password="pw")  # the config saved with one
        await asyncio.wait_for(client.open(), 60)
        assert client.is_open and sim.auth_packets == 1
    finally:
        await client.close()
        await sim.stop()


# -- the state database ----------------------------------------------------------------------


def state_file(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    daemon_store("", str(path)).close()
    return path


@pytest.mark.skipif(os.path.exists(DEFAULT_STATE), reason=f"this machine has a real {DEFAULT_STATE}")
def test_status_without_arguments_looks_where_init_writes_then_where_the_env_says(tmp_path):
    done = jc("status", cwd=tmp_path)
    assert done.returncode == 1 and lines(done.stderr) == [
        f"jailcore status: no state database at {DEFAULT_STATE} (where jailcore init puts it, nor jailcore.sqlite3 here; "
        "give --state-db, JAILCORE_STATE, JAILCORE_STATE_URL or --config)"]
    elsewhere = state_file(tmp_path / "var" / "jailcore.sqlite3")
    by_env = jc("status", cwd=tmp_path, JAILCORE_STATE=str(elsewhere))
    assert lines(by_env.stderr) == [f"jailcore status: no server found in {elsewhere}"]  # read, and empty
    state_file(tmp_path / "jailcore.sqlite3")  # a config's own default, beside a daemon run from this folder
    assert lines(jc("status", cwd=tmp_path).stderr) == ["jailcore status: no server found in jailcore.sqlite3"]


def test_status_names_the_folder_or_the_file_a_user_may_not_read(tmp_path):
    prefix = unprivileged()
    folder = tmp_path / "var" / "lib" / "jailcore"
    db = state_file(folder / "jailcore.sqlite3")
    foreign(folder, 0o700)  # StateDirectoryMode=0700: the jailcore user's alone
    done = jc("status", cwd=tmp_path, prefix=prefix, JAILCORE_STATE=str(db))
    (line,) = lines(done.stderr)
    assert done.returncode == 1 and re.fullmatch(
        rf"jailcore status: {re.escape(str(db))}: (user \S+|uid \d+) may not enter {re.escape(str(folder))} \(\S+'s, mode 0[0-7]00\): "
        r"run it as \S+ \(runuser -u \S+ -- jailcore \.\.\.\)", line), line
    foreign(folder, 0o750)
    foreign(db, 0o600)
    done = jc("status", "--state-db", db, cwd=tmp_path, prefix=prefix)
    (line,) = lines(done.stderr)
    assert done.returncode == 1 and f"jailcore status: {db}: " in line and " may not read it (" in line and "runuser -u" in line, line


# -- ports -------------------------------------------------------------------------------------


def test_a_log_port_in_use_is_one_line_naming_it_and_what_holds_it_and_no_up_line(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as held:
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        path = config(tmp_path / "srv.toml", f'[log]\nlisten = "127.0.0.1:{port}"\n[state]\npath = "{tmp_path / "j.sqlite3"}"\n')
        done = jc("run", "--config", path, JAILCORE_RCON_PASSWORD="pw")
    (line,) = lines(done.stderr)
    assert done.returncode == 1, done
    assert line.endswith(f"jailcore stops: the log: cannot listen on 127.0.0.1:{port} (udp): port {port} is in use by pid {os.getpid()} "
                         f"({Path(f'/proc/{os.getpid()}/comm').read_text().strip()}, user {user()}); stop that, or choose another port "
                         f"in [log] listen of {path}"), line


def test_a_web_port_in_use_is_one_line_naming_it_and_what_holds_it_and_no_up_line(tmp_path):
    path = config(tmp_path / "srv.toml", f'[state]\npath = "{state_file(tmp_path / "j.sqlite3")}"\n')
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        done = jc("web", "--config", path, "--listen", f"127.0.0.1:{port}")
    assert done.returncode == 1 and done.stdout == "", done
    assert lines(done.stderr) == [f"jailcore web: cannot listen on 127.0.0.1:{port} (tcp): port {port} is in use by pid {os.getpid()} "
                                  f"({Path(f'/proc/{os.getpid()}/comm').read_text().strip()}, user {user()}); stop that, or choose "
                                  "another port in [web] listen (or --listen)"]


def user() -> str:
    import pwd

    return pwd.getpwuid(os.geteuid()).pw_name


# -- a config saved from the page --------------------------------------------------------------

TEXT = '[server]\nname = "a"\nrulebook = "all"\n\n[specialday.cooldown]\nrounds = 3\n'
SAVE = """
import sys
from jailcore.web import configedit
path = sys.argv[1]
old = open(path, encoding="utf-8").read()
try:
    print("saved", configedit.save(path, old, old.replace("rounds = 3", "rounds = 4"), "vasya"))
except configedit.EditError as exc:
    print(*exc.problems, sep="\\n")
"""


def test_a_save_locks_in_the_services_own_folder_and_leaves_the_configs_folder_as_it_was(tmp_path, monkeypatch):
    from jailcore.web import configedit

    folder, state = tmp_path / "servers", tmp_path / "state"
    folder.mkdir()
    state.mkdir()
    path = folder / "a.toml"
    path.write_text(TEXT, encoding="utf-8")
    monkeypatch.setenv("STATE_DIRECTORY", str(state))  # what systemd's StateDirectory= sets for the service
    kept = configedit.save(str(path), TEXT, TEXT.replace("rounds = 3", "rounds = 4"), "vasya")
    assert sorted(p.name for p in folder.iterdir()) == ["a.toml", "a.toml.versions"] and kept
    (lock,) = state.iterdir()
    assert lock == configedit.lock_path(str(path)) and lock.name.endswith("-a.toml.lock")


def test_a_save_where_the_page_may_not_write_is_refused_in_one_line_naming_the_folder_and_the_change(tmp_path):
    prefix = unprivileged()
    folder = tmp_path / "servers"
    folder.mkdir()
    path = folder / "a.toml"
    path.write_text(TEXT, encoding="utf-8")
    foreign(path, 0o640)
    foreign(folder, 0o750)  # install.md's `install -d -o root -g jailcore -m 0750`
    done = subprocess.run([*prefix, sys.executable, "-c", SAVE, str(path)], capture_output=True, text=True, timeout=60,
                          env=env(STATE_DIRECTORY=str(tmp_path)))
    (line,) = lines(done.stdout)
    assert done.returncode == 0 and done.stderr == "", done
    assert line.startswith(f"cannot save {path}: this page runs as ") and f", who may not write in {folder} (nothing was written). " in line
    assert f"To let the page save configs: chmod 0770 {folder}" in line
    assert path.read_text(encoding="utf-8") == TEXT and sorted(p.name for p in folder.iterdir()) == ["a.toml"]
    foreign(folder, 0o770)  # what the line says to do
    done = subprocess.run([*prefix, sys.executable, "-c", SAVE, str(path)], capture_output=True, text=True, timeout=60,
                          env=env(STATE_DIRECTORY=str(tmp_path)))
    assert done.stdout.startswith("saved ") and "rounds = 4" in path.read_text(encoding="utf-8"), done
