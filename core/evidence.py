"""Evidence per value: where in the context each leaf of a ground truth comes from.

Every leaf (string, number, boolean or null, and every empty list) carries one `Evidence`, keyed by its
JSON path (`$.books[0].author`, the paths of `validation.paths`):

* `span`: a quoted span of the context; `quote` is the text as written, `start`/`end` its character
  offsets (resolved and stored by validation when a curator gives only the quote). The value must be
  that text (or found as whole words inside it).
* `normalised`: a unit or format change of a quoted span ("73.6%" -> 0.736, "twelve and a half" -> 12.5,
  "3,677" -> 3677, "March 3, 1986" -> "1986-03-03"). The value must be a recognised normalisation of it.
* `derived`: computed or inferred from other leaves, named in `sources` (a boolean comparison, a sum,
  a count); `rule` (see DERIVATION_RULES) lets the toolkit recompute it.
* `absent`: the context states nothing; null or an empty list is then the correct answer.
* `convert`: a unit conversion of a quoted quantity ("500 miles" -> 804.7 in a km field), with `unit_from`
  (default: the unit written in the quote) and `unit_to` (default: the unit the field names); the toolkit
  converts and compares, to the curator's precision.
* `expands`: the value is the long form of an abbreviation quoted from the context, or the other way round
  ("FBS" -> "Football Bowl Subdivision", "euros" -> "EUR"): what the toolkit cannot infer, stated by the curator.

Curators write evidence in the authored JSONL (`"evidence": {"$.path": ...}`) or in Label Studio; drafts
propose it. `parse_evidence` accepts the short forms a person would type: a bare string is a quoted span,
`"absent"` alone is the absent kind, `{"derived_from": [...]}` a derivation.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

EvidenceKind = Literal["span", "normalised", "derived", "absent", "convert", "expands"]
EVIDENCE_KINDS: tuple[str, ...] = ("span", "normalised", "derived", "absent", "convert", "expands")
QUOTED_KINDS: tuple[str, ...] = ("span", "normalised", "convert", "expands")

# Rules a derived leaf may name, so the toolkit can recompute it from its sources.
DERIVATION_RULES: dict[str, str] = {
    "equal": "true when every source value is the same (after normalisation)",
    "not_equal": "true when the source values are not all the same",
    "all_true": "true when every source is true",
    "any_true": "true when some source is true",
    "sum": "the sum of the (numeric) sources",
    "difference": "the first source minus the second",
    "count": "the number of items of the source list(s)",
    "min": "the smallest source value",
    "max": "the largest source value",
    "earlier": "the first source is earlier (smaller) than the second",
    "later": "the first source is later (larger) than the second",
    "greater": "the first source is larger than the second",
    "less": "the first source is smaller than the second",
}
MAX_QUOTE_CHARS = 5_000  # a quote longer than this is a copy of the context, not evidence


class Evidence(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: EvidenceKind = "span"
    quote: str | None = Field(default=None, max_length=MAX_QUOTE_CHARS)
    start: int | None = Field(default=None, ge=0)
    end: int | None = Field(default=None, ge=0)
    sources: list[str] = Field(default_factory=list, max_length=64)
    rule: str | None = None
    note: str | None = Field(default=None, max_length=2_000)
    unit_from: str | None = Field(default=None, max_length=40)  # `convert`: the unit of the quote
    unit_to: str | None = Field(default=None, max_length=40)  # `convert`: the unit of the value
    auto: bool = False  # located by the toolkit (no curator gave it)

    @model_validator(mode="after")
    def _consistent(self) -> Evidence:
        if self.kind in QUOTED_KINDS and self.quote is None and self.start is None:
            raise ValueError(f"{self.kind} evidence needs a quote or start/end offsets")
        if (self.start is None) != (self.end is None):
            raise ValueError("give both start and end offsets, or neither")
        if self.start is not None and self.end is not None and self.end <= self.start:
            raise ValueError("end must be greater than start")
        if self.kind == "derived" and not self.sources:
            raise ValueError("derived evidence names the leaves it comes from in `sources`")
        if self.rule is not None and self.rule not in DERIVATION_RULES:
            raise ValueError(f"unknown rule {self.rule!r}; known: {', '.join(DERIVATION_RULES)}")
        if self.rule is not None and self.kind != "derived":
            raise ValueError("only derived evidence has a rule")
        if (self.unit_from is not None or self.unit_to is not None) and self.kind != "convert":
            raise ValueError("only convert evidence has unit_from and unit_to")
        return self

    @property
    def located(self) -> bool:
        return self.start is not None and self.end is not None


def parse_evidence(raw: Any) -> Evidence:
    """One evidence entry from what a curator or a draft wrote. Raises ValueError with a plain reason."""
    if isinstance(raw, Evidence):
        return raw
    if isinstance(raw, str):
        if raw.strip().lower() == "absent":
            return Evidence(kind="absent")
        return Evidence(kind="span", quote=raw)
    if not isinstance(raw, dict):
        raise ValueError(f"evidence must be a quoted string or an object, not {type(raw).__name__}")
    data = dict(raw)
    if "derived_from" in data:  # short form: {"derived_from": ["$.a", "$.b"], "rule": "equal"}
        data.setdefault("kind", "derived")
        data["sources"] = data.pop("derived_from")
    if "kind" not in data and "sources" in data:
        data["kind"] = "derived"
    if isinstance(data.get("sources"), str):
        data["sources"] = [data["sources"]]
    try:
        return Evidence.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            (".".join(str(p) for p in e["loc"]) + ": " if e["loc"] else "") + e["msg"].removeprefix("Value error, ")
            for e in exc.errors()
        )
        raise ValueError(problems) from None


def parse_evidence_map(raw: Any) -> tuple[dict[str, Evidence], list[tuple[str, str]]]:
    """Evidence keyed by JSON path, and (path, problem) for every entry that could not be read."""
    if raw is None:
        return {}, []
    if not isinstance(raw, dict):
        return {}, [("$", f"evidence must be an object keyed by JSON path, not {type(raw).__name__}")]
    parsed: dict[str, Evidence] = {}
    problems: list[tuple[str, str]] = []
    for path, entry in raw.items():
        key = path if path.startswith("$") else "$." + path  # "a.b" is what people type for "$.a.b"
        try:
            parsed[key] = parse_evidence(entry)
        except ValueError as exc:
            problems.append((key, str(exc)))
    return parsed, problems
