"""Does a value's neighbourhood in the context, or the rest of the answer, say it is the wrong one? Checks that
read what stands next to a located value, each a doubt (the gate flags it, a person decides), never a rejection:

* `corrected_value`: a figure the speaker or the text corrects right after ("two point three ... I mean four
  point three", "12, sorry, 14", "revised to 14"): the value kept is the one taken back.
* `list_missing_item`: a list whose items the context enumerates in one run ("the battery, the case, the colour
  and the buttons and then the price") with another item of that run left out.
* `value_from_other_entity`: a value found only in a titled paragraph (a HotpotQA article) that neither the
  question, nor the answer's other values, nor the articles they come from speak of; or a number written as the
  label of another named item ("book #23, "The Pretender"") given for a different entity.
* `speaker_mismatch`: a meeting's speaker field naming someone who says less of what the question asks about
  than another speaker.
* `value_from_other_phrase`: a year or number standing by the words of another event than its field's ("set in
  1912" for a publication year), or by "originally" for a current value.
* `number_from_other_phrase`: a count that is the label of a table row numbered in sequence.
* `possible_swap`: two objects' values each written beside the other object's entity (cross-object pairing).
* `comparison_against_values`: a comparative field (`younger`, `born_first`, `longer`) that the answer's own two
  values contradict.
* `value_in_wrong_field`: a value under a document label that names its field less than another label does."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache
from typing import Any

from validation.neighbour_articles import _EVENTS, _KEY_EVENTS, _value
from validation.readings.numbers import number_mentions

# Words that take back what was just said and put another figure in its place.
_CORRECTION = re.compile(
    r"\b(?:sorry|i mean|i meant|no wait|wait no|or rather|correction|make that|oh right|oops|my mistake|"
    r"scratch that|my maths|my math|i was wrong|not \w+ but|revised|corrected|amended|restated|updated)\b",
    re.IGNORECASE,
)


# A substring of every correction word above: regions without any skip the regular expression.
_CORRECTION_HINTS = ("sorry", "mean", "wait", "rather", "correct", "make that", "oh right", "oops", "mistake",
                     "scratch", "math", "wrong", " but", "revised", "amended", "restated", "updated")  # fmt: skip


_DIGITS = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?")


CORRECTION_LINES = 12  # transcript lines after a figure in which a correction of it is looked for


_NEXT_LINES = 2  # lines after a correction word in which the figure it gives is looked for


def _numbers_in(text: str) -> list[tuple[int, Decimal]]:
    """(offset, value) of every number of a short text, in digits or in words."""
    found = [(m.start(), Decimal(m.group().replace(",", ""))) for m in _DIGITS.finditer(text)]
    found += [(start, value) for start, _, value, _ in number_mentions(text)]
    return sorted(found, key=lambda item: item[0])


def _rival(value: Decimal, other: Decimal) -> bool:
    """Another figure for the same thing: not the value, of its magnitude, and of its kind (a whole number for a
    whole number, a fraction for a fraction)."""
    if other == value or other == 0 or value == 0:
        return False
    if (other == int(other)) != (value == int(value)):
        return False
    return abs(other - value) <= Decimal("0.5") * max(abs(value), abs(other))


def _lines_after(layout: Any, offset: int, count: int) -> tuple[int, int]:
    """From `offset` to the end of the `count`-th line after its own."""
    _, end = layout.line(offset)
    for _ in range(count):
        if end >= len(layout.text) - 1:
            break
        _, end = layout.line(end + 1)
    return offset, end


_SENTENCE_STOP = re.compile(r"[.!?](?:\s|$)|\n")


def _region_after(layout: Any, end: int) -> tuple[int, int]:
    """Where a correction of the figure ending at `end` would stand: the next lines of a transcript; the rest of
    the sentence and the next one in prose."""
    if layout.is_transcript:
        return _lines_after(layout, end, CORRECTION_LINES)
    text = layout.text
    stop = end
    for _ in range(2):
        found = _SENTENCE_STOP.search(text, stop + 1)
        stop = found.end() if found else len(text)
    return end, stop


def _has_correction_hint(region: str) -> bool:
    lowered = region.lower()
    return any(word in lowered for word in _CORRECTION_HINTS)


def may_be_corrected(place: tuple[int, int], layout: Any) -> bool:
    """Does a correction word stand anywhere a correction of the figure at `place` could (`check_corrected`
    without a limit)? When it does not, `check_corrected` finds nothing there under any limit: a limit only
    shortens the region."""
    start, stop = _region_after(layout, place[1])
    return _has_correction_hint(layout.text[start:stop])


def check_corrected(
    leaf: Any, value: Decimal, place: tuple[int, int], layout: Any, doubt: Any, limit: int | None = None
) -> None:
    """A figure followed, within a few lines (and before `limit`), by a correction word and another figure of its
    kind, with the value not said again after it."""
    text = layout.text
    start, stop = _region_after(layout, place[1])
    if limit is not None:
        stop = max(start, min(stop, limit))
    region = text[start:stop]
    if not _has_correction_hint(region):
        return  # no correction word near: most figures, settled by a few substring searches
    for marker in _CORRECTION.finditer(region):
        at = start + marker.start()
        window_end = _lines_after(layout, at, _NEXT_LINES)[1] if layout.is_transcript else min(stop, at + 120)
        # A figure said just before the correction word ("FOUR POINT THREE / NO / SORRY") is the correction too.
        window_start = max(place[1], layout.line(at)[0] - 1 if layout.is_transcript else at - 40)
        if layout.is_transcript:
            window_start = max(place[1], layout.line(max(0, layout.line(at)[0] - 1))[0])
        numbers = _numbers_in(text[window_start:window_end])
        rivals = [(window_start + offset, number) for offset, number in numbers if _rival(value, number)]
        if not rivals:
            continue
        last_at, rival = rivals[-1]
        again = [n for o, n in _numbers_in(text[last_at:stop]) if n == value]
        if again:
            continue  # the value is said again after the other figure: it stands
        doubt(
            "corrected_value",
            f"{_show(value)} is corrected right after: {marker.group()!r} and then {_show(rival)} "
            f"({' '.join(text[max(place[0], at - 40) : window_end].split())[:120]!r})",
            leaf.path,
        )
        return


def _show(number: Decimal) -> str:
    return format(number.normalize(), "f")


_GLUE = {"and", "or", "then", "the", "a", "an", "also", "plus", "as", "well", "finally", "lastly", "nor", "with"}


_RUN_BREAK = re.compile(r"[.!?:;()\[\]]")


_EXCLUDING = re.compile(
    r"\b(?:except|other than|besides|apart from|excluding|not counting|but not|without|only the|which of|not the|"
    r"not including|aside from)\b",
    re.IGNORECASE,
)


_WORDS = re.compile(r"[^\W\d_][\w'’-]*")


MAX_SKIPPED_WORDS = 4  # an item of an enumeration is a few words


_SEPARATOR = r"(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+)(?:(?:then|the|a|an|also|finally|lastly)\s+)*"


_MIDDLE = re.compile(rf"{_SEPARATOR}(?P<item>[^,;:.!?()\n]{{1,60}}?){_SEPARATOR}", re.IGNORECASE)


_TAIL = re.compile(rf"{_SEPARATOR}(?P<item>[^,;:.!?()\n]{{1,60}}?)(?=\s*(?:[,;:.!?()\n]|$))", re.IGNORECASE)


_VERB_AFTER = re.compile(r"\s*(?:is|are|was|were|will|would|has|have|had|can|could)\b", re.IGNORECASE)


def _is_capitalised(text: str) -> bool:
    return text.strip().lstrip("\"'“‘")[:1].isupper()


def _content(gap: str) -> list[str]:
    """The words of a gap between two items that are no glue ("and then the")."""
    return [w for w in _WORDS.findall(gap) if w.lower() not in _GLUE]


def check_list_gaps(
    path: str, items: list[Any], spans: dict[str, tuple[int, int]], layout: Any, question: str, doubt: Any
) -> None:
    """The items of a list of strings, where they stand in one sentence (a transcript: one line): a chunk of a
    few words between two of them, or right after the last behind "and"/a comma, that no item covers, is an item
    left out. Not raised when the question asks for a part of the list ("except", "other than")."""
    places = sorted(spans[p] for p in items if p in spans)
    if len(places) < 2 or len(places) != len(items) or _EXCLUDING.search(question):
        return
    text = layout.text
    first, last = places[0], places[-1]
    line_start, line_end = layout.line(first[0])
    if last[1] > line_end or _RUN_BREAK.search(text, first[1], last[0]):
        return  # not one run of one sentence or line
    capitalised = all(_is_capitalised(text[s:e]) for s, e in places) and not text[line_start:line_end].isupper()
    skipped: list[str] = []
    for (_, end), (start, _) in zip(places, places[1:], strict=False):
        middle = _MIDDLE.fullmatch(text[end:start])
        if middle:
            skipped.append(middle.group("item"))
    tail = _TAIL.match(text, last[1], min(line_end, last[1] + 80))
    if tail and not _VERB_AFTER.match(text, tail.end()):
        skipped.append(tail.group("item"))
    skipped = [
        " ".join(s.split()) for s in skipped
        if 1 <= len(_content(s)) <= MAX_SKIPPED_WORDS and (not capitalised or _is_capitalised(_content(s)[0]))
    ]  # fmt: skip
    question_words = {w.lower() for w in _WORDS.findall(question)}
    skipped = [s for s in skipped if not {w.lower() for w in s.split()} <= question_words]
    if skipped:
        doubt(
            "list_missing_item",
            f"the list is taken from one enumeration of the context, which also names {skipped[0]!r}: "
            f"{' '.join(text[first[0] : min(line_end, last[1] + 40)].split())[:120]!r}",
            path,
        )


_NOW = ("current", "currently", "now", "present", "today", "still")


_BEFORE = ("originally", "original", "formerly", "former", "previously", "initially", "at first", "founding")


_NOW_SET, _BEFORE_SET = frozenset(_NOW), frozenset(_BEFORE)


_STEM_EVENT = {stem: event for event, stems in _EVENTS.items() for stem in stems}


# Every event's stems in one pattern, longest first: a window is scanned once for all of them.
_ANY_EVENT = re.compile(
    r"(?<![\w-])(?:" + "|".join(re.escape(s) for s in sorted(_STEM_EVENT, key=len, reverse=True)) + ")"
)


_CLAUSE_BREAK = re.compile(r"[.;!?\n]|,\s")


@lru_cache(maxsize=64)
def _stems_pattern(stems: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(stem) for stem in stems) + ")")


def _has(window: str, stems: tuple[str, ...]) -> str | None:
    """The first of the stems the (lower-cased) window writes as the start of a word ("Norwegian-born" is no
    birth), or None."""
    found = _stems_pattern(stems).search(window)
    return found.group() if found else None


_CLAUSE_CUT = re.compile(r"[.;!?,]\s|\n")


def _window(text: str, start: int, end: int) -> str:
    """The words around a value in its own clause: up to 60 characters before it, back to the last comma or full
    stop, and to the next comma or full stop after it."""
    head = text[max(0, start - 60) : start]
    cuts = [m.end() for m in _CLAUSE_CUT.finditer(head)]
    head = head[cuts[-1] :] if cuts else head
    tail = text[end : end + 40]
    stop = _CLAUSE_BREAK.search(tail)
    return (head + " " + (tail[: stop.start()] if stop else tail)).lower()


@lru_cache(maxsize=4096)
def _key_times(key_words: frozenset[str]) -> tuple[frozenset[str], bool, bool]:
    """The events a field's words name, and whether they name now or before: once per key."""
    wanted = frozenset(_KEY_EVENTS[w] for w in key_words if w in _KEY_EVENTS)
    return wanted, bool(key_words & _NOW_SET), bool(key_words & _BEFORE_SET)


