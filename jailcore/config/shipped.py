"""What jailcore ships beside its code: the preset configs `jailcore init` starts from, and
the SourceMod plugin (its sources, phrases, cfg and, in a wheel, the compiled `.smx`).

Installed code finds them through the package (`importlib.resources`): a wheel carries them
in `jailcore/shipped/`, copied there when the wheel is built (setup.py's build step, from
`configs/` and `sourcemod_bridge/` of the checkout, which stay the one place people edit
and compile them). A checkout (an editable install, or PYTHONPATH on the clone) has no
`jailcore/shipped/` and reads `configs/` and `sourcemod_bridge/` themselves.

Imports nothing but the standard library: setup.py runs it in the wheel's build
environment, where jailcore's dependencies are not installed.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

PLUGIN = "jailcore_bridge"
CHECKOUT = Path(__file__).resolve().parents[2]
# The folder a wheel's build fills (setup.py writes it under this name), and the shape of
# it: the checkout's own names, so one path below serves both.
PACKAGED = "shipped"
CONFIGS, BRIDGE = "configs", "sourcemod_bridge"
# Inside the bridge's folder (the checkout's sourcemod_bridge/, or the wheel's copy):
SMX = Path("plugins") / f"{PLUGIN}.smx"
PHRASES = Path("translations") / f"{PLUGIN}.phrases.txt"
CFG = Path("cfg") / "sourcemod" / f"{PLUGIN}.cfg"  # what AutoExecConfig would write: sm_jailcore_admin_flag
MAIN = Path("scripting") / f"{PLUGIN}.sp"
INCLUDE = Path("scripting") / "include" / "jailcore.inc"


def packaged() -> Path | None:
    """The wheel's `jailcore/shipped/` folder, or None in a checkout."""
    folder = resources.files("jailcore") / PACKAGED
    return Path(str(folder)) if folder.is_dir() else None


def root() -> Path:
    """The folder that holds `configs/` and `sourcemod_bridge/`."""
    return packaged() or CHECKOUT


def configs() -> Path:
    return root() / CONFIGS


def bridge() -> Path:
    return root() / BRIDGE


def translations() -> Path:
    return bridge() / PHRASES.parent


def compiled() -> Path | None:
    """The `.smx` the wheel was built with, or None: a checkout compiles its own (`make
    plugin`, or `jailcore.sim.smbuild.cached_plugin()`), and a wheel built where no
    SourcePawn compiler was found carries none (setup.py says why at the build)."""
    folder = packaged()
    if folder is None:
        return None
    path = folder / BRIDGE / SMX
    return path if path.is_file() else None


def plugin_version(folder: Path | None = None) -> str:
    """JB_VERSION of the plugin's source: the version its `jb_hello` line says."""
    source = (folder or bridge()) / MAIN
    found = re.search(r'^#define\s+JB_VERSION\s+"([^"]+)"', source.read_text(encoding="utf-8"), re.M)
    if found is None:
        raise ValueError(f"{source}: no #define JB_VERSION")
    return found.group(1)


def version() -> str:
    """jailcore's own version, from the installed package's metadata."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("jailcore")
    except PackageNotFoundError:  # a bare checkout on PYTHONPATH, never installed
        return "unknown (not installed)"
