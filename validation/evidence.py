"""Ground every value against its own evidence, never against "anywhere in the context".

For each leaf of a ground truth (core/evidence.py says what evidence is):

* with curator or draft evidence: the quote is located in the context (exactly, else ignoring case and
  runs of whitespace; given offsets must hold the quote), may not lie in transcript markup, and the value
  must be the quoted text (`span`) or a recognised normalisation of it (`normalised`); a `derived` value
  names leaves that exist and, with a `rule`, is recomputed from them; an `absent` value is null or empty.
  A broken piece of evidence is a hard failure with a code and the JSON path: the record goes back to its
  curator with the reason.
* without evidence: the toolkit locates the value itself (whole words outside transcript markup, numbers
  by value and sign, spelled-out numbers as `normalised`) and stores the span it found as `auto` evidence.
  A value it cannot find is `ungrounded_value`: a doubt for the judge and the curator, not a rejection,
  since answers may paraphrase.

Values are also tied to their field. In an object with a name-like anchor (`name`, `title`, ...) a value
must sit in the same sentence or line as the anchor, or in a paragraph headed by it, else
`value_not_near_entity` (birth dates swapped between two people). In a table row, or after a label on its
line, a value whose column header or label names a sibling field and not its own is
`value_in_wrong_field` (numbers permuted between fields). Both are doubts that lower the judge's scores.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import Any, NamedTuple

from core.evidence import Evidence
from core.verdicts import GroundingIssue, ValidationFailure
from validation import paths
from validation.field_checks import check_field_ties
from validation.field_hints import hint_for
from validation.field_rules.phrases import narrowed_spans
from validation.field_rules.words import affinity, key_meaning, mentioned, shape_of, window_words
from validation.grounding import NormalizedContext, is_grounded, is_negative_at, normalize_context, transcript_speakers
from validation.normalise import matches_normalised, number_readings, one_number_in_words, same_number
from validation.readings import conversion_supports, number_places, quote_supports, string_places
from validation.readings.clock import clock_value
from validation.readings.dates import date_places
from validation.readings.fields import FieldHint, field_words
from validation.readings.numbers import precision_of, to_decimal
from validation.table_units import cell_header

CHECK = "evidence"
MAX_OCCURRENCES = 64
MAX_NUMBER_RUNS = 256  # runs of digits scanned for one value before scanning every number of the text once
_RUN_CHARS = frozenset("0123456789.,")
ANCHOR_KEYS = (
    "name", "title", "full_name", "person", "entity", "company", "organization", "organisation", "player", "team",
    "film", "book", "movie", "band", "album", "song", "city", "country", "place", "route", "code", "label",
)  # fmt: skip
_STOP = {"the", "and", "for", "with", "from", "into", "was", "are", "has", "had", "its", "this", "that", "value"}
_LABEL_MAX = 41  # characters of a label
_LABEL_BEFORE = re.compile(r"([A-Za-z][A-Za-z /&()-]{0,40}):$")
# A full stop ends a sentence, not the period of a title, a suffix or an initial ("Edward Davis Wood Jr. (October
# 10, 1924 ...", "Dr. Hamilton Osgood", "J. R. Smith").
_SENTENCE_END = re.compile(
    r"(?<=[.!?])(?<!\bJr\.)(?<!\bSr\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bSt\.)(?<!\bNo\.)"
    r"(?<!\bInc\.)(?<!\bCo\.)(?<!\bvs\.)(?<!\b[A-Z]\.)\s+(?=[A-Z0-9\"“(\[])"
)
# `\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?` with the first digit factored out: the same matches, but
# a pattern that starts with a digit class is scanned several times faster. ASCII text takes [0-9].
_NUMBER_TOKEN = re.compile(r"\d(?:\d{0,2}(?:,\d{3})+(?:\.\d+)?|\d*(?:\.\d+)?)")
_ASCII_NUMBER_TOKEN = re.compile(r"[0-9](?:[0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]*(?:\.[0-9]+)?)")
_CENTS_AFTER = re.compile(r",[0-9]{2}(?![0-9,])")  # "8,90": the 8 is no number of its own
_NUMBER_WORDS = (
    "zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    "seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|"
    "billion|half|quarter"
)
_ISO_DATE = re.compile(r"^\d{4}-\d{2}(?:-\d{2})?$")
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_DATE_PHRASE = re.compile(
    rf"\b(?:{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}|\d{{1,2}}\s+{_MONTH},?\s+\d{{4}}|{_MONTH}\s+\d{{4}}|\d{{4}}-\d{{2}}-\d{{2}})"
)
_WORD = re.compile(r"\w+")
_SPELLED = re.compile(
    rf"\b(?:(?:{_NUMBER_WORDS}|a|an|and)[ \t-]+)*(?:{_NUMBER_WORDS})\b", re.IGNORECASE
)  # one line: "FIVE / FIVE" is no 55


_validate_evidence = Evidence.__pydantic_validator__.validate_python  # `Evidence.model_validate`, less a Python layer


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


class Leaf(NamedTuple):  # a tuple: built for every leaf of every record, several times cheaper than a dataclass
    path: str
    value: Any
    parent: str  # path of the enclosing object or array
    key: str | None  # the key under the enclosing object, None inside arrays


def walk_leaves(ground_truth: Any) -> tuple[list[Leaf], dict[str, Any]]:
    """Every scalar leaf and every empty list (document order), and every container by path."""
    leaves: list[Leaf] = []
    containers: dict[str, Any] = {}
    stack: list[tuple[str, Any, str, str | None]] = [("$", ground_truth, "", None)]
    while stack:
        path, value, parent, key = stack.pop()
        if isinstance(value, dict):
            containers[path] = value
            children = []
            for k, v in value.items():
                name = str(k)
                children.append((paths.child(path, name), v, path, name))
            stack.extend(reversed(children))
        elif isinstance(value, list):
            containers[path] = value
            if not value:
                leaves.append(Leaf(path, value, parent, key))
            stack.extend(reversed([(paths.index(path, i), v, path, None) for i, v in enumerate(value)]))
        else:
            leaves.append(Leaf(path, value, parent, key))
    return leaves, containers


# ---- the context's layout: lines, sentences, paragraphs, tables -------------------------------------------


class Layout:
    """Where a span sits: its line, sentence and paragraph, and the table cell it falls in."""

    def __init__(self, ctx: NormalizedContext) -> None:
        self.text = ctx.raw  # markup blanked, offsets as in the original
        self.original = ctx.original
        self.is_transcript = ctx.raw != ctx.original

    def line(self, offset: int) -> tuple[int, int]:
        start = self.text.rfind("\n", 0, offset) + 1
        end = self.text.find("\n", offset)
        return start, len(self.text) if end < 0 else end

    def sentence(self, offset: int) -> str:
        start, end = self.line(offset)
        line = self.text[start:end]
        position = 0
        for piece in _SENTENCE_END.split(line):
            if position + len(piece) >= offset - start:
                return piece
            position += len(piece) + 1
        return line

    def paragraph_head(self, offset: int) -> str:
        """The first line of the paragraph (HotpotQA: the article title) holding `offset`."""
        if self.is_transcript:
            return ""
        start = self.text.rfind("\n\n", 0, offset)
        start = 0 if start < 0 else start + 2
        end = self.text.find("\n", start)
        return self.text[start : len(self.text) if end < 0 else end]

    def heading(self, offset: int, lines: int = 40) -> str:
        """The nearest markdown heading (or bold line) above `offset`, markup stripped: a section's entity."""
        start, _ = self.line(offset)
        for _ in range(lines):
            if start <= 0:
                return ""
            start = self.text.rfind("\n", 0, start - 1) + 1
            line = self.text[start : self.text.find("\n", start)].strip()
            if line.startswith("#") or (line.startswith("**") and line.endswith("**")):
                return line.strip("#* ")
        return ""

    def sentence_before(self, offset: int) -> str:
        start, _ = self.line(offset)
        sentence = self.sentence(offset)
        at = self.text.find(sentence, start) if sentence else -1
        return self.sentence(at - 2) if at > start + 1 else ""

    def nearby_lines(self, offset: int, radius: int = 3) -> str:
        start, end = self.line(offset)
        for _ in range(radius):
            start = self.text.rfind("\n", 0, max(0, start - 1)) + 1
            nxt = self.text.find("\n", end + 1)
            end = len(self.text) if nxt < 0 else nxt
        return self.text[start:end]

    def label(self, offset: int) -> str:
        """The column header above a table cell, or the words before the value on its line."""
        start, end = self.line(offset)
        line = self.text[start:end]
        if line.lstrip().startswith("|"):
            column = line[: offset - start].count("|") - 1
            header = self._table_header(start)
            if (
                header is not None
                and len(header) == 2
                and column in (0, 1)
                and (re.search(r"\d", header[1]) or not any(header))
            ):
                # A table of label | value rows (an invoice's totals): its first row, or a blank one, is no header.
                # A number in the label itself ("VAT 0 %") is labelled by that label too.
                return line.strip().strip("|").split("|")[0].strip()
            if header is not None and 0 <= column < len(header):
                return header[column]
            return ""
        cells = _HTML_CELL.findall(line)
        if len(cells) == 2 and line.find(cells[1], line.find(cells[0]) + len(cells[0])) <= offset - start:
            # An HTML row of a form's table, "<td>Given name(s)</td><td>Karin Elise</td>": its first cell labels it.
            return re.sub(r"<[^>]{1,40}>", " ", cells[0]).strip()
        # Prose: only a "Label: value" right before the value counts (a sentence's other words name no field).
        before = line[: offset - start].rstrip()
        if not before.endswith(":"):
            return ""
        # A label is at most 41 characters before its colon: the pattern finds the same match in the tail
        # as in the whole line, without trying every earlier position of a long line.
        match = _LABEL_BEFORE.search(before[-(_LABEL_MAX + 1) :])
        return match.group(1) if match else ""

    def other_column_naming(self, offset: int, words: set[str]) -> str | None:
        """Another column of the table that holds `offset` whose header names the field (`words`), if any."""
        start, _ = self.line(offset)
        line = self.text[start : self.text.find("\n", start) if "\n" in self.text[start:] else len(self.text)]
        if not words or not line.lstrip().startswith("|"):
            return None
        header = self._table_header(start)
        if not header:
            return None
        column = line[: offset - start].count("|") - 1
        for position, cell in enumerate(header):
            if position != column and _words(cell) & words:
                return cell.strip()
        return None

    def _table_header(self, line_start: int) -> list[str] | None:
        position = line_start
        header = None
        while position > 0:
            previous = self.text.rfind("\n", 0, position - 1) + 1
            row = self.text[previous : position - 1]
            if not row.lstrip().startswith("|"):
                break
            header, position = row, previous
        if header is None:
            return None
        return [cell.strip() for cell in header.strip().strip("|").split("|")]


