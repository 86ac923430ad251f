"""The review stage, between validation and the judge: every validated record not yet reviewed in its
current form gets the reviewer's flags (`Provenance.review`).

- no open flag: the record stays `validated` and goes on to the judge;
- open flags: the record goes to `needs_revision` with one reason per flag (stage `review`); Label Studio
  shows the flags above the editors (`authoring.labelstudio.bounce_review_flags`), and the curator fixes
  or dismisses each with a note;
- the reviewer failed: the record goes back to `authored` with the reason, so the judge never takes an
  unreviewed record; the next run validates it again and asks the reviewer again.

A flag the curator dismissed is not raised again for the same code and path; fixed and dismissed flags
stay on the record, for the judge to weigh and for the release's audit trail.
"""

from __future__ import annotations

from collections import Counter

from core.models import Reason, Record, RecordState, utcnow
from core.review import ReviewFlag, ReviewInfo, subject_hash
from core.store import StateChange, Store, StoredRecord
from judge.reviewer import LLMReviewer, ReviewFailed, subject_of

STAGE = "review"


def needs_review(record: Record, reviewer: LLMReviewer) -> bool:
    review = record.provenance.review
    if review is None or review.reviewer != reviewer.name or review.version != reviewer.version:
        return True
    return review.subject_hash != subject_hash(subject_of(record)) or bool(review.open_flags)


def merge_flags(previous: ReviewInfo | None, raised: list[ReviewFlag]) -> list[ReviewFlag]:
    """Earlier resolved flags, then the newly raised ones not already dismissed (numbered on)."""
    kept = [f for f in (previous.flags if previous else []) if f.status != "open"]
    dismissed = {f.key for f in kept if f.status == "dismissed"}
    number = max((int(f.id[1:]) for f in kept if f.id[1:].isdigit()), default=0)
    merged = list(kept)
    for flag in raised:
        if flag.key in dismissed:
            continue
        number += 1
        merged.append(flag.model_copy(update={"id": f"R{number}"}))
    return merged


def flag_reasons(flags: list[ReviewFlag]) -> list[Reason]:
    return [Reason(stage=STAGE, code=f.code, message=f"{f.id}: {f.reason}", path=f.path) for f in flags]


def _change(item: StoredRecord, reviewer: LLMReviewer, outcome: list[ReviewFlag] | BaseException) -> StateChange:
    record = item.record
    if isinstance(outcome, BaseException):
        kind = "review_error" if isinstance(outcome, ReviewFailed) else "review_crash"
        reason = Reason(stage=STAGE, code=kind, message=f"{type(outcome).__name__}: {outcome}"[:1000])
        return StateChange(record.record_id, RecordState.AUTHORED, STAGE, reasons=[reason])
    info = ReviewInfo(
        reviewer=reviewer.name,
        version=reviewer.version,
        reviewed_at=utcnow(),
        subject_hash=subject_hash(subject_of(record)),
        flags=merge_flags(record.provenance.review, outcome),
    )
    updated = record.model_copy(update={"provenance": record.provenance.model_copy(update={"review": info})})
    if info.open_flags:
        return StateChange(
            record.record_id, RecordState.NEEDS_REVISION, STAGE, reasons=flag_reasons(info.open_flags), record=updated
        )
    return StateChange(record.record_id, RecordState.VALIDATED, STAGE, record=updated)


def run_review(store: Store, source: str, reviewer: LLMReviewer, *, chunk: int = 200) -> Counter[str]:
    """Review every validated record that needs it; returns counts (clean, flagged, flags, review_error, ...)."""
    counts: Counter[str] = Counter()
    waiting = [item for item in store.records(source, [RecordState.VALIDATED]) if needs_review(item.record, reviewer)]
    changes: list[StateChange] = []

    def flush() -> None:
        reviewer.client.flush()  # answers are committed before the state changes made from them
        store.apply(changes)
        changes.clear()

    for index, outcome in reviewer.review_iter([item.record for item in waiting]):
        if outcome is None:
            counts["awaiting_batch"] += 1
            continue
        change = _change(waiting[index], reviewer, outcome)
        if change.to_state == RecordState.NEEDS_REVISION:
            counts["flagged"] += 1
            counts["flags"] += len(change.reasons)
        elif change.to_state == RecordState.VALIDATED:
            counts["clean"] += 1
        else:
            counts[change.reasons[0].code] += 1
        changes.append(change)
        if len(changes) >= chunk:
            flush()
    flush()
    return +counts
