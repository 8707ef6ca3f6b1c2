"""A MariaDB state database that refuses at start (nothing listening on its port, a wrong
password, no such database on the server) is refused by every command that opens it, in one
line that names the host, the port and the database and never prints the password, whether
the URL comes from a config's `[state] url` or from JAILCORE_STATE_URL (the real server of
tests/mariadb.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from jailcore.store.mariadb import target
from tests.mariadb import PASSWORD, free_port, mariadb, mariadb_server

__all__ = ["mariadb", "mariadb_server"]

WRONG = "not-the-password-42"

# Each command as an admin types it; {config} is a config naming the database, or none.
COMMANDS = {
    "run": ["run", "--config", "{config}"],
    "web": ["web", "--config", "{config}"],
    "status": ["status", "--config", "{config}"],
    "tail": ["tail", "--config", "{config}"],
    "history": ["history", "STEAM_1:0:7", "--config", "{config}"],
    "ctban list": ["ctban", "list", "--config", "{config}"],
}
NEEDS_CONFIG = {"run", "web"}  # the daemon and the page serve configs; the others read the URL alone


def config(tmp_path, url: str | None) -> str:
    path = tmp_path / "server.toml"
    state = f'path = "{tmp_path / "state.sqlite3"}"\n' + (f'url = "{url}"\n' if url else "")
    path.write_text('[server]\nname = "jail-1"\nrulebook = "all"\n[rcon]\nport = 27015\npassword = "pw"\n'
                    f'[log]\nlisten = "127.0.0.1:0"\n[state]\n{state}', encoding="utf-8")
    return str(path)


def jailcore(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    full = {**os.environ, "JAILCORE_STATE": "", "JAILCORE_STATE_URL": "", **env}
    return subprocess.run([sys.executable, "-m", "jailcore", *args], capture_output=True, text=True, timeout=60, env=full)


def refusals(mariadb_server, mariadb) -> dict[str, tuple[str, str]]:
    """Each way a database refuses: its URL (with a password) and what the line says."""
    return {
        "wrong password": (mariadb_server.url(target(mariadb).database, password=WRONG), "refused the user or its password"),
        "no such database": (mariadb_server.url("nowhere_here"), "no such database"),
        "nothing on the port": (f"mysql://jailcore:{PASSWORD}@127.0.0.1:{free_port()}/jailcore", "cannot be reached"),
    }


def refused_in_one_line(done: subprocess.CompletedProcess, url: str, why: str, what: str) -> None:
    said = (done.stdout + done.stderr).strip()
    assert done.returncode == 1, (what, done.returncode, said)
    assert len(said.splitlines()) == 1 and "Traceback" not in said, (what, said)
    assert why in said and target(url).shown in said, (what, said)  # the host, the port and the database named
    assert PASSWORD not in said and WRONG not in said, (what, said)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_database_that_refuses_is_refused_by_every_command_in_one_line(tmp_path, mariadb_server, mariadb, command):
    cases = refusals(mariadb_server, mariadb)
    for what, (url, why) in cases.items():  # the URL in the config's [state] url
        args = [a.replace("{config}", config(tmp_path, url)) for a in COMMANDS[command]]
        refused_in_one_line(jailcore(args, {}), url, why, f"{command}, [state] url, {what}")
    url, why = cases["wrong password"]  # the URL in the environment (a config without one, or none at all)
    with_config = [a.replace("{config}", config(tmp_path, None)) for a in COMMANDS[command]]  # a config without a url
    alone = COMMANDS[command][:COMMANDS[command].index("--config")]  # no config at all
    args = with_config if command in NEEDS_CONFIG else alone
    refused_in_one_line(jailcore(args, {"JAILCORE_STATE_URL": url}), url, why, f"{command}, JAILCORE_STATE_URL")
    assert not (tmp_path / "state.sqlite3").exists()  # the URL is the state: no file was made instead


def test_a_refused_start_lets_go_of_its_connections_and_its_journal(tmp_path, mariadb_server):
    """A daemon's store refused at start (here: a newer schema) closes its two connections and
    lets go of its journal's lock at once, not when the collector finds them: a process that
    goes on (the page, a retry) holds nothing of the database meanwhile."""
    import pymysql

    from jailcore.store.journal import Journal
    from jailcore.store.mariadb import SCHEMA_VERSION, MariaStore
    from jailcore.store.sqlite import StoreError

    url = mariadb_server.database()
    MariaStore(url).close()
    t = target(url)
    db = pymysql.connect(host=t.host, port=t.port, user=t.user, password=t.password, database=t.database, autocommit=True)
    with db.cursor() as cur:
        cur.execute("UPDATE jailcore_schema SET version = %s", (SCHEMA_VERSION + 1,))
    journal = tmp_path / "state.journal"
    with pytest.raises(StoreError, match="newer than this jailcore's") as caught:
        MariaStore(url, str(journal))
    assert caught.value is not None  # kept alive, its traceback with it: what it held must be let go all the same
    Journal(journal, exact=True).close()  # its lock is free (a held one raises Taken)
    with db.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = %s", (t.database,))
        assert cur.fetchone() == (1,)  # this test's own connection only
    db.close()