@lru_cache(maxsize=64)
def _layout(context: str) -> Layout:
    return Layout(normalize_context(context))


def _words(text: str) -> set[str]:
    if not text:
        return set()  # most values have no label: no pattern run for nothing
    tokens = re.findall(r"[a-z0-9]+", text.lower())
    return {t[:-1] if t.endswith("s") and len(t) > 3 else t for t in tokens if len(t) >= 3 and t not in _STOP}


def _mentions(text: str, anchor: str) -> bool:
    """Does `text` name the anchor: the whole name, or its longest word (a surname, a title word)?"""
    folded = text.lower()
    wanted = anchor.lower().strip()
    if not wanted:
        return False
    if _whole_word_in(folded, wanted):
        return True
    words = sorted((w for w in _WORD.findall(wanted) if len(w) >= 4), key=len, reverse=True)
    return bool(words) and _whole_word_in(folded, words[0])


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"  # exactly the regex `\w` on str


def _whole_word_in(text: str, needle: str) -> bool:
    r"""`re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", text)` without compiling a pattern per needle."""
    start = text.find(needle)
    while start >= 0:
        end = start + len(needle)
        if (start == 0 or not _is_word_char(text[start - 1])) and (end == len(text) or not _is_word_char(text[end])):
            return True
        start = text.find(needle, start + 1)
    return False


