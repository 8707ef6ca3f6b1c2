"""Where the tests find the real server logs (the corpus), and what they do without them.

The corpus is the folder `JAILCORE_CORPUS` names, or else `../shared/corpus` beside this
checkout (where the team keeps it). A user's plain clone has neither: the corpus tests then
skip, each with the one line `HOW`, and the suite passes. They fail instead when the corpus
was asked for and is not there: under CI (`CI=true`, which `.ci/run` sets), or when
`JAILCORE_CORPUS` names a folder without logs, since a silently skipped corpus would be a
silently green suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NAMED = os.environ.get("JAILCORE_CORPUS", "").strip()
FOLDER = Path(NAMED).expanduser() if NAMED else ROOT.parent / "shared" / "corpus"
FILES = sorted(FOLDER.glob("*.log")) if FOLDER.is_dir() else []
UNDER_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")
REQUIRED = bool(NAMED) or UNDER_CI
HOW = f"no real server logs in {FOLDER}: set JAILCORE_CORPUS to a folder of them (*.log) to run the corpus tests"


def files() -> list:
    """The parameters of a test run once per corpus log: the logs, or, when they are absent
    and not required, one parameter that skips with `HOW` (so the skip says what to set)."""
    if FILES or REQUIRED:
        return FILES
    return [pytest.param(None, marks=pytest.mark.no_corpus, id="no-corpus")]  # conftest skips it through `absent`


def absent() -> None:
    """The one place every corpus test skips from: pytest's summary folds skips of one place
    and reason into one line (`SKIPPED [N] tests/corpus.py:...`), so a clone without the
    corpus reads that line once."""
    pytest.skip(HOW)


def require() -> list[Path]:
    """For a test that checks the corpus is there: the logs; a skip with `HOW` when they are
    absent and not required; a failure when they are absent and required."""
    if not FILES:
        if not REQUIRED:
            absent()
        why = f"JAILCORE_CORPUS={NAMED}" if NAMED else "CI=true"
        pytest.fail(f"no real server logs in {FOLDER}, and {why} requires them")
    return FILES
