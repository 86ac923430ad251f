"""HotpotQA loader: the Hub dataset, the original JSON release, or Hub-shaped parquet/JSONL files."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from core.boundary import InputRejected, check_value, read_json_lines, read_json_list
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
    for name in ("type", "level"):  # short labels in HotpotQA; anything else is not a HotpotQA row
        if not isinstance(row.get(name), str | None):
            raise HotpotFormatError(f"`{name}` must be a string, got {type(row.get(name)).__name__}")
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
    """Yield (line/item/row number, parsed row or the InputRejected that refused it, raw text) from one
    file. Every row is held to the input limits (core/boundary.py) before it can be stored."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        rows = (row for batch in pq.ParquetFile(path).iter_batches(batch_size=1000) for row in batch.to_pylist())
        for n, row in enumerate(rows, start=1):  # a batch at a time: a file of any size fits in memory
            try:
                check_value(row)
            except InputRejected as exc:
                yield n, exc, ""
                continue
            yield n, row, ""
    elif suffix == ".jsonl":
        for line in read_json_lines(path):
            yield line.number, line.problem or line.value, line.raw
    elif suffix == ".json":
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise HotpotFormatError(
                f"{path}: not valid UTF-8 at byte {exc.start + 1}; a JSON list is one document, so no item can "
                "be read (save it as UTF-8, or as JSONL to reject only the bad lines)"
            ) from None
        try:
            yield from ((line.number, line.problem or line.value, line.raw) for line in read_json_list(text))
        except InputRejected as exc:
            raise HotpotFormatError(f"{path}: {exc} (expected a JSON list of HotpotQA records)") from None
    else:
        raise HotpotFormatError(f"{path}: unsupported file type {suffix!r} (use .json, .jsonl or .parquet)")


def _unit(path: Path | None) -> str:
    """What a row number counts in the rejection reports: JSON list items, parquet/Hub rows, or lines."""
    suffix = path.suffix.lower() if path is not None else ""
    return {".json": "item", ".jsonl": "line"}.get(suffix, "row")


@lru_cache(maxsize=64)  # asked for every row of a file: a Path per row was 5% of a load
def _unit_of_origin(origin: str) -> str:
    return _unit(Path(origin))


@lru_cache(maxsize=64)
def _split_of_origin(origin: str) -> str | None:
    return _split_of(Path(origin))


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
            try:
                check_value(row)
            except InputRejected as exc:
                row = exc
            yield f"hub:{HUB_CONFIG}/{split}", n, row, ""


def _rows(path: Path | None, hub_splits: Iterable[str]) -> Iterator[tuple[str, int, Any, str]]:
    if path is None:
        yield from _hub_rows(hub_splits)
        return
    for file in _input_files(path):
        for n, row, raw in _iter_file_rows(file):
            yield str(file), n, row, raw


def iter_hotpotqa(
    path: Path | None,
    report: LoadResult,
    *,
    context_mode: ContextMode = "all",
    hub_splits: Iterable[str] = HUB_SPLITS,
) -> Iterator[SourceItem]:
    """Yield HotpotQA source items one by one from local files (`path`) or from the Hub (`path=None`).

    Rows that cannot be used (beyond the input limits, malformed, not HotpotQA) go to `report.problems`
    with their line (JSONL), item (JSON list) or row (parquet, Hub) numbers, as the items are read. A
    repeated id with the same content is harmless; with different content the later row is a problem.
    Only a digest of each id's item is kept for that check, never the item, so memory does not grow
    with the items.
    """
    digests: dict[str, bytes] = {}
    for origin, n, row, raw in _rows(path, hub_splits):
        report.rows_read += 1
        unit = _unit_of_origin(origin) if path else _unit(None)
        raw_text = raw or (json.dumps(row, ensure_ascii=False)[:2000] if not isinstance(row, Exception) else "")
        if isinstance(row, InputRejected):
            report.problems.append(LoadProblem(origin, n, row.code, str(row), raw_text, unit))
            continue
        if not isinstance(row, dict):
            report.problems.append(LoadProblem(origin, n, "not_an_object", "expected a JSON object", raw_text, unit))
            continue
        try:
            item = to_source_item(row, context_mode, _split_of_origin(origin) if path else origin.rsplit("/")[-1])
        except (HotpotFormatError, ValueError, TypeError) as exc:
            report.problems.append(LoadProblem(origin, n, "bad_record", str(exc), raw_text, unit))
            continue
        digest = hashlib.blake2b(item.model_dump_json().encode("utf-8"), digest_size=16).digest()
        previous = digests.get(item.source_id)
        if previous is not None:
            if previous != digest:
                report.problems.append(
                    LoadProblem(
                        origin,
                        n,
                        "duplicate_source_id",
                        f"id {item.source_id} appears again with different content; the first is kept",
                        raw_text,
                        unit,
                    )
                )
            continue
        digests[item.source_id] = digest
        yield item


def load_hotpotqa(
    path: Path | None = None,
    *,
    context_mode: ContextMode = "all",
    limit: int | None = None,
    seed: int = 0,
    hub_splits: Iterable[str] = HUB_SPLITS,
) -> LoadResult:
    """Load HotpotQA into a list (`iter_hotpotqa` streams instead); `limit` draws a stratified sample."""
    result = LoadResult()
    items = list(iter_hotpotqa(path, result, context_mode=context_mode, hub_splits=hub_splits))
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
