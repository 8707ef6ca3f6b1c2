"""`jailcore run --config FILE`: one server alone in this process (several: `fleet`, `workers`)."""

from __future__ import annotations

import logging
import sys

from jailcore.config.config import Config
from jailcore.io.daemon import Daemon
from jailcore.io.loop import last_word, run_loop
from jailcore.io.notify.notifier import alongside, say_now
from jailcore.store import DATABASE_ERRORS, StoreError, daemon_store, errors_or

log = logging.getLogger("jailcore")


def main_run(config: Config, config_path: str | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    try:
        store = daemon_store(config.state_url, config.state_path)
    except StoreError as exc:
        return refused(config, str(exc))
    daemon: Daemon | None = None

    async def main() -> str | None:
        nonlocal daemon
        try:
            daemon = Daemon(config, store, config_path=config_path)
            daemon.open()  # before the notifier: a server that cannot open is said once, below
        except StoreError as exc:
            return str(exc)
        except errors_or(OSError, ValueError) as exc:  # an MQTT certificate that cannot be read, ...
            return f"cannot start: {exc}"
        opened = daemon
        await alongside(lambda: [opened], opened.run())
        return None

    try:
        why = run_loop(main())
    finally:
        try:
            store.close()
        except DATABASE_ERRORS:
            pass
    if why is not None or daemon is None:
        return refused(config, why or "could not start")
    last_word(daemon.stop_reason)
    return daemon.exit_code


def refused(config: Config, why: str) -> int:
    print(f"jailcore run: {why}", file=sys.stderr)
    could_not_start(config, why)
    return 1


def could_not_start(config: Config, why: str) -> None:
    """A daemon that cannot open its database cannot queue: its sinks are told at once (a few
    seconds at most), and what they answered is logged."""
    if not config.notify.sinks or "stopped" not in {e for s in config.notify.sinks for e in s.events}:
        return
    for sink, answer in say_now(config, "stopped", {"reason": f"could not start: {why}"[:300]}):
        log.info("notifications: %s: %s", sink.shown, answer.said)
