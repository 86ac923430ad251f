"""Where a value stands in a context: the leaves of a ground truth, the context's layout (lines, sentences, labels),
and every place a value is written verbatim, as a number or as a phrase."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache
from typing import Any, NamedTuple

from validation import paths
from validation.grounding import NormalizedContext, is_grounded, is_negative_at, normalize_context
from validation.grounding import lowered_text as _lowered
from validation.normalise import matches_normalised, number_readings, same_number
from validation.readings.dates import date_places

MAX_OCCURRENCES = 64


MAX_NUMBER_RUNS = 256  # runs of digits scanned for one value before scanning every number of the text once


_RUN_CHARS = frozenset("0123456789.,")


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


class Layout:
    """Where a span sits: its line, sentence and paragraph, and the table cell it falls in."""

    def __init__(self, ctx: NormalizedContext) -> None:
        self.text = ctx.raw  # markup blanked, offsets as in the original
        self.original = ctx.original
        self.is_transcript = ctx.raw != ctx.original
        self._sentences: dict[int, list[str]] = {}  # a line's start -> its sentences

    def line(self, offset: int) -> tuple[int, int]:
        start = self.text.rfind("\n", 0, offset) + 1
        end = self.text.find("\n", offset)
        return start, len(self.text) if end < 0 else end

    def sentence(self, offset: int) -> str:
        start, end = self.line(offset)
        pieces = self._sentences.get(start)
        if pieces is None:  # a line's sentences are split once: several values of a record stand in one line
            pieces = self._sentences[start] = _SENTENCE_END.split(self.text[start:end])
        position = 0
        for piece in pieces:
            if position + len(piece) >= offset - start:
                return piece
            position += len(piece) + 1
        return self.text[start:end]

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


_PLACES_KEPT = 512  # values whose places one context keeps: a record has tens, a shared context a few records'


def _occurrences(value: Any, ctx: NormalizedContext) -> list[tuple[int, int, str]]:
    """(start, end, kind) of the value's places in the context, outside transcript markup; each value is looked
    up once per context (a new list each time: callers may change theirs)."""
    if not isinstance(value, str | int | float):
        return _find_occurrences(value, ctx)
    key = (type(value), value)
    places = ctx.places.get(key)
    if places is None:
        if len(ctx.places) >= _PLACES_KEPT:
            ctx.places.clear()
        places = ctx.places[key] = _find_occurrences(value, ctx)
    return list(places)


def _find_occurrences(value: Any, ctx: NormalizedContext) -> list[tuple[int, int, str]]:
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


_HTML_CELL = re.compile(r"<t[dh][^>]{0,40}>(.*?)</t[dh]>", re.IGNORECASE)
