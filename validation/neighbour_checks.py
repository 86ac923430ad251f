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
* `value_in_wrong_field`: a value under a document label that names its field less than another label does.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from decimal import Decimal
from functools import lru_cache
from typing import Any

from validation.readings.numbers import number_mentions, to_decimal

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
    lowered = region.lower()
    if not any(word in lowered for word in _CORRECTION_HINTS):
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


# ---- lists that leave out an item of the run they were taken from ----------------------------------------

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


# ---- a value from the article of another entity -------------------------------------------------------------

_TITLE_LINE = re.compile(r"[^\n]{1,90}")
MIN_ARTICLES = 3  # a context of titled paragraphs (HotpotQA's) has several


@lru_cache(maxsize=64)
def articles(text: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, title) of each paragraph of a context made of titled paragraphs (a short first line without
    a full stop, then the body), or [] for any other context."""
    found: list[tuple[int, int, str]] = []
    start = 0
    while start < len(text):
        end = text.find("\n\n", start)
        end = len(text) if end < 0 else end
        head_end = text.find("\n", start, end)
        title = text[start:head_end].strip() if head_end > 0 else ""
        if not title or len(title.split()) > 12 or title.endswith((".", ":")) or head_end + 1 >= end:
            return ()
        found.append((start, end, title))
        start = end + 2
    return tuple(found) if len(found) >= MIN_ARTICLES else ()


def _title_name(title: str) -> str:
    """ "Madonna (book)" is about Madonna; a quoted title is its words."""
    return re.sub(r"\s*\([^)]*\)\s*$", "", title).strip().strip("\"'“”").lower()


def _named_by_surname(title: str, question: str, path: str) -> bool:
    """A person's article named by the last word of its title, in the question or in the field's own key
    ("Mozart" and `mozart_birth_date` for the article "Wolfgang Amadeus Mozart")."""
    words = title.split()
    if len(words) < 2 or len(words[-1]) < 4 or not words[-1].isalpha():
        return False
    key_words = set(re.split(r"[^a-z]+", path.lower()))
    return words[-1] in key_words or _names(question, words[-1])


def _names(text: str, needle: str) -> bool:
    return bool(needle) and re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", text) is not None


def check_other_article(
    leaves: list[Any],
    spans: dict[str, tuple[int, int]],
    text: str,
    question: str,
    find: Any,
    hint_of: Any,
    doubt: Any,
) -> None:
    """A value found only in articles that neither the question, nor any other value of the answer, nor the
    articles the answer's other values come from speak of: another entity's value ("published by Egmont USA" in
    the article of another author, given as the publisher of the series asked about)."""
    if len(spans) < 2 or not any(isinstance(leaf.value, str) and leaf.path in spans for leaf in leaves):
        return
    parts = articles(text)
    if not parts:
        return
    starts = [start for start, _, _ in parts]

    def article_of(offset: int) -> int:
        number = bisect_right(starts, offset) - 1
        return number if number >= 0 and offset < parts[number][1] + 2 else -1

    asked = question.lower()
    strings = [(leaf.path, str(leaf.value).lower()) for leaf in leaves if isinstance(leaf.value, str)]
    where = {path: article_of(start) for path, (start, _) in spans.items()}
    for leaf in leaves:
        if leaf.path not in spans or not isinstance(leaf.value, str) or len(leaf.value.strip()) < 3:
            continue  # a name or a phrase: a small number is written in many articles, meaning other things
        own = where[leaf.path]
        title = _title_name(parts[own][2])
        home = {n for p, n in where.items() if p != leaf.path and n >= 0}
        if not home or own in home or not title or _names(asked, title) or _named_by_surname(title, asked, leaf.path):
            continue  # another value of the answer comes from the same article, or the question names it
        if any(_names(value, title) or _names(title, value) for path, value in strings if path != leaf.path):
            continue  # the answer names the article's entity: it is one of the record's
        body = text[parts[own][0] : parts[own][1]].lower()
        if any(len(value) >= 4 and _speaks_of(body, value) for path, value in strings if path != leaf.path):
            continue  # the article speaks of one of the answer's other values
        if any(_names(text[parts[n][0] : parts[n][1]].lower(), title) for n in home):
            continue  # an article the answer draws on leads to this one (a bridge entity)
        if any(_names(body, name) for name in _question_names(question)):
            continue  # the article speaks of what the question asks about (the captain's article of the Titanic)
        places = find(leaf.value, hint_of(leaf)) or [spans[leaf.path]]
        found_in = {article_of(start) for start, _ in places} | {own}
        value = leaf.value.lower().strip()
        if found_in & home or any(_about(parts[n][2], value) for n in found_in if n >= 0):
            continue  # also written where the answer's other values are, or in its own article (a bridge entity)
        doubt(
            "value_from_other_entity",
            f"{_value(leaf.value)} is found only in the article {parts[own][2]!r}, which neither the question nor "
            "the answer's other values are about",
            leaf.path,
        )


_QUESTION_NAME = re.compile(r"(?<!^)(?<![.?!] )\b[A-Z][\w'’&-]+(?:\s+(?:of|the|de|and)?\s*[A-Z][\w'’&-]+)*")


def _question_names(question: str) -> list[str]:
    """The (lower-cased) proper names a question uses: its capitalised runs, not the first word."""
    return [m.group().lower() for m in _QUESTION_NAME.finditer(question.strip()) if len(m.group()) >= 4]


def _speaks_of(body: str, value: str) -> bool:
    """Does a (lower-cased) article name a value, in full or, for a name of three words or more, by its last two
    ("Erskine Childers" for "Robert Erskine Childers")?"""
    if _names(body, value):
        return True
    words = value.split()
    return len(words) >= 3 and _names(body, " ".join(words[-2:]))


def _about(title: str, value: str) -> bool:
    """Is the article titled `title` the value's own ("Asgard (yacht)" for "Asgard")?"""
    name = _title_name(title)
    return _names(value, name) or _names(name, value)


