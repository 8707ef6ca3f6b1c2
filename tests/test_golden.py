"""Replay of every real log of the corpus, with each shipped config, byte for byte as
recorded in tests/golden/: a change of the engine's shape changes no decision, and a change
of a decision shows here, to be explained. Regenerate with
`python -m jailcore replay --config configs/C.toml --hud --state --stats FILE`."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from jailcore.cli.replay import replay_files
from jailcore.config.config import Config
from tests import corpus

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ("example", "server-a", "server-b")


def test_the_corpus_is_there_and_every_golden_record_has_its_log():
    """Without the corpus the replay below would be an empty parameter set, silently green."""
    logs = corpus.require()
    recorded = {p.name for p in (ROOT / "tests" / "golden").glob("*.jsonl")}
    assert recorded == {f"{config}.{path.stem}.jsonl" for config in CONFIGS for path in logs}


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("path", corpus.files(), ids=lambda p: p.name[:40])
def test_replay_matches_the_golden_record(config: str, path: Path):
    golden = ROOT / "tests" / "golden" / f"{config}.{path.stem}.jsonl"
    out = io.StringIO()
    replay_files(Config.from_toml(ROOT / "configs" / f"{config}.toml", env={}), [str(path)], out, state=True, stats=True, hud=True)
    assert out.getvalue() == golden.read_text(encoding="utf-8")
