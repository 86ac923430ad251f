"""What the heuristic judge's rules share: an answer's leaves, text normalised for comparison, the numbers and words
in a text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from validation.grounding import normalize_text
from validation.number_words import spelled_number
from validation.readings import conversion_supports
from validation.readings.fields import field_hint

YES = {"yes", "true", "y"}


NO = {"no", "false", "n"}


GENERIC_NAMES = {"answer", "value", "result", "data", "output", "field", "info", "response", "text"}


# Words that carry no answer: back-channels of meetings, hedges.
FILLERS = {
    "yeah", "yes", "yep", "okay", "ok", "um", "uh", "mm", "hmm", "mm-hmm", "mmhmm", "right", "so", "well", "oh", "ah",
    "no", "sure", "alright", "like", "i", "you", "the", "a", "and", "n/a", "na", "none", "unknown", "null", "-",
}  # fmt: skip


_STOP = {
    "the", "a", "an", "of", "in", "on", "at", "to", "for", "and", "or", "is", "are", "was", "were", "be", "by", "with",
    "from", "as", "what", "which", "who", "whom", "whose", "when", "where", "how", "did", "do", "does", "that", "this",
    "both", "same", "their", "its", "his", "her", "it", "they", "many", "much",
}  # fmt: skip


_YES_NO_START = re.compile(r"^(are|is|was|were|do|does|did|can|could|has|have|had|will|would|should)\b", re.IGNORECASE)


_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


_ENTITY = re.compile(r"\"[^\"]+\"|“[^”]+”|(?:[A-Z][\w'’.-]*|\d+)(?:\s+(?:of|the|de|von|N|&)?\s*[A-Z][\w'’.-]*)*")


_TRANSCRIPT_LINE = re.compile(r"^\[[\d:]+\] [^:]+: (.*)$")


_NUMBER_STRING = re.compile(r"-?\d[\d,]*(\.\d+)?")


_KEY_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


_PATH_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


COPY_MIN_CHARS = 200  # a string this long that is most of the context is a copy, not an answer


def normalize(text: str) -> str:
    """The same normalisation as the grounding check, so both agree on what matches. Cached: a record's
    values, question and context are normalised several times over (a long text only in a tiny cache)."""
    return _normalize_short(text) if len(text) <= SHORT_TEXT_CHARS else _normalize_long(text)


SHORT_TEXT_CHARS = 1000


@lru_cache(maxsize=8192)
def _normalize_short(text: str) -> str:
    return normalize_text(text)


@lru_cache(maxsize=4)
def _normalize_long(text: str) -> str:
    return normalize_text(text)


Leaf = tuple[str, Any]  # (JSON path, scalar value)


def leaves(value: Any, path: str = "$") -> Iterator[Leaf]:
    yield from leaf_list(value, path)


def leaf_list(value: Any, path: str = "$") -> list[Leaf]:
    """Every (path, scalar) of a value in document order, as a list: the judge walks a ground truth once per
    record and hands the list to each check (a recursive generator per check was a third of its time)."""
    found: list[Leaf] = []
    _collect(value, path, found)
    return found


def _collect(value: Any, path: str, found: list[Leaf]) -> None:
    if isinstance(value, dict):
        for key, child in value.items():
            _collect(child, f"{path}.{key}", found)
    elif isinstance(value, list):
        for i, child in enumerate(value):
            _collect(child, f"{path}[{i}]", found)
    else:
        found.append((path, value))


def _content_words(text: str) -> list[str]:
    return [w for w in normalize(text).split() if w not in _STOP]


def _spelled(text: str) -> list[float]:
    """A seed answer that is a number in words ("seven", "twelve and a half")."""
    value = spelled_number(text) if text.strip() and len(text.split()) <= 6 else None
    return [float(value)] if value is not None else []


def _converted_at(answer: str, values: list[tuple[str, Any]]) -> str | None:
    """The path of a number whose field names a unit that the seed answer's quantity converts to ("11.6
    kilometres" as `length_miles` 7.2), if one does."""
    for path, leaf in values:
        if isinstance(leaf, int | float) and not isinstance(leaf, bool):
            key = re.sub(r"\[\d+\]", "", path).rsplit(".", 1)[-1]
            unit = field_hint(key).unit
            if unit and conversion_supports(leaf, answer, None, unit):
                return path
    return None


def _numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in _NUMBER.findall(text) if any(c.isdigit() for c in n)]


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _NUMBER_STRING.fullmatch(value.strip()):
        return float(value.strip().replace(",", ""))
    return None


def _value_at(ground_truth: Any, path: str) -> Any:
    node = ground_truth
    for key, index in _PATH_STEP.findall(path):
        try:
            node = node[int(index)] if index else node[key]
        except (KeyError, IndexError, TypeError):
            return None
    return node