def _value(value: Any) -> str:
    return repr(value) if not isinstance(value, str) or len(value) < 60 else repr(value[:57] + "...")


# ---- who said it: a speaker field against the utterances that say what the question asks about ---------------

_LINE = re.compile(r"^\[[\d:]+\] ([^:\n]{1,64}): (.*)$", re.MULTILINE)
_CLAUSES = re.compile(r"[?.;]|,\s*(?:and\s+)?|\s+and\s+(?=who|what|which|how|when|where|did|does|is|was)", re.I)
_QUESTION_STOP = frozenset(
    """who what which when where how why whom whose did does do is was were are the a an of to in on for and or
    by with it its it's this that these those give also say speaker label id meeting person someone one said
    says told about their there then than from at as be been being has have had would could should will can
    much many them they he she his her we our you your us me my i""".split()
)
MIN_TOPIC_WORDS = 2


def _stem(word: str) -> str:
    return word.lower().strip("'’")[:5]


def _topic(question: str, key_words: frozenset[str]) -> set[str]:
    """The content words (stems) of the question's clause that asks for this speaker: the clause with the
    field's verb ("proposed"), else the one that asks "who"."""
    clauses = [c for c in _CLAUSES.split(question) if c and c.strip()]
    verbs = {_stem(w) for w in key_words if len(w) >= 5}
    chosen = [c for c in clauses if {_stem(w) for w in re.findall(r"[A-Za-z']+", c)} & verbs]
    chosen = chosen or [c for c in clauses if re.search(r"\bwho\b", c, re.I)]
    if len(chosen) != 1:
        return set()
    words = {w for w in re.findall(r"[A-Za-z][A-Za-z'’-]+", chosen[0].replace("-", " "))}
    return {_stem(w) for w in words if w.lower() not in _QUESTION_STOP and len(w) >= 3} - verbs