# ---- finding a value in the context ------------------------------------------------------------------------


def _occurrences(value: Any, ctx: NormalizedContext) -> list[tuple[int, int, str]]:
    """(start, end, kind) of the value's places in the context, outside transcript markup."""
    text = ctx.raw
    if isinstance(value, str):
        stripped = value.strip()
        if not stripped:
            return []
        if _ISO_DATE.match(stripped):  # "1965-08-14" is written "August 14, 1965" or "14 August 1965"
            found = [
                (s, e, "normalised") for s, e, phrase in _date_phrases(text) if matches_normalised(stripped, phrase)
            ]
            return found or [(s, e, "normalised") for s, e, _ in date_places(stripped, text)]
        return [(start, end, "span") for start, end in _phrase_places(stripped, text)]
    number = Decimal(value) if isinstance(value, int) else Decimal(repr(value))
    found = [(start, end, "span") for start, end in _number_places(text, number)][:MAX_OCCURRENCES]
    if not found:  # 0.736 for "73.6%"
        found = [
            (s, e, "normalised") for s, e, v in _number_tokens(text) if text[e : e + 1] == "%" and v / 100 == number
        ]
    if not found:
        found = [
            (s, e, "normalised")
            for s, e, readings in _spelled_numbers(text)
            if any(same_number(r, value) for r in readings)
        ]
    return found[:MAX_OCCURRENCES]


@lru_cache(maxsize=4096)
def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    body = r"\s+".join(re.escape(part) for part in phrase.split())
    before = r"(?<!\w)" if phrase[0].isalnum() else ""
    after = r"(?!\w)" if phrase[-1].isalnum() else ""
    return re.compile(before + body + after, re.IGNORECASE)