def check_other_event(key_words: frozenset[str], leaf: Any, place: tuple[int, int], text: str, doubt: Any) -> None:
    """A value whose field names an event (`publication_year`) standing by the words of another event and none of
    its own ("set in a shipyard in 1912"); or a field of now (`current_members`) whose value stands by "originally"
    (or the other way round)."""
    wanted, now, before = _key_times(key_words)
    if not wanted and now == before:
        return  # the field names no event and no time: most fields, settled by two set lookups
    window = _window(text, *place)
    if wanted:
        written = {_STEM_EVENT[m.group()] for m in _ANY_EVENT.finditer(window)}
        if written and not written & wanted:
            other = sorted(written)[0]
            doubt(
                "value_from_other_phrase",
                f"{_value(leaf.value)} stands by the words of another event ({_has(window, _EVENTS[other])!r}: "
                f"{' '.join(window.split())[:90]!r}), not of the {sorted(wanted)[0]} {leaf.key!r} asks for",
                leaf.path,
            )
            return
    if now != before:
        said_now, said_before = _has(window, _NOW), _has(window, _BEFORE)
        against = said_before if now and not said_now else said_now if before and not said_before else None
        if against:
            doubt(
                "value_from_other_phrase",
                f"{_value(leaf.value)} stands by {against!r} ({' '.join(window.split())[:90]!r}), but "
                f"{leaf.key!r} asks for the {'current' if now else 'original'} value",
                leaf.path,
            )


