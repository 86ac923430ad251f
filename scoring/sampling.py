"""Repeated drafts for ambiguity flags: the draft prompt asked `n` times at a temperature above zero.

Each sample is its own request in the LLM cache (the sample number is part of its prompt version),
so re-running never pays twice and never returns one cached answer `n` times. Only the answers are
kept (`scoring.flags.draft_samples`); a failed or unparsable sample is counted, not stored: an item
with fewer than two answers is reported as unscored rather than flagged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from authoring.drafts import DraftReply, draft_request
from core.llm.client import LLMClient
from core.models import SourceItem
from scoring.flags import DraftSample

DEFAULT_SAMPLES = 3
DEFAULT_TEMPERATURE = 0.7


@dataclass
class SamplingResult:
    samples: list[DraftSample] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)  # reason -> samples lost


def sample_drafts(
    client: LLMClient,
    items: Iterable[SourceItem],
    *,
    n: int = DEFAULT_SAMPLES,
    temperature: float = DEFAULT_TEMPERATURE,
) -> SamplingResult:
    if n < 2:
        raise ValueError(f"ambiguity needs at least 2 samples per item, got {n}")
    if not temperature > 0:
        raise ValueError(f"samples at temperature {temperature} would not vary: use a temperature above 0")
    items = list(items)
    requests = []
    for item in items:
        base = draft_request(item)
        for k in range(n):
            requests.append(
                base.model_copy(
                    update={"temperature": temperature, "prompt_version": f"{base.prompt_version}/sample-{k}"}
                )
            )
    result = SamplingResult()
    results = client.complete_many(requests)
    for index, outcome in enumerate(results):
        item = items[index // n]
        if not outcome.ok or not isinstance(outcome.parsed, DraftReply):
            result.failures[outcome.failure or outcome.status] += 1
            continue
        try:
            truth = outcome.parsed.truth_dict()
        except ValueError:
            result.failures["unparsable_ground_truth"] += 1
            continue
        result.samples.append(DraftSample(item.source_id, truth, client.model, temperature))
    return result
