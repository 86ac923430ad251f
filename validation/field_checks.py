"""Does each value belong to its field? Checks that read a value's place in the context against what its field
says it is. None of them can be sure, so each raises a doubt (a `GroundingIssue`) that the gate turns into a
flag for a person, never a rejection:

* `unit_mismatch`: the field names a unit (`height_cm`, "length in km") and the value is the number written
  beside another unit of the same dimension, unconverted ("1.2 metres" given as 1.2 cm).
* `number_from_other_phrase`: a count or measure whose number belongs to a name ("Euro Stoxx 50", "Route 66")
  or counts something else ("FOUR EUROS" given as a number of items), or is an ordinal ("third album").
* `boolean_against_text`: a boolean whose field's words stand in the context beside negation or outcome words
  that say the opposite ("discontinued" for a `supported` true, "dropped" for an `adopted` true).
* `absent_but_stated`: null or [] for a field whose words the context uses beside a value of the field's kind.
* `duplicate_item`: a list with the same item twice (or nearly: the same words).
* `copied_span`: a long passage, several lines or a table pasted as the value of a field that names one thing.
* `speaker_mismatch`: a meeting's speaker field naming someone who is not the speaker of the utterances that
  hold the record's related values.
* `possible_swap`: two values of one kind, each standing by words that name the other's field.

The checks that read a value's neighbourhood (a correction right after it, the enumeration a list was taken
from, the article or label it stands in, another event's words, the other object's entity) are in
validation/neighbour_checks.py.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from decimal import Decimal
from functools import lru_cache
from typing import Any, Protocol

from rapidfuzz import fuzz

from validation.date_mentions import iso_date_places
from validation.field_hints import hint_for
from validation.neighbour_checks import (
    check_comparison,
    check_corrected,
    check_cross_pairing,
    check_labels,
    check_list_gaps,
    check_number_label,
    check_other_article,
    check_other_event,
    check_row_number,
    check_speaker_topic,
)
from validation.readings import BELOW_ZERO
from validation.readings.fields import FieldHint, field_words
from validation.readings.numbers import close, number_mentions, to_decimal
from validation.readings.units import carried_unit, convert, parse_unit, quantity_mentions
from validation.table_units import cell_header

# Words a field name uses, and the words a text uses for the same thing. Small on purpose: the checks flag,
# a person decides.
_SAME_MEANING: dict[str, set[str]] = {
    "birth": {"born", "birth", "b"}, "born": {"born", "birth"}, "death": {"died", "death", "dies", "d"},
    "died": {"died", "death"}, "founded": {"founded", "established", "formed", "created"},
    "established": {"founded", "established", "formed"}, "start": {"start", "started", "began", "begins", "from"},
    "end": {"end", "ended", "until", "to", "ends"}, "first": {"first", "earliest", "opening"},
    "last": {"last", "final", "latest", "closing"}, "opened": {"opened", "opening", "open"},
    "closed": {"closed", "closing", "close"}, "population": {"population", "inhabitants", "residents"},
    "release": {"released", "release"}, "released": {"released", "release"},
    "writer": {"written", "writer", "wrote", "author"}, "author": {"written", "writer", "wrote", "author"},
    "singer": {"sung", "singer", "sang", "vocals", "performed", "recorded", "popularised", "popularized"},
    "director": {"directed", "director"}, "producer": {"produced", "producer"},
    "songwriter": {"written", "writer", "wrote", "songwriter"}, "lyricist": {"lyrics", "lyricist", "written", "wrote"},
    "composer": {"composed", "composer", "music"}, "screenwriter": {"screenplay", "written", "wrote"},
    "founder": {"founded", "founder"}, "designer": {"designed", "designer"}, "architect": {"designed", "architect"},
    "editor": {"edited", "editor"}, "illustrator": {"illustrated", "illustrator"}, "narrator": {"narrated"},
    "father": {"father", "dad"}, "son": {"son"}, "mother": {"mother"}, "daughter": {"daughter"},
    "proposer": {"proposed", "suggested", "suggest", "propose"}, "proposed": {"proposed", "suggested", "suggest"},
    "objector": {"objected", "against", "disagreed", "but"}, "height": {"tall", "high", "height"},
    "width": {"wide", "width"}, "length": {"long", "length"}, "depth": {"deep", "depth"},
    "price": {"price", "cost", "costs", "sell", "priced"}, "cost": {"cost", "costs", "price"},
    "deadline": {"by", "until", "deadline", "due", "before"}, "capacity": {"capacity", "holds"},
}  # fmt: skip
_GENERIC = {
    "name", "value", "the", "of", "in", "number", "num", "count", "total", "year", "date", "type", "id", "is", "was",
    "has", "a", "an", "and", "or", "to", "for", "at", "on", "by", "as", "be", "with", "answer", "field", "text",
}  # fmt: skip
_NEGATIONS = re.compile(
    r"\b(?:not|no|never|nor|n't|without|discontinued|dropped|abandoned|rejected|scrapped|cancell?ed|removed|"
    r"ruled out|decided against|no longer|anymore|any more|too expensive|won't|can't|cannot|isn't|wasn't|"
    r"aren't|doesn't|didn't|don't|refused|declined|failed|lost|withdrawn|ended|ceased|defunct|deprecated|former|"
    r"formerly|previously|retired|once|ex|used to|instead|unfavou?rable|unsuitable|unlikely|unable|impossible|"
    r"not yet|yet to|pending|expect to|expected to|proposed|under consideration|disbanded|dissolved|broke up|"
    r"split up|closed down|demolished|shut down|folded|abolished|replaced|renamed|dropped out|excluding|excl|"
    r"exclusive of|"
    r"forget (?:about )?(?:it|that|this|the))\b",
    re.IGNORECASE,
)
_AFFIRMATIONS = re.compile(
    r"\b(?:agreed|adopted|approved|accepted|decided|chosen|chose|went with|kept|included|supports?|supported|"
    r"won|passed|confirmed|yes|yeah|definitely|still)\b",
    re.IGNORECASE,
)
_FREE_TEXT_WORDS = {
    "description", "summary", "text", "quote", "transcript", "content", "explanation", "reason", "notes", "note",
    "paragraph", "body", "excerpt", "passage", "statement", "comment", "details", "context", "task", "sentence",
    "utterance", "remark", "said", "says", "wording", "quotation", "abstract", "caption",
}  # fmt: skip
_LIST_WORDS = {"list", "items", "all", "every", "each", "names", "values", "members", "comma", "separated"}
_SPEAKER_WORDS = {"speaker", "who", "by", "owner", "proposer", "proposed", "objector", "person", "participant", "said"}
_MONTHS = {
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
}  # fmt: skip
_ORDINAL = re.compile(
    r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th))\b", re.IGNORECASE
)
_WORDS = re.compile(r"[A-Za-z][A-Za-z']+")
_SENTENCE_BREAK = re.compile(r"(?<=[a-z)\]])[.;!?]\s+(?=[A-Z])")
MAX_COPY_WORDS = 40  # a value of a field that names one thing is shorter than this
MAX_NAME_WORDS = 12  # a name, a place, a date or a code is shorter than this
_ONE_THING_WORDS = {
    "name", "city", "town", "country", "place", "person", "title", "date", "year", "code", "id", "author",
    "director", "company", "team", "band", "county", "state", "capital", "venue", "label", "publisher", "owner",
    # a person named by a role: a name, never a sentence
    "engineer", "architect", "builder", "writer", "singer", "composer", "actor", "actress", "founder", "designer",
    "producer", "manager", "captain", "coach", "president", "chair", "chairman", "proposer", "player", "winner",
    "creator", "inventor", "painter", "poet", "novelist", "lyricist", "songwriter", "editor", "host", "mayor",
}  # fmt: skip


class LeafLike(Protocol):
    path: str
    value: Any
    parent: str
    key: str | None


class LayoutLike(Protocol):
    text: str
    is_transcript: bool

    def line(self, offset: int) -> tuple[int, int]: ...
    def sentence(self, offset: int) -> str: ...


Doubt = Callable[[str, str, str], None]  # (code, message, path)
Finder = Callable[[Any, FieldHint], list[tuple[int, int]]]  # every place a value is written, however


@lru_cache(maxsize=4096)
def key_meaning(key: str) -> frozenset[str]:
    """`expand` of a field key's words, once per key."""
    return frozenset(expand(field_words(key)))


def expand(words: Iterable[str]) -> set[str]:
    """A field's words with the words a text uses for them, and simple stems."""
    found = set()
    for word in words:
        if word in _GENERIC or len(word) < 2:
            continue
        found.add(word)
        found |= _SAME_MEANING.get(word, set())
        if len(word) > 4:
            found.add(word.rstrip("s"))
            for suffix in ("ing", "ed", "er", "ion", "s"):
                if word.endswith(suffix) and len(word) - len(suffix) >= 4:
                    found.add(word[: -len(suffix)])
    return found


def window_words(
    text: str, start: int, end: int, before: int = 48, after: int = 32, *, inside: bool = False
) -> set[str]:
    """The lower-cased words just around a place (same line only), and with `inside` the words of the place
    itself ("seven arches" for the number of arches)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    middle = f" {text[start:end]} " if inside else " "
    head = text[max(line_start, start - before) : start]
    tail = text[end : min(line_end, end + after)]
    head = _SENTENCE_BREAK.split(head)[-1]  # words of the sentence before say nothing of this number
    tail = _SENTENCE_BREAK.split(tail)[0]
    window = head + middle + tail
    return {w.lower().strip("'") for w in _WORDS.findall(window)}


def affinity(words: Iterable[str], field: frozenset[str] | set[str]) -> int:
    """How many of the words are the field's (or begin with one of its words of four letters or more)."""
    if not field:
        return 0
    prefixes = _long_words(field if isinstance(field, frozenset) else frozenset(field))
    return sum(1 for w in words if w in field or (prefixes and w.startswith(prefixes)))


