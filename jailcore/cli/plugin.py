"""`jailcore plugin`: where the SourceMod plugin this jailcore speaks to is, and its version;
`jailcore plugin install DIR`: the plugin, its phrases and its cfg copied into a game
server's SourceMod.

An installed wheel carries the plugin compiled when the wheel was built
(`jailcore.config.shipped`); a checkout compiles its sources (the same build as `make
plugin`, cached), or says why it cannot. Each function imports what it reads when it runs:
`jailcore --help` and the other commands never load the config floor for this one."""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
from pathlib import Path

SOURCEMOD = ("plugins", "translations")  # what every SourceMod tree (addons/sourcemod/) has


def compiled() -> tuple[Path | None, str]:
    """The .smx to give a game server, or None and why there is none."""
    from jailcore.config import shipped

    smx = shipped.compiled()
    if smx is not None:
        return smx, "built with this wheel"
    if shipped.packaged() is not None:
        return None, ("this install carries no compiled plugin: no SourcePawn compiler ran when its wheel was built "
                      "(the build log says why)")
    from jailcore.sim import smbuild

    try:
        return smbuild.cached_plugin(), "compiled from this checkout's sources"
    except (smbuild.BuildError, OSError) as exc:
        return None, f"this checkout's sources could not be compiled: {str(exc).splitlines()[0]}"


def compile_hint() -> str:
    from jailcore.config import shipped

    scripting = shipped.bridge() / "scripting"
    return (f"compile {scripting / shipped.MAIN.name} with your SourceMod's spcomp: "
            f"cd {scripting} && $SM/scripting/spcomp {shipped.MAIN.name} -i . -i include -i $SM/scripting/include -o {shipped.SMX.name} -E")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main_show(_args: argparse.Namespace) -> int:
    from jailcore.config import shipped

    bridge = shipped.bridge()
    smx, how = compiled()
    print(f"jailcore bridge {shipped.plugin_version()} (SourceMod 1.11 and 1.12), for jailcore {shipped.version()}")
    if smx is not None:
        print(f"  compiled:     {smx} ({how}; sha256 {sha256(smx)[:16]})")
    else:
        print(f"  compiled:     none: {how}")
    print(f"  translations: {bridge / shipped.PHRASES}")
    print(f"  cfg:          {bridge / shipped.CFG}")
    print(f"  sources:      {bridge / 'scripting'}")
    print("  install it:   jailcore plugin install /path/to/cstrike (the game's folder, or its addons/sourcemod)")
    if smx is None:
        print(f"  or {compile_hint()}")
    return 0


def game_folders(given: Path) -> tuple[Path, Path] | None:
    """(addons/sourcemod, the game folder) for a game folder (cstrike/, csgo/) or for its
    addons/sourcemod itself; None if neither is a SourceMod tree."""
    for sourcemod in (given / "addons" / "sourcemod", given):
        if all((sourcemod / part).is_dir() for part in SOURCEMOD):
            game = sourcemod.parent.parent if sourcemod.parent.name == "addons" else None
            return sourcemod, game if game is not None else sourcemod
    return None


def put(source: Path, target: Path) -> None:
    """A whole new file at `target`, never half of one: a server loading plugins meanwhile
    reads the old file or the new one."""
    tmp = target.with_name(f".{target.name}.jailcore-tmp")
    shutil.copyfile(source, tmp)
    os.replace(tmp, target)


def main_install(args: argparse.Namespace) -> int:
    from jailcore.config import shipped

    given = Path(args.dir)
    found = game_folders(given)
    if found is None:
        print(f"jailcore plugin install: {given} is not a SourceMod tree: neither it nor {given / 'addons' / 'sourcemod'} has "
              f"{' and '.join(p + '/' for p in SOURCEMOD)}; give the game's folder (cstrike/, csgo/) of a server with SourceMod "
              "installed", file=sys.stderr)
        return 1
    sourcemod, game = found
    smx, how = compiled()
    if smx is None:
        print(f"jailcore plugin install: {how}; nothing copied. Or {compile_hint()}", file=sys.stderr)
        return 1
    bridge = shipped.bridge()
    copies = [(smx, sourcemod / "plugins" / shipped.SMX.name), (bridge / shipped.PHRASES, sourcemod / shipped.PHRASES)]
    if (sourcemod / "scripting" / "include").is_dir():  # for VIP plugins that report privileges (#include <jailcore>)
        copies.append((bridge / shipped.INCLUDE, sourcemod / shipped.INCLUDE))
    cfg = game / shipped.CFG
    try:
        for source, target in copies:
            put(source, target)
            print(f"  {target}")
        if game is sourcemod:
            print(f"  (no cfg: {sourcemod} is not in a game's addons/ folder; on its first load the plugin writes cfg/sourcemod/"
                  f"{shipped.CFG.name} itself)")
        elif cfg.exists():
            print(f"  {cfg} kept as it is (yours: sm_jailcore_admin_flag)")
        else:
            cfg.parent.mkdir(parents=True, exist_ok=True)
            put(bridge / shipped.CFG, cfg)
            print(f"  {cfg}")
    except OSError as exc:
        print(f"jailcore plugin install: cannot write {exc.filename or sourcemod}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"jailcore bridge {shipped.plugin_version()} installed in {sourcemod} ({how}). On the game server: `sm plugins load "
          f"{shipped.PLUGIN}` (`reload` where it ran before; or change the map): its log then says jb_hello and the daemon answers.")
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("plugin", help="the SourceMod plugin: where it is and its version; `plugin install DIR` copies it to a game server")
    do = p.add_subparsers(dest="do")
    p.set_defaults(func=main_show)
    q = do.add_parser("install", help="copy the compiled plugin, its phrases and its cfg into a game server's SourceMod")
    q.add_argument("dir", help="the game's folder (cstrike/, csgo/) with SourceMod installed, or its addons/sourcemod")
    q.set_defaults(func=main_install)
