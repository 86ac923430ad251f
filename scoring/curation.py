"""Numbers about the curation itself: draft-to-final agreement, the output budget, array order.

- Draft-to-final agreement: the LLM draft's answer against the curator's final ground truth, by
  value accuracy (share of the final answer's leaves the draft had right, paths as SOB flattens
  them, no hardening) and STED. High agreement everywhere means the LLM shaped the ground truth.
- Output budget: SOB gives models 2,048 output tokens; a ground truth longer than that (its JSON,
  as released, counted with all-MiniLM-L6-v2's tokenizer from `exports.stats`) cannot be answered.
- Array order: SOB scores arrays by index, so an array's order must follow from the context. For
  each array of two or more items, each item's text (a string item, or an object item's first
  string value) is looked up in the context (case-insensitive); the array is flagged when an item
  is not found, or when the items' first occurrences are not in the array's order. Numbers and
  booleans cannot be looked up, so arrays of them are flagged only if the context lacks them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from scoring.paths import child_path, flatten
from scoring.sted import sted
from scoring.text import same_value

OUTPUT_TOKEN_BUDGET = 2048


@dataclass(frozen=True)
class DraftAgreement:
    record_id: str
    value_accuracy: float
    sted: float
    same_question: bool


def draft_agreement(record_id: str, final: Any, draft: Any, same_question: bool) -> DraftAgreement:
    truth = flatten(final)
    guessed = flatten(draft)
    correct = sum(1 for path, value in truth.items() if path in guessed and same_value(value, guessed[path]))
    return DraftAgreement(record_id, correct / len(truth) if truth else 1.0, sted(draft, final), same_question)


def summarize_agreement(rows: list[DraftAgreement], without_draft: int) -> dict[str, Any]:
    n = len(rows)
    return {
        "records_with_draft": n,
        "records_without_draft": without_draft,
        "mean_value_accuracy": sum(r.value_accuracy for r in rows) / n if n else None,
        "mean_sted": sum(r.sted for r in rows) / n if n else None,
        "unchanged": sum(1 for r in rows if r.value_accuracy == 1.0 and r.sted == 1.0),
        "question_kept": sum(1 for r in rows if r.same_question),
    }


@dataclass(frozen=True)
class BudgetCheck:
    record_id: str
    tokens: int
    over_budget: bool


def output_budget(items: Iterable[tuple[str, Any]], budget: int = OUTPUT_TOKEN_BUDGET) -> tuple[list[BudgetCheck], str]:
    """Token count of each ground truth's JSON; returns the checks and the tokenizer's name."""
    from exports.stats import get_tokenizer

    pairs = list(items)
    tokenizer = get_tokenizer()
    counts = tokenizer.count([json.dumps(truth, ensure_ascii=False) for _, truth in pairs])
    checks = [BudgetCheck(rid, n, n > budget) for (rid, _), n in zip(pairs, counts, strict=True)]
    return checks, tokenizer.name


@dataclass(frozen=True)
class ArrayOrderWarning:
    record_id: str
    path: str
    reason: str


def _item_text(item: Any) -> str | None:
    if isinstance(item, str):
        return item
    if isinstance(item, bool) or item is None:
        return None
    if isinstance(item, int | float):
        return str(item)
    if isinstance(item, dict):
        for value in item.values():
            if isinstance(value, str) and value.strip():
                return value
    return None


def _arrays(value: Any, path: str = "") -> Iterable[tuple[str, list[Any]]]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _arrays(child, child_path(path, str(key)))
    elif isinstance(value, list):
        if len(value) >= 2:
            yield path or "$", value
        for index, child in enumerate(value):
            yield from _arrays(child, f"{path}[{index}]")


def array_order_warnings(record_id: str, ground_truth: Any, context: str) -> list[ArrayOrderWarning]:
    haystack = context.casefold()
    warnings: list[ArrayOrderWarning] = []
    for path, items in _arrays(ground_truth):
        positions: list[int] = []
        problem = None
        for index, item in enumerate(items):
            text = _item_text(item)
            if text is None or not text.strip():
                problem = f"item {index} has no text to find in the context"
                break
            position = haystack.find(text.casefold().strip())
            if position < 0:
                problem = f"item {index} ({text[:40]!r}) is not in the context"
                break
            positions.append(position)
        if problem is None and positions != sorted(positions):
            problem = "the items appear in the context in a different order"
        if problem:
            warnings.append(ArrayOrderWarning(record_id, path, f"array order is not implied by the context: {problem}"))
    return warnings