@lru_cache(maxsize=4096)
def _long_words(field: frozenset[str]) -> tuple[str, ...]:
    return tuple(f for f in field if len(f) >= 4)


@lru_cache(maxsize=64)
def lowered_text(text: str) -> str:
    return text.lower()


def mentioned(field: frozenset[str] | set[str], lowered_text: str) -> bool:
    """Does any of the field's words occur in the (lower-cased) text at all? When none does, no place of the
    text stands by them, and the checks that look for them can stop at once."""
    return any(word in lowered_text for word in field if len(word) >= 3)


def check_field_ties(
    leaves: list[Any],
    spans: dict[str, tuple[int, int]],
    layout: Any,
    hints: dict[str, FieldHint] | None,
    ground_truth: Any,
    containers: dict[str, Any],
    speakers: frozenset[str],
    doubt: Doubt,
    find: Finder,
    question: str = "",
) -> None:
    text = layout.text
    names = [
        leaf.value
        for leaf in leaves
        if isinstance(leaf.value, str) and shape_of(leaf.value) == "name" and leaf.value.strip() not in speakers
    ]  # a speaker label is blanked out of the transcript's lines: it names no entity there
    sibling_values: dict[str, dict[str, Any]] = {}
    for leaf in leaves:
        if leaf.key:
            sibling_values.setdefault(leaf.parent, {})[leaf.key] = leaf.value
    object_names: dict[str, list[str]] = {}  # an object's own names: another object's say nothing of its nulls
    for leaf in leaves:
        if isinstance(leaf.value, str):
            object_names.setdefault(leaf.parent, []).append(leaf.value)
    for leaf in leaves:
        hint = hint_for(hints, leaf.path, leaf.key)
        place = spans.get(leaf.path)
        value = leaf.value
        if place is not None and isinstance(value, int | float) and not isinstance(value, bool):
            place = _narrow(text, place, value)  # the number itself inside a curator's longer quote
            _check_scale(leaf, hint, text, place, doubt)
            _check_unit(leaf, hint, text, place, doubt, getattr(layout, "original", None))
            _check_hundredths(leaf, hint, text, place, doubt)
            _check_after_point(leaf, text, place, doubt)
            _check_sign(leaf, hint, text, place, doubt)
            counted = hint.is_count and value in _answer_counts(containers)
            if not counted:  # a count of the answer's own list is computed, not read from any phrase
                _check_number_phrase(leaf, hint, text, place, doubt, lambda v=value, h=hint: find(v, h))
            number = to_decimal(value)
            if number is not None:
                _check_corrected_everywhere(leaf, number, place, layout, doubt, find(value, hint)[:8], leaves)
            if leaf.key:
                check_other_event(field_words(leaf.key), leaf, place, text, doubt)
                check_number_label(leaf, place, text, sibling_values.get(leaf.parent, {}), field_words, doubt)
            check_row_number(leaf, hint.is_count, place, layout, doubt)
        if isinstance(value, bool):
            _check_boolean(leaf, hint, layout, spans, doubt)
        if value is None or value == []:
            # An object's own names: a nested object's (an emergency contact's) say nothing of the root's nulls.
            own_names = [n for n in object_names.get(leaf.parent, ()) if n in names]
            taken = {  # the same field's values in the other objects: a clause stating one is about that object
                n
                for o in leaves
                if o.key == leaf.key and o.parent != leaf.parent and (n := to_decimal(o.value)) is not None
            }
            _check_absent(leaf, hint, layout, doubt, own_names, taken) or _check_absent_date(
                leaf, hint, layout, leaves, doubt
            ) or _check_absent_deadline(leaf, hint, layout, leaves, spans, doubt)
        if isinstance(value, str):
            _check_copy(leaf, hint, text, doubt)
            _check_letters(leaf, layout, doubt)
            if speakers and value.strip() in speakers:
                _check_speaker(leaf, hint, layout, spans, leaves, doubt)
                if question and leaf.parent == "$" and _is_speaker_field(hint):  # one speaker the question asks for
                    original = getattr(layout, "original", None) or text
                    check_speaker_topic(leaf.path, value.strip(), field_words(hint.key), question, original, doubt)
    _check_duplicates(containers, doubt)
    _check_year_outside_entry(leaves, spans, layout, doubt)
    _check_list_runs(leaves, containers, spans, layout, question, doubt)
    _check_departed_items(leaves, containers, spans, layout, doubt)
    _check_counts(leaves, containers, hints, doubt)
    _check_bounds(leaves, doubt)
    _check_swaps(leaves, spans, text, hints, doubt)
    # A value said three times or more (a score of 3 in a rating meeting) is located at one of its places by
    # chance: which object it stands beside says nothing of a swap.
    common = {
        leaf.path
        for leaf in leaves
        if layout.is_transcript
        and leaf.path in spans
        and (number := to_decimal(leaf.value)) is not None
        and abs(number) < 100
        and len(find(leaf.value, hint_for(hints, leaf.path, leaf.key))[:3]) >= 3
    }

    def on_line_of(leaf: Any, anchor: Any) -> bool:
        """Are the value and its object's other value written together on one line (its table row)? Small
        numbers are written in many places: the first found of each may be in other rows."""
        lines = {
            line
            for s, _ in find(anchor.value, hint_for(hints, anchor.path, anchor.key))[:20]
            if _is_row(text[(line := layout.line(s))[0] : line[1]])
        }
        return any(layout.line(s) in lines for s, _ in find(leaf.value, hint_for(hints, leaf.path, leaf.key))[:20])

    check_cross_pairing([leaf for leaf in leaves if leaf.path not in common], spans, doubt, on_line_of)
    check_comparison(leaves, field_words, doubt)
    if not layout.is_transcript and hasattr(layout, "label"):
        check_labels(leaves, spans, layout, doubt)
    _check_other_phrase(leaves, spans, layout, hints, find, doubt, names)
    if not layout.is_transcript:
        check_other_article(
            leaves, spans, text, question, find, lambda leaf: hint_for(hints, leaf.path, leaf.key), doubt
        )


_CURRENT_WORDS = {"current", "currently", "active", "present", "remaining", "existing", "still", "today", "now"}
_DEPARTED_AFTER = re.compile(
    r"[^.;\n]{0,40}?\b(?:departed|left|quit|resigned|retired|was dropped|were dropped|was fired|was replaced|"
    r"no longer|stepped down|leaving|exited)\b",
    re.IGNORECASE,
)
_FORMER_BEFORE = re.compile(r"\b(?:former|ex-|formerly|past)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)


def _check_departed_items(
    leaves: list[Any], containers: dict[str, Any], spans: dict[str, tuple[int, int]], layout: LayoutLike, doubt: Doubt
) -> None:
    """An item of a list of current members (`current_members`, `active_players`) written as one who left
    ("Taehyun, who later departed from the group", "former member X")."""
    text = layout.text
    for leaf in leaves:
        if leaf.key is not None or not isinstance(leaf.value, str) or leaf.path not in spans:
            continue
        if not isinstance(containers.get(leaf.parent), list):
            continue
        list_key = leaf.parent.rsplit(".", 1)[-1]
        if not field_words(list_key) & _CURRENT_WORDS:
            continue
        start, end = spans[leaf.path]
        after = _DEPARTED_AFTER.match(text, end)
        before = _FORMER_BEFORE.search(text[max(0, start - 30) : start])
        if after or before:
            said = (text[end : after.end()] if after else text[max(0, start - 30) + before.start() : end]).strip()  # type: ignore[union-attr]
            doubt(
                "value_from_other_phrase",
                f"{leaf.value!r} is listed in {list_key!r}, but the text says it left: {said[:80]!r}",
                leaf.path,
            )


def _check_list_runs(
    leaves: list[Any],
    containers: dict[str, Any],
    spans: dict[str, tuple[int, int]],
    layout: LayoutLike,
    question: str,
    doubt: Doubt,
) -> None:
    """Lists of strings, each checked against the enumeration of the context it was taken from."""
    items: dict[str, list[str]] = {}
    for leaf in leaves:
        if leaf.key is None and isinstance(leaf.value, str) and isinstance(containers.get(leaf.parent), list):
            items.setdefault(leaf.parent, []).append(leaf.path)
    for path, item_paths in items.items():
        if len(item_paths) == len(containers[path]):
            check_list_gaps(path, item_paths, spans, layout, question, doubt)


def _check_unit(
    leaf: LeafLike, hint: FieldHint, text: str, place: tuple[int, int], doubt: Doubt, stamped: str | None = None
) -> None:
    if not hint.unit:
        return
    field_unit = parse_unit(hint.unit) or None
    for start, end, magnitude, unit in quantity_mentions(text):
        if start <= place[0] < end or (place[0] < start and end <= place[1] and place[1] - place[0] <= 40):
            # the quantity at the place, or inside a short quote of it ("about 2,340 miles")
            if field_unit is None or str(field_unit) == unit or not close(magnitude, leaf.value):
                return  # in the field's unit, or converted
            written = parse_unit(unit)
            if written is not None and written.dimensionality == field_unit.dimensionality:
                doubt(
                    "unit_mismatch",
                    f"{leaf.value!r} is written {text[start:end]!r} in {unit}, but the field is in {hint.unit}: "
                    "convert it (evidence `convert`) or correct the field's unit",
                    leaf.path,
                )
            return
    if field_unit is None or _calendar_year(leaf.value, hint):
        return  # a year of the calendar ("built in 1868") is a date, no quantity carried on from "six months"
    unit = carried_unit(text, place[0], stamped)  # a bare number: in the unit said just before
    if unit is not None and str(field_unit) != unit:
        as_said = convert(to_decimal(leaf.value) or Decimal(0), str(field_unit), unit)
        line_start, line_end = text.rfind("\n", 0, place[0]) + 1, text.find("\n", place[1])
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        said = [n for _, _, n, _ in number_mentions(line)] + [Decimal(d) for d in re.findall(r"\d+(?:\.\d+)?", line)]
        if as_said is not None and any(close(number, as_said) for number in said):
            return  # converted from what was said: right
        written = parse_unit(unit)
        if written is not None and written.dimensionality == field_unit.dimensionality:
            doubt(
                "unit_mismatch",
                f"{leaf.value!r} is said as {text[place[0] : place[1]].strip()[:40]!r} right after a quantity in "
                f"{unit}, but the field is in {hint.unit}: convert it or correct the field's unit",
                leaf.path,
            )


def _calendar_year(value: Any, hint: FieldHint) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and 1000 <= value <= 2100
        and (hint.is_time or "year" in hint.words or bool(hint.words & _YEAR_EVENT_WORDS))
    )