def _phrase_places(phrase: str, text: str) -> list[tuple[int, int]]:
    r"""The first MAX_OCCURRENCES matches of `_phrase_pattern(phrase)` in `text`. ASCII phrase in ASCII text
    (nearly every value) is found by `str.find` on the lowered text: the same matches as the pattern
    (ASCII case-insensitivity is `lower()`, `\s` and `\w` are `isspace()` and `isalnum()` or "_"), without
    compiling a pattern per value. Anything else uses the pattern."""
    if not (phrase.isascii() and text.isascii()):
        pattern = _phrase_pattern(phrase)
        return [(m.start(), m.end()) for _, m in zip(range(MAX_OCCURRENCES), pattern.finditer(text), strict=False)]
    lowered = _lowered(text)
    parts = phrase.lower().split()
    first, rest = parts[0], parts[1:]
    check_before, check_after = phrase[0].isalnum(), phrase[-1].isalnum()
    size = len(text)
    places: list[tuple[int, int]] = []
    start = lowered.find(first)
    while start >= 0 and len(places) < MAX_OCCURRENCES:
        end = _phrase_end(lowered, start + len(first), rest)
        if (
            end >= 0
            and not (check_before and start and _is_word_char(text[start - 1]))
            and not (check_after and end < size and _is_word_char(text[end]))
        ):
            places.append((start, end))
            start = lowered.find(first, end)  # matches do not overlap, as with `finditer`
        else:
            start = lowered.find(first, start + 1)
    return places


def _phrase_end(lowered: str, position: int, parts: list[str]) -> int:
    """Where the words `parts` end when each follows the last after one or more spaces, else -1."""
    size = len(lowered)
    for part in parts:
        gap = position
        while gap < size and lowered[gap].isspace():
            gap += 1
        if gap == position or not lowered.startswith(part, gap):
            return -1
        position = gap + len(part)
    return position


@lru_cache(maxsize=64)
def _lowered(text: str) -> str:
    return text.lower()


@lru_cache(maxsize=64)
def _number_index(text: str) -> dict[Decimal, list[tuple[int, int]]]:
    """(start, end) of every number of the text, by signed value, in text order."""
    index: dict[Decimal, list[tuple[int, int]]] = {}
    for start, end, value in _number_tokens(text):
        index.setdefault(value, []).append((start, end))
    return index


def _number_places(text: str, number: Decimal) -> list[tuple[int, int]]:
    """`_number_index(text)[number]` without reading every number of the text: a number token with this value
    holds its integer part spelled plain or comma-grouped (after any leading zeros), so only the runs of
    digits, commas and periods around those spellings are scanned, as the whole-text scan would scan them
    (a token never spans a character outside such a run). ASCII text only; other text is scanned whole."""
    if not number.is_finite():
        return []  # no token has an infinite or NaN value
    if not text.isascii():
        return _number_index(text).get(number, [])
    whole = int(abs(number))
    plain, grouped = str(whole), f"{whole:,}"
    # Both spellings end in the same three digits: one scan of the text for those finds either spelling.
    tail = plain[-3:]
    runs: set[tuple[int, int]] = set()
    hit = text.find(tail)
    while hit >= 0:
        after = hit + len(tail)
        for spelling in (plain, grouped) if grouped != plain else (plain,):
            start = after - len(spelling)
            if start < 0 or not text.startswith(spelling, start):
                continue
            if len(runs) > MAX_NUMBER_RUNS:
                return _number_index(text).get(number, [])  # a text of numbers: one scan of them all
            end = after
            while start and text[start - 1] in _RUN_CHARS:
                start -= 1
            while end < len(text) and text[end] in _RUN_CHARS:
                end += 1
            runs.add((start, end))
        hit = text.find(tail, hit + 1)
    return [
        (start, end)
        for run in sorted(runs)
        for start, end, value in _scan_numbers(text, _ASCII_NUMBER_TOKEN, *run)
        if value == number
    ]


@lru_cache(maxsize=64)
def _number_tokens(text: str) -> tuple[tuple[int, int, Decimal], ...]:
    return tuple(_scan_numbers(text, _ASCII_NUMBER_TOKEN if text.isascii() else _NUMBER_TOKEN, 0, len(text)))


def _scan_numbers(text: str, pattern: re.Pattern[str], begin: int, stop: int) -> list[tuple[int, int, Decimal]]:
    """(start, end, signed value) of the number tokens between begin and stop."""
    tokens = []
    for match in pattern.finditer(text, begin, stop):
        start = match.start()
        if start and (
            text[start - 1].isalnum()
            or text[start - 1] in "._"
            or (text[start - 1] == "," and start > 1 and text[start - 2].isdigit())
        ):
            continue
        if match.end() < len(text) and text[match.end()].isalpha() and text[match.end()] not in "smhdkMBK%":
            continue  # glued to letters ("B12", "3rd" are no numbers of the answer)
        if _CENTS_AFTER.match(text, match.end()):
            continue  # the whole part of "8,90" (a decimal comma), no 8 of the answer
        value = Decimal(match.group().replace(",", ""))
        tokens.append((start, match.end(), -value if is_negative_at(text, start) else value))
    return tokens


@lru_cache(maxsize=64)
def _date_phrases(text: str) -> tuple[tuple[int, int, str], ...]:
    return tuple((m.start(), m.end(), m.group()) for m in _DATE_PHRASE.finditer(text))


