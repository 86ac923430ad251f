"""Rules on a value's evidence: a quote must be in the context and hold the value; a derivation must recompute."""

from __future__ import annotations

import copy

from validation.rules.base import GROUND_TRUTH, SCHEMA, case, lake
from validation.rules.model import Example, Rule

RIGHT = lake("the lake record with its dam height quoted", evidence={"$.dam_height_m": "38 metres high"})
CHECK_GIVEN = "validation.evidence_given:_check_given"
RESOLVE = "validation.evidence_given:_resolve_quote"
FAMILY = "evidence"
LOST = "A value whose evidence does not hold it is unproven; releasing it would publish an error as ground truth."


def _evidence_rule(code: str, summary: str, why: str, wrong: Example, checks: tuple[str, ...], **more: object) -> Rule:
    fields: dict[str, object] = {"right": RIGHT, "outcome": "reject", "guards": True, "readings": ("numbers",)}
    fields |= more
    return Rule(
        code=code, summary=summary, stage="validation", why=why, wrong=wrong, checks=checks, family=FAMILY, **fields
    )  # type: ignore[arg-type]


def _nullable() -> dict[str, object]:
    schema = copy.deepcopy(SCHEMA)
    schema["properties"]["dam_height_m"]["type"] = ["number", "null"]
    return schema


RULES = (
    _evidence_rule(
        "evidence_unknown_path",
        "Evidence is given for a path that is not in the ground truth.",
        "Evidence for nothing is a slip of the curator's (a renamed field): the value it meant to support has none.",
        lake("evidence for `$.volume`, a key the answer lacks", evidence={"$.volume": "42 million cubic metres"}),
        ("validation.evidence:check_evidence",),
    ),
    _evidence_rule(
        "evidence_not_in_context",
        "A quoted span is not in the context.",
        LOST,
        lake("a quote the context does not hold", evidence={"$.dam_height_m": "38 feet high"}),
        (RESOLVE,),
    ),
    _evidence_rule(
        "evidence_offsets_mismatch",
        "The offsets given with a quote do not hold the quote.",
        LOST,
        lake(
            "offsets pointing at the start of the text",
            evidence={"$.dam_height_m": {"quote": "38 metres high", "start": 0, "end": 14}},
        ),
        (RESOLVE,),
    ),
    _evidence_rule(
        "evidence_in_markup",
        "A quote lies in a transcript's `[m:ss] SPEAKER:` markup, which is no evidence.",
        LOST,
        case("calibration2/v2-ami-lcd-speaker", "a speaker label quoted as evidence"),
        (RESOLVE,),
        right=case("calibration2/v2-ami-recap-plan"),
    ),
    _evidence_rule(
        "evidence_mismatch",
        "The value contradicts its evidence: a number its quote does not hold, a conversion or a derivation that "
        "recomputes to another value, `absent` with a value.",
        LOST,
        lake("38 quoted from the water volume", evidence={"$.dam_height_m": "42 million cubic metres"}),
        (CHECK_GIVEN,),
        readings=("numbers", "units", "money", "dates", "clock"),
    ),
    _evidence_rule(
        "derived_unknown_source",
        "Derived evidence names a source leaf that is not in the ground truth.",
        "A derivation from nothing cannot be recomputed: the value is unproven.",
        lake(
            "derived from `$.height`, which is not there",
            evidence={"$.dam_height_m": {"kind": "derived", "sources": ["$.height"], "rule": "equal"}},
        ),
        (CHECK_GIVEN,),
        readings=(),
    ),
    _evidence_rule(
        "evidence_unverified",
        'A value is no reading of its quote the toolkit knows, or the quote may work it out ("half what we have now").',
        "The toolkit cannot prove the quote wrong, so a person reads it.",
        case("calibration3/v3-ami-w12", "a figure the quote does not state"),
        (CHECK_GIVEN,),
        right=case("calibration3/v3-ami-r04"),
        outcome="flag",
        guards=False,
        readings=("numbers", "units", "money", "dates", "clock", "codes"),
    ),
    _evidence_rule(
        "unverified_derivation",
        "Derived evidence without a rule the toolkit can recompute.",
        "Shown to the curator and the LLM judge; a derivation in words is often right, so it holds nothing.",
        lake(
            "derived from `$.built` with no rule",
            evidence={"$.dam_height_m": {"kind": "derived", "sources": ["$.built"]}},
        ),
        (CHECK_GIVEN,),
        outcome="note",
        guards=False,
        readings=(),
    ),
    _evidence_rule(
        "unexplained_null",
        "A null value without `absent` evidence.",
        "Shown to the curator and the LLM judge: a null is often right, so it holds nothing by itself.",
        lake("the dam height left null", json_schema=_nullable(), ground_truth=GROUND_TRUTH | {"dam_height_m": None}),
        ("validation.evidence:check_evidence",),
        outcome="note",
        guards=False,
        readings=(),
    ),
)
