"""`boolean_against_text`: a boolean the words around its field deny or affirm."""

from __future__ import annotations

import re

from validation.field_rules.words import (
    _AFFIRMATIONS,
    _GENERIC,
    _NEGATIONS,
    Doubt,
    LayoutLike,
    LeafLike,
    _around,
    _clause,
    _field_places,
    key_meaning,
)
from validation.readings.fields import FieldHint


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
        headings = [h for h in dict.fromkeys(heading(offset) for offset in offsets[:4]) if h]  # in text order
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
