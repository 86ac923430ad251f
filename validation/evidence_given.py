"""A curator's or a draft's evidence checked against its value: a quote resolved in the context and read, a
conversion and a derivation recomputed (`evidence_*`, `derived_unknown_source`, `unverified_derivation`)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from core.evidence import Evidence
from core.verdicts import GroundingIssue, ValidationFailure
from validation import paths
from validation.evidence_places import Leaf, _phrase_pattern, value_matches_span
from validation.grounding import NormalizedContext
from validation.normalise import matches_normalised, number_readings, one_number_in_words, same_number
from validation.readings import conversion_supports, quote_supports
from validation.readings.clock import clock_value
from validation.readings.dates import date_places
from validation.readings.fields import FieldHint, field_words
from validation.readings.numbers import to_decimal

CHECK = "evidence"


@dataclass
class EvidenceResult:
    failures: list[ValidationFailure] = field(default_factory=list)
    issues: list[GroundingIssue] = field(default_factory=list)
    resolved: dict[str, Evidence] = field(default_factory=dict)
    support: Counter[str] = field(default_factory=Counter)
    ungrounded: list[str] = field(default_factory=list)
    leaves: int = 0  # strings and numbers
    grounded: int = 0

    def fail(self, code: str, message: str, path: str) -> None:
        self.failures.append(ValidationFailure(check=CHECK, code=code, message=paths.shorten(message), path=path))

    def doubt(self, code: str, message: str, path: str) -> None:
        self.issues.append(GroundingIssue(code=code, message=paths.shorten(message), path=path))


def _quote(context: str, start: int, end: int) -> str | None:
    """The located text, kept with the offsets when short (a long span is known by its offsets alone)."""
    return context[start:end] if end - start <= 300 else None


def _show(value: Any) -> str:
    return repr(value) if not isinstance(value, str) or len(value) < 60 else repr(value[:57] + "...")


def _check_given(
    leaf: Leaf,
    given: Evidence,
    context: str,
    ctx: NormalizedContext,
    evidence: dict[str, Evidence],
    by_path: dict[str, Leaf],
    containers: dict[str, Any],
    result: EvidenceResult,
    hint: FieldHint,
) -> tuple[int, int] | None:
    value, path = leaf.value, leaf.path
    if given.kind == "absent":
        if value not in (None, [], ""):
            result.fail(
                "evidence_mismatch", f"evidence says the context states nothing, but the value is {_show(value)}", path
            )
        return None
    if given.kind == "derived":
        for source in given.sources:
            if source not in by_path and source not in containers:
                result.fail("derived_unknown_source", f"derived from {source}, which is not in the ground truth", path)
        if given.rule and not any(f.path == path for f in result.failures):
            computed = derive(given.rule, [_value_at(s, by_path, containers) for s in given.sources])
            if computed is None:  # not proof of an error: the toolkit cannot recompute it, a person can
                result.doubt(
                    "unverified_derivation",
                    f"rule {given.rule!r} cannot be recomputed from the values of {', '.join(given.sources)}",
                    path,
                )
            elif not _same(computed, value):
                mixed_up = _rule_mixed_up(given.rule, computed, value, leaf.key or "")
                if mixed_up is not None:  # the value answers the field; the rule named is its opposite
                    result.doubt("evidence_unverified", mixed_up, path)
                else:
                    result.fail(
                        "evidence_mismatch",
                        f"{given.rule} of {', '.join(given.sources)} is {_show(computed)}, not {_show(value)}",
                        path,
                    )
        elif not given.rule:
            result.doubt(
                "unverified_derivation",
                f"derived from {', '.join(given.sources)} without a rule the toolkit can recompute",
                path,
            )
        return None
    place = _resolve_quote(given, context, ctx)
    if isinstance(place, str):
        result.fail(place.split(":", 1)[0], place.split(":", 1)[1].strip(), path)
        return None
    start, end = place
    quote = context[start:end]
    if value is None or value == []:
        result.fail("evidence_mismatch", "a quoted span cannot support a null or empty value: mark it `absent`", path)
        return None
    if isinstance(value, bool):
        return place  # a boolean is read, not copied: the span shows where; the judge weighs it
    if given.kind == "expands":
        return place  # the curator states that the value is the quote's long (or short) form: the judge weighs it
    if given.kind == "convert":
        unit_to = given.unit_to or hint.unit
        converted = conversion_supports(value, quote, given.unit_from, unit_to)
        if converted:
            return place
        if converted is False:
            result.fail(
                "evidence_mismatch",
                f"{_show(value)} is not {quote[:60]!r} converted to {unit_to}",
                path,
            )
            return None
        result.doubt("evidence_unverified", f"cannot convert {quote[:60]!r} to {unit_to or 'the field unit'}", path)
        return place
    if value_matches_span(value, quote):
        return place
    if (
        isinstance(value, str)
        and _spoken_by(context, start, value)
        and _about_field(_topic_of(context, start, end), path)
    ):
        # A speaker field quoting what that speaker said ("I WRITE THE FINAL REPORT" for its writer), on the topic
        # the field names, or a promise in answer to the line before ("CAN THE TREASURER SEND ROUND ..." / "YES
        # I'LL HAVE IT OUT BY FRIDAY").
        return place
    if isinstance(value, str) and _introduced(context, start, end, value):
        return place  # "OUR TREASURER IS GONNA TAKE US THROUGH THE NUMBERS" and the next speaker takes the floor
    if matches_normalised(value, quote) or quote_supports(value, quote, hint):
        return place  # a normalisation quoted as a span: fine, it is the same place
    if isinstance(value, str) and any(start <= s and e <= end for s, e, _ in date_places(value, context)):
        return place  # "the twelfth of June", the year said elsewhere in the context
    kind = "normalised form" if given.kind == "normalised" else "text"
    scale = _scale_apart(value, quote)
    if scale is not None:
        if _states_scale(context, scale):
            return place  # a table "(In millions)": its cells are read in that scale
        # The quote times a thousand or a million: a scale said somewhere the toolkit does not read, or a slip.
        result.doubt(
            "evidence_unverified",
            f"{_show(value)} is its evidence {quote[:60]!r} times 10^{scale}, a scale the context does not state",
            path,
        )
        return place
    if _contradicts(value, quote):
        result.fail("evidence_mismatch", f"{_show(value)} is not the {kind} of its evidence {quote[:80]!r}", path)
        return None
    # Not provably wrong (a paraphrase, a reading the toolkit does not know): a person decides.
    result.doubt("evidence_unverified", f"{_show(value)} is not a reading of its evidence {quote[:80]!r}", path)
    return place


_SCALE_EXPONENTS = {"thousand": 3, "million": 6, "billion": 9}


_STATED_SCALE = re.compile(
    r"(?:\bin|\(|\bof)\s*(?:[$€£¥]\s*|(?:usd|eur|gbp|dollars|euros|pounds)\s+)?(thousand|million|billion)s\b",
    re.IGNORECASE,
)


def _scale_apart(value: Any, quote: str) -> int | None:
    """The power of ten (3, 6 or 9) by which a number exceeds a number of its quote ("3,423" given as
    3423000000), if it does: a scale read from elsewhere, such as a table's header."""
    number = to_decimal(value) if not isinstance(value, bool) else None
    if number is None or number == 0:
        return None
    for said in number_readings(quote):
        if said <= 0 or abs(said) >= abs(number):
            continue
        for exponent in _SCALE_EXPONENTS.values():
            if said * Decimal(10) ** exponent == abs(number):
                return exponent
    return None