@lru_cache(maxsize=64)
def _spelled_numbers(text: str) -> tuple[tuple[int, int, frozenset[Decimal]], ...]:
    return tuple(
        (m.start(), m.end(), frozenset(number_readings(m.group())))
        for m in _SPELLED.finditer(text)
        if m.group().lower() not in ("a", "an", "and", "one")  # "one" alone is a pronoun far more often
        and not _POINT_BEFORE.search(text, max(0, m.start() - 7), m.start())
        and not _POINT_AFTER.match(text, m.end())  # "FIVE" of "TWO POINT FIVE" is no five
    )


_POINT_BEFORE = re.compile(r"\bpoint\s+$", re.IGNORECASE)
_POINT_AFTER = re.compile(r"\s+point\b", re.IGNORECASE)


def places_of(value: Any, context: str) -> list[tuple[int, int, str]]:
    """Every place (start, end, kind) a string or number is found in a context, outside transcript markup."""
    if value is None or isinstance(value, bool | list | dict):
        return []
    return _occurrences(value, normalize_context(context))


def value_matches_span(value: Any, quote: str) -> bool:
    """The value is the quoted text: found as whole words inside it (strings), or as one of its numbers with
    the same sign (numbers)."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, str):
        return is_grounded(value, NormalizedContext(quote))
    number = Decimal(value) if isinstance(value, int) else Decimal(repr(value))
    return any(token == number for _, _, token in _number_tokens(quote))


# ---- the check ---------------------------------------------------------------------------------------------


def check_evidence(
    ground_truth: Any,
    context: str,
    evidence: dict[str, Evidence],
    hints: dict[str, FieldHint] | None = None,
    question: str = "",
) -> EvidenceResult:
    """`hints`: what the schema says of each leaf's field (validation/field_hints.py): its unit, money, a count,
    a clock time. Without them a leaf's key alone is read. `question`: the record's question, which may ask for
    a part of what the context lists."""
    result = EvidenceResult()
    ctx = normalize_context(context)
    layout = _layout(context)
    leaves, containers = walk_leaves(ground_truth)
    by_path = {leaf.path: leaf for leaf in leaves}
    anchors = _anchors(by_path)
    object_strings = _object_strings(leaves)
    for path in evidence:
        if path not in by_path and path not in containers:
            result.fail(
                "evidence_unknown_path", f"evidence is given for {path}, which is not in the ground truth", path
            )
    speakers = transcript_speakers(context) if layout.is_transcript else frozenset()
    spans: dict[str, tuple[int, int]] = {}
    for leaf in leaves:
        value = leaf.value
        counted = isinstance(value, str | int | float) and not isinstance(value, bool)
        result.leaves += counted
        given = evidence.get(leaf.path)
        if given is not None:
            hint = hint_for(hints, leaf.path, leaf.key)
            located = _check_given(leaf, given, context, ctx, evidence, by_path, containers, result, hint)
            if located is not None:
                spans[leaf.path] = located
                result.resolved[leaf.path] = given.model_copy(
                    update={"start": located[0], "end": located[1], "quote": context[located[0] : located[1]]}
                )
            elif not any(f.path == leaf.path for f in result.failures):
                result.resolved[leaf.path] = given
            ok = not any(f.path == leaf.path for f in result.failures)
            if counted and ok:
                result.grounded += 1
                result.support[given.kind] += 1
            elif counted:
                result.ungrounded.append(leaf.path)
            continue
        if value is None:
            result.doubt(
                "unexplained_null", "null without `absent` evidence: is the value really not in the context?", leaf.path
            )
            continue
        if not counted:
            continue
        if isinstance(value, str) and value.strip() in speakers:
            result.grounded += 1
            result.support["speaker"] += 1
            continue
        if layout.is_transcript and isinstance(value, str) and _is_line_time(value.strip(), context):
            result.grounded += 1
            result.support["timestamp"] += 1  # when in the meeting something was said: a line's own time
            continue
        place = _locate(
            leaf,
            ctx,
            layout,
            anchors,
            result,
            hint_for(hints, leaf.path, leaf.key),
            object_strings.get(leaf.parent, ()),
        )
        if place is None:
            if is_grounded(value, ctx):  # paraphrase-tolerant: normalised or fuzzy, no offsets
                result.grounded += 1
                result.support["fuzzy"] += 1
            elif _computed_from_leaves(value, leaves, containers):
                result.grounded += 1
                result.support["computed"] += 1
            elif _words_in_one_clause(value, layout):
                result.grounded += 1
                result.support["reworded"] += 1
            else:
                result.ungrounded.append(leaf.path)
                result.doubt("ungrounded_value", f"{_show(value)} is not found in the context", leaf.path)
            continue
        start, end, kind = place
        spans[leaf.path] = (start, end)
        # From a dict, by the model's own validator: one call into pydantic, about half the cost of the keyword
        # constructor (and less than `model_construct`, which is Python).
        result.resolved[leaf.path] = _validate_evidence(
            {"kind": kind, "quote": _quote(context, start, end), "start": start, "end": end, "auto": True}
        )
        result.grounded += 1
        result.support["located"] += 1
    spans = narrowed_spans(leaves, spans, layout.text)  # a number's place, not its curator's whole quote
    _check_fields(
        leaves, spans, layout, anchors, result, explicit=set(evidence), object_strings=object_strings, hints=hints
    )

    def find(value: Any, hint: FieldHint) -> list[tuple[int, int]]:
        found = _occurrences(value, ctx) or _other_readings(value, ctx.raw, hint, ctx.original)
        return [(start, end) for start, end, _ in found]

    check_field_ties(leaves, spans, layout, hints, ground_truth, containers, speakers, result.doubt, find, question)
    return result


def _by_field_words(places: list[tuple[int, int, str]], text: str, key: str) -> list[tuple[int, int, str]]:
    """The places of a value, those standing by its field's words first (stable otherwise): a year written
    twice is placed where "founded" stands, for a `founded_year`."""
    wanted = key_meaning(key)
    if not wanted or not mentioned(wanted, _lowered(text)):
        return places
    scored = [(-affinity(window_words(text, start, end), wanted), n) for n, (start, end, _) in enumerate(places)]
    return [places[n] for _, n in sorted(scored)]


def _is_line_time(value: str, context: str) -> bool:
    """A value that is the `[m:ss]` time of one of the transcript's lines, written with or without brackets."""
    bare = value.strip("[] ")
    return bool(re.fullmatch(r"\d{1,3}:\d{2}(?::\d{2})?", bare)) and f"\n[{bare}] " in f"\n{context}"


