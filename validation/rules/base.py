"""The small valid record every inline example starts from (tests/data/calibration/cases.jsonl, inline-lake-right):
an example changes only the part its rule looks at."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from validation.rules.model import Example

CONTEXT = (
    "Lake Varn is a reservoir in Telmark. It was built in 1931 and holds 42 million cubic metres of water. "
    "Its dam is 38 metres high."
)
QUESTION = "When was Lake Varn built and how high is its dam?"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "lake": {"type": "string", "description": "the reservoir"},
        "built": {"type": "integer", "description": "year it was built"},
        "dam_height_m": {"type": "number", "description": "height of its dam in metres"},
    },
    "required": ["lake", "built", "dam_height_m"],
    "additionalProperties": False,
}
GROUND_TRUTH: dict[str, Any] = {"lake": "Lake Varn", "built": 1931, "dam_height_m": 38}


def lake(note: str = "", build: Callable[[], dict[str, Any]] | None = None, **parts: Any) -> Example:
    """The lake record with `parts` (context, question, json_schema, ground_truth, evidence) replaced; `build`
    makes parts too large to keep in memory for the life of the process."""
    fields: dict[str, Any] = {
        "context": CONTEXT,
        "question": QUESTION,
        "json_schema": copy.deepcopy(SCHEMA),
        "ground_truth": dict(GROUND_TRUTH),
    }
    return Example(note=note, build=build, **(fields | parts))


def with_property(name: str, spec: dict[str, Any], value: Any, note: str = "", **parts: Any) -> Example:
    """The lake record with one more property (and its value), e.g. a list or a boolean to check."""
    schema = copy.deepcopy(SCHEMA)
    schema["properties"][name] = spec
    schema["required"].append(name)
    return lake(note, json_schema=schema, ground_truth=GROUND_TRUTH | {name: value}, **parts)


def case(reference: str, note: str = "") -> Example:
    """A labelled case: "<set>/<id>" of tests/data/<set>/*.jsonl."""
    return Example(case=reference, note=note)
