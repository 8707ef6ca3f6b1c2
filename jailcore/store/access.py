"""Whether this user can reach a SQLite state file, and if not, why, in one line an operator
acts on: whose folder or file stands in the way and how to run as him. Imports nothing of
the store, so every reader of a file asks it first."""

from __future__ import annotations

import os
import stat
from pathlib import Path

# Where `jailcore init` puts the state database (its --state default), and so where the
# command line looks when it is given none and the current folder has no jailcore.sqlite3.
DEFAULT_STATE = "/var/lib/jailcore/jailcore.sqlite3"


def _owner(path: Path) -> tuple[str, str]:
    """(its owner's name, its mode as 0700) of a file or folder that may be stat'ed."""
    import pwd

    st = path.stat()
    try:
        name = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        name = f"uid {st.st_uid}"
    return name, f"{stat.S_IMODE(st.st_mode):04o}"


def out_of_reach(path: str) -> str | None:
    """Why this user cannot read the SQLite file at `path`, in one line that says whose it is
    and how to run as him; None when nothing in the way is refused (the file may still be
    missing). SQLite reads a file in WAL mode only by opening `-shm` beside it for writing.
    It says to run as the owner, not as root: root's SQLite would leave a `-wal` or `-shm`
    of root's beside the file that the daemon, as its own user, could not open."""
    target = Path(path).absolute()
    me = _user()
    for folder in reversed(target.parents):
        if folder.is_dir() and not os.access(folder, os.X_OK):
            owner, mode = _owner(folder)
            return (f"{path}: {me} may not enter {folder} ({owner}'s, mode {mode}): run it as {owner} "
                    f"(runuser -u {owner} -- jailcore ...)")
    if not target.exists():
        return None
    owner, mode = _owner(target)
    if not os.access(target, os.R_OK):
        return f"{path}: {me} may not read it ({owner}'s, mode {mode}): run it as {owner} (runuser -u {owner} -- jailcore ...)"
    shm = Path(f"{target}-shm")
    if not (os.access(shm, os.R_OK | os.W_OK) if shm.exists() else os.access(target.parent, os.W_OK)):
        return (f"{path}: {me} may read it but not {shm.name if shm.exists() else 'write in ' + str(target.parent)}, which SQLite needs "
                f"to read it ({owner}'s): run it as {owner} (runuser -u {owner} -- jailcore ...)")
    return None


def _user() -> str:
    import pwd

    try:
        return f"user {pwd.getpwuid(os.geteuid()).pw_name}"
    except KeyError:
        return f"uid {os.geteuid()}"
