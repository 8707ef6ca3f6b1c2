"""`jailcore notify test [--config FILE]`: one message to every sink of the config (and of the
environment: JAILCORE_DISCORD_WEBHOOK, JAILCORE_TELEGRAM_TOKEN, JAILCORE_NOTIFY_WEBHOOK), and
what each answered. Straight to the sinks, not through the queue: it says whether they work now."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jailcore.store.reader import Reader


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("notify", help="notifications: `notify test` sends one message to every sink and prints each answer")
    p.add_argument("action", choices=("test",))
    p.add_argument("--config", help="the server's config (its [notify.*] sinks); without one, the environment's")
    p.set_defaults(func=main_notify)


def main_notify(args: argparse.Namespace) -> int:
    from jailcore.config.config import Config, load
    from jailcore.io.notify.notifier import say_now

    config = Config.from_toml(args.config) if args.config else load("", "<environment>", os.environ)
    if not config.notify.sinks:
        print("jailcore notify test: no sink: give [notify.discord] url, [notify.telegram] token and chat, or [notify.webhook] url "
              "(or JAILCORE_DISCORD_WEBHOOK, JAILCORE_TELEGRAM_TOKEN, JAILCORE_NOTIFY_WEBHOOK)", file=sys.stderr)
        return 1
    answers = say_now(config, "test", {})
    for sink, answer in answers:
        print(f"{sink.shown}: {answer.outcome} ({answer.said})")
    return 0 if all(a.outcome == "sent" for _, a in answers) else 1


# -- what `jailcore status` says of the sinks (in the database it reads) ------------------------------


def failing_sinks(db: Reader) -> dict[str, Any]:
    """`{"notify_failing": [...]}`: the sinks that keep failing, from the database's own record
    (the senders write it); {} when none."""
    from jailcore.store.notices import failing, sink_health

    found = failing(sink_health(db.rows))
    return {"notify_failing": found} if found else {}


def sink_lines(s: Mapping[str, Any], colour: bool) -> list[str]:
    from jailcore.cli.tail import paint, safe

    return [paint(safe(f"  notifications to {sink.get('shown')} failing since {str(sink.get('since') or '?').replace('T', ' ')} "
                       f"({sink.get('failures')} tries in a row): {sink.get('error')}; {sink.get('waiting')} message(s) wait"), "31;1", colour)
            for sink in s.get("notify_failing") or [] if isinstance(sink, dict)]
