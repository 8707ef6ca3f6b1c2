"""An admin's request while the MariaDB state database is away (a real mariadbd the test starts,
stops by its pid and starts again): the command line and the page say it is queued, it waits in
the machine's queue (store/requests.py), and once the database is back the daemon's writer
applies it, once; a request whose commit landed is never applied again, and one that no longer
holds (a second pardon of one entry) is refused then, and said by `jailcore status` and on the
page's Activity."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import time
from datetime import datetime

import pymysql
import pytest

from jailcore.config.config import Config
from jailcore.store.location import daemon_writer
from jailcore.store.mariadb import MariaStore, target
from jailcore.store.requests import RequestQueue, replay, requests_path, waiting_requests
from tests.mariadb import PASSWORD, mariadb_server, started
from tests.test_mariadb import act

__all__ = ["mariadb_server"]


def jailcore(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jailcore", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})


def rows(url: str, sql: str) -> list[dict]:
    t = target(url)
    db = pymysql.connect(host=t.host, port=t.port, user=t.user, password=t.password, database=t.database,
                         cursorclass=pymysql.cursors.DictCursor)
    try:
        with db.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        db.close()


def until(check, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


async def test_requests_made_while_the_database_is_away_are_queued_and_applied_once_when_it_is_back(tmp_path):
    pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
    from jailcore.web.auth import hash_password
    from tests.webkit import Browser

    server = started(tmp_path / "db")
    try:
        url = server.database()
        store = MariaStore(url)
        ids = [store.record("jail", act(i), 1, f"jb_slay #{i}", "delivered") for i in (1, 2, 3)]
        store.commit()
        store.close()
        state = tmp_path / "jail.sqlite3"
        config_file = tmp_path / "jail.toml"
        config_file.write_text(f'[server]\nname = "jail"\nrulebook = "all"\n[rcon]\npassword = "x"\n[state]\npath = "{state}"\nurl = "{url}"\n'
                               f'[web]\n[web.users]\nmod = "{hash_password("moderator password")}"\n[web.roles]\nmod = "moderator"\n',
                               encoding="utf-8")
        from jailcore.web.app import Web
        from jailcore.web.data import Sources

        config = Config.from_toml(config_file, {})
        web = Web(Sources([config]), config.web, poll=0.05, clock=lambda: datetime(2026, 12, 1, 10, 0))
        mod = Browser(web.app())
        assert (await mod.login("mod", "moderator password")).status == 303
        token = await mod.csrf("/live")

        await asyncio.to_thread(server.stop)
        pardon = await asyncio.to_thread(jailcore, "pardon", str(ids[0]), "--reason", "ошибся", "--by", "Админ", "--config", str(config_file))
        assert pardon.returncode == 0 and "queued" in pardon.stdout and "applied once" in pardon.stdout, pardon.stderr
        assert PASSWORD not in pardon.stdout + pardon.stderr
        again = await asyncio.to_thread(jailcore, "pardon", str(ids[0]), "--by", "Другой", "--config", str(config_file))
        assert again.returncode == 0 and "queued" in again.stdout  # unchecked until the database can say
        ban = await asyncio.to_thread(jailcore, "ctban", "add", "STEAM_1:0:5", "--minutes", "30", "--config", str(config_file))
        assert ban.returncode == 0 and "queued" in ban.stdout, ban.stderr
        on_page = await mod.post("/pardon", {"server": "jail", "id": str(ids[1]), "reason": "со страницы"}, token)
        assert on_page.status == 202 and "база вернётся" in on_page.text
        queue = requests_path(str(state))
        assert waiting_requests(queue) == 4 and oct(os.stat(queue).st_mode & 0o777) == "0o600"
        status = await asyncio.to_thread(jailcore, "status", "--config", str(config_file))
        assert "4 admin request(s) wait in the queue" in status.stdout + status.stderr

        await asyncio.to_thread(server.start)
        writer = daemon_writer(url, str(state), checkpoint_interval=0.2)  # the daemon's writer: it looks at the queue each checkpoint
        try:
            await asyncio.to_thread(until, lambda: waiting_requests(queue) == 0)
        finally:
            writer.close()
        pardons = rows(url, "SELECT action_id, `by`, reason FROM pardons ORDER BY id")
        assert [(p["action_id"], p["by"]) for p in pardons] == [(ids[0], "Админ"), (ids[1], "mod")]  # in order, each once
        bans = rows(url, "SELECT steamid, minutes, `by` FROM ctban_requests")
        assert [(b["steamid"], b["minutes"]) for b in bans] == [("STEAM_1:0:5", 30)]
        settled = sqlite3.connect(queue).execute("SELECT outcome FROM settled ORDER BY seq").fetchall()
        assert [o.split(":")[0] for (o,) in settled] == ["applied", "refused", "applied", "applied"]
        assert "already pardoned by Админ" in settled[1][0]
        # The refusal is said where admins look, not only in the queue file and the log.
        status = await asyncio.to_thread(jailcore, "status", "--config", str(config_file))
        assert "admin request(s) refused at replay in the last 7 days: 1" in status.stdout, status.stdout + status.stderr
        assert f"pardon #{ids[0]} by Другой: enforcement {ids[0]} was already pardoned by Админ" in status.stdout
        asked = json.loads((await asyncio.to_thread(jailcore, "status", "--config", str(config_file), "--json")).stdout.splitlines()[0])
        assert asked["refused_requests"]["count"] == 1 and asked["refused_requests"]["newest"][0]["by"] == "Другой"
        activity = (await mod.get("/activity")).text
        assert "<b>Другой</b> — запрос из очереди отклонён, когда база вернулась · jail · pardon #" in activity
        assert f"pardon #{ids[0]}: <span class=\"why\">enforcement {ids[0]} was already pardoned by Админ" in activity

        # A commit that landed but whose settling was cut off (a crash in between): asked again, it is not applied twice.
        q = sqlite3.connect(queue)
        q.execute("INSERT INTO queued (seq, kind, args) SELECT seq, kind, args FROM settled WHERE seq = 3")
        q.commit()
        q.close()
        store, queue_file = MariaStore(url), RequestQueue(queue)
        try:
            assert replay(store, queue_file) == {}
        finally:
            store.close()
            queue_file.close()
        assert len(rows(url, "SELECT id FROM ctban_requests")) == 1 and waiting_requests(queue) == 0

        # With the database there, a request is written at once and said as before.
        direct = await asyncio.to_thread(jailcore, "pardon", str(ids[2]), "--config", str(config_file))
        assert direct.returncode == 0 and "written" in direct.stdout and "queued" not in direct.stdout
        refused = await asyncio.to_thread(jailcore, "pardon", str(ids[2]), "--config", str(config_file))
        assert refused.returncode == 1 and "already pardoned" in refused.stderr
        assert len(rows(url, "SELECT id FROM pardons")) == 3
        assert json.loads(json.dumps(rows(url, "SELECT COUNT(*) AS n FROM journal_applied")))[0]["n"] == 1  # one queue, one number
        web.sources.close()
    finally:
        server.stop()