def _states_scale(context: str, exponent: int) -> bool:
    """Does the context state that its figures are in this scale ("(In millions)", "in $ thousands")?"""
    return any(_SCALE_EXPONENTS[m.group(1).lower()] == exponent for m in _STATED_SCALE.finditer(context))


_OPPOSITE_RULES = {
    "equal": "not_equal", "not_equal": "equal", "earlier": "later", "later": "earlier", "less": "greater",
    "greater": "less",
}  # fmt: skip


_RULE_WORDS = {
    "equal": {"same", "equal", "equals", "identical", "match", "matches", "shared", "share"},
    "not_equal": {"different", "differ", "differs", "distinct", "unequal"},
    "earlier": {"earlier", "earliest", "before", "older", "oldest", "first", "sooner", "preceded"},
    "later": {"later", "latest", "after", "younger", "youngest", "newer", "last"},
    "less": {"less", "fewer", "smaller", "lower", "shorter", "cheaper"},
    "greater": {"greater", "more", "larger", "bigger", "higher", "taller", "longer", "exceeds"},
}


def _rule_mixed_up(rule: str, computed: Any, value: Any, key: str) -> str | None:
    """Why a derived value that is the exact opposite of its rule's result is more likely a rule name mixed up
    than a wrong value: a yes/no field whose own name asks the opposite rule (`same_nationality` derived by
    `not_equal`), or a difference with its two sources in the other order. None when nothing says so."""
    words = field_words(key)
    if isinstance(computed, bool) and isinstance(value, bool) and value is not computed:
        opposite = _OPPOSITE_RULES.get(rule)
        if opposite is not None and words & _RULE_WORDS[opposite] and not words & _RULE_WORDS[rule]:
            return (
                f"{rule} gives {str(computed).lower()}, but {key!r} asks {opposite} and is {str(value).lower()}: "
                f"is the rule meant to be {opposite!r}?"
            )
    if rule == "difference" and isinstance(computed, Decimal) and to_decimal(value) == -computed and computed:
        return f"the difference is {computed}, the value its opposite: are the two sources in the other order?"
    return None