def check_speaker_topic(
    path: str, speaker: str, key_words: frozenset[str], question: str, original: str, doubt: Any
) -> None:
    """A speaker field (`proposed_by`) names someone who never says what the question asks about, while another
    speaker's utterance holds most of its words ("WE COULD TAKE OUT ONES BY MAKING IT SINGLE CURVED" for "who
    proposed making the case single-curved"): the one who asked about it or answered next is credited."""
    topic = _topic(question, key_words)
    if len(topic) < MIN_TOPIC_WORDS:
        return
    best: dict[str, int] = {}
    for match in _LINE.finditer(original):
        said = {_stem(w) for w in re.findall(r"[A-Za-z][A-Za-z'’]+", match.group(2))}
        score = len(topic & said)
        who = match.group(1).strip()
        best[who] = max(best.get(who, 0), score)
    if speaker not in best:
        return
    top = max(best.values())
    leaders = sorted(who for who, score in best.items() if score == top)
    if top >= max(MIN_TOPIC_WORDS, (len(topic) + 1) // 2) and best[speaker] < top and speaker not in leaders:
        doubt(
            "speaker_mismatch",
            f"{speaker} says less of what the question asks about ({', '.join(sorted(topic))}) than "
            f"{' or '.join(leaders)}, who says it",
            path,
        )


# ---- a year or number from the phrase of another event ------------------------------------------------------

# Events a field's key can name, by the words (stems) a text writes them with. A value standing by the words of
# another event, and not of its own, is most likely that other event's ("set in 1912" for a publication year).
_EVENTS: dict[str, tuple[str, ...]] = {
    "publication": ("publish", "publicat"),
    "setting": ("is set", "was set", "takes place", "took place", "set in"),
    "birth": ("born", "birth"),
    "death": ("died", "death", "dies"),
    "founding": ("founded", "founding", "establish", "formed", "first given", "inaugurat", "incorporat"),
    "opening": ("opened", "opening", "opens"),
    "completion": ("complet", "built", "construct", "finished"),
    "release": ("released", "release", "premiere", "aired", "debut"),
    "award": ("won", "wins", "award", "prize won"),
}
_KEY_EVENTS: dict[str, str] = {
    "published": "publication", "publication": "publication", "publish": "publication", "born": "birth",
    "birth": "birth", "died": "death", "death": "death", "founded": "founding", "founding": "founding",
    "established": "founding", "formed": "founding", "formation": "founding", "opened": "opening",
    "opening": "opening", "completed": "completion", "completion": "completion", "built": "completion",
    "released": "release", "release": "release", "premiere": "release", "premiered": "release",
}  # fmt: skip
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


def _window(text: str, start: int, end: int) -> str:
    """The words around a value in its own clause: up to 60 characters before it, back to the last comma or full
    stop, and to the next comma or full stop after it."""
    head = text[max(0, start - 60) : start]
    cuts = [m.end() for m in re.finditer(r"[.;!?,]\s|\n", head)]
    head = head[cuts[-1] :] if cuts else head
    tail = text[end : end + 40]
    stop = _CLAUSE_BREAK.search(tail)
    return (head + " " + (tail[: stop.start()] if stop else tail)).lower()


def check_other_event(key_words: frozenset[str], leaf: Any, place: tuple[int, int], text: str, doubt: Any) -> None:
    """A value whose field names an event (`publication_year`) standing by the words of another event and none of
    its own ("set in a shipyard in 1912"); or a field of now (`current_members`) whose value stands by "originally"
    (or the other way round)."""
    wanted = {_KEY_EVENTS[w] for w in key_words if w in _KEY_EVENTS}
    now, before = bool(key_words & _NOW_SET), bool(key_words & _BEFORE_SET)
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


# ---- a number that labels another named item ("book #23, "The Pretender"") ----------------------------------

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


# ---- a row number taken as a count ------------------------------------------------------------------------------

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


# ---- two values paired with the wrong entity across objects -----------------------------------------------------

PAIRING_RATIO = 0.6  # crossed pairs this much closer in the text than the pairs given: likely swapped


def _objects(leaves: list[Any], spans: dict[str, tuple[int, int]]) -> list[list[dict[str, Any]]]:
    """Groups of objects with the same fields: the objects of one array or one parent, and the root's fields
    grouped by their first word (`offered_name`, `offered_held_at` / `sought_name`, `sought_held_at`). Each
    object maps a field to its leaf; only located leaves count."""
    by_parent: dict[str, dict[str, Any]] = {}
    roots: dict[str, dict[str, Any]] = {}
    for leaf in leaves:
        if not leaf.key or leaf.path not in spans or isinstance(leaf.value, bool):
            continue
        if leaf.parent == "$":
            head, _, rest = leaf.key.partition("_")
            if rest:
                roots.setdefault(head, {})[rest] = leaf
        else:
            by_parent.setdefault(leaf.parent, {})[leaf.key] = leaf
    groups: dict[str, list[dict[str, Any]]] = {}
    for parent, fields in by_parent.items():
        container = re.sub(r"(\[\d+\]|\.[^.\[]+)$", "", parent)  # `$.a[0]` and `$.a[1]`, `$.x.p` and `$.x.q`
        groups.setdefault(container, []).append(fields)
    groups["$ by prefix"] = list(roots.values())
    return [objects for objects in groups.values() if len(objects) >= 2]


def check_cross_pairing(
    leaves: list[Any], spans: dict[str, tuple[int, int]], doubt: Any, on_line_of: Any = None
) -> None:
    """Two objects of one kind whose values of two fields are each written next to the other object's value: the
    offered prisoner's name beside the place where the other one is held. The pairs given are far apart in the
    text and the crossed pairs close: the values are likely swapped between the objects."""
    for objects in _objects(leaves, spans):
        for i, first in enumerate(objects):
            for second in objects[i + 1 :]:
                keys = sorted(set(first) & set(second))
                for n, key_a in enumerate(keys):
                    for key_b in keys[n + 1 :]:
                        a1, b1, a2, b2 = first[key_a], first[key_b], second[key_a], second[key_b]
                        if a1.value == a2.value or b1.value == b2.value:
                            continue
                        given = _gap(spans[a1.path], spans[b1.path]) + _gap(spans[a2.path], spans[b2.path])
                        crossed = _gap(spans[a1.path], spans[b2.path]) + _gap(spans[a2.path], spans[b1.path])
                        if crossed < PAIRING_RATIO * given:
                            if on_line_of is not None and on_line_of(b1, a1) and on_line_of(b2, a2):
                                continue  # each also written on its own object's line: a small number found first
                            message = (
                                f"{_value(b1.value)} and {_value(b2.value)} are each written beside the other "
                                f"object's {key_a!r} ({_value(a2.value)}, {_value(a1.value)}): swapped between objects?"
                            )
                            doubt("possible_swap", message, b1.path)
                            doubt("possible_swap", message, b2.path)
                            return


def _gap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, max(a[0], b[0]) - min(a[1], b[1]))


