"""Nothing outside a source's own modules branches on a source's name: the stages ask the source (core/sources.py).

The check reads every Python file of the toolkit's packages and looks for string literals equal to a registered
source's name (`"hotpotqa"`, `"ami"`, `"olmocr"`, `"documents"`): a comparison, a dict keyed by source or a
choices list would need one. Docstrings and longer strings that mention a name are not branches and pass."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import pytest

from core.sources import source_names

REPO = Path(__file__).resolve().parents[2]
PACKAGES = (
    "annotation_ui_config",
    "authoring",
    "build_split",
    "core",
    "data_cards",
    "exports",
    "judge",
    "loaders",
    "scoring",
    "validation",
)
# Each source's own modules: its definition and the loader library it calls.
SOURCE_MODULES = {
    "loaders/sources": "the built-in sources' definitions",
    "loaders/hotpotqa.py": "the HotpotQA loader",
    "loaders/ami.py": "the AMI loader",
    "loaders/kaldi.py": "the AMI loader's Kaldi reader",
    "loaders/olmocr_bench.py": "the olmOCR-bench loader",
    "loaders/olmocr_draw.py": "the olmOCR-bench category draw",
    "loaders/documents.py": "the own-documents loader",
    "loaders/document_input.py": "the own-documents loader's folder walk",
    "loaders/document_rows.py": "the own-documents loader's JSONL and parquet rows",
    "loaders/samples": "the sources' samples",
}
# The same word naming something that is not the source.
NOT_A_SOURCE = {
    ("core/progress.py", "olmocr"): "the olmocr library's logger",
    ("loaders/ocr.py", "olmocr"): "the OCR engine (the olmocr library's pipeline)",
    ("loaders/image_extra.py", "olmocr"): "the olmocr library's module, imported to check the [image] extra",
    # Data that comes from one source, named as its origin, not a branch: the rule catalogue's examples and the
    # labelled sets' default rows are HotpotQA's (a case of another source says so on its own line).
    ("validation/rules/model.py", "hotpotqa"): "the source of a rule example, unless it says otherwise",
    ("judge/rule_worth.py", "hotpotqa"): "the labelled sets' default rows (tests/data/hotpotqa)",
}


def _own(relative: str) -> bool:
    return any(relative == path or relative.startswith(path + "/") for path in SOURCE_MODULES)


def name_literals(path: Path, names: set[str]) -> list[tuple[int, str]]:
    """(line, name) of every string literal whose value is one of `names`."""
    found = []
    with path.open("rb") as handle:
        for token in tokenize.tokenize(handle.readline):
            if token.type != tokenize.STRING:
                continue
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):  # an f-string or a bytes literal: not a plain name
                continue
            if isinstance(value, str) and value in names:
                found.append((token.start[0], value))
    return found


def branches_on_source_names(root: Path) -> list[str]:
    names = set(source_names())
    hits = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if _own(relative):
                continue
            for line, name in name_literals(path, names):
                if (relative, name) not in NOT_A_SOURCE:
                    hits.append(f"{relative}:{line}: {name!r}")
    return hits


def test_no_module_outside_a_source_branches_on_its_name() -> None:
    hits = branches_on_source_names(REPO)
    assert not hits, "ask the source (core.sources.get_source) instead of naming it:\n" + "\n".join(hits)


def test_the_check_finds_a_branch(tmp_path: Path) -> None:
    """The scan sees a comparison and a dict key, and leaves docstrings and longer texts alone."""
    module = tmp_path / "exports" / "example.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        '"""Say hotpotqa here: a docstring."""\n'
        'COLUMNS = {"ami": 1}\n'
        'def f(source):\n    return source == "olmocr" or "the olmocr library" in source\n',
        encoding="utf-8",
    )
    hits = branches_on_source_names(tmp_path)
    assert hits == ["exports/example.py:2: 'ami'", "exports/example.py:4: 'olmocr'"]


@pytest.mark.parametrize("name", ["hotpotqa", "ami", "olmocr", "documents"])
def test_the_built_in_sources_are_registered(name: str) -> None:
    assert name in source_names()
    assert name_literals(REPO / "loaders" / "sources" / f"{name}.py", {name})


def test_tokenizer_reads_every_file() -> None:
    """A file the tokenizer cannot read would hide its literals: none of the packages has one."""
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            list(tokenize.tokenize(io.BytesIO(path.read_bytes()).readline))
