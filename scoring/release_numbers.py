"""Curation numbers a release's card and manifest report: how much the LLM drafts shaped the ground truth,
ground truths over SOB's output budget, arrays whose order the context may not imply, and the suspect and
ambiguity flags raised on the released records. The card's section is written from them by
exports/curation_card.py."""

from __future__ import annotations

from typing import Any

from core.models import RecordState
from core.store import Store
from scoring.curation import (
    OUTPUT_TOKEN_BUDGET,
    array_order_warnings,
    draft_agreement,
    output_budget,
    summarize_agreement,
)
from scoring.curator_agreement import summarize as summarize_curators
from scoring.flags import load_flags


def curation_numbers(store: Store, source: str, budget: int = OUTPUT_TOKEN_BUDGET) -> dict[str, Any] | None:
    """The numbers for the accepted records of `source` (the rows of its next release); None when there are none."""
    from authoring.drafts import load_drafts

    records = [item.record for item in store.records(source, [RecordState.ACCEPTED], ordered=False)]
    if not records:
        return None
    drafts = load_drafts(store.con, source, status="drafted")
    agreement = []
    for record in records:
        draft = drafts.get(record.metadata.source_id)
        if draft is not None and draft.ground_truth is not None:
            same = (draft.question or "").strip() == record.input.question.strip()
            agreement.append(draft_agreement(record.record_id, record.output.ground_truth, draft.ground_truth, same))
    checks, tokenizer = output_budget(((r.record_id, r.output.ground_truth) for r in records), budget)
    warnings = sum(len(array_order_warnings(r.record_id, r.output.ground_truth, r.input.context)) for r in records)
    released = {r.record_id for r in records}
    by_source_id = {r.metadata.source_id for r in records}
    suspects = [rid for rid in load_flags(store.con, "suspect", source) if rid in released]
    ambiguous = [sid for sid in load_flags(store.con, "ambiguous", source) if sid in by_source_id]
    numbers: dict[str, Any] = {
        "records": len(records),
        "draft_agreement": summarize_agreement(agreement, len(records) - len(agreement)),
        "output_budget": {
            "budget": budget,
            "tokenizer": tokenizer,
            "max_tokens": max((c.tokens for c in checks), default=0),
            "over_budget": sum(1 for c in checks if c.over_budget),
        },
        "array_order_warnings": warnings,
        "suspect_flags": len(suspects),
        "ambiguity_flags": len(ambiguous),
    }
    two = _curator_agreement(store, source, released)
    if two is not None:  # only when records were authored by two curators (--overlap 2)
        numbers["curator_agreement"] = two
    return numbers


def _curator_agreement(store: Store, source: str, released: set[str]) -> dict[str, Any] | None:
    """Two curators' agreement over the released records that had two answers."""
    from authoring.curator_answers import ADJUDICATED, agreement_rows

    rows = [r for r in agreement_rows(store, source) if r.record_id in released]
    if not rows:
        return None
    adjudicated = sum(1 for r in rows if r.status == ADJUDICATED)
    return summarize_curators([r.comparison for r in rows], adjudicated).as_dict()