def _computed_from_leaves(value: Any, leaves: list[Leaf], containers: dict[str, Any]) -> bool:
    """A number that is the difference or sum of two other numbers of the answer, a share of one, or the length
    of one of its lists (a span of years, a total, a count): computed, not copied."""
    number = to_decimal(value) if not isinstance(value, str) else None
    if number is None:
        return False
    if any(isinstance(c, list) and len(c) == number for c in containers.values()):
        return True
    numbers = [d for leaf in leaves if (d := to_decimal(leaf.value) if not isinstance(leaf.value, str) else None)]
    numbers = [n for n in numbers if n != number][:40]
    step = precision_of(number)
    for i, first in enumerate(numbers):
        for second in numbers[i + 1 :]:
            if number in (abs(first - second), first + second):
                return True
            if (0 < first < 1 or 0 < second < 1) and abs(first * second - number) <= step / 2:
                return True  # a share of another amount: half (0.5) of a 1,240 fee is 620
            for top, bottom in ((first, second), (second, first)):
                if bottom and 0 < number < 1 and abs(top / bottom - number) <= step / 2:
                    return True  # a share: 93 of 98 is 0.95
    return False


_CONTENT_WORD = re.compile(r"[^\W_]{3,}")
_CLAUSE_STOP = {"the", "and", "for", "with", "from", "was", "were", "are", "has", "had", "its", "his", "her", "their"}


def _words_in_one_clause(value: Any, layout: Layout) -> bool:
    """A phrase of several words whose every content word stands in one sentence of the context (or within three
    lines of a transcript): a curator's rewording ("ambassador to Czechoslovakia" out of "ambassador to Ghana and
    to Czechoslovakia"), not an invention."""
    if not isinstance(value, str):
        return False
    words = {w.lower() for w in _CONTENT_WORD.findall(value)} - _CLAUSE_STOP
    if len(words) < 2 or len(words) > 12:
        return False
    rarest = max(words, key=len)
    text = layout.text
    lowered = _lowered(text)
    at = lowered.find(rarest)
    for _ in range(16):
        if at < 0:
            return False
        clause = layout.nearby_lines(at, 1) if layout.is_transcript else layout.sentence(at)
        found = {w.lower() for w in _CONTENT_WORD.findall(clause)}
        if words <= found or all(any(f.startswith(w[:5]) for f in found) for w in words):
            return True
        at = lowered.find(rarest, at + 1)
    return False


def _other_readings(value: Any, text: str, hint: FieldHint, stamped: str | None = None) -> list[tuple[int, int, str]]:
    """Places of a value written another way; only those with offsets (a reading without one, such as a name
    found without its diacritics, grounds the value through `is_grounded`'s forgiving search instead)."""
    number = to_decimal(value)
    found = number_places(number, text, hint, stamped) if number is not None else []
    if not found and isinstance(value, str):
        found = string_places(value, text)
    return [(start, end, "normalised") for start, end, _ in found if end > start][:MAX_OCCURRENCES]


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


# ---- tying values to their fields --------------------------------------------------------------------------


_ALIAS_KEYS = re.compile(
    r"role|title|position|office|post|alias|abbreviation|acronym|short|nickname|known_as|also_called|job", re.I
)


