"""`jailcore run --config FILE`: one server alone in this process (several: `fleet`, `workers`)."""

from __future__ import annotations

import logging
import sys

from jailcore.config.config import Config
from jailcore.io.daemon import Daemon
from jailcore.io.process import last_word, run_loop
from jailcore.store.errors import DATABASE_ERRORS, errors_or
from jailcore.store.location import daemon_store, shown
from jailcore.store.sqlite import StoreError

log = logging.getLogger("jailcore")


def main_run(config: Config, config_path: str | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    try:
        store = daemon_store(config.state_url, config.state_path)
    except StoreError as exc:
        print(f"jailcore run: {exc}", file=sys.stderr)
        return 1
    try:
        try:
            daemon = Daemon(config, store, config_path=config_path)
        except StoreError as exc:
            print(f"jailcore run: {exc}", file=sys.stderr)
            return 1
        except errors_or(OSError, ValueError) as exc:  # an MQTT certificate that cannot be read, ...
            print(f"jailcore run: cannot start: {exc}", file=sys.stderr)
            return 1
        log.info("jailcore %s: log %s, RCON %s:%s, state %s, mode %s", config.server_name,
                 config.log_file or config.log_listen, config.rcon_host, config.rcon_port, shown(config.state_where), config.mode)
        run_loop(daemon.run())
    finally:
        try:
            store.close()
        except DATABASE_ERRORS:
            pass
    last_word(daemon.stop_reason)
    return daemon.exit_code
