"""`jailcore run --config FILE`: one server alone in this process (several: `fleet`, `workers`)."""

from __future__ import annotations

import logging
import sys

from jailcore.config.config import Config
from jailcore.io.daemon import Daemon
from jailcore.io.process import run_loop
from jailcore.store.errors import DATABASE_ERRORS, errors_or
from jailcore.store.location import daemon_store
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
        run_loop(daemon.run())
        return daemon.exit_code
    finally:
        try:
            store.close()
        except DATABASE_ERRORS:
            pass
