"""Suspect records: several reference models agree with each other and disagree with the ground truth.

The cheapest signal that a ground truth is wrong. Per record, the structured responses of the
reference models are compared pairwise with STED. The consensus is the response that most others
agree with (STED >= `agree`; ties go to the highest mean STED); its agreeing group is the consensus
and every response within `agree` of it. A record is suspect when that group has at least
`min_models` models and a strict majority of the usable responses, and the consensus disagrees
with the ground truth both by value accuracy (< `max_value_accuracy`, leaf by leaf as SOB scores)
and by STED (< `max_sted`, order-insensitive). Models that disagree among themselves never make a
suspect: that is a hard question, not a wrong answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scoring.paths import flatten
from scoring.sob import NO_RESPONSE, parse_response
from scoring.sted import sted
from scoring.text import canonical, same_value

DEFAULT_MIN_MODELS = 3
DEFAULT_AGREE = 0.9
DEFAULT_MAX_VALUE_ACCURACY = 0.5
DEFAULT_MAX_STED = 0.8


@dataclass(frozen=True)
class Suspect:
    record_id: str
    models: list[str]  # the agreeing models
    usable_responses: int
    value_accuracy: float  # the consensus against the ground truth
    sted: float
    consensus: Any
    differing_paths: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "record_id": self.record_id,
            "models": self.models,
            "usable_responses": self.usable_responses,
            "value_accuracy": self.value_accuracy,
            "sted": self.sted,
            "consensus": self.consensus,
            "differing_paths": self.differing_paths,
        }


def _value_accuracy(truth: Any, candidate: Any) -> tuple[float, list[str]]:
    leaves, guessed = flatten(truth), flatten(candidate)
    wrong = [p for p, v in leaves.items() if p not in guessed or not same_value(v, guessed[p])]
    return (1 - len(wrong) / len(leaves) if leaves else 1.0), wrong


def find_suspect(
    record_id: str,
    ground_truth: Any,
    responses: Mapping[str, Any],
    *,
    min_models: int = DEFAULT_MIN_MODELS,
    agree: float = DEFAULT_AGREE,
    max_value_accuracy: float = DEFAULT_MAX_VALUE_ACCURACY,
    max_sted: float = DEFAULT_MAX_STED,
) -> Suspect | None:
    usable: list[tuple[str, Any]] = []
    for model, response in sorted(responses.items()):
        parsed, value = parse_response(response, parse_text=True)  # a model's answer as text counts here
        if parsed and isinstance(value, dict | list):
            usable.append((model, value))
    if len(usable) < min_models:
        return None
    n = len(usable)
    # Models often give the same answer: STED only between distinct answers (by canonical JSON).
    spelled = [canonical(value) for _, value in usable]
    distinct: dict[bytes, int] = {}
    for i, key in enumerate(spelled):
        distinct.setdefault(key, i)
    pair: dict[tuple[bytes, bytes], float] = {}
    sim = [[1.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            a, b = spelled[i], spelled[j]
            if a != b:
                if (a, b) not in pair:
                    pair[a, b] = pair[b, a] = sted(usable[distinct[a]][1], usable[distinct[b]][1])
                sim[i][j] = sim[j][i] = pair[a, b]
    support = [sum(1 for j in range(n) if sim[i][j] >= agree) for i in range(n)]
    best = max(range(n), key=lambda i: (support[i], sum(sim[i])))
    group = [j for j in range(n) if sim[best][j] >= agree]
    if len(group) < min_models or 2 * len(group) <= n:
        return None
    consensus = usable[best][1]
    accuracy, wrong = _value_accuracy(ground_truth, consensus)
    similarity = sted(consensus, ground_truth)
    if accuracy >= max_value_accuracy or similarity >= max_sted:
        return None
    return Suspect(record_id, [usable[j][0] for j in group], n, accuracy, similarity, consensus, wrong)


def find_suspects(
    ground_truths: Mapping[str, Any], by_model: Mapping[str, Mapping[str, Any]], **thresholds: Any
) -> list[Suspect]:
    """Suspects over a release: `ground_truths` record id -> truth, `by_model` model -> record id -> response."""
    found = []
    for rid, truth in ground_truths.items():
        responses = {model: answers.get(rid, NO_RESPONSE) for model, answers in by_model.items()}
        suspect = find_suspect(rid, truth, responses, **thresholds)
        if suspect is not None:
            found.append(suspect)
    return found
