"""HotpotQA loader: the Hub dataset, the original JSON release, or Hub-shaped parquet/JSONL files."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from core.models import SourceItem
from loaders.base import LoadProblem, LoadResult
from loaders.sampling import stratified_sample

HUB_REPO = "hotpotqa/hotpot_qa"
HUB_CONFIG = "distractor"
HUB_SPLITS = ("train", "validation")
ContextMode = Literal["all", "supporting"]
REQUIRED_FIELDS = ("question", "answer", "context")


class HotpotFormatError(ValueError):
    """A HotpotQA file or row that is not in either known shape."""


def sample_path() -> Path:
    return Path(__file__).parent / "samples" / "hotpotqa" / "sample.json"


def _pairs(value: Any, first: str, second: str) -> list[tuple[Any, Any]]:
    """Accept both shapes: the release's `[[a, b], ...]` and the Hub's `{first: [...], second: [...]}`."""
    if isinstance(value, dict):
        a, b = value.get(first), value.get(second)
        if not isinstance(a, list) or not isinstance(b, list) or len(a) != len(b):
            raise HotpotFormatError(f"expected {{{first}: [...], {second}: [...]}} of equal length")
        return list(zip(a, b, strict=True))
    if isinstance(value, list):
        out = []
        for pair in value:
            if not isinstance(pair, list | tuple) or len(pair) != 2:
                raise HotpotFormatError(f"expected [{first}, {second}] pairs, got {str(pair)[:80]}")
            out.append((pair[0], pair[1]))
        return out
    raise HotpotFormatError(f"expected a list of pairs or a dict, got {type(value).__name__}")


def build_context(paragraphs: list[tuple[str, list[str]]], titles: set[str] | None = None) -> str:
    """Each paragraph is its title on a line, then its sentences joined as written (they keep
    their leading spaces); paragraphs are separated by blank lines."""
    blocks = [f"{title}\n{''.join(sentences)}" for title, sentences in paragraphs if titles is None or title in titles]
    return "\n\n".join(blocks)


def to_source_item(row: dict[str, Any], context_mode: ContextMode = "all", split: str | None = None) -> SourceItem:
    """Turn one HotpotQA row (either shape) into a source item, or raise HotpotFormatError."""
    source_id = row.get("_id", row.get("id"))
    if not isinstance(source_id, str) or not source_id:
        raise HotpotFormatError("missing `_id`/`id`")
    missing = [name for name in REQUIRED_FIELDS if name not in row]
    if missing:
        raise HotpotFormatError(f"missing field(s): {', '.join(missing)}")
    paragraphs = [(str(t), [str(s) for s in sents]) for t, sents in _pairs(row["context"], "title", "sentences")]
    facts = [[str(t), int(i)] for t, i in _pairs(row.get("supporting_facts") or [], "title", "sent_id")]
    titles = {t for t, _ in facts} if context_mode == "supporting" else None
    if titles is not None and not titles:
        raise HotpotFormatError("--context supporting needs supporting_facts, and this record has none")
    context = build_context(paragraphs, titles)
    if not context.strip():
        raise HotpotFormatError("empty context")
    metadata: dict[str, Any] = {
        "type": row.get("type"),
        "level": row.get("level"),
        "supporting_facts": facts,
        "context_mode": context_mode,
    }
    if split:
        metadata["split"] = split
    return SourceItem(
        source="hotpotqa",
        source_id=source_id,
        context=context,
        question=str(row["question"]),
        answer=None if row["answer"] is None else str(row["answer"]),
        question_difficulty=row.get("level"),
        metadata=metadata,
    )


def _iter_file_rows(path: Path) -> Iterator[tuple[int, Any, str]]:
    """Yield (line/row number, parsed row or an exception, raw text) from one file."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        for n, row in enumerate(pq.read_table(path).to_pylist(), start=1):
            yield n, row, ""
    elif suffix == ".jsonl":
        with path.open(encoding="utf-8") as handle:
            for n, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    yield n, json.loads(line), line
                except json.JSONDecodeError as exc:
                    yield n, exc, line
    elif suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise HotpotFormatError(f"{path}: not valid JSON ({exc})") from exc
        if not isinstance(data, list):
            raise HotpotFormatError(f"{path}: expected a JSON list of HotpotQA records")
        for n, row in enumerate(data, start=1):
            yield n, row, ""
    else:
        raise HotpotFormatError(f"{path}: unsupported file type {suffix!r} (use .json, .jsonl or .parquet)")


def _input_files(path: Path) -> list[Path]:
    if not path.exists():
        raise FileNotFoundError(f"HotpotQA input {path} does not exist")
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix.lower() in {".json", ".jsonl", ".parquet"})
        if not files:
            raise HotpotFormatError(f"{path}: no .json, .jsonl or .parquet files inside")
        return files
    return [path]


def _split_of(file: Path) -> str | None:
    name = file.name.lower()
    for split in ("train", "validation", "dev", "test"):
        if split in name:
            return "validation" if split == "dev" else split
    return None


def _hub_rows(splits: Iterable[str]) -> Iterator[tuple[str, int, Any, str]]:
    import datasets  # heavy import, only for Hub runs

    for split in splits:
        dataset = datasets.load_dataset(HUB_REPO, HUB_CONFIG, split=split)
        for n, row in enumerate(dataset, start=1):
            yield f"hub:{HUB_CONFIG}/{split}", n, row, ""


def _rows(path: Path | None, hub_splits: Iterable[str]) -> Iterator[tuple[str, int, Any, str]]:
    if path is None:
        yield from _hub_rows(hub_splits)
        return
    for file in _input_files(path):
        for n, row, raw in _iter_file_rows(file):
            yield str(file), n, row, raw


def load_hotpotqa(
    path: Path | None = None,
    *,
    context_mode: ContextMode = "all",
    limit: int | None = None,
    seed: int = 0,
    hub_splits: Iterable[str] = HUB_SPLITS,
) -> LoadResult:
    """Load HotpotQA from local files (`path`) or from the Hub (`path=None`).

    Rows that cannot be used are returned as problems with their line numbers. A repeated id
    with the same content is harmless; with different content the later row is a problem.
    """
    result = LoadResult()
    seen: dict[str, SourceItem] = {}
    for origin, n, row, raw in _rows(path, hub_splits):
        result.rows_read += 1
        raw_text = raw or (json.dumps(row, ensure_ascii=False)[:2000] if not isinstance(row, Exception) else "")
        if isinstance(row, Exception):
            result.problems.append(LoadProblem(origin, n, "malformed_json", str(row), raw_text))
            continue
        if not isinstance(row, dict):
            result.problems.append(LoadProblem(origin, n, "not_an_object", "expected a JSON object", raw_text))
            continue
        try:
            item = to_source_item(row, context_mode, _split_of(Path(origin)) if path else origin.rsplit("/")[-1])
        except (HotpotFormatError, ValueError, TypeError) as exc:
            result.problems.append(LoadProblem(origin, n, "bad_record", str(exc), raw_text))
            continue
        previous = seen.get(item.source_id)
        if previous is not None:
            if previous != item:
                result.problems.append(
                    LoadProblem(
                        origin,
                        n,
                        "duplicate_source_id",
                        f"id {item.source_id} appears again with different content; the first is kept",
                        raw_text,
                    )
                )
            continue
        seen[item.source_id] = item
    items = list(seen.values())
    if limit is not None:
        items = stratified_sample(
            items,
            limit,
            seed,
            stratum=lambda it: (it.metadata.get("type"), it.metadata.get("level")),
            key=lambda it: it.source_id,
        )
    result.items = items
    return result
