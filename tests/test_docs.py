"""The documentation site builds with `mkdocs build --strict`: a broken link or anchor, or a page missing from the
nav, fails the build, and so this test. The CLI reference is rendered from the parsers at build time; the README's
links point at files of the repository, never outside it."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ci import missing

ROOT = Path(__file__).resolve().parents[1]
# Markdown links and images: [text](target) and ![alt](target)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _require_mkdocs() -> None:
    absent = [name for name in ("mkdocs", "material") if importlib.util.find_spec(name) is None]
    if absent:
        missing(f"{' and '.join(absent)} not installed: pip install -e '.[docs]'")


def build(config_dir: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=config_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_site_builds_strict_with_the_cli_reference(tmp_path: Path) -> None:
    _require_mkdocs()
    done = build(ROOT, tmp_path / "site")
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stderr[-4000:]}"
    assert "WARNING" not in done.stderr, done.stderr[-4000:]
    reference = (tmp_path / "site" / "cli" / "index.html").read_text(encoding="utf-8")
    for usage, option in (
        ("usage: python -m build_split", "--allow-unreviewed"),
        ("usage: python -m scoring", "--predictions"),
        ("usage: python -m judge.calibrate", "--cases"),
    ):
        assert usage in reference and option in reference, f"the CLI reference lacks {usage!r}"
    assert "<!-- cli:" not in reference, "a CLI marker was left unrendered"
    assert (tmp_path / "site" / "images" / "label-studio-task.png").is_file()


@pytest.mark.parametrize(
    ("page", "text", "named"),
    [
        ("index.md", "\n[a page that is not there](missing-page.md)\n", "missing-page.md"),
        ("checks.md", "\n[a section that is not there](curator-guide.md#no-such-section)\n", "no-such-section"),
        ("orphan.md", "# A page no nav entry names\n", "orphan.md"),
    ],
    ids=["broken link", "broken anchor", "page not in the nav"],
)
def test_a_broken_site_fails_the_build(tmp_path: Path, page: str, text: str, named: str) -> None:
    """The strict build is what catches these: a copy of the site with one fault must not build."""
    _require_mkdocs()
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    with (tmp_path / "docs" / page).open("a", encoding="utf-8") as handle:
        handle.write(text)
    done = build(tmp_path, tmp_path / "site")
    assert done.returncode != 0, "a faulty site built without an error"
    assert named in done.stderr, done.stderr[-4000:]


def _links(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold examples, not links
    return LINK.findall(text)


def test_readme_links_point_into_the_repository() -> None:
    """GitHub renders the README: each relative link must name a file of the clone (mkdocs checks only docs/)."""
    readme = ROOT / "README.md"
    links = [link for link in _links(readme) if not re.match(r"[a-z]+:", link)]
    assert links, "the README links into the docs"
    broken = [link for link in links if not (ROOT / link.split("#")[0]).exists()]
    assert not broken, f"README links to files that are not in the repository: {broken}"


# The folder beside the project's checkout that a user's clone does not have. This test reads nothing there: it
# checks that no page points a reader to it.
SIBLING_FOLDER = "/".join(("..", "shared"))


def test_nothing_links_outside_the_clone() -> None:
    pages = [ROOT / "README.md", ROOT / "mkdocs.yml", *sorted((ROOT / "docs").glob("**/*.md"))]
    outside = [f"{page.relative_to(ROOT)}: {line.strip()}" for page in pages
               for line in page.read_text(encoding="utf-8").splitlines() if SIBLING_FOLDER in line]  # fmt: skip
    assert not outside, f"a clone has no {SIBLING_FOLDER}:\n" + "\n".join(outside)