_YEAR_EVENT_WORDS = {"built", "founded", "opened", "born", "died", "established", "released", "published", "since"}
_AFTER_POINT = re.compile(r"(?:^|\s)(\w+)\s+point\s+(?:\w{1,2}\s+)?$", re.IGNORECASE)  # "TWO POINT T THREE"
_NOT_A_NUMBER_BEFORE = {"this", "that", "the", "a", "one", "some", "each", "every", "which", "what", "any", "no"}


def _check_after_point(leaf: LeafLike, text: str, place: tuple[int, int], doubt: Doubt) -> None:
    """A whole number said right after "point" ("TWO POINT T THREE EURO" given as 3): the digits after a spoken
    decimal point, not a number of their own. "AT THIS POINT THREE ..." is no decimal."""
    value = leaf.value
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 100:
        return
    match = _AFTER_POINT.search(text[max(0, place[0] - 40) : place[0]])
    if match is None or match.group(1).lower() in _NOT_A_NUMBER_BEFORE:
        return
    said = text[max(0, place[0] - 40) + match.start() : place[1]].strip()
    doubt(
        "scale_dropped",
        f"{value!r} is said after a decimal point ({said[:50]!r}): the digits of a decimal, not a whole number",
        leaf.path,
    )


_DOWNWARD_FIELD = {"depth", "deep", "below", "drop", "fall", "decline", "loss", "deficit", "decrease", "under"}


def _check_sign(leaf: LeafLike, hint: FieldHint, text: str, place: tuple[int, int], doubt: Doubt) -> None:
    """A positive value written "86 m below sea level" (or below zero) in a field that is not itself a depth: an
    elevation or temperature below zero is negative."""
    value = leaf.value
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return
    if field_words(hint.key) & _DOWNWARD_FIELD:
        return  # `depth_below_sea_level_m` is positive
    after = text[place[1] : place[1] + 60]
    found = BELOW_ZERO.match(after)
    if found is None:
        return
    doubt(
        "sign_against_text",
        f"{value!r} is written {text[place[0] : place[1]] + found.group()!r}: below zero, so negative?",
        leaf.path,
    )


_PERCENT_SAID = re.compile(r"^\s*%|\b(?:percent|per cent)\b", re.IGNORECASE)  # right after, or later in its line
_MINOR_NEXT = re.compile(r"\s*(?:cents?|pence|p)\b", re.IGNORECASE)
_SHARE_WORDS = {"fraction", "share", "proportion", "ratio"}
_PERCENT_WORDS = {"percent", "percentage", "pct", "per", "cent"}
_MINOR_WORDS = {"cent", "cents", "pence", "penny", "p"}


def _check_hundredths(leaf: LeafLike, hint: FieldHint, text: str, place: tuple[int, int], doubt: Doubt) -> None:
    """A value written with a unit a hundred times smaller than its field's: "SEVENTY PERCENT" given as 70 in a
    field that holds a fraction between 0 and 1, "TEN CENTS" given as 10 in a field in euros."""
    value = leaf.value
    if not 1 < abs(value) <= 10_000:
        return
    after = text[place[1] : place[1] + 12]
    words = hint.words
    line_end = text.find("\n", place[1])
    rest_of_line = text[place[1] : line_end if line_end >= 0 else len(text)][:60]
    if words & _SHARE_WORDS and not words & _PERCENT_WORDS and _PERCENT_SAID.search(rest_of_line):
        doubt(
            "unit_mismatch",
            f"{value!r} is said as a percentage ({(text[place[0] : place[1]] + rest_of_line).strip()[:60]!r}), "
            f"but {leaf.key!r} holds a fraction: {value / 100!r}?",
            leaf.path,
        )
    elif hint.currency and not words & _MINOR_WORDS and _MINOR_NEXT.match(after):
        doubt(
            "unit_mismatch",
            f"{value!r} is written in cents ({text[place[0] : place[1]]}{_MINOR_NEXT.match(after).group()}), but "  # type: ignore[union-attr]
            f"{leaf.key!r} is in {hint.currency}: {value / 100!r}?",
            leaf.path,
        )


_SCALE_AFTER = re.compile(
    r"(\d+(?:[.,]\d+)?)(?:\s*(thousand|million|billion|trillion|bn|mn)\b|((?-i:[KMBT]))(?![\w.]))", re.IGNORECASE
)  # "43 million", "78.7M" (a capital letter glued to the number: not "5 m" of metres)
_SCALE_NAMES = {
    "thousand": 3, "thousands": 3, "k": 3, "million": 6, "millions": 6, "m": 6, "mn": 6, "billion": 9, "billions": 9,
    "bn": 9, "b": 9, "trillion": 12, "trillions": 12, "tn": 12, "t": 12,
}  # fmt: skip
_NOT_SCALED = re.compile(r"\bnot (?:in |as |counted in )?(thousands|millions|billions|trillions)\b", re.IGNORECASE)
# the words a field's name may count in (not the bare letters "b" and "t", too often other words in a name)
_SCALE_WORDS = set(_SCALE_NAMES) - {"b", "t"}


def _check_scale(leaf: LeafLike, hint: FieldHint, text: str, place: tuple[int, int], doubt: Doubt) -> None:
    """ "$43 million" given as 43 in a field that does not say it counts millions, or "$1.4 billion" given as 1.4
    in a field that counts millions."""
    window = text[place[0] : max(place[1], place[0]) + 14]
    match = _SCALE_AFTER.search(window)
    if match is None or not close(float(match.group(1).replace(",", ".")), leaf.value):
        return
    scale = match.group(2) or match.group(3)
    denied = {_SCALE_NAMES[m.group(1).lower()] for m in _NOT_SCALED.finditer(hint.description)}
    # the field's own words, and its object's (`revenue_billions.y2024`)
    named_in = hint.words | field_words(re.sub(r"\[\d+\]", " ", leaf.path))
    field_scales = {_SCALE_NAMES.get(w) for w in named_in & _SCALE_WORDS} - {None} - denied
    if field_scales and _SCALE_NAMES.get(scale.lower()) in field_scales:
        return  # the field counts in the scale the text writes
    named = {"K": "thousand", "M": "million", "B": "billion", "T": "trillion"}.get(scale, scale.lower())
    doubt(
        "scale_dropped",
        f"{leaf.value!r} is written {match.group()!r}: the {named} is dropped, and {leaf.key!r} does not "
        f"say it counts {named}s",
        leaf.path,
    )


def narrowed_spans(leaves: list[Any], spans: dict[str, tuple[int, int]], text: str) -> dict[str, tuple[int, int]]:
    """Every number's place narrowed to the number itself: a curator's quote ("4,000 capacity (3,677 seated)")
    holds the words of other fields too."""
    narrowed = dict(spans)
    for leaf in leaves:
        place = spans.get(leaf.path)
        if place is not None and isinstance(leaf.value, int | float) and not isinstance(leaf.value, bool):
            narrowed[leaf.path] = _narrow(text, place, leaf.value)
    return narrowed


def _is_row(line: str) -> bool:
    """A table row or a short form line, where the values written together belong together (a paragraph of
    prose is one line too, and holds many objects' values)."""
    return line.lstrip().startswith("|") or len(line) <= 100


def _answer_counts(containers: dict[str, Any]) -> set[int]:
    """Counts the answer computes itself: its lists' lengths and, in a list of objects, how many hold true (or
    false) in one boolean field (`moonwalker_count` 2 beside three crew, two `walked_on_moon`)."""
    counts: set[int] = set()
    for items in containers.values():
        if not isinstance(items, list):
            continue
        counts.add(len(items))
        keys = {k for item in items if isinstance(item, dict) for k, v in item.items() if isinstance(v, bool)}
        for key in keys:
            flags = [item.get(key) for item in items if isinstance(item, dict)]
            counts.update((flags.count(True), flags.count(False)))
    return counts


def _narrow(text: str, place: tuple[int, int], value: Any) -> tuple[int, int]:
    """Where in a quote ("Sum 41") its number (41) stands; the quote itself when it is not written in digits."""
    start, end = place
    number = to_decimal(value)
    if number is None or end - start <= 4:
        return place
    for match in _NUMBER_IN_TEXT.finditer(text, start, end):
        if to_decimal(match.group()) == number:
            return match.start(), match.end()
    return place


def _in_name(text: str, place: tuple[int, int]) -> str | None:
    """The capitalised word a number is glued to ("Stoxx" for "Euro Stoxx 50"), or None."""
    start, _ = place
    before = text[max(0, start - 40) : start]
    words_before = _WORDS.findall(before)
    previous = words_before[-1] if words_before else ""
    glued = before[len(before.rstrip()) :] in (" ", "") and before.rstrip()[-1:].isalpha()
    if previous[:1].isupper() and glued and previous.lower() not in _MONTHS and not re.search(r"[.!?:;,]\s*$", before):
        return previous
    return None


def _check_number_phrase(
    leaf: LeafLike,
    hint: FieldHint,
    text: str,
    place: tuple[int, int],
    doubt: Doubt,
    places: Callable[[], list[tuple[int, int]]],
) -> None:
    """The number's phrase says it is no value of its field; unless the value is also written elsewhere in a
    phrase that raises no doubt ("Cool 4" is not where "four members" comes from)."""
    found: list[tuple[str, str]] = []
    _number_phrase_doubt(leaf, hint, text, place, lambda code, message, path: found.append((code, message)))
    if not found:
        return
    others = _with_spelled(places()[:8], text, leaf.value, place)  # "three tests" beside "Table 3"
    for other in others:
        if other != place:
            clean: list[str] = []
            _number_phrase_doubt(leaf, hint, text, other, lambda code, message, path, seen=clean: seen.append(code))
            if not clean:
                return
    doubt(found[0][0], found[0][1], leaf.path)