_LABEL_NUMBER = re.compile(r"(?:#|\bno\.\s?|\bnumber\s)$", re.IGNORECASE)


_NAMED_AFTER = re.compile(r"\s*[,:]?\s*[\"“']?((?:[A-Z0-9][\w'’&-]*\s?){1,6})")


_NUMBER_WORDS = frozenset({"number", "num", "no", "count", "index", "rank", "position", "id"})


def check_number_label(
    leaf: Any, place: tuple[int, int], text: str, siblings: dict[str, Any], words_of: Any, doubt: Any
) -> None:
    """A number written as the label of a named item ("#23, "The Pretender"") given as the number of the
    sibling entity its field is named after (`companion_book_number` beside `companion_book`), which is another
    item: the number belongs to the item it labels."""
    start, end = place
    if not _LABEL_NUMBER.search(text[max(0, start - 8) : start]) or not leaf.key:
        return
    named = _NAMED_AFTER.match(text, end)
    if named is None:
        return
    label = named.group(1).strip().lower()
    own = set(words_of(leaf.key)) - _NUMBER_WORDS
    for key, value in siblings.items():
        if key == leaf.key or not isinstance(value, str) or len(value) < 3:
            continue
        if set(words_of(key)) and set(words_of(key)) <= own:  # `companion_book` for `companion_book_number`
            entity = value.strip().lower()
            if entity not in label and label not in entity:
                doubt(
                    "value_from_other_entity",
                    f"{_value(leaf.value)} labels {named.group(1).strip()!r} ({text[start - 1 : named.end()]!r}), "
                    f"not {value!r}, the {key!r} it is given for",
                    leaf.path,
                )
            return


