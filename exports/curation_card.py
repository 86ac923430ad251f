"""The dataset card's "Curation numbers" section, written from the numbers the caller measured and handed to the
release (scoring/release_numbers.py measures them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


_pct = percent


def interval(ci: Sequence[float] | None, pct: bool = True) -> str:
    """ " (95% CI a-b)" of an interval, in percent or as numbers; nothing when there is none."""
    if not ci:
        return ""
    low, high = ci
    return f" (95% CI {percent(low)}-{percent(high)})" if pct else f" (95% CI {low:.3f}-{high:.3f})"


def ci_text(ci: Sequence[float] | None) -> str:
    return f"{percent(ci[0])}-{percent(ci[1])}" if ci else "n/a"


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
    if numbers.get("curator_agreement"):  # only when records were authored by two curators (--overlap 2)
        lines += ["", curator_agreement_section(numbers["curator_agreement"])]
    return "\n".join(lines)


def curator_agreement_section(numbers: Mapping[str, Any]) -> str:
    """The card's "Curator agreement" section (markdown) from `AgreementSummary.as_dict()`."""
    n = numbers["records_with_two_answers"]
    lines = [
        "## Curator agreement",
        "",
        f"{n} released records were authored independently by two curators. Their answers differed on "
        f"{numbers['disagree']} of them ({percent(numbers['disagree'] / n if n else None)}; 95% CI "
        f"{ci_text(numbers['disagree_ci95'])}); an adjudicator chose the ground truth of those.",
        "",
        f"- Value accuracy between the two answers: {percent(numbers['mean_value_accuracy'])}"
        f"{interval(numbers['value_accuracy_ci95'])}.",
        f"- Mean STED between the two answers: {numbers['mean_sted']:.3f}{interval(numbers['sted_ci95'], pct=False)}.",
        f"- Intervals: {numbers['interval_method']}.",
        "",
    ]
    return "\n".join(lines)