def _with_spelled(
    places: list[tuple[int, int]], text: str, value: Any, inside: tuple[int, int] | None = None
) -> list[tuple[int, int]]:
    """The places of a number, and where it is also said in words ("Eighteen teams" beside an "18" elsewhere):
    the finder stops at the digits when it finds them."""
    number = to_decimal(value) if not isinstance(value, str) else None
    if number is None or number != int(number) or not 0 < number < 1000:
        return places
    from num2words import num2words

    # Read only around the places the number's words are written: a whole long context is not read for them.
    word = num2words(int(number)).split("-")[0].split(" ")[0]
    lowered = lowered_text(text)
    spelled: list[tuple[int, int]] = []
    at = lowered.find(word)
    while at >= 0 and len(spelled) < 8:
        low = max(0, at - 40)
        for s, e, said, how in number_mentions(text[low : at + 60]):
            start, end = low + s, low + e
            if how == "spelled out" and said == number and e - s <= 40 and not (inside and start <= inside[0] < end):
                spelled.append((start, end))
        at = lowered.find(word, at + 60)
    return list(dict.fromkeys([*places, *spelled]))


def _check_corrected_everywhere(
    leaf: LeafLike,
    number: Decimal,
    place: tuple[int, int],
    layout: LayoutLike,
    doubt: Doubt,
    others: list[tuple[int, int]],
    leaves: list[Any],
) -> None:
    """A figure corrected where it is found, unless it is also said elsewhere and left standing there: "FIVE" of
    one criterion, corrected, is not the "FIVE" given to the next one. Where the object's own name (a criterion)
    is said, only the places after it and before another object's name count."""
    marks = _object_marks(leaf, leaves, layout.text)
    own = _in_own_region([place, *others], marks)
    found: list[tuple[str, str, str]] = []
    # In the object's own talk the last figure said is the one that stands: only it can be corrected.
    for candidate in own[-1:] or list(dict.fromkeys([place, *others])):
        # The talk about this object ends where another object is named: a correction after that is of it.
        limit = min((at for at, mine in marks if at > candidate[1] and not mine), default=None)
        said: list[tuple[str, str, str]] = []
        check_corrected(
            leaf,
            number,
            candidate,
            layout,
            lambda code, message, path, seen=said: seen.append((code, message, path)),
            limit,
        )
        if not said:
            return
        found += said
    doubt(*found[0])


def _object_marks(leaf: LeafLike, leaves: list[Any], text: str) -> list[tuple[int, bool]]:
    """Where the names of the objects of the leaf's array are said (a criterion, an item), each marked as the
    leaf's own object or another."""
    if leaf.parent == "$":
        return []
    container = re.sub(r"\[\d+\]$", "", leaf.parent)
    lowered = text.lower()
    marks: list[tuple[int, bool]] = []
    for other in leaves:
        if (
            not isinstance(other.value, str)
            or len(other.value) < 4
            or re.sub(r"\[\d+\]$", "", other.parent) != container
        ):
            continue
        mine = other.parent == leaf.parent
        marks += [(m.start(), mine) for m in re.finditer(re.escape(other.value.lower()), lowered)][:8]
    return sorted(marks)


def _in_own_region(places: list[tuple[int, int]], marks: list[tuple[int, bool]]) -> list[tuple[int, int]]:
    """The places of a value that follow a mention of its own object (a criterion's name) rather than a sibling
    object's: in a meeting, a score belongs to the criterion last named before it."""
    if not any(mine for _, mine in marks):
        return []
    kept = []
    for place in dict.fromkeys(places):
        before = [mark for mark in marks if mark[0] < place[0]]
        if before and before[-1][1]:
            kept.append(place)
    return kept


_LEAD_WORDS = {"about", "around", "approximately", "nearly", "almost", "over", "under", "some", "roughly", "only",
               "just", "exactly", "more", "less", "fewer", "up", "at", "by", "with", "from", "since", "after",
               "before", "until", "circa", "each", "every", "all", "another", "its", "their", "his", "her"}  # fmt: skip


def _common_word(word: str, text: str) -> bool:
    """A word capitalised only because a sentence starts with it: a lead-in of quantities ("About 71%"), or a
    word the text also writes in lower case. "Sum" of "Sum 41 is a band" is neither."""
    lowered = word.lower()
    if lowered in _LEAD_WORDS or (len(lowered) >= 5 and lowered.endswith(("ing", "ed"))):
        return True  # "Lying 155 metres below sea level": a participle leads the sentence
    return re.search(rf"\b{re.escape(lowered)}\b", text) is not None


def _starts_a_sentence(before: str, word: str) -> bool:
    """Is `word`, the last word of `before`, the first of a sentence, line or cell ("About 71%": capitalised by
    its place, not a name)?"""
    head = before[: before.rstrip().rfind(word)] if word else before
    return not head.strip() or bool(re.search(r"[.!?:;|>\n]\s*$", head))


def _number_phrase_doubt(leaf: LeafLike, hint: FieldHint, text: str, place: tuple[int, int], doubt: Doubt) -> None:
    start, end = place
    if hint.is_count and text[max(0, start - 1) : start] == "#":
        doubt("number_from_other_phrase", f"'#{text[start:end]}' numbers an item, it counts nothing", leaf.path)
        return
    before = text[max(0, start - 40) : start]
    after = text[end : end + 24]
    words_before = _WORDS.findall(before)
    previous = words_before[-1] if words_before else ""
    glued = before[len(before.rstrip()) :] in (" ", "") and before.rstrip()[-1:].isalpha()
    if (
        previous[:1].isupper()
        and glued
        and previous.lower() not in key_meaning(leaf.key or "") | hint.words
        and previous.lower() not in _MONTHS
        and previous.lower() not in {"the", "a", "in", "of", "on", "at", "by", "and"}
        and not re.search(r"[.!?:;,]\s*$", before)
        and not text[start:end].isupper()
        and len(text[start:end]) <= 3
        and not (_starts_a_sentence(before, previous) and _common_word(previous, text))
        and not re.match(r"\s*(?:%|percent|per cent)", after, re.IGNORECASE)
    ):
        doubt(
            "number_from_other_phrase",
            f"{leaf.value!r} is part of the name {previous + ' ' + text[start:end]!r}, not a {leaf.key or 'value'}",
            leaf.path,
        )
        return
    if hint.is_count and not hint.currency:
        following = [w.lower() for w in _WORDS.findall(after)][:2]
        money = {"euro", "euros", "pound", "pounds", "dollar", "dollars", "cents", "pence", "quid", "percent"}
        if following and following[0] in money:
            doubt(
                "number_from_other_phrase",
                f"{leaf.value!r} counts {following[0]} ({text[start : end + 12].strip()!r}), not what "
                f"{leaf.key!r} counts",
                leaf.path,
            )
            return
        if _ORDINAL.fullmatch(text[start:end].strip()) or re.match(r"(?:st|nd|rd|th)\b", after):
            doubt("number_from_other_phrase", f"{text[start:end]!r} is an ordinal, not a count", leaf.path)


def _field_places(words: set[str], text: str) -> list[int]:
    """Offsets where the field's distinctive words stand in the text."""
    places = []
    for word in sorted(words, key=len, reverse=True):
        if len(word) < 3 or word in _GENERIC:
            continue
        for match in re.finditer(rf"\b{re.escape(word)}", text, re.IGNORECASE):
            places.append(match.start())
            if len(places) >= 8:
                return places
    return places


def _check_boolean(
    leaf: LeafLike, hint: FieldHint, layout: LayoutLike, spans: dict[str, tuple[int, int]], doubt: Doubt
) -> None:
    place = spans.get(leaf.path)
    words = {w for w in key_meaning(hint.key) if w not in {"is", "has", "was", "were", "are", "does", "did"}}
    offsets = [place[0]] if place is not None else _field_places(words, layout.text)
    if not offsets:
        return
    # Only the words close to where the field is spoken of: "not only a singer but also a composer" says
    # nothing against `is_composer` once the clause is long.
    if place is not None:  # the curator's (or the located) place: its whole sentence, to its end
        sentences = [_clause(layout, place[0]) + " " + _around(layout, place[1], 40)]
        sentences += _naming_sentences(words, layout, place[0])
        sentences += _later_turns_on_topic(hint, layout, place)
    else:  # found by one of the field's words: "didn't need to move our computers" is no word on distraction
        sentences = [_around(layout, offset, 60) for offset in offsets[:4]]
        sentences = [s for s in sentences if _names_enough_of(words, s)]
    headings: list[str] = []
    heading = getattr(layout, "heading", None)
    if heading is not None:  # a section "Not Yet Adopted" says it of everything under it
        headings = [h for h in {heading(offset) for offset in offsets[:4]} if h]
    negated = [(s, said) for s in sentences + headings if (said := _negation_of(s, words))]
    # A heading's "as agreed" speaks of its section's plan, not of each value under it: only a denial carries.
    affirmed = [s for s in sentences if _affirmation(s) and not _negation_of(s, words)]
    if leaf.value is True and negated and not affirmed:
        sentence, said = negated[0]
        doubt("boolean_against_text", f"true, but the text says {said!r} there: {sentence.strip()[:90]!r}", leaf.path)
    elif leaf.value is False and affirmed and not negated:
        doubt(
            "boolean_against_text",
            f"false, but the text says {_affirmation(affirmed[0])!r} there: {affirmed[0].strip()[:90]!r}",
            leaf.path,
        )


