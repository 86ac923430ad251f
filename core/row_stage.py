"""A stage that moves stored records one by one with a pure function (validation, the heuristic judge).

The rows are read page by page (no read held open while the batches are written, see
`Store.record_pages`), worked on in worker processes when the run is large (core/parallel.py), and each
batch is written in one transaction, so a killed run resumes where it stopped. At the end of a large stage the
store is checkpointed and opened afresh: no cursor of `store.con` may be held across a stage.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Sequence

from core.batching import batched
from core.gc_tuning import fewer_collections
from core.models import RecordState
from core.parallel import map_batches, worker_count
from core.progress import progress
from core.stop_signals import raise_if_stopped
from core.store import RecordRow, StateChange, Store

# (the record's move, the outcome to count), or (None, why the stored row cannot be read back).
RowWork = Callable[[RecordRow], tuple[StateChange | None, str]]
# A stage this small leaves its writes to DuckDB's own checkpoint (at the WAL's threshold, or when the store is
# closed): a checkpoint and a fresh connection cost a `--serve` cycle of one record 0.1-0.2 s, a tenth of it, for
# memory that only a large stage holds.
CHECKPOINT_ROWS = 1_000


def run_row_stage(
    store: Store,
    source: str,
    states: Sequence[RecordState],
    work: RowWork,
    *,
    label: str,
    batch: int,
    workers: int | None = None,
) -> Counter[str]:
    """Apply `work` to every record of `source` in `states`. `work` must be a module-level function (or a
    `functools.partial` of one) so that workers can run it. `workers`: default, core/parallel.py decides
    from the size of the run."""
    total = sum(store.count_in_state(source, state) for state in states)
    workers = worker_count(total) if workers is None else workers
    rows = batched(store.record_pages(source, states, batch), batch)
    counts: Counter[str] = Counter()
    limit = store.threads_limited(1) if workers > 0 else contextlib.nullcontext()
    with progress(total, label) as bar, fewer_collections(), limit:
        for chunk, results in map_batches(work, rows, workers):
            raise_if_stopped()  # a stop swallowed by a query ("Query interrupted") ends the stage here
            changes = []
            for row, (change, outcome) in zip(chunk, results, strict=True):
                if change is None:
                    store.set_aside(row, outcome)  # rejected with its reason, as `Store.records` does
                    continue
                changes.append(change)
                counts[outcome] += 1
            store.apply(changes)
            store.let_waiting_in()  # `--status` from another terminal gets the store between batches
            bar.update(len(chunk))
    if total >= CHECKPOINT_ROWS:
        # As load and import do (Store.checkpoint): written into the file now, the stage's changes no longer
        # sit in memory DuckDB cannot evict. On a 100k-record run the next stage started 220 MB lower, and the
        # release of a 25k-record run no longer raised the run's peak.
        store.checkpoint()
    return counts
