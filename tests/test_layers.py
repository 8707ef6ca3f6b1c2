"""The house's floors, read from the imports (runtime and type-checking ones alike): no module
imports a floor above its own or a neighbour on its floor, and no two modules import each other
round a circle. Each failure names the two files."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "jailcore"

# A floor may import its own folder and every floor below it; sim and web stand side by side.
FLOORS = {"log": 1, "engine": 2, "config": 3, "session": 4, "store": 5, "io": 6, "sim": 7, "web": 7, "cli": 8}


def module_of(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every jailcore module this file names in an import, wherever the import stands."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_of(path).split(".") if path.name == "__init__.py" else module_of(path).split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("jailcore"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            if not base.startswith("jailcore"):
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in MODULES else base)
    return {name for name in found if name in MODULES}


FILES = {module_of(p): p for p in sorted(PACKAGE.rglob("*.py"))}
MODULES = set(FILES)
GRAPH = {name: imports_of(path) for name, path in FILES.items()}


def floor(module: str) -> tuple[str, int] | None:
    parts = module.split(".")
    if len(parts) < 2 or parts[1] not in FLOORS:
        return None
    return parts[1], FLOORS[parts[1]]


def test_every_module_lives_on_a_floor():
    loose = [str(FILES[m].relative_to(PACKAGE.parent)) for m in MODULES if floor(m) is None and m not in ("jailcore", "jailcore.__main__")]
    assert not loose, f"modules outside the layer folders: {loose}"


def test_nothing_imports_upward_or_sideways():
    wrong = []
    for importer, imported in sorted(GRAPH.items()):
        here = floor(importer)
        if here is None:
            continue
        for target in sorted(imported):
            there = floor(target)
            if there is None or there[0] == here[0]:
                continue
            if there[1] >= here[1]:
                wrong.append(f"{FILES[importer].relative_to(PACKAGE.parent)} -> {FILES[target].relative_to(PACKAGE.parent)}")
    assert not wrong, "upward or sideways imports:\n" + "\n".join(wrong)


def test_io_never_reaches_the_double_or_the_faces():
    for importer, imported in GRAPH.items():
        if importer.startswith("jailcore.io"):
            for target in imported:
                assert not target.startswith(("jailcore.sim", "jailcore.cli", "jailcore.web")), f"{FILES[importer]} -> {FILES[target]}"


def test_no_import_circles():
    # Tarjan's strongly connected components over the whole package; a package's __init__
    # is left out (importing a submodule runs it, which is no arrow of the code's design).
    graph = {m: {t for t in ts if FILES[t].name != "__init__.py"} for m, ts in GRAPH.items() if FILES[m].name != "__init__.py"}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    described = []
    for component in circles:
        pairs = [f"{FILES[a].relative_to(PACKAGE.parent)} -> {FILES[b].relative_to(PACKAGE.parent)}" for a in component for b in graph[a] if b in component]
        described.append("; ".join(pairs))
    assert not circles, "import circles:\n" + "\n".join(described)


@pytest.mark.parametrize("folder", sorted(FLOORS))
def test_each_folder_says_what_it_owns(folder):
    doc = ast.get_docstring(ast.parse((PACKAGE / folder / "__init__.py").read_text(encoding="utf-8")))
    assert doc and "import" in doc.lower(), f"jailcore/{folder}/__init__.py must say what it owns and what it may import"