# An empty box just before an option: "☐ No", "[ ] No", "□ No". Only a ticked option is what the form says.
_UNTICKED_BEFORE = re.compile(r"(?:[☐□○◯❏]|\[ \]|\( \))\s*\**\s*$")
_SUBSTITUTE = re.compile(r"\b(?:instead of|rather than|in place of)\b", re.IGNORECASE)


def _affirmation(sentence: str) -> str | None:
    """The word by which a sentence affirms, if any: not the "Yes" of an unticked box ("☐ Yes ☒ No")."""
    for match in _AFFIRMATIONS.finditer(sentence):
        if not _UNTICKED_BEFORE.search(sentence, max(0, match.start() - 5), match.start()):
            return match.group()
    return None


def _negation_of(sentence: str, words: set[str]) -> str | None:
    """The negation a sentence says of the field, if any. "X instead of Y" (or "rather than") denies Y, not X:
    "the only mammals that lay eggs instead of giving birth" says nothing against `lays_eggs`."""
    for match in _NEGATIONS.finditer(sentence):
        if _UNTICKED_BEFORE.search(sentence, max(0, match.start() - 5), match.start()):
            continue  # "☒ Yes ☐ No": the "No" of a form is said only when its box is ticked
        if match.group().lower() == "no" and not _no_governs(sentence, match.end(), words):
            continue  # "no blockers" denies blockers, not the fix of `fix_expected_today`
        substitute = _SUBSTITUTE.match(sentence, match.start())
        if substitute is not None or match.group().lower() == "rather":
            after = re.split(r"[.!?;](?:\s|$)", sentence[match.end() :], maxsplit=1)[0].lower()  # its clause
            if not any(re.search(rf"\b{re.escape(w)}", after) for w in words if len(w) >= 3):
                continue
        return match.group()
    return None


def _names_enough_of(words: set[str], sentence: str) -> bool:
    """Does a sentence found by one of a field's words speak of the field: two of its distinctive words when it has
    three or more (`too_many_computers_distracting`); any sentence found for a field of fewer."""
    distinctive = {w[:4] for w in words if len(w) >= 4 and w not in _GENERIC}  # "computer(s)" is one word
    if len(distinctive) < 3:
        return True
    return sum(bool(re.search(rf"\b{re.escape(w)}", sentence, re.IGNORECASE)) for w in distinctive) >= 2


_ANSWER_FOLLOWERS = {"i", "we", "it", "that", "they", "you", "he", "she", "no", "not", "but", "because", "so",
                     "longer", "more", "one", "way", "thanks", "sorry", "actually", "well", "there", "can", "could",
                     "will", "would", "should", "do", "don't", "can't", "chance", "idea", "i'm", "it's", "that's",
                     "we're", "we'll", "i'll"}  # fmt: skip


def _no_governs(sentence: str, end: int, words: set[str]) -> bool:
    """Does a "no" deny the field: its noun phrase (the next three words on its line) names the field, or it is
    an answer ("NO", "NO I THINK ...", "no longer")? "NO BLOCKERS" denies blockers only."""
    following = re.findall(r"[A-Za-z']+", re.split(r"\n|[.!?;:]", sentence[end:], maxsplit=1)[0])[:3]
    if not following or following[0].lower() in _ANSWER_FOLLOWERS:
        return True
    return any(f.lower().startswith(w[:4]) for f in following for w in words if len(w) >= 3)


_NAMING_REACH = 600  # characters around the evidence where a sentence naming the field also speaks for it


def _naming_sentences(words: set[str], layout: LayoutLike, offset: int) -> list[str]:
    """Sentences near the evidence (not in a transcript) that name every distinctive word of the field
    (`retail_single`: "it was never issued as a stand-alone single for public retail"): they say yes or no to
    it as much as the quoted one does."""
    distinctive = {w for w in words if len(w) >= 4 and w not in _GENERIC}
    if len(distinctive) < 2 or layout.is_transcript:
        return []
    text = layout.text
    low, high = max(0, offset - _NAMING_REACH), offset + _NAMING_REACH
    found = []
    for at in _field_places(distinctive, text[low:high])[:8]:
        sentence = layout.sentence(low + at)
        lowered = sentence.lower()
        if all(re.search(rf"\b{re.escape(w)}", lowered) for w in distinctive) and sentence not in found:
            found.append(sentence)
    return found


_TOPIC_LINES = 12  # lines of a meeting after the evidence where the same topic is still being settled


def _later_turns_on_topic(hint: FieldHint, layout: LayoutLike, place: tuple[int, int]) -> list[str]:
    """In a meeting, the next lines that speak of what the evidence and the field are about (the words the
    evidence's line shares with the field's key and description: "solar panel"): the decision comes after the
    proposal ("OKAY FAIR ENOUGH FORGET THE SOLAR PANEL")."""
    if not layout.is_transcript:
        return []
    start, end = layout.line(place[0])
    said = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", layout.text[start:end])}
    topic = {w for w in said & hint.words if w not in _GENERIC and w not in _OUTCOME_WORDS}
    if not topic:
        return []
    found, at = [], end
    for _ in range(_TOPIC_LINES):
        if at >= len(layout.text):
            break
        line_start, line_end = layout.line(at + 1)
        line = layout.text[line_start:line_end]
        if all(re.search(rf"\b{re.escape(w)}", line, re.IGNORECASE) for w in topic):
            found.append(line)
        at = line_end
    return found


_OUTCOME_WORDS = {"true", "false", "team", "decided", "decide", "whether", "agreed", "adopted", "used", "will"}


def _around(layout: LayoutLike, offset: int, reach: int) -> str:
    """The text within `reach` characters of an offset, on its line; in a transcript, a question's line with the
    line that answers it ("DO WE HAVE KINETIC AS WELL" / "NO")."""
    start, end = layout.line(offset)
    near = layout.text[max(start, offset - reach) : min(end, offset + reach)]
    if layout.is_transcript and _ASKS.search(layout.text[start:end]):
        following = layout.line(min(end + 1, len(layout.text) - 1))
        near += " " + layout.text[following[0] : following[1]][:80]
    return near


_ASKS = re.compile(r"^\s*(?:DO|DOES|DID|IS|ARE|WAS|WERE|CAN|COULD|SHOULD|WILL|WOULD|HAVE|HAS)\b|\?\s*$", re.I)


def _clause(layout: LayoutLike, offset: int) -> str:
    if layout.is_transcript:
        start, end = layout.line(offset)
        return layout.text[start:end]
    return layout.sentence(offset)


_DATE_FIELD_WORDS = {"birth", "born", "death", "died", "date", "founded", "opened", "released", "dob", "dod"}
_DATE_NEAR = re.compile(
    r"\b(?:\d{1,2}\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2},?\s+)?\d{4}\b"
    r"|\(\s*(?:born\s+|b\.\s*)?\d{4}\s*[-–]|\bborn\b[^.;]{0,40}\b\d{4}\b",
    re.IGNORECASE,
)


def _check_absent_date(leaf: LeafLike, hint: FieldHint, layout: LayoutLike, leaves: list[Any], doubt: Doubt) -> bool:
    """A date of birth, death or founding given as not stated, where the entity of the record is written with
    its dates ("Shirley Temple Black (April 23, 1928 – February 10, 2014)")."""
    words = field_words(hint.key)
    if not words & _DATE_FIELD_WORDS or words & {"place", "state", "city", "country", "town", "location", "cause"}:
        return False  # a place or cause of birth or death is no date
    if hint.is_boolean:
        return False  # `born_in_england`: a yes or no, which a date beside the name does not answer
    names = [
        o.value for o in leaves if o.parent == leaf.parent and isinstance(o.value, str) and shape_of(o.value) == "name"
    ]
    text = layout.text
    if any(_UNKNOWN.search(text[max(0, o - 60) : o + 60]) for o in _field_places(words & _DATE_FIELD_WORDS, text)):
        return False  # "the exact date of his birth is not recorded"
    given = {o.value for o in leaves if isinstance(o.value, str) and o.path != leaf.path}
    for name in names[:4]:
        for match in re.finditer(re.escape(name), text):
            after = text[match.end() : match.end() + 90]
            found = _DATE_NEAR.search(after)
            if found and found.start() < 40 and not any(iso_date_places(g, found.group()) for g in given):
                doubt(
                    "absent_but_stated",
                    f"given as not stated, but the text gives {name!r} with a date: "
                    f"{(name + after[: found.end()])[:100]!r}",
                    leaf.path,
                )
                return True
    return False


_DEADLINE_SAID = re.compile(
    r"\b(?:by|before|until|till|due)\s+(?:the\s+)?(?:(?:end|start|beginning|middle)\s+of\s+(?:the\s+)?)?(?:next\s+)?"
    r"(?:week|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|\d{1,2}(?:st|nd|rd|th)?\b|"
    r"(?:first|second|third|fourth|fifth|tenth|twentieth|thirtieth|fifteenth)\b|"
    r"january|february|march|april|may|june|july|august|september|october|november|december)",
    re.IGNORECASE,
)


def _check_absent_deadline(
    leaf: LeafLike,
    hint: FieldHint,
    layout: LayoutLike,
    leaves: list[Any],
    spans: dict[str, tuple[int, int]],
    doubt: Doubt,
) -> bool:
    """An action's deadline given as not stated, while the line that assigns the action says "BY THE END OF
    NOVEMBER": the object's other values (its task) are located on that line."""
    if leaf.parent == "$" or not field_words(hint.key) & {"deadline", "due", "when", "date", "by"}:
        return False
    for other in leaves:
        if other.parent != leaf.parent or other.path not in spans or not isinstance(other.value, str):
            continue
        line_start, line_end = layout.line(spans[other.path][0])
        said = _DEADLINE_SAID.search(layout.text, line_start, line_end)
        if said is not None:
            doubt(
                "absent_but_stated",
                f"given as not stated, but the line of its {other.key!r} says {said.group()!r}",
                leaf.path,
            )
            return True
    return False


_MONTH_NAMES = "january|february|march|april|may|june|july|august|september|october|november|december"