# ---- a comparison answered against the answer's own values -------------------------------------------------------

_HIGHER = {"younger", "later", "latest", "longer", "longest", "larger", "largest", "bigger", "biggest", "taller",
           "tallest", "higher", "highest", "more", "most", "greater", "greatest", "newer", "newest"}  # fmt: skip
_LOWER = {"older", "oldest", "earlier", "earliest", "first", "shorter", "shortest", "smaller", "smallest",
          "lower", "lowest", "fewer", "fewest", "less", "least"}  # fmt: skip
_TIME_COMPARATIVES = {"younger", "older", "youngest", "oldest", "earlier", "earliest", "later", "latest", "first",
                      "last", "newer", "newest", "born", "before", "after"}  # fmt: skip
_DATE_WORDS = {"birth", "born", "date", "year", "founded", "formed", "published", "released", "opened", "dob"}
_ISO = re.compile(r"\d{4}(?:-\d{2}(?:-\d{2})?)?")


def _order_value(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip() if _ISO.fullmatch(value.strip()) else None
    return to_decimal(value)


def _comparison(key_words: frozenset[str]) -> str | None:
    """'max' or 'min': which of the compared values the field's comparative picks (for birth dates or years,
    the younger is the later one)."""
    if key_words & _HIGHER:
        return "max"
    if key_words & _LOWER:
        return "min"
    return None


def _split_key(key: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1_\2", key).lower()) if w]


def check_comparison(leaves: list[Any], words_of: Any, doubt: Any) -> None:
    """A comparative field (`younger`, `born_first`, `longer`) naming one of two entities while the answer's own
    values of the two (`annie_morton_birth_year` 1970, `terry_richardson_birth_year` 1965) say the other: the
    answer contradicts itself. The two values are fields that end alike (`_birth_year`) and begin with a word of
    each entity's name."""
    root = [leaf for leaf in leaves if leaf.parent == "$" and leaf.key]
    ordered = [(leaf, _order_value(leaf.value)) for leaf in root if not isinstance(leaf.value, bool)]
    ordered = [(leaf, order) for leaf, order in ordered if order is not None]
    for leaf in root:
        picks = _comparison(words_of(leaf.key)) if isinstance(leaf.value, str) else None
        named = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", leaf.value)} if picks else set()
        if not named:
            continue
        key_words = words_of(leaf.key)
        for i, (x, x_order) in enumerate(ordered):
            for y, y_order in ordered[i + 1 :]:
                if type(x_order) is not type(y_order) or x_order == y_order:
                    continue  # a date and a number do not compare
                wx, wy = _split_key(x.key), _split_key(y.key)
                size = 0
                while size < min(len(wx), len(wy)) - 1 and wx[-1 - size] == wy[-1 - size]:
                    size += 1
                if not size:
                    continue
                attribute = set(wx[-size:])
                mine = [bool(set(wx[:-size]) & named), bool(set(wy[:-size]) & named)]
                if mine.count(True) != 1:
                    continue
                if bool(key_words & _TIME_COMPARATIVES) != bool(attribute & (_DATE_WORDS | {"age"})):
                    continue  # "longer" compares lengths, not years; "earlier" compares dates, not lengths
                if attribute & {"death", "died"} and key_words & {"born", "birth", "older", "younger", "oldest"}:
                    continue  # death years say nothing of who was born first
                direction = picks
                if "age" in attribute and key_words & {"younger", "older", "youngest", "oldest"}:
                    direction = "min" if picks == "max" else "max"  # the younger has the lower age
                values = [x_order, y_order]
                winner = (max if direction == "max" else min)(range(2), key=lambda n: values[n])
                if not mine[winner]:
                    doubt(
                        "comparison_against_values",
                        f"{leaf.value!r} is given as {leaf.key!r}, but the answer's own values say the other: "
                        f"{x.key} {x_order}, {y.key} {y_order}",
                        leaf.path,
                    )
                    return


# ---- a value under a label that names another field than the one another label names -----------------------------

_LINE_LABEL = re.compile(r"^[ \t*#>-]*([A-Z][A-Za-z /&()-]{1,40}):", re.MULTILINE)
_NAME_KEYS = {"name", "person", "full_name", "title"}


def _label_stems(text: str) -> set[str]:
    return {w.lower()[:5] for w in re.findall(r"[A-Za-z]{2,}", text) if w.lower() not in _QUESTION_STOP}


def _field_name(leaf: Any) -> str | None:
    """The name a value's field goes by: its key, or for an array's item (or an item's `name`) the array's key."""
    if leaf.key and leaf.key not in _NAME_KEYS:
        return leaf.key
    match = re.search(r"\.([^.\[]+)\[\d+\](?:\.[^.\[]+)?$", leaf.path)
    return match.group(1) if match else leaf.key


@lru_cache(maxsize=64)
def _labels_of(text: str) -> frozenset[str]:
    """The "Label:" words that open the lines of a document."""
    return frozenset(m.group(1).strip() for m in _LINE_LABEL.finditer(text))


def check_labels(leaves: list[Any], spans: dict[str, tuple[int, int]], layout: Any, doubt: Any) -> None:
    """A value written after a label ("Co-Authors: Russell Bennett") that names its field less than another label
    of the document does ("Presenting Author:" for `presenter`): it is likely taken from the neighbouring field."""
    labels: frozenset[str] | None = None  # read only once a value is found under a label: most are not
    for leaf in leaves:
        if leaf.path not in spans or not isinstance(leaf.value, str):
            continue
        label = layout.label(spans[leaf.path][0]).strip()
        name = _field_name(leaf) if label else None
        if not name:
            continue
        labels = _labels_of(layout.text) if labels is None else labels
        if len(labels) < 2 or label not in labels:
            continue
        wanted = _label_stems(name.replace("_", " "))
        here = len(wanted & _label_stems(label))
        best = max(labels - {label}, key=lambda other: len(wanted & _label_stems(other)))
        if len(wanted & _label_stems(best)) > here:
            doubt(
                "value_in_wrong_field",
                f"{_value(leaf.value)} stands under {label!r}, while the label {best!r} names {name!r}",
                leaf.path,
            )
