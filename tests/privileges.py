"""Running a command as a user without power over file modes, for the tests of what an
operator is told when a file or folder is not his: as a plain user the modes apply as they
are; as root (CI, containers) `setpriv` drops the two capabilities that let root past them
(CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), keeping uid 0, and a file made `foreign` belongs
to nobody with the test's group, so the group's bits are the ones that apply, as they do to
the jailcore group's members on a real install."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

NOBODY = 65534


def unprivileged() -> list[str]:
    """The argv prefix that runs a command under the file modes."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("as root, the permission tests need setpriv (util-linux) to drop CAP_DAC_OVERRIDE")
    return [setpriv, "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search"]


def foreign(path: Path, mode: int) -> None:
    """`path` as another user's with `mode`, this test's group being the file's group: the
    group's bits of `mode` are what an `unprivileged()` command may do with it."""
    if os.geteuid() == 0:
        os.chown(path, NOBODY, os.getgid())
        path.chmod(mode)
    else:  # a plain user cannot give his file away: his own bits are set to the group's
        path.chmod((mode & 0o070) << 3 | (mode & 0o077))