def _labelled_value(words: set[str], text: str, offset: int) -> re.Match[str] | None:
    """A form's "Telephone: 0161 496 0732" (or "| Telephone | 0161 ... |"): the field's word as a label with a
    value after it on its line. A blank, a dash or "n/a" states nothing."""
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    line = re.sub(r"<[^>]{1,40}>", " ", re.sub(r"</t[dh]>\s*<t[dh][^>]{0,40}>", " | ", line))  # an HTML row
    label = re.match(r"\s*[|*#-]*\s*(?P<label>[^:|]{1,40}?)\s*\**\s*[:|]\s*\**\s*(?P<value>[^|]*)", line)
    if label is None or not field_words(label.group("label")) & words:
        return None
    value = label.group("value").strip(" *_|")
    if not value or re.fullmatch(r"[-–—_.\s]*|n/?a|none|not given|unknown|\[\s*\]", value, re.IGNORECASE):
        return None
    return label


# The text saying that it does not know a value: the `absent` claim is the text's own.
_UNKNOWN = re.compile(
    r"\b(?:(?:is|are|was|were|remains?|has|have|had)\s+(?:not\s+|never\s+)?(?:been\s+)?"
    r"(?:unknown|uncertain|unrecorded|undisclosed|unclear|not\s+(?:known|recorded|documented|disclosed|given|stated|"
    r"specified|decided|agreed|confirmed|set|fixed)|never\s+(?:recorded|disclosed|announced|confirmed))"
    r"|no\s+(?:record|records)\s+of|not\s+yet\s+(?:decided|agreed|set|fixed|known|confirmed)|to\s+be\s+(?:decided|"
    r"confirmed|announced|determined)|tb[acd]\b|haven'?t\s+(?:decided|agreed|set|fixed))",
    re.IGNORECASE,
)


def _check_absent(
    leaf: LeafLike, hint: FieldHint, layout: LayoutLike, doubt: Doubt, names: list[str], taken: set[Decimal]
) -> bool:
    words = {w for w in field_words(hint.key) if len(w) >= 5 and w not in _GENERIC}
    words = {w[:-1] if w.endswith("s") and len(w) > 5 else w for w in words}  # "colours" is written "colour" too
    if not words:
        return False
    for offset in _field_places(words, layout.text)[:8]:
        if _UNKNOWN.search(layout.text[max(0, offset - 60) : offset + 60]):
            return False  # "the exact date of his birth is not recorded": the text says it does not say
        clause = _clause(layout, offset)
        about = (clause + " " + (layout.paragraph_head(offset) if hasattr(layout, "paragraph_head") else "")).lower()
        if names and not any(name.lower() in about for name in names[:8]):
            continue  # another entity's deadline or price says nothing of this one's
        if taken and taken & _numbers_in(clause):
            continue  # "JUNIOR FEE GOES TO SEVENTY FIVE": the value another object of the answer holds
        if hint.unit and not _has_dimension_of(hint.unit, clause):
            stated = None  # "a 52-story tower" says nothing of a height in metres
        elif hint.unit or hint.currency is not None or hint.is_count or hint.is_number:
            counted = clause if "year" in field_words(hint.key) else _YEARS.sub(" ", clause)  # "a 1998 novel"
            stated = re.search(r"\d", counted) or (layout.is_transcript and _spelled_in(clause))
        elif hint.is_time or "deadline" in words or "date" in hint.words:
            stated = re.search(r"\d|\b(?:monday|tuesday|wednesday|thursday|friday|tomorrow|tonight|next week|"
                               r"(?:end|start|beginning|middle) of (?:the )?(?:week|month|" + _MONTH_NAMES + r"))\b",
                               clause, re.IGNORECASE)  # fmt: skip
        else:
            stated = _labelled_value(words, layout.text, offset)
        if stated:
            doubt(
                "absent_but_stated",
                f"given as not stated, but the text speaks of {leaf.key!r} here: {clause.strip()[:90]!r}",
                leaf.path,
            )
            return True
    return False


_YEARS = re.compile(r"\b(?:1[5-9]|20)\d\d\b")


def _numbers_in(clause: str) -> set[Decimal]:
    digits = {n for m in re.finditer(r"\d+(?:\.\d+)?", clause) if (n := to_decimal(m.group())) is not None}
    return digits | {said for _, _, said, _ in number_mentions(clause)}


def _has_dimension_of(unit: str, clause: str) -> bool:
    """Does the clause state a quantity convertible to `unit` (a length for a field in metres)?"""
    return any(convert(Decimal(1), said, unit) is not None for _, _, _, said in quantity_mentions(clause))


def _spelled_in(clause: str) -> bool:
    """A number in words in a line of a meeting ("ONE SPECIAL COLOUR")."""
    return any(how != "decimal comma" for _, _, _, how in number_mentions(clause))


_ITEM_SEPARATORS = re.compile(r"\s*(?:[,;|\n]|\s/\s)\s*")
_MARKUP_IN_VALUE = re.compile(r"(?:^|\n)\s*\[\d{1,2}:\d{2}(?::\d{2})?\] [^:\n]{1,64}: ")
_NUMBER_CELL = re.compile(r"[-+−$€£(]*\d[\d,.]*[%)]?(?:[KMBTkmbt]|bn|mn)?")
_CODE_WORDS = {
    "phone",
    "telephone",
    "tel",
    "fax",
    "isbn",
    "issn",
    "code",
    "id",
    "number",
    "numbers",
    "digits",
    "serial",
}


def _check_letters(leaf: LeafLike, layout: Any, doubt: Doubt) -> None:
    """A letter the context never uses ("Sólvang" where it says "Solvang"): a typing slip or a forged variant."""
    value = unicodedata.normalize("NFC", leaf.value)
    if value.isascii():
        return
    original = unicodedata.normalize("NFC", getattr(layout, "original", None) or layout.text)
    foreign = sorted({c for c in value if not c.isascii() and c.isalpha() and c not in original})
    if foreign:
        shown = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in foreign[:5])
        doubt("letter_not_in_context", f"{shown} never occurs in the context", leaf.path)


_QUOTING_WORDS = {"transcript", "excerpt", "lines", "line", "utterances", "utterance", "quote", "quotation"}


def _check_copy(leaf: LeafLike, hint: FieldHint, text: str, doubt: Doubt) -> None:
    value = leaf.value.strip()
    words = value.split()
    utterances = len(_MARKUP_IN_VALUE.findall(value))
    # One timestamp and speaker label inside a value is enough: an answer never carries the transcript's markup.
    if utterances >= 1 and not field_words(leaf.key or "") & _QUOTING_WORDS:
        doubt(
            "copied_span",
            f"{utterances} utterance(s) of the transcript, with their timestamps and speaker labels, pasted as the "
            f"value of {leaf.key!r}",
            leaf.path,
        )
        return
    if hint.words & _FREE_TEXT_WORDS:
        return
    if (
        len(words) >= 4
        and all(_NUMBER_CELL.fullmatch(word) for word in words)
        and not hint.words & (_LIST_WORDS | _CODE_WORDS)
    ):
        doubt(
            "copied_span",
            f"{len(words)} numbers pasted as the one value of {leaf.key!r} (a table's row or column, not a value)",
            leaf.path,
        )
        return
    items = [item for item in _ITEM_SEPARATORS.split(value) if item]
    if len(items) >= 4 and leaf.key and not leaf.key.endswith("s") and not hint.words & _LIST_WORDS:
        doubt(
            "copied_span",
            f"{len(items)} items pasted as the one value of {leaf.key!r} (a table column or a list, not a value)",
            leaf.path,
        )
        return
    several_lines = value.count("\n") >= 2 or value.count("|") >= 4
    names_one = bool(field_words(leaf.key or "") & _ONE_THING_WORDS)
    if len(words) > MAX_COPY_WORDS or several_lines or (names_one and len(words) > MAX_NAME_WORDS):
        doubt(
            "copied_span",
            f"a passage of {len(words)} words{' over several lines' if several_lines else ''} pasted as the value "
            f"of {leaf.key!r}, a field that names one thing",
            leaf.path,
        )


def _speaker_of(layout: LayoutLike, offset: int) -> str | None:
    start, end = layout.line(offset)
    match = re.match(r"\[[\d:]+\] ([^:\n]{1,64}): ", _original_line(layout, start, end))
    return match.group(1) if match else None


def _original_line(layout: Any, start: int, end: int) -> str:
    original = getattr(layout, "original", None) or layout.text
    return original[start:end]


def _speaker_labels(layout: Any) -> frozenset[str]:
    original = getattr(layout, "original", None) or layout.text
    return frozenset(re.findall(r"^\[[\d:]+\] ([^:\n]{1,64}): ", original, re.M))


def _is_speaker_field(hint: FieldHint) -> bool:
    key_words = field_words(hint.key)
    return bool(key_words & _SPEAKER_WORDS) or any(w.endswith(("er", "or")) for w in key_words)


def _check_speaker(
    leaf: LeafLike,
    hint: FieldHint,
    layout: LayoutLike,
    spans: dict[str, tuple[int, int]],
    leaves: list[Any],
    doubt: Doubt,
) -> None:
    key_words = field_words(hint.key, hint.description)
    if not key_words & _SPEAKER_WORDS and not any(w.endswith(("er", "or")) for w in field_words(hint.key)):
        return
    siblings = [
        other for other in leaves
        if other.parent == leaf.parent and other.path != leaf.path and other.path in spans
        and isinstance(other.value, str | int | float) and not isinstance(other.value, bool)
        and str(other.value).strip() not in (leaf.value,) and str(other.value).strip() not in _speaker_labels(layout)
    ]  # fmt: skip
    topic = key_meaning(hint.key) - _SPEAKER_WORDS - _GENERIC
    about = [o for o in siblings if o.key and affinity(key_meaning(o.key), topic)]
    if not siblings:
        return
    speaker = leaf.value.strip()
    nearby: set[str] = set()
    for other in about or siblings:
        start = spans[other.path][0]
        line_start, line_end = layout.line(start)
        # The sibling the field names ("objection" for `first_objection_by`) was said by that speaker; any
        # other sibling only by someone speaking around it.
        offsets = (line_start,) if about else (line_start, max(0, line_start - 1), line_end + 1)
        for offset in offsets:
            who = _speaker_of(layout, min(offset, max(0, len(layout.text) - 1)))
            if who:
                nearby.add(who)
    if nearby and speaker not in nearby:
        doubt(
            "speaker_mismatch",
            f"{speaker} is not the speaker of the utterances that hold this item's values "
            f"({', '.join(sorted(nearby))})",
            leaf.path,
        )


