"""The floors hold: what pyproject.toml's import-linter contract says, and no import circle.

The contract (``[tool.importlinter]`` in pyproject.toml) is where the architecture is written
down: the rules core at the bottom, the table service on it, the devices and views beside
each other on the table, the application on top. These tests run it, and check what it
does not say itself: no two modules import each other, however indirectly (in-function
imports count: a circle through a lazy import is still a circle), the rules core needs
nothing but the standard library and the ``mahjong`` library, and the tests import no bench
script (what tests and benches share is in ``testkit/``, so a bench can change what it
measures without breaking a test).
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("referee", "table", "hardware", "vision", "web", "hall", "app")


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph(*PACKAGES, include_external_packages=True, cache_dir=None)


def test_the_import_linter_contract_holds():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def circles(graph) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    modules = sorted(m for m in graph.modules if m.split(".")[0] in PACKAGES)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child.split(".")[0] not in PACKAGES:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        group.append(m)
                        if m == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))

    for m in modules:
        if m not in index:
            visit(m)
    return found


def test_no_module_imports_itself_through_others(graph):
    assert circles(graph) == []


def test_circles_are_found():
    # the check itself: a graph with a circle is caught
    g = grimp.ImportGraph()
    for m in ("referee.a", "referee.b", "referee.c"):
        g.add_module(m)
    g.add_import(importer="referee.a", imported="referee.b")
    g.add_import(importer="referee.b", imported="referee.c")
    g.add_import(importer="referee.c", imported="referee.a")
    assert circles(g) == [["referee.a", "referee.b", "referee.c"]]


def test_the_rules_core_needs_only_the_standard_library_and_mahjong(graph):
    outside = set()
    for module in graph.find_children("referee") | graph.find_descendants("referee"):
        for imported in graph.find_modules_directly_imported_by(module):
            top = imported.split(".")[0]
            if top != "referee":
                outside.add(top)
    allowed = set(sys.stdlib_module_names) | {"mahjong"}
    assert outside - allowed == set()


def bench_imports(path: Path) -> list[str]:
    """``file:line`` of each import of ``bench`` or a module under it in the Python file at
    ``path``, wherever it stands (in a function too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        if any(name == "bench" or name.startswith("bench.") for name in names):
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            found.append(f"{where}:{node.lineno}")
    return found


def test_no_test_imports_a_bench_script():
    """The tests and what they import from testkit/ reach no bench script."""
    files = sorted((ROOT / "tests").glob("*.py")) + sorted((ROOT / "testkit").rglob("*.py"))
    assert len(files) > 10
    assert [where for f in files for where in bench_imports(f)] == []


def test_an_import_of_a_bench_script_is_found(tmp_path):
    # the check itself: each way of importing a bench script is caught, and nothing else
    module = tmp_path / "test_x.py"
    module.write_text("import benchmark\nfrom testkit.photos import LABELS\nfrom . import bench\n"
                      "import bench.sse\nfrom bench import label_photos\n\n"
                      "def test():\n    from bench.vision import camerash_crops\n")
    assert bench_imports(module) == [f"{module}:4", f"{module}:5", f"{module}:8"]


def test_every_name_imported_from_the_project_is_there():
    """A renamed or moved name leaves no import behind, in the shipped packages, the benches,
    testkit or the tests, in-function imports included (a bench's lazy import of a name a
    rename took away broke bench/vision.py once, and nothing ran it)."""
    import ast
    import importlib

    tops = set(PACKAGES) | {"testkit"}
    missing = []
    for folder in (*PACKAGES, "testkit", "bench", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                    continue
                if node.module.split(".")[0] not in tops:
                    continue
                try:
                    module = importlib.import_module(node.module)
                except ImportError as exc:
                    if exc.name and exc.name.split(".")[0] in tops:
                        missing.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.module}")
                    continue    # a library the test extras do not install (torch)
                for alias in node.names:
                    if alias.name == "*" or hasattr(module, alias.name):
                        continue
                    try:
                        importlib.import_module(f"{node.module}.{alias.name}")
                    except ImportError:
                        missing.append(f"{path.relative_to(ROOT)}:{node.lineno}: "
                                       f"{node.module}.{alias.name}")
    assert missing == []
