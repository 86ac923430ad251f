"""What the field checks share: a field's words and the words a text uses for them, the words around a place, a
value's shape, and the shapes of leaves and layouts they read."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any, Protocol

from validation.grounding import longest_first
from validation.readings.fields import FieldHint, field_words
from validation.readings.numbers import to_decimal

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


def mentioned(field: frozenset[str] | set[str], lowered_text: str) -> bool:
    """Does any of the field's words occur in the (lower-cased) text at all? When none does, no place of the
    text stands by them, and the checks that look for them can stop at once."""
    for word in field:  # a loop, not `any(...)`: asked a dozen times per record, mostly of short word sets
        if len(word) >= 3 and word in lowered_text:
            return True
    return False


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


def _field_places(words: set[str], text: str) -> list[int]:
    """Offsets where the field's distinctive words stand in the text."""
    places = []
    for word in longest_first(words):
        if len(word) < 3 or word in _GENERIC:
            continue
        for match in re.finditer(rf"\b{re.escape(word)}", text, re.IGNORECASE):
            places.append(match.start())
            if len(places) >= 8:
                return places
    return places


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


_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?")


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