_ROW_LABEL = re.compile(r"\s*\|\s*(\d{1,4})\s*\|")  # matched at a line's start


def _row_labels(text: str, line_start: int) -> list[int]:
    """The numbers in the first cells of the table block holding the line at `line_start`, in order."""
    start = text.rfind("\n\n", 0, line_start)
    start = 0 if start < 0 else start + 2
    end = text.find("\n\n", line_start)
    end = len(text) if end < 0 else end
    labels = []
    for line in text[start:end].split("\n"):
        found = _ROW_LABEL.match(line)
        if found:
            labels.append(int(found.group(1)))
    return labels


def check_row_number(leaf: Any, is_count: bool, place: tuple[int, int], layout: Any, doubt: Any) -> None:
    """A count whose number is the label in the first cell of a table row numbered in sequence ("| 34 | ..." among
    rows 25 to 34): it numbers a row, it counts nothing. Not raised when the rows are numbered from 1 and the count
    is the last label (then the two agree)."""
    if not is_count or not isinstance(leaf.value, int) or isinstance(leaf.value, bool):
        return
    text = layout.text
    line_start, _ = layout.line(place[0])
    found = _ROW_LABEL.match(text, line_start)
    if found is None or found.start(1) != place[0]:
        return
    labels = _row_labels(text, line_start)
    if len(labels) < 2 or labels != sorted(labels) or (labels[0] == 1 and leaf.value == len(labels)):
        return
    doubt(
        "number_from_other_phrase",
        f"{leaf.value!r} is the label of a table row (rows numbered {labels[0]} to {labels[-1]}): it numbers a row, "
        "it counts nothing",
        leaf.path,
    )
