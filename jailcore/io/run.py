"""`jailcore run --config FILE`: one server alone in this process (several: `fleet`, `workers`)."""

from __future__ import annotations

import logging
import sys

from jailcore.config.config import Config
from jailcore.io.daemon import Daemon
from jailcore.io.notify.notifier import alongside, say_now
from jailcore.io.process import last_word, run_loop
from jailcore.store import DATABASE_ERRORS, StoreError, daemon_store, errors_or

log = logging.getLogger("jailcore")


def main_run(config: Config, config_path: str | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    try:
        store = daemon_store(config.state_url, config.state_path)
    except StoreError as exc:
        print(f"jailcore run: {exc}", file=sys.stderr)
        could_not_start(config, str(exc))
        return 1
    try:
        try:
            daemon = Daemon(config, store, config_path=config_path)
        except StoreError as exc:
            print(f"jailcore run: {exc}", file=sys.stderr)
            could_not_start(config, str(exc))
            return 1
        except errors_or(OSError, ValueError) as exc:  # an MQTT certificate that cannot be read, ...
            print(f"jailcore run: cannot start: {exc}", file=sys.stderr)
            could_not_start(config, f"cannot start: {exc}")
            return 1
        run_loop(alongside(lambda: [daemon], daemon.run()))
    finally:
        try:
            store.close()
        except DATABASE_ERRORS:
            pass
    last_word(daemon.stop_reason)
    return daemon.exit_code


def could_not_start(config: Config, why: str) -> None:
    """A daemon that cannot open its database cannot queue: its sinks are told at once (a few
    seconds at most), and what they answered is logged."""
    if not config.notify.sinks or "stopped" not in {e for s in config.notify.sinks for e in s.events}:
        return
    for sink, answer in say_now(config, "stopped", {"reason": f"could not start: {why}"[:300]}):
        log.info("notifications: %s: %s", sink.shown, answer.said)
