"""`value_from_other_entity` of another article and `speaker_mismatch` on the question's topic: a value read beside the
article or the meeting talk it belongs to."""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from typing import Any

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


@lru_cache(maxsize=4096)
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