def _object_strings(leaves: list[Leaf]) -> dict[str, tuple[str, ...]]:
    """Other names each object's entity goes by: the values of its role and alias fields ("the treasurer",
    "KU"), which a text may use instead of the name."""
    found: dict[str, list[str]] = {}
    for leaf in leaves:
        value = leaf.value
        if isinstance(value, str) and leaf.key and _ALIAS_KEYS.search(leaf.key) and 2 <= len(value) <= 40:
            found.setdefault(leaf.parent, []).append(value)
    return {parent: tuple(values) for parent, values in found.items()}


def _anchors(by_path: dict[str, Leaf]) -> dict[str, Leaf | None]:
    """The anchor of every object holding leaves, found in one pass over the leaves (not one per leaf)."""
    children: dict[str, list[Leaf]] = {}
    for leaf in by_path.values():
        if isinstance(leaf.value, str) and leaf.key:
            children.setdefault(leaf.parent, []).append(leaf)
    return {parent: _anchor(parent, candidates) for parent, candidates in children.items()}


def _anchor(parent: str, candidates: list[Leaf]) -> Leaf | None:
    """The name-like leaf of an object (`name`, `title`, `*_name`, ...) among its keyed string leaves, if it
    has one. The root object is no entity: its fields often gather several (the film, its director, the city)."""
    if parent == "$":
        return None
    for key in ANCHOR_KEYS:
        for leaf in candidates:
            if leaf.key == key:
                return leaf
    for leaf in candidates:
        assert leaf.key is not None
        if leaf.key.endswith(("_name", "_title")):
            return leaf
    return None


def _near(layout: Layout, offset: int, anchor: str, also: tuple[str, ...] = ()) -> bool:
    """Is a place about the anchor? Its sentence (a transcript: nearby lines) names it, by name, by its initials
    or by another value of its object (a role: "the treasurer"); or the place's paragraph or section is headed by
    it (an article title, a markdown heading); or the sentence opens with a pronoun and the one before names it."""
    others = [a.lower() for a in also if len(a) >= 2]  # named in full: "Ynys Fach" is not "Ynys Bach"
    if layout.is_transcript:
        lines = layout.nearby_lines(offset)
        return _mentions(lines, anchor) or any(_whole_word_in(lines.lower(), other) for other in others)
    sentence = layout.sentence(offset)
    if _mentions(sentence, anchor) or _initials_in(sentence, anchor):
        return True
    if any(_whole_word_in(sentence.lower(), other) for other in others):
        return True
    if _mentions(layout.paragraph_head(offset), anchor) or _mentions(layout.heading(offset), anchor):
        return True
    if _PRONOUN_START.match(sentence.lstrip()):
        return _mentions(layout.sentence_before(offset), anchor)
    return False


_PRONOUN_START = re.compile(r"(?:he|she|it|they|his|her|its|their|this|the company|the band|the group)\b", re.I)


def _initials_in(text: str, name: str) -> bool:
    words = [w for w in re.split(r"[\s-]+", name) if w[:1].isupper()]
    if len(words) < 2:
        return False
    initials = "".join(w[0] for w in words)
    return bool(re.search(rf"\b{re.escape(initials)}\b", text))


def _locate(
    leaf: Leaf,
    ctx: NormalizedContext,
    layout: Layout,
    anchors: dict[str, Leaf | None],
    result: EvidenceResult,
    hint: FieldHint,
    also: tuple[str, ...] = (),
) -> tuple[int, int, str] | None:
    """The best place of a value without evidence: near its object's anchor, under its own label. A value not
    written as it is may be written another way (validation/readings/: a unit conversion, a decimal comma,
    a clock time, an abbreviation, ...)."""
    places = _occurrences(leaf.value, ctx) or _other_readings(leaf.value, ctx.raw, hint, ctx.original)
    if not places:
        return None
    if len(places) > 1 and leaf.key:
        places = _by_field_words(places, layout.text, leaf.key)
    anchor = anchors.get(leaf.parent)
    if anchor is None or anchor.path == leaf.path:
        return places[0]
    for place in places:
        if _near(layout, place[0], anchor.value, also):
            return place
    line_start, line_end = layout.line(places[0][0])
    in_row = layout.text[line_start:line_end].lstrip().startswith("|") or cell_header(layout.text, places[0][0])
    if _under_own_label(leaf, places[0][0], layout):
        return places[0]  # "CodeText:" above (or before) it: the page's layout ties it to its field
    if not _ONE_PAGE.search(layout.text) or in_row:  # a table's row names its own entity
        # Among paragraphs on several subjects, or speakers, a value far from its entity may be another's. On one
        # page (a form, an invoice, a paper: markdown headings or tables, as OCR writes them) the entity is the
        # page's subject and its values stand where the layout puts them.
        result.doubt(
            "value_not_near_entity",
            f"{_show(leaf.value)} is in the context, but never near {anchor.value!r}, the entity it is given for",
            leaf.path,
        )
    return places[0]


