"""The probes' policy (io/notify/notifier.py `probe`): RCON or the log silent past `[notify]
silence` is said once, and its return once; refused datagrams are said once a minute when a
burst passes `[notify] drops`. Driven by the clock it is given, over a daemon's parts as plain
values (the end-to-end path is in tests/test_notify.py, for the drops)."""

from __future__ import annotations

from types import SimpleNamespace

from jailcore.config.config import load
from jailcore.io.logsource import UdpLog
from jailcore.io.notify.notifier import Probe, probe


def daemon(silence: int = 30, drops: int = 5) -> SimpleNamespace:
    config = load(f'[server]\nname = "a"\n[notify]\nsilence = {silence}\ndrops = {drops}\n', "<t>", {})
    return SimpleNamespace(server="a", session=SimpleNamespace(config=config, line_at=None),
                           client=SimpleNamespace(is_open=True, state="open"), udp=UdpLog(lambda record: None), mqtt=None)


def kinds(events: list[dict]) -> list[tuple]:
    return [(e["kind"], e.get("what"), e.get("state")) for e in events]


def test_rcon_and_the_log_silent_are_said_once_and_their_return_once():
    d, p = daemon(), Probe(started=0.0)
    d.session.line_at = 0.0
    assert probe(d, p, 10.0) == []
    d.client.is_open, d.client.state = False, "refused"
    assert probe(d, p, 11.0) == []
    assert kinds(probe(d, p, 41.5)) == [("link", "rcon", "silent"), ("link", "log", "silent")]
    assert probe(d, p, 60.0) == []  # said once
    d.client.is_open = True
    d.session.line_at = 61.0
    back = probe(d, p, 62.0)
    assert kinds(back) == [("link", "rcon", "back"), ("link", "log", "back")] and back[0]["seconds"] == 51
    assert probe(d, p, 63.0) == []


def test_a_burst_of_refused_datagrams_is_said_once_a_minute():
    d, p = daemon(drops=5), Probe(started=0.0)
    d.session.line_at = 0.0
    assert probe(d, p, 1.0) == []
    d.udp.dropped["secret"] += 3
    assert probe(d, p, 2.0) == []  # under the threshold
    d.udp.dropped["address"] += 3
    (said,) = probe(d, p, 3.0)
    assert said["kind"] == "drops" and said["count"] == 6 and "secret 3" in said["summary"]
    d.udp.dropped["secret"] += 50
    assert probe(d, p, 4.0) == []  # once a minute
    d.session.line_at = 65.0
    assert probe(d, p, 65.0) == []  # (the probes look each second; the minute's first look here)
    d.udp.dropped["secret"] += 10
    assert [e["kind"] for e in probe(d, p, 66.0)] == ["drops"]  # a minute later, a new burst: said again
