"""Import curators' work from a JSONL file, one authored record per line.

Every line either becomes a record or a rejection with its line number and reasons:
malformed JSON, lines beyond the input limits (core/boundary.py: too long, too deep, not UTF-8),
missing or unknown fields and unknown source ids are never skipped silently, and never stored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import chain
from pathlib import Path

from authoring.file_lines import (
    STAGE,
    LineJob,
    NeedsItem,
    ReadyLine,
    RejectedLine,
    named_source_id,
    prepare_line,
    prepare_line_to_send,
)
from core.batching import batched
from core.boundary import raw_json_lines_from
from core.models import Reason, Record, SourceItem, utcnow
from core.parallel import MIN_PARALLEL, map_batches, worker_count

READ_BATCH = 2000  # lines per batch: the source items of one batch are looked up together (a scan of the items)
# Lines a worker takes at a time, and how many slices it is given ahead of the one being stored: enough to keep it
# busy while this process writes a batch (build_split/ingest.py), few enough that the lines in its hands, with
# their items' and records' texts (about 8 MB per 500 lines), do not add to the import's peak memory.
PREPARE_SLICE = 500
SLICES_AHEAD = 3

# Source id -> item for the ids of one batch (absent: unknown), e.g. Store.source_item_texts_by_id: the items, or
# their stored JSON text (parsed where the line is prepared; one that does not parse is reported as unreadable).
SourceLookup = Callable[[Sequence[str]], Mapping[str, SourceItem | str]]


@dataclass
class ImportResult:
    origin: str
    records: list[Record] = field(default_factory=list)
    rejections: list[tuple[int, str, list[Reason]]] = field(default_factory=list)
    lines: int = 0
    # record id -> its line (number, SHA-256: its revision's origin) and texts, for each record yielded
    ready: dict[str, ReadyLine] = field(default_factory=dict)
    unreadable_source_ids: set[str] = field(default_factory=set)  # stored items that no longer parse


def import_authored(path: Path, items: Mapping[str, SourceItem]) -> ImportResult:
    """Read `path` against the known source items (by source_id), every record in `result.records`."""
    result, records = stream_authored(path, lambda _ids: items)
    result.records = list(records)
    return result


def stream_authored(
    path: Path, lookup: SourceLookup, batch_size: int = READ_BATCH, workers: int | None = 0
) -> tuple[ImportResult, Iterator[Record]]:
    """The records of `path`, read `batch_size` lines at a time, and the result that collects the
    rejections (in line order) as the records are consumed. `lookup` is asked only for the source ids
    of one batch, so neither the file nor the source items are ever all in memory.

    `workers=None`: a file of 2,000 lines or more is checked and built in a worker process (core/parallel.py
    decides) while this process stores the lines before (`build_split.ingest`); records, rejections and texts
    are the same either way. A caller that starts workers needs an `if __name__ == "__main__":` guard."""
    if path.is_dir():
        raise ValueError(f"authored file {path} is a folder: pass the JSONL file itself")
    if not path.is_file():
        raise FileNotFoundError(f"authored file {path} does not exist")
    result = ImportResult(origin=f"authored:{origin_path(path)}")
    return result, _records(path, lookup, batch_size, result, workers)


def origin_path(path: Path) -> str:
    """A file as an origin knows it: by its resolved path, so `alice/fix.jsonl` and `bob/fix.jsonl` are two
    origins (one may not silently replace the other's values) and its rejections are its own."""
    return str(path.resolve())


def _jobs(path: Path, lookup: SourceLookup, batch_size: int, authored_at: datetime) -> Iterator[list[LineJob]]:
    """The file's lines in slices of at most PREPARE_SLICE, each with the source item it names (looked up for its
    batch of `batch_size` lines)."""
    via = f"file:{path.name}"
    with path.open("rb") as handle:
        for batch in batched(raw_json_lines_from(handle), batch_size):
            named = [named_source_id(data) for _, data in batch]
            wanted = sorted({source_id for source_id in named if source_id is not None})
            items = lookup(wanted) if wanted else {}
            jobs = [
                LineJob(number, data, source_id, items.get(source_id) if source_id else None, via, authored_at)
                for (number, data), source_id in zip(batch, named, strict=True)
            ]
            for start in range(0, len(jobs), PREPARE_SLICE):
                yield jobs[start : start + PREPARE_SLICE]


def _records(
    path: Path, lookup: SourceLookup, batch_size: int, result: ImportResult, workers: int | None
) -> Iterator[Record]:
    jobs = _jobs(path, lookup, batch_size, utcnow())
    first: list[list[LineJob]] = []
    if workers is None:  # as many lines as a worker is worth starting for (core/parallel.py), or the whole file
        while sum(map(len, first)) < MIN_PARALLEL and (batch := next(jobs, None)) is not None:
            first.append(batch)
        # One worker at most: this process's part (storing) takes a core of its own.
        workers = min(1, worker_count(sum(map(len, first))))
    prepare = prepare_line_to_send if workers else prepare_line
    first_line_of: dict[str, int] = {}  # record id -> line: duplicates are found across the whole file
    for batch, outcomes in map_batches(prepare, chain(first, jobs), workers, ahead=SLICES_AHEAD):
        result.lines += sum(outcome is not None for outcome in outcomes)  # the batch's lines, blank ones aside
        for job, outcome in zip(batch, outcomes, strict=True):
            if isinstance(outcome, NeedsItem):  # read another way than `named_source_id` read it
                outcome = prepare_line(
                    replace(job, source_id=outcome.source_id, item=lookup([outcome.source_id]).get(outcome.source_id))
                )
            if outcome is None:  # a blank line
                continue
            if isinstance(outcome, RejectedLine):
                result.rejections.append((outcome.number, outcome.raw, outcome.reasons))
                if outcome.unreadable_item is not None:
                    result.unreadable_source_ids.add(outcome.unreadable_item)
                continue
            assert isinstance(outcome, ReadyLine)
            earlier = first_line_of.get(outcome.record_id)
            if earlier is not None:
                reason = Reason(
                    stage=STAGE,
                    code="duplicate_record",
                    message=f"line {outcome.number}: same source_id and question as line {earlier}; the first is kept",
                )
                result.rejections.append((outcome.number, outcome.raw, [reason]))
                continue
            first_line_of[outcome.record_id] = outcome.number
            result.ready[outcome.record_id] = outcome
            yield outcome.record_of()