def _under_own_label(leaf: Leaf, start: int, layout: Layout) -> bool:
    """A value after a "Label:" naming its field, on its line or alone on the line above ("CodeText:" /
    "SE, whatever we've scraped")."""
    wanted = _words(leaf.key or "")
    line_start, line_end = layout.line(start)
    if not wanted or layout.is_transcript or layout.text[line_start:line_end].lstrip().startswith("|"):
        return False  # a column header names the field of every row: which row is the entity's is the question
    if _words(layout.label(start)) & wanted:
        return True
    if layout.text[line_start:start].strip():
        return False
    above = layout.text[: max(0, line_start - 1)].rstrip("\n ").rsplit("\n", 1)[-1].strip()
    return above.endswith(":") and len(above) <= 42 and bool(_words(above) & wanted)


_HTML_CELL = re.compile(r"<t[dh][^>]{0,40}>(.*?)</t[dh]>", re.IGNORECASE)
_ONE_PAGE = re.compile(r"^(?:#{1,6}\s|\s*\|)|<table", re.MULTILINE | re.IGNORECASE)


def _kind(value: Any) -> str:
    """A number, a date, a clock time or text: which fields could hold a value."""
    shape = shape_of(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "number"
    return {"year": "date", "name": "text", "phrase": "text"}.get(shape, shape)


def _better_place(leaf: Leaf, start: int, layout: Layout) -> bool:
    """Is the value also written (on the same line: a table row, a form line) under a label that names its field?
    A line item's amount equals its unit price when one is bought: the locator found the price first."""
    line_start, line_end = layout.line(start)
    wanted = _words(leaf.key or "")
    line = layout.text[line_start:line_end]
    number = to_decimal(leaf.value) if not isinstance(leaf.value, bool) else None
    written = places_of(leaf.value, line) or (number_places(number, line) if number is not None else [])
    for other, _, _ in written:  # "1.180,00 €" in both price columns is read as 1180 only another way
        if line_start + other != start and _words(layout.label(line_start + other)) & wanted:
            return True
    return False


def _check_fields(
    leaves: list[Leaf],
    spans: dict[str, tuple[int, int]],
    layout: Layout,
    anchors: dict[str, Leaf | None],
    result: EvidenceResult,
    explicit: set[str],
    object_strings: dict[str, tuple[str, ...]],
    hints: dict[str, FieldHint] | None = None,
) -> None:
    def described(leaf: Leaf) -> set[str]:
        return _words(hint_for(hints, leaf.path, leaf.key).description)

    by_parent: dict[str, list[Leaf]] = {}
    for leaf in leaves:
        if leaf.key and leaf.path in spans:
            by_parent.setdefault(leaf.parent, []).append(leaf)
    for parent, siblings in by_parent.items():
        anchor = anchors.get(parent)
        for leaf in siblings:
            start = spans[leaf.path][0]
            if (
                leaf.path in explicit
                and anchor is not None
                and anchor.path != leaf.path
                and not _near(
                    layout, start, anchor.value, tuple(v for v in object_strings.get(parent, ()) if v != leaf.value)
                )
            ):
                result.doubt(
                    "value_not_near_entity",
                    f"the evidence of {_show(leaf.value)} is not near {anchor.value!r}, the entity it is given for",
                    leaf.path,
                )
            label = _words(layout.label(start))
            if not label:
                continue
            if leaf.path not in explicit and _better_place(leaf, start, layout):
                continue  # located at the first of its places; another, under its own label, is the one meant
            own = len(_words(leaf.key or "") & label)
            # Only a sibling that could hold this value: "Total due" names no `due_date` for an amount.
            alike = [s for s in siblings if s is not leaf and _kind(s.value) == _kind(leaf.value)]
            rivals = [s.key for s in alike if len(_words(s.key or "") & label) > own]
            if not rivals and not own and not any(_words(s.key or "") & label for s in alike):
                # No key names the label ("Total due" for `net_eur`, `gross_eur`): their descriptions may.
                mine = len(described(leaf) & label)
                rivals = [s.key for s in alike if len(described(s) & label) > mine]
            if rivals and len(siblings) >= 2:
                result.doubt(
                    "value_in_wrong_field",
                    f"{_show(leaf.value)} stands under {layout.label(start).strip()[:40]!r}, "
                    f"which names {rivals[0]!r}, not {leaf.key!r}",
                    leaf.path,
                )
                continue
            column = layout.other_column_naming(start, _words(leaf.key or "")) if not own else None
            if column is not None:
                result.doubt(
                    "value_in_wrong_field",
                    f"{_show(leaf.value)} stands under {layout.label(start).strip()[:40]!r}, while the column "
                    f"{column!r} names {leaf.key!r}",
                    leaf.path,
                )