_BOUNDS = [
    ("min", "max"), ("minimum", "maximum"), ("low", "high"), ("lower", "upper"), ("start", "end"), ("from", "to"),
    ("first", "last"), ("earliest", "latest"), ("begin", "end"), ("opens", "closes"), ("birth", "death"),
    ("born", "died"), ("founded", "dissolved"), ("opened", "closed"),
]  # fmt: skip


_BOUND_WORDS = frozenset(word for pair in _BOUNDS for word in pair)


def _check_bounds(leaves: list[Any], doubt: Doubt) -> None:
    """Two siblings that bound a range (min/max, start/end, first/last) in the wrong order: swapped."""
    by_parent: dict[str, dict[str, Any]] = {}
    for leaf in leaves:
        if not leaf.key or isinstance(leaf.value, bool) or not field_words(leaf.key) & _BOUND_WORDS:
            continue  # most fields bound nothing: settled by one set lookup
        if to_decimal(leaf.value) is not None or _is_date(leaf.value):
            by_parent.setdefault(leaf.parent, {})[leaf.key] = leaf
    for fields in by_parent.values():
        if len(fields) < 2:
            continue
        for low_word, high_word in _BOUNDS:
            lows = [f for k, f in fields.items() if low_word in field_words(k)]
            highs = [f for k, f in fields.items() if high_word in field_words(k)]
            if len(lows) != 1 or len(highs) != 1:
                continue
            low, high = lows[0], highs[0]
            if field_words(low.key) - {low_word} != field_words(high.key) - {high_word}:
                continue  # `first_album_year` and `last_tour_year` bound no common range
            if _order_key(low.value) > _order_key(high.value):
                message = f"{low.key!r} ({low.value!r}) is after {high.key!r} ({high.value!r}): swapped?"
                doubt("possible_swap", message, low.path)
                doubt("possible_swap", message, high.path)


