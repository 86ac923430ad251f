"""The two stages that bring inputs into the store: source items (load) and curators' authored records
(import). Both stream: items and records go to the store in its write batches as they are read."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from authoring.file_import import ImportResult, origin_path, stream_authored
from build_split.options import RunOptions
from build_split.sources import stream_source
from core import revisions
from core.batching import batched
from core.gc_tuning import fewer_collections
from core.models import Reason, RecordState
from core.parallel import start_fork_server
from core.progress import tracked
from core.store import Store, UpsertCounts
from loaders.base import LoadResult

# Records stored per transaction by an import. A large file's worker prepares the next lines meanwhile
# (authoring/file_import.py): a smaller batch lets it keep fewer lines in hand (25k lines, at 2,000 per batch:
# 7.7 s and 594 MB at the import's peak; at 1,000: 8.3 s and 522 MB; in one process: 9.2-9.5 s and 525 MB).
IMPORT_BATCH = 1000


@fewer_collections()  # 25k items: 0.2 s of collections finding no garbage
def load_into_store(store: Store, options: RunOptions) -> tuple[UpsertCounts, LoadResult]:
    """Store the source's items and keep the rows that could not be used as load rejections."""
    items, result = stream_source(options)
    # consumes the stream: result.problems is complete after it
    counts = store.upsert_source_items(tracked(items, f"load ({options.source})", unit="item"))
    by_origin: dict[str, list[tuple[int, str, list[Reason]]]] = {}
    for problem in result.problems:
        reason = Reason(stage="load", code=problem.code, message=f"{problem.unit} {problem.line_no}: {problem.message}")
        by_origin.setdefault(f"load:{problem.origin}", []).append((problem.line_no, problem.raw, [reason]))
    for origin, rows in by_origin.items():
        store.clear_import_rejections(options.source, origin)
        store.add_import_rejections(options.source, origin, rows)
    store.checkpoint()
    return counts, result


@fewer_collections()  # 25k records: 1.8 s of collections (17 full ones) finding no garbage
def import_into_store(
    store: Store, source: str, path: Path, *, overwrite: bool = False
) -> tuple[UpsertCounts, ImportResult, Counter[str]]:
    """Store the authored records of `path` as `authored`, and its rejected lines with their reasons.

    A line that would replace another origin's newer work is a conflict, kept and not applied (core/revisions.py)
    unless `overwrite`; a line this file brought before is not applied again to a record changed since.
    Returns the upsert counts, the import result and the revision verdicts (conflict, stale, ...).
    Source items are looked up per batch of lines, so the store's items are never all in memory."""
    # A large file is checked and built in a worker process while this one stores the batch before.
    result, records = stream_authored(path, lambda ids: store.source_item_texts_by_id(source, ids), workers=None)
    made = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    origin_key = f"file:{origin_path(path)}"  # the path, not the name: another folder's fix.jsonl is another file
    where = str(path.resolve())  # --status and --rejections say where the file is
    counts = UpsertCounts()
    verdicts: Counter[str] = Counter()
    for number, chunk in enumerate(
        batched(tracked(records, f"import ({source})"), IMPORT_BATCH)
    ):  # result.rejections complete after the last chunk
        if number == 0:  # a file this large will be validated in workers: their fork server starts now
            start_fork_server(result.lines)
        incoming = []
        for record in chunk:
            ready = result.ready.pop(record.record_id)
            detail = {"line": ready.number, "line_sha256": ready.line_sha256, "path": where}
            origin = revisions.Origin(origin_key, detail, made)
            incoming.append(revisions.Incoming(record, origin, record.provenance.annotator, ready.texts))
        screened = revisions.screen(store.con, incoming, overwrite=overwrite)
        texts = {item.record.record_id: item.texts for item in incoming if item.texts is not None}
        counts += store.upsert_records(screened.to_apply(), RecordState.AUTHORED, "import", texts=texts)
        revisions.record(store.con, screened)
        verdicts.update(screened.counts())
        store.let_waiting_in()
    store.unreadable_source_ids |= result.unreadable_source_ids
    store.clear_import_rejections(source, result.origin)
    store.add_import_rejections(source, result.origin, result.rejections)
    store.checkpoint()
    return counts, result, verdicts