_UTTERANCE = re.compile(r"\[[\d:]+\] ([^:\n]{1,64}): ")


def _spoken_by(context: str, offset: int, label: str) -> bool:
    """Is the transcript line at `offset` an utterance of the speaker `label`?"""
    line_start = context.rfind("\n", 0, offset) + 1
    match = _UTTERANCE.match(context, line_start)
    return match is not None and match.group(1) == label.strip()


_ROLE_INTRODUCED = re.compile(
    r"\b(?:OUR|THE|MY|YOUR)\s+(?:TREASURER|SECRETARY|CHAIR(?:MAN|WOMAN|PERSON)?|PRESIDENT|MANAGER|LEAD|DESIGNER|"
    r"ENGINEER|EXPERT|COORDINATOR|FACILITATOR|ACCOUNTANT|ORGANI[SZ]ER|CAPTAIN|COACH|DIRECTOR)\b",
    re.IGNORECASE,
)


def _introduced(context: str, start: int, end: int, label: str) -> bool:
    """A speaker named by a role in another's words ("OUR TREASURER IS GONNA TAKE US THROUGH THE NUMBERS") who
    takes the floor next: the first other speaker in the two utterances after the quote is `label`."""
    quote = context[start:end]
    if not _ROLE_INTRODUCED.search(quote) or _spoken_by(context, start, label):
        return False
    at = context.find("\n", end)
    for _ in range(2):
        if at < 0:
            return False
        match = _UTTERANCE.match(context, at + 1)
        if match is not None and not _spoken_by(context, start, match.group(1)):
            return match.group(1) == label.strip()
        at = context.find("\n", at + 1)
    return False


_WHO_WORDS = {"by", "who", "speaker", "person", "participant", "said", "name", "owner"}


def _about_field(quote: str, path: str) -> bool:
    """Does the quote use a word of the field's path ("balloon" for `balloon_image_by`, "minutes" for
    `minutes.owner`, "lcd" for `lcd_removal_proposed_by`), beyond who-words? A speaker's "YEAH" is no evidence
    that they wrote the report."""
    wanted = {w[:5] for w in field_words(re.sub(r"\[\d+\]", " ", path)) - _WHO_WORDS if len(w) >= 3 and w.isalpha()}
    said = {w[:5] for w in re.findall(r"[a-z]{3,}", quote.lower())}
    return bool(wanted & said)


def _topic_of(context: str, start: int, end: int) -> str:
    """The quote, and when it is a speaker's promise ("I'LL", "I WILL", "LEAVE IT WITH ME"), the line before it,
    which says what is promised. A filler ("YEAH") takes no topic from its neighbours."""
    quote = context[start:end]
    if not _PROMISE.search(quote):
        return quote
    line_start = context.rfind("\n", 0, start) + 1
    before = context.rfind("\n", 0, max(0, line_start - 1)) + 1
    return context[before:end]


_PROMISE = re.compile(
    r"\b(?:i'?ll|i will|i can|i'?m (?:gonna|going to)|leave it with me|will do|i'?ll do (?:it|that))\b", re.I
)


