"""The packages' layering: `lint-imports` keeps the contracts of pyproject.toml's [tool.importlinter], and no
module imports itself through others (an import circle)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from tests.ci import missing

REPO = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;]*m")
PACKAGES: list[str] = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` run in `cwd` on the packages found there first (not on an installed copy of them)."""
    found = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if found is None:
        missing("lint-imports is not installed (pip install -e '.[test]')")
    pythonpath = os.pathsep.join(p for p in (str(cwd), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": pythonpath, "NO_COLOR": "1"}
    result = subprocess.run(
        [found, "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    result.stdout, result.stderr = ANSI.sub("", result.stdout), ANSI.sub("", result.stderr)  # plain text to read
    return result


def import_circles(packages: list[str]) -> list[list[str]]:
    """The import circles among the modules of `packages`: each a sorted list of modules that import each other,
    directly or through one another (strongly connected components of the import graph, lazy imports included)."""
    try:
        import grimp
    except ImportError:
        missing("grimp is not installed (it comes with import-linter: pip install -e '.[test]')")
    graph = grimp.build_graph(*packages, cache_dir=None, exclude_type_checking_imports=True)
    imports = {module: sorted(graph.find_modules_directly_imported_by(module)) for module in graph.modules}
    return strongly_connected(imports)


def strongly_connected(imports: dict[str, list[str]]) -> list[list[str]]:
    """The groups of two or more modules that reach each other (Tarjan's algorithm, iterative: the process's
    recursion limit is left alone, other tests rely on it)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in sorted(imports):
        if root in order:
            continue
        order[root] = low[root] = len(order)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(imports.get(root, ())))]
        while work:
            module, pending = work[-1]
            imported = next(pending, None)
            if imported is not None:
                if imported not in order:
                    order[imported] = low[imported] = len(order)
                    stack.append(imported)
                    on_stack.add(imported)
                    work.append((imported, iter(imports.get(imported, ()))))
                elif imported in on_stack:
                    low[module] = min(low[module], order[imported])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == order[module]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == module:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return sorted(circles)


def write_package(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_the_packages_keep_their_layering() -> None:
    result = lint_imports(REPO)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "0 broken" in output and "Analyzed" in output, output


def test_a_lower_layer_importing_a_higher_one_fails_the_check(tmp_path: Path) -> None:
    write_package(
        tmp_path,
        {
            "probe_high/__init__.py": "",
            "probe_high/cli.py": "",
            "probe_low/__init__.py": "",
            "probe_low/model.py": "from probe_high import cli  # reaches up\n",
            "pyproject.toml": """
                [tool.importlinter]
                root_packages = ["probe_high", "probe_low"]

                [[tool.importlinter.contracts]]
                name = "probe layers"
                type = "layers"
                layers = ["probe_high", "probe_low"]
            """,
        },
    )
    result = lint_imports(tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "BROKEN" in output and "probe_low.model -> probe_high.cli" in output, output


def test_no_module_is_in_an_import_circle() -> None:
    for package in PACKAGES:  # the checkout's own packages, not an installed copy
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin is not None, package
        assert Path(spec.origin).resolve().is_relative_to(REPO), (package, spec.origin)
    assert import_circles(PACKAGES) == []


def test_the_circle_finder_finds_a_circle_through_a_late_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_package(
        tmp_path,
        {
            "probe_circle/__init__.py": "",
            "probe_circle/card.py": "from probe_circle import changelog\n",
            "probe_circle/changelog.py": "from probe_circle import release\n",
            "probe_circle/release.py": "def write():\n    from probe_circle import card  # late\n",
            "probe_circle/leaf.py": "from probe_circle import card\n",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_circles(["probe_circle"]) == [["probe_circle.card", "probe_circle.changelog", "probe_circle.release"]]


def test_the_circle_finder_keeps_separate_circles_apart_and_leaves_chains_out() -> None:
    imports = {"a": ["b"], "b": ["a", "c"], "c": ["d"], "d": ["c", "e"], "e": [], "f": ["a", "e"]}
    assert strongly_connected(imports) == [["a", "b"], ["c", "d"]]
    assert strongly_connected({"a": ["b"], "b": ["c"], "c": []}) == []
