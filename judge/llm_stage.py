"""The judge stage with an LLM judge: concurrent, cached, resumable, optionally through batch jobs.

Records waiting for the judge (`validated` and `judge_error`) are judged concurrently; verdicts
are applied in chunks as they arrive through `judge.stage.run_judging` (so the state rules are
the same as for any judge). Every answer is cached as it arrives, so a run killed part-way loses
nothing: the next run finds the answers in the cache and applies them without a call.

A refusal (bad API key, unknown model) or the circuit breaker stops the stage: what was judged
is saved, records whose call failed stay in `judge_error`, the records never sent keep their state,
and `LLMStopped` is raised for the run to report (core/llm/failures.py).

With `prefilter` (the free heuristic judge), a record that fails it is rejected by it and never
costs a call; one it flags waits in `needs_review` until a person resolves the flags, and is then judged
with the flags and their resolutions quoted. With `batch`, missing answers are submitted as Gemini batch
jobs instead of called; records waiting for a job keep their state and are judged by a later run once the
job is done.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from core.models import Record, RecordState
from core.store import Store, StoredRecord
from core.verdicts import JudgeVerdict, ValidationReport
from judge.base import Judge
from judge.gate import decide
from judge.llm_judge import JudgeFailed, LLMJudge
from judge.stage import run_judging

if TYPE_CHECKING:
    from core.llm.batch import BatchRunner

WAITING = [RecordState.VALIDATED, RecordState.JUDGE_ERROR]


class _Known:
    """A Judge that answers with verdicts already made (or raises the failure that was met)."""

    def __init__(self, name: str, version: str, outcomes: dict[str, JudgeVerdict | BaseException]) -> None:
        self.name = name
        self.version = version
        self._outcomes = outcomes

    def judge(self, record: Record, report: ValidationReport, threshold: int) -> JudgeVerdict:
        outcome = self._outcomes[record.record_id]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


def _apply(
    store: Store,
    source: str,
    judge: Judge,
    threshold: int,
    items: dict[str, StoredRecord],
    outcomes: dict[str, JudgeVerdict | BaseException],
    counts: Counter[str],
) -> None:
    if not outcomes:
        return
    if isinstance(judge, LLMJudge):
        judge.client.flush()  # answers are committed before the verdicts made from them
    known = _Known(judge.name, judge.version, dict(outcomes))
    counts.update(run_judging(store, source, known, threshold, items=[items[rid] for rid in outcomes]))
    outcomes.clear()


def run_llm_judging(
    store: Store,
    source: str,
    judge: LLMJudge,
    threshold: int,
    *,
    prefilter: Judge | None = None,
    batch: BatchRunner | None = None,
    chunk: int = 200,
) -> Counter[str]:
    """Judge every waiting record of `source`; returns counts (accepted, rejected, judge_error, ...)."""
    counts: Counter[str] = Counter()
    if batch is not None:
        counts.update(batch.poll())
    waiting = list(store.records(source, WAITING))
    items = {item.record.record_id: item for item in waiting}
    to_ask: list[StoredRecord] = []
    if prefilter is not None:
        dropped: dict[str, JudgeVerdict | BaseException] = {}
        for item in waiting:
            report = ValidationReport.model_validate(item.validation or {"passed": True})
            verdict = prefilter.judge(item.record, report, threshold)
            outcome = decide(item.record, verdict).outcome
            if outcome == "passed":
                to_ask.append(item)
            else:  # rejected, or held in needs_review with its flags: the LLM judge sees it once they are resolved
                dropped[item.record.record_id] = verdict
                counts[f"prefilter_{outcome}"] += 1
        _apply(store, source, prefilter, threshold, items, dropped, counts)
    else:
        to_ask = waiting

    outcomes: dict[str, JudgeVerdict | BaseException] = {}
    for index, outcome in judge.judge_iter([item.record for item in to_ask], threshold):
        if outcome is None:
            counts["awaiting_batch"] += 1
            continue
        if isinstance(outcome, JudgeFailed) and outcome.failure == "not_sent":
            counts["not_sent"] += 1  # the stage had stopped: the record keeps its state
        else:
            outcomes[to_ask[index].record.record_id] = outcome
        if len(outcomes) >= chunk:
            _apply(store, source, judge, threshold, items, outcomes, counts)
    # After a stop the loop drains at once (nothing more is sent), so every failure met is kept.
    _apply(store, source, judge, threshold, items, outcomes, counts)
    if judge.client.stop is not None:
        judge.client.flush()
        judge.client.stop.counts.update(counts)
        raise judge.client.stop
    if batch is not None:
        counts["batch_jobs_submitted"] += len(batch.submit())
    return +counts