def _is_date(value: Any) -> bool:
    return isinstance(value, str) and bool(re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?|\d{1,2}:\d{2}", value.strip()))


def _order_key(value: Any) -> Any:
    number = to_decimal(value)
    return (0, number, "") if number is not None else (1, Decimal(0), str(value).strip().zfill(5))


def _check_counts(
    leaves: list[Any], containers: dict[str, Any], hints: dict[str, FieldHint] | None, doubt: Doubt
) -> None:
    """A count whose own list, in the same answer, has another length (`num_action_items` 3 beside four
    `action_items`): the answer contradicts itself."""
    lists = {path.rsplit(".", 1)[-1]: value for path, value in containers.items() if isinstance(value, list)}
    if not lists:
        return
    for leaf in leaves:
        if not leaf.key or isinstance(leaf.value, bool) or not isinstance(leaf.value, int):
            continue
        hint = hint_for(hints, leaf.path, leaf.key)
        if not hint.is_count:
            continue
        counted = key_meaning(leaf.key) - {"num", "number", "count", "total", "of", "n"}
        # The lists of what it counts (`member_count`: `current_members` and `former_members`): one of the
        # count's length answers it; else the one that names the fewest other things is contradicted.
        named = [(len(key_meaning(name) - counted), name, items) for name, items in lists.items()
                 if counted & key_meaning(name)]  # fmt: skip
        if not named or any(leaf.value in _answer_counts({name: items}) for _, name, items in named):
            continue  # its length, or how many of its objects a boolean field marks (`not_yet_adopted` of three)
        _, name, items = min(named, key=lambda found: found[0])
        doubt(
            "count_mismatch",
            f"{leaf.key!r} is {leaf.value}, but the answer's own list {name!r} has {len(items)} item(s)",
            leaf.path,
        )


_ENTRY_CHARS = 240  # a reference entry, a table row or a listing: one short line holding one item's values
_ENTRY_START = re.compile(r"\s*(?:\[\d+\]|\d+[.)]\s|[-*•]\s|\|)")  # "[7]", "7.", "- ", a table row
_YEAR_TOKEN = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")


def _check_year_outside_entry(
    leaves: list[Any], spans: dict[str, tuple[int, int]], layout: LayoutLike, doubt: Doubt
) -> None:
    """A year taken from another entry: every other value of its object stands in one short line (a
    reference, a table row), which gives a year of its own, while this year stands elsewhere ("Mathematische
    Nachrichten 9 (1953)" in entry 7, the year given 1949, that of entry 5)."""
    by_parent: dict[str, list[Any]] = {}
    for leaf in leaves:
        if leaf.key and leaf.path in spans and not isinstance(leaf.value, bool) and leaf.value is not None:
            by_parent.setdefault(leaf.parent, []).append(leaf)
    text = layout.text
    for siblings in by_parent.values():
        if len(siblings) < 4:
            continue
        lines = [layout.line(spans[leaf.path][0]) for leaf in siblings]
        for index, leaf in enumerate(siblings):
            value = str(leaf.value).strip()
            if not _YEAR_TOKEN.fullmatch(value):
                continue
            others = {line for i, line in enumerate(lines) if i != index}
            if len(others) != 1 or lines[index] in others:
                continue
            start, end = next(iter(others))
            if end - start > _ENTRY_CHARS or not _ENTRY_START.match(text, start):
                continue  # not an entry of a list or a table: a sentence may hold several events' years
            years = [y for y in _YEAR_TOKEN.findall(text[start:end]) if y != value]
            if years:
                doubt(
                    "value_from_other_entity",
                    f"{value} stands in another line than every other value of its object, whose line gives "
                    f"{years[0]}: {text[start:end].strip()[:90]!r}",
                    leaf.path,
                )


def _check_duplicates(containers: dict[str, Any], doubt: Doubt) -> None:
    for path, value in containers.items():
        if not isinstance(value, list) or len(value) < 2:
            continue
        seen: list[str] = []
        for position, item in enumerate(value):
            exact = isinstance(item, dict)  # objects differ by one field (two speakers saying "yeah")
            text = _plain(str(item)) if not exact else _item_text(item)
            if not text:
                continue
            for earlier in seen:
                if text == earlier or (
                    not exact and ((len(text) >= 12 and fuzz.ratio(text, earlier) >= 92) or _abbreviates(text, earlier))
                ):
                    doubt(
                        "duplicate_item", f"item {position} repeats an earlier item of the list", f"{path}[{position}]"
                    )
                    break
            seen.append(text)


def _abbreviates(a: str, b: str) -> bool:
    """One item is the initials of the other ("pm" and "philip morris")."""
    short, long = (a, b) if len(a) < len(b) else (b, a)
    words = long.split()
    return 2 <= len(short) <= 6 and " " not in short and len(words) >= 2 and "".join(w[0] for w in words) == short


def _plain(text: str) -> str:
    """Lower case, no leading article, single spaces: "The Hollin Canal" and "Hollin Canal" are one item."""
    words = text.lower().split()
    while words and words[0] in ("the", "a", "an"):
        words = words[1:]
    return " ".join(words)


def _item_text(item: dict[str, Any]) -> str:
    return " | ".join(_plain(str(v)) for _, v in sorted(item.items()) if v not in (None, "", []))


_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?")


def _check_other_phrase(
    leaves: list[Any],
    spans: dict[str, tuple[int, int]],
    layout: LayoutLike,
    hints: dict[str, FieldHint] | None,
    find: Finder,
    doubt: Doubt,
    names: list[str],
) -> None:
    """A number or year that stands by none of its field's words anywhere it is written, while another number of
    its kind does: "formed in 2013 and debuted in 2014" given as a formation year 2014; "4,000 in all with 3,677
    seated" given as seated 4,000; "Euro Stoxx 50" given as a count of countries."""
    text = layout.text
    lowered = lowered_text(text)
    siblings: dict[tuple[str, str], set[str]] = {}  # (parent, shape) -> keys
    for leaf in leaves:
        if leaf.key:
            siblings.setdefault((leaf.parent, shape_of(leaf.value)), set()).add(leaf.key)
    for leaf in leaves:
        if leaf.path not in spans or not leaf.key or shape_of(leaf.value) not in ("year", "number"):
            continue
        # The field's own words: not those it shares with a sibling of its kind (`seated_capacity` beside
        # `total_capacity` is "seated", not "capacity"; `formed_by`, a name, takes nothing from `formed_year`).
        kin = siblings.get((leaf.parent, shape_of(leaf.value)), set())
        shared = set().union(*(key_meaning(k) for k in kin if k != leaf.key))
        own = key_meaning(leaf.key) - shared - _GENERIC - {"year", "date", "number", "count", "total", "amount"}
        if not own or not mentioned(own, lowered):
            continue  # the text never uses the field's words: no number stands by them
        located = spans[leaf.path]
        if affinity(window_words(text, *located, before=_NEAR_BEFORE, after=_NEAR_AFTER, inside=True), own) and (
            not names or _names_near(layout, located[0], names)
        ):
            continue  # where it was placed, its field's words stand by it: the common case, settled cheaply
        found = find(leaf.value, hint_for(hints, leaf.path, leaf.key))
        places = _with_spelled(list(dict.fromkeys([located, *found])), text, leaf.value)  # its evidence counts too
        # Only where the record's own entities are written: another entity's "formed in 2014" says nothing.
        about = [p for p in places if _names_near(layout, p[0], names)] or places
        if any(
            affinity(window_words(text, start, end, before=_NEAR_BEFORE, after=_NEAR_AFTER, inside=True), own)
            or affinity(field_words(cell_header(text, start) or ""), own)  # a table cell: its column's header
            or _subject_names(_subject_words(layout, start), own)
            for start, end in about
        ):
            continue
        shape = shape_of(leaf.value)
        number = to_decimal(leaf.value)
        if number is None:
            continue
        rival = _rival_by_field_words(text, layout, about, shape, number, own)
        if rival is not None:
            start, end = rival
            doubt(
                "value_from_other_phrase",
                f"{leaf.value!r} stands by none of the words of {leaf.key!r} where it is written; "
                f"{text[start:end]!r} in the same sentence does ({text[max(0, start - 30) : end + 20].strip()!r})",
                leaf.path,
            )


def _subject_words(layout: LayoutLike, offset: int) -> set[str]:
    """The first words of a short sentence's clause that holds a number: its subject ("Unit tests tasks are run to a
    maximum of 100 steps")."""
    if layout.is_transcript:
        return set()
    sentence = layout.sentence(offset)
    at = layout.text.rfind(sentence[:20], 0, offset + 1) if sentence else -1
    if at < 0 or offset - at > 70 or re.search(r"[,;:]", layout.text[at:offset]):
        return set()
    return set(field_words(" ".join(re.findall(r"[A-Za-z]+", layout.text[at:offset])[:3])))


def _subject_names(subject: set[str], own: set[str]) -> bool:
    """Does a sentence's subject name the field: two of its words (one for a field of one), "unit tests" for
    `unit_test`, not "The film" for `feature_films_edited`."""
    stems = {w[:4] for w in own if len(w) >= 3}
    named = {w[:4] for w in subject} & stems
    return bool(stems) and len(named) >= min(2, len(stems))


_NEAR_BEFORE, _NEAR_AFTER = 28, 20  # characters around a number that say what it counts ("27 km in circumference")


def _comparable(other: Any, number: Any) -> bool:
    """Numbers of one order of magnitude (a fraction and a count, or 754 and 803,600, are not rivals)."""
    a, b = abs(float(other)), abs(float(number))
    if a == 0 or b == 0:
        return a == b
    return max(a, b) / min(a, b) <= 10 or (a < 1) == (b < 1) and max(a, b) / min(a, b) <= 100


def _names_near(layout: LayoutLike, offset: int, names: list[str]) -> bool:
    if not names:
        return False
    clause = _clause(layout, offset).lower()
    return any(name.lower() in clause for name in names[:8])


def _rival_by_field_words(
    text: str, layout: LayoutLike, places: list[tuple[int, int]], shape: str, number: Any, own: set[str]
) -> tuple[int, int] | None:
    """Another number of the same kind, in a sentence where the value is written, that stands by the field's
    words."""
    ends = dict(places)

    def end_of(start: int) -> int:
        return min(ends.get(start, start), len(text) - 1)

    for start, _ in places[:16]:
        line_start, line_end = layout.line(start)
        for match in _NUMBER_IN_TEXT.finditer(text, line_start, line_end):
            if abs(match.start() - start) > 160:
                continue
            other = match.group().replace(",", "")
            other_value: Any = int(other) if other.isdigit() else float(other)
            if shape_of(other_value) != shape or close(other_value, number) or not _comparable(other_value, number):
                continue
            if (text[match.end() : match.end() + 1] == "%") != (text[end_of(start)] == "%"):
                continue  # a percentage is no rival of a count, nor the other way round
            words = window_words(text, match.start(), match.end(), before=_NEAR_BEFORE, after=_NEAR_AFTER, inside=True)
            if affinity(words, own):
                return match.start(), match.end()
    return None


def shape_of(value: Any) -> str:
    """What kind of thing a value is, for comparing two fields: a year, another number, a date, a clock time, a
    name, a phrase."""
    if isinstance(value, str | int | float):
        return _shape(value)
    return "other"


@lru_cache(maxsize=65536, typed=True)
def _shape(value: str | int | float) -> str:
    if isinstance(value, int | float):
        return "year" if isinstance(value, int) and 1000 <= value <= 2100 else "number"
    text = str(value).strip()
    if re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", text):
        return "year" if len(text) == 4 else "date"
    if re.fullmatch(r"\d{1,2}[:.]\d{2}(\s*[ap]\.?m\.?)?", text, re.IGNORECASE):
        return "time"
    words = text.split()
    if words and all(w[:1].isupper() for w in words if len(w) > 3):
        return "name"
    return "phrase"


def _check_swaps(
    leaves: list[Any], spans: dict[str, tuple[int, int]], text: str, hints: dict[str, FieldHint] | None, doubt: Doubt
) -> None:
    """Two siblings of one kind, each standing by the words of the other's field and not of its own."""
    lowered = lowered_text(text)
    by_parent: dict[str, list[Any]] = {}
    for leaf in leaves:
        if leaf.key and leaf.path in spans and not isinstance(leaf.value, bool) and leaf.value is not None:
            by_parent.setdefault(leaf.parent, []).append(leaf)
    for siblings in by_parent.values():
        if len(siblings) < 2:
            continue
        by_shape: dict[str, list[Any]] = {}
        for leaf in siblings:
            by_shape.setdefault(shape_of(leaf.value), []).append(leaf)
        for group in by_shape.values():
            _swaps_in(group, spans, text, lowered, doubt, hints)


def _governed_by(text: str, start: int, own: frozenset[str], other: frozenset[str]) -> str | None:
    """Which field's word stands last before a value in its clause ("signed on 4 May 1950 and came into force on
    9 June 1951": "signed" governs the first date, "force" the second): "own", "other" or None."""
    line_start = text.rfind("\n", 0, start) + 1
    head = _SENTENCE_BREAK.split(text[max(line_start, start - 48) : start])[-1]
    for word in reversed([w.lower().strip("'") for w in _WORDS.findall(head)]):
        mine, theirs = affinity([word], own), affinity([word], other)
        if mine != theirs:
            return "own" if mine > theirs else "other"
    return None


# "written and directed by": participles only ("the offer of exchange by NAME" names no role)
_PARTICIPLE = r"[a-z]+ed|written|sung|drawn|made|built|led|held|sold|taught|shot|won|given|taken|run|done|chosen"
_BY_BEFORE = re.compile(rf"\b({_PARTICIPLE})(?:,?\s+and\s+({_PARTICIPLE}))?\s+by\s*$", re.IGNORECASE)
_WHO_AFTER = re.compile(r"\s*,?\s*(?:who|which)\s+(?:also\s+|had\s+|has\s+|first\s+)?([a-z]+)", re.IGNORECASE)


def _agent_role(text: str, start: int, end: int, own: frozenset[str], other: frozenset[str]) -> str | None:
    """The role a sentence gives a name as the agent of a verb: "produced by NAME", "NAME, who recorded it":
    "own", "other" or None (no such verb, or a verb of neither field)."""
    passive = _BY_BEFORE.search(text, max(0, start - 40), start)
    active = _WHO_AFTER.match(text, end)
    verbs = [g.lower() for g in (passive or active).groups() if g] if (passive or active) else []
    mine = any(affinity([verb], own) for verb in verbs)
    theirs = any(affinity([verb], other) for verb in verbs)
    if mine != theirs:
        return "own" if mine else "other"
    return None


def _agents_crossed(
    first: Any, second: Any, spans: dict[str, tuple[int, int]], text: str, own_a: frozenset[str], own_b: frozenset[str]
) -> bool:
    """Two names each given by the text as the agent of the other field's verb ("directed by A and produced by B"
    for director B, producer A); or one so, and the other the agent of no verb of its own."""
    if shape_of(first.value) != "name" or shape_of(second.value) != "name":
        return False
    role_a = _agent_role(text, *spans[first.path], own_a, own_b)
    role_b = _agent_role(text, *spans[second.path], own_b, own_a)
    return (role_a == "other" and role_b != "own") or (role_b == "other" and role_a != "own")


def _other_dimensions(first: Any, second: Any, hints: dict[str, FieldHint] | None) -> bool:
    """Two fields whose names give units of different kinds (`crossing_minutes`, `distance_km`): their values
    cannot trade places; a value in the wrong kind of unit is the unit check's to find."""
    units = [hint_for(hints, leaf.path, leaf.key).unit for leaf in (first, second)]
    parsed = [parse_unit(unit) if unit else None for unit in units]
    if parsed[0] is None or parsed[1] is None:
        return False
    return bool(parsed[0].dimensionality != parsed[1].dimensionality)


def _swaps_in(
    group: list[Any],
    spans: dict[str, tuple[int, int]],
    text: str,
    lowered: str,
    doubt: Doubt,
    hints: dict[str, FieldHint] | None = None,
) -> None:
    for i, first in enumerate(group):
        for second in group[i + 1 :]:
            if first.value == second.value or _other_dimensions(first, second, hints):
                continue
            own_a = key_meaning(first.key) - key_meaning(second.key)
            own_b = key_meaning(second.key) - key_meaning(first.key)
            if not own_a or not own_b or not mentioned(own_a, lowered) or not mentioned(own_b, lowered):
                continue
            around_a = window_words(text, *spans[first.path])
            around_b = window_words(text, *spans[second.path])
            leans = affinity(around_a, own_b) > affinity(around_a, own_a) and affinity(around_b, own_a) > affinity(
                around_b, own_b
            )
            if (
                leans
                or (
                    shape_of(first.value) in ("year", "date", "time", "number")  # a name's clause has no governing verb
                    and _governed_by(text, spans[first.path][0], own_a, own_b) == "other"
                    and _governed_by(text, spans[second.path][0], own_b, own_a) == "other"
                )
                or _agents_crossed(first, second, spans, text, own_a, own_b)
            ):
                message = f"{first.key!r} and {second.key!r} may be swapped: each value stands by the other's words"
                doubt("possible_swap", message, first.path)
                doubt("possible_swap", message, second.path)
