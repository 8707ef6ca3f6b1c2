"""Opening the log files `replay` is given: plain text, or gzip (by its magic bytes, so a
rotated `L1130000.log.gz` reads as it is); a directory, a missing file and a file that is
not text are each refused with one line naming it, before any output."""

from __future__ import annotations

import gzip
import re
import zlib
from pathlib import Path
from typing import BinaryIO

from jailcore.log.errors import ProtocolError

GZIP_MAGIC = b"\x1f\x8b"
SAMPLE = 65536
# Real logs hold NULs (srcds ends lines with one) and chat colour bytes: a file is taken for
# binary only when its sample has no log timestamp at all and is full of control bytes.
_CONTROL = frozenset(range(32)) - {9, 10, 13}
MAX_CONTROL = 0.02
_STAMP = re.compile(rb"\d\d/\d\d/\d{4} - \d\d:\d\d:\d\d:")


class LogFileError(ProtocolError):
    """One line: which file, and why it cannot be replayed."""


def check(path: str) -> None:
    """Refuse what cannot be replayed, reading at most a sample of it."""
    p = Path(path)
    if p.is_dir():
        raise LogFileError(f"{path} is a directory: give the log files in it (for example {path.rstrip('/')}/*.log)")
    if not p.exists():
        raise LogFileError(f"no such log file: {path}")
    try:
        with open_log(path) as fh:
            sample = fh.read(SAMPLE)
    except (OSError, EOFError, zlib.error) as exc:
        raise LogFileError(f"{path}: cannot be read: {getattr(exc, 'strerror', None) or exc}") from None
    if sample and not _STAMP.search(sample) and sum(b in _CONTROL for b in sample) > MAX_CONTROL * len(sample):
        raise LogFileError(f"{path}: not a text log (binary bytes in its first {len(sample)} bytes); replay reads text logs and .gz")


def open_log(path: str) -> BinaryIO:
    fh = open(path, "rb")  # noqa: SIM115 - handed to the caller
    if fh.read(2) == GZIP_MAGIC:
        fh.close()
        return gzip.open(path, "rb")  # type: ignore[return-value]
    fh.seek(0)
    return fh
