"""Agreement of two curators who authored the same record independently (`--overlap 2`).

Per record: the two ground truths are compared leaf by leaf, paths as SOB flattens them (`scoring.paths`), values
by JSON equality (`scoring.text.same_value`, the comparison value accuracy uses); the question (spaces and case
aside) and the schema (as canonical JSON) are compared too.

- value accuracy: leaves with the same value on both sides / leaves of either side (symmetric: a field only one
  curator filled counts against agreement, whichever curator it was);
- STED (`scoring.sted`): the structure-aware similarity, order of keys and items aside;
- the two answers *disagree* when any leaf differs, or the question or the schema does: the record then goes to
  an adjudicator.

Over records: the mean value accuracy and the mean STED with 95% bootstrap intervals (SOB's resampling,
`scoring.bootstrap`), and the share of records that disagree with its 95% Wilson interval.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from exports.curation_card import interval as _interval
from exports.curation_card import percent as _pct
from scoring.bootstrap import sob_intervals
from scoring.paths import flatten
from scoring.sted import sted
from scoring.text import canonical, same_value

BOOTSTRAP_SAMPLES = 1000
BOOTSTRAP_SEED = 0
CONFIDENCE = 0.95


@dataclass(frozen=True)
class AnswerComparison:
    """Two curators' answers to one record, compared."""

    value_accuracy: float
    sted: float
    differing_fields: tuple[str, ...]  # leaf paths whose values differ (or that one side lacks)
    same_question: bool
    same_schema: bool
    same_verdict: bool = True

    @property
    def agree(self) -> bool:
        return not self.differing_fields and self.same_question and self.same_schema and self.same_verdict

    def differences(self) -> list[str]:
        """What differs, for people: `$.question`, `$.json_schema`, then the answer's leaf paths."""
        out = [] if self.same_verdict else ["$.verdict"]
        out += [] if self.same_question else ["$.question"]
        out += [] if self.same_schema else ["$.json_schema"]
        return out + [f"$.ground_truth.{path}" if path != "$" else "$.ground_truth" for path in self.differing_fields]

    def as_row(self) -> dict[str, Any]:
        return {
            "value_accuracy": self.value_accuracy,
            "sted": self.sted,
            "differing_fields": list(self.differing_fields),
            "same_question": self.same_question,
            "same_schema": self.same_schema,
            "same_verdict": self.same_verdict,
            "agree": self.agree,
        }


def _question_key(question: str | None) -> str:
    return " ".join((question or "").split()).casefold()


def compare_answers(first: Mapping[str, Any], second: Mapping[str, Any]) -> AnswerComparison:
    """`first` and `second`: {question, json_schema, ground_truth, verdict}."""
    a = flatten(first.get("ground_truth") if first.get("ground_truth") is not None else {})
    b = flatten(second.get("ground_truth") if second.get("ground_truth") is not None else {})
    paths = list(dict.fromkeys([*a, *b]))
    differing = tuple(p for p in paths if not (p in a and p in b and same_value(a[p], b[p])))
    accuracy = (len(paths) - len(differing)) / len(paths) if paths else 1.0
    return AnswerComparison(
        value_accuracy=accuracy,
        sted=sted(first.get("ground_truth"), second.get("ground_truth")),
        differing_fields=differing,
        same_question=_question_key(first.get("question")) == _question_key(second.get("question")),
        same_schema=canonical(first.get("json_schema")) == canonical(second.get("json_schema")),
        same_verdict=(first.get("verdict") or "accept") == (second.get("verdict") or "accept"),
    )


@dataclass
class AgreementSummary:
    records: int = 0
    disagree: int = 0
    adjudicated: int = 0
    mean_value_accuracy: float | None = None
    value_accuracy_ci: tuple[float, float] | None = None
    mean_sted: float | None = None
    sted_ci: tuple[float, float] | None = None
    disagree_ci: tuple[float, float] | None = None
    fields: dict[str, int] = field(default_factory=dict)  # leaf path -> records where the two differ there

    def as_dict(self) -> dict[str, Any]:
        return {
            "records_with_two_answers": self.records,
            "disagree": self.disagree,
            "adjudicated": self.adjudicated,
            "mean_value_accuracy": self.mean_value_accuracy,
            "value_accuracy_ci95": list(self.value_accuracy_ci) if self.value_accuracy_ci else None,
            "mean_sted": self.mean_sted,
            "sted_ci95": list(self.sted_ci) if self.sted_ci else None,
            "disagree_ci95": list(self.disagree_ci) if self.disagree_ci else None,
            "interval_method": f"bootstrap ({BOOTSTRAP_SAMPLES} resamples, seed {BOOTSTRAP_SEED}) for the means, "
            "Wilson score for the share that disagrees",
            "fields_that_differ": self.fields,
        }


def wilson(count: int, n: int) -> tuple[float, float] | None:
    if n == 0:
        return None
    from scipy.stats import binomtest  # here, not at the top: scipy.stats costs about a second to import

    interval = binomtest(count, n).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return float(interval.low), float(interval.high)


def summarize(rows: Sequence[Mapping[str, Any]], adjudicated: int = 0) -> AgreementSummary:
    """`rows`: comparisons as `AnswerComparison.as_row()` gives them, one per record with two answers."""
    summary = AgreementSummary(records=len(rows), adjudicated=adjudicated)
    if not rows:
        return summary
    values = np.array([[float(r["value_accuracy"]), float(r["sted"])] for r in rows])
    (va_low, va_high), (st_low, st_high) = sob_intervals(values, None, samples=BOOTSTRAP_SAMPLES, seed=BOOTSTRAP_SEED)
    summary.mean_value_accuracy = float(values[:, 0].mean())
    summary.mean_sted = float(values[:, 1].mean())
    summary.value_accuracy_ci = (va_low, va_high)
    summary.sted_ci = (st_low, st_high)
    summary.disagree = sum(1 for r in rows if not r["agree"])
    summary.disagree_ci = wilson(summary.disagree, len(rows))
    per_field: Counter[str] = Counter(path for r in rows for path in r.get("differing_fields") or [])
    summary.fields = dict(per_field.most_common())
    return summary


def status_lines(numbers: Mapping[str, Any]) -> list[str]:
    """What `--status` prints of `AgreementSummary.as_dict()`."""
    n = numbers["records_with_two_answers"]
    if not n:
        return []
    lines = [
        f"curator agreement: {n} record(s) with two answers, {numbers['disagree']} disagree"
        f"{_interval(numbers['disagree_ci95'])}, {numbers['adjudicated']} adjudicated",
        f"  value accuracy {_pct(numbers['mean_value_accuracy'])}{_interval(numbers['value_accuracy_ci95'])}, "
        f"mean STED {numbers['mean_sted']:.3f}{_interval(numbers['sted_ci95'], pct=False)}",
    ]
    fields = list((numbers.get("fields_that_differ") or {}).items())[:5]
    if fields:
        lines.append("  fields that differ most: " + ", ".join(f"{path} ({count})" for path, count in fields))
    return lines