def _contradicts(value: Any, quote: str) -> bool:
    """A number whose quoted evidence states numbers in digits, none of them this one (nor this one scaled,
    converted or spelled): the curator's own evidence proves the value wrong. Several numbers said only in words
    are read less surely (speech runs them together: "sixteen twenty two fifty"): a mismatch there is a doubt."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        number = to_decimal(value) if isinstance(value, str) else None
        if number is None:
            return False
    if not re.search(r"\d", quote) and not one_number_in_words(quote):
        return False
    if _RELATION.search(quote):
        return False  # "TWENTY SPACES WHICH IS HALF WHAT WE HAVE NOW": the value may be computed from the quote
    return bool(number_readings(quote))


# Words by which a quote relates its number to another one: the value may be that other number, worked out.
_RELATION = re.compile(
    r"\b(?:half|halve[ds]?|twice|double[ds]?|triple[ds]?|treble[ds]?|quarter|third|times|than|plus|minus|"
    r"each|apiece|per(?! ?cent)|every|total|altogether|combined|remaining|left over|rest of)\b",
    re.IGNORECASE,
)


def _resolve_quote(given: Evidence, context: str, ctx: NormalizedContext) -> tuple[int, int] | str:
    """(start, end) of the evidence in the context, or "code: reason"."""
    if given.located:
        assert given.start is not None and given.end is not None
        where = f"offsets {given.start}-{given.end}"
        if given.end > len(context):
            return f"evidence_offsets_mismatch: {where} are past the end of the context ({len(context)} characters)"
        if (
            given.quote is not None
            and " ".join(context[given.start : given.end].split()).lower() != " ".join(given.quote.split()).lower()
        ):
            return (
                f"evidence_offsets_mismatch: {where} hold {context[given.start : given.end][:60]!r}, "
                f"not the quote {given.quote[:60]!r}"
            )
        place = (given.start, given.end)
    else:
        assert given.quote is not None
        quote = given.quote.strip()
        if not quote:
            return "evidence_not_in_context: the quote is empty"
        match = re.search(r"\s+".join(re.escape(p) for p in quote.split()), context) or _phrase_pattern(quote).search(
            context
        )
        if match is None:
            return f"evidence_not_in_context: the quote {quote[:80]!r} is not in the context"
        place = (match.start(), match.end())
        # Prefer an occurrence outside transcript markup when the first lies inside it.
        if ctx.raw[place[0] : place[1]].strip() == "":
            for later in _phrase_pattern(quote).finditer(context, match.end()):
                if ctx.raw[later.start() : later.end()].strip():
                    place = (later.start(), later.end())
                    break
    if ctx.raw[place[0] : place[1]].strip() == "" and context[place[0] : place[1]].strip():
        return (
            "evidence_in_markup: the quote lies in the transcript's timestamps or speaker labels, which are no evidence"
        )
    return place


def _value_at(path: str, by_path: dict[str, Leaf], containers: dict[str, Any]) -> Any:
    return by_path[path].value if path in by_path else containers.get(path)


def _comparable(value: Any) -> Any:
    if isinstance(value, str):
        return " ".join(value.lower().split())
    return value


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float | Decimal) and isinstance(b, int | float):
        return same_number(Decimal(repr(a)) if isinstance(a, float) else Decimal(a), b)
    return _comparable(a) == _comparable(b)


def derive(rule: str, values: list[Any]) -> Any:
    """Recompute a derived value from its sources; None when the rule does not apply to them."""
    try:
        if rule == "equal":
            return len({repr(_comparable(v)) for v in values}) == 1
        if rule == "not_equal":
            return len({repr(_comparable(v)) for v in values}) > 1
        if rule in ("all_true", "any_true"):
            if not all(isinstance(v, bool) for v in values):
                return None
            return all(values) if rule == "all_true" else any(values)
        if rule == "count":
            return (
                sum(len(v) for v in values if isinstance(v, list)) if all(isinstance(v, list) for v in values) else None
            )
        if rule in ("earlier", "later", "min", "max") and any(isinstance(v, str) for v in values):
            return _order_in_time(rule, values)
        numbers = [Decimal(repr(v)) if isinstance(v, float) else Decimal(v) for v in values if not isinstance(v, bool)]
        if len(numbers) != len(values) or not numbers:
            return None
        if rule == "sum":
            return sum(numbers)
        if rule == "min":
            return min(numbers)
        if rule == "max":
            return max(numbers)
        if len(numbers) != 2:
            return None
        first, second = numbers
        return {
            "difference": first - second,
            "earlier": first < second,
            "less": first < second,
            "later": first > second,
            "greater": first > second,
        }.get(rule)
    except (TypeError, ValueError, ArithmeticError):
        return None


_ISO_POINT = re.compile(r"(-?\d{1,4})(?:-(\d{2})(?:-(\d{2}))?)?")


def _point_in_time(value: Any) -> tuple[str, tuple[int, ...]] | None:
    """A date ("1965-08-14", "1965-08", "1965") or a clock time ("09:30", "9:30 pm") as a sortable key with its
    kind; None for anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return "date", (value,)
    if not isinstance(value, str):
        return None
    minutes = clock_value(value)
    if minutes is not None and len(minutes) == 1:
        return "clock", (next(iter(minutes)),)
    if match := _ISO_POINT.fullmatch(value.strip()):
        return "date", tuple(int(g) for g in match.groups() if g is not None)
    return None


def _order_in_time(rule: str, values: list[Any]) -> Any:
    """`earlier`/`later` of two dates or times, `min`/`max` of several (the value itself); None when they are not
    all points of one kind. A date known to the year only is compared at that precision ("1965" vs "1965-08")."""
    points = [_point_in_time(v) for v in values]
    if any(p is None for p in points) or len({p[0] for p in points if p}) != 1:
        return None
    keys = [p[1] for p in points if p]
    if rule in ("min", "max"):
        pick = min if rule == "min" else max
        return values[keys.index(pick(keys))]
    if len(keys) != 2:
        return None
    depth = min(len(keys[0]), len(keys[1]))
    first, second = keys[0][:depth], keys[1][:depth]
    if first == second:
        return None if len(keys[0]) != len(keys[1]) else False  # same year, one date finer: cannot tell
    return first < second if rule == "earlier" else first > second
