"""The dataset card's "Curation numbers" section, written from the numbers the caller measured and handed to the
release (scoring/release_numbers.py measures them)."""

from __future__ import annotations

from typing import Any


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def card_section(numbers: dict[str, Any]) -> str:
    """The dataset card's "Curation numbers" section (markdown)."""
    agreement = numbers["draft_agreement"]
    budget = numbers["output_budget"]
    with_draft = agreement["records_with_draft"]
    lines = [
        "## Curation numbers",
        "",
        f"- Draft to final: {with_draft} of {numbers['records']} records started from an LLM draft"
        + (
            f"; the final answers keep {_pct(agreement['mean_value_accuracy'])} of the draft's values on average "
            f"(mean STED {agreement['mean_sted']:.3f}), and {agreement['unchanged']} were released unchanged."
            if with_draft
            else "."
        ),
        f"- Output budget: the largest ground truth is {budget['max_tokens']} tokens ({budget['tokenizer']}); "
        f"{budget['over_budget']} exceed SOB's {budget['budget']}-token output budget.",
        f"- Array order: {numbers['array_order_warnings']} arrays whose order the context may not imply "
        "(SOB scores arrays by index).",
        f"- Flags: {numbers['suspect_flags']} records are suspects (reference models agree with each other and not "
        f"with the ground truth); {numbers['ambiguity_flags']} questions were flagged ambiguous by repeated drafts.",
        "",
    ]
    return "\n".join(lines)
