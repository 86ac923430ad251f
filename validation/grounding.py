"""Is each ground-truth value found in the context? A signal for the judge and the curator, never a
rejection: answers may legitimately paraphrase, compute or count.

* Strings are compared after normalisation (NFKC, casefold, punctuation stripped, whitespace collapsed):
  first as a whole-word substring, then (for strings of 8 to 1,000 characters) by fuzzy match,
  `rapidfuzz.fuzz.partial_ratio` >= 90.
* Numbers (not booleans) are found as written or formatted: 1500 matches "1500" and "1,500"; 3.0 matches
  "3"; 45 matches "45%". The sign is ignored (contexts write minus signs many ways).
* Booleans and nulls are not leaves: they cannot be looked up in text.

Speed: the context is normalised once (`normalize_context`, cached for the last few contexts, or pass a
`NormalizedContext`). Fuzzy matching scans the whole context only up to 100,000 characters; above that
it only looks at windows around exact hits of the string's longest words, so a 1 MB context with 50
leaves stays within tens of milliseconds.
"""

from __future__ import annotations

import math
import re
import unicodedata
from decimal import Decimal
from functools import cached_property, lru_cache
from typing import Any

from rapidfuzz import fuzz

from core.verdicts import GroundingInfo
from validation import paths

FUZZY_CUTOFF = 90.0
FUZZY_MIN_CHARS = 8  # shorter strings match inside other words ("art" in "party"): exact only
FUZZY_MAX_CHARS = 1000
FULL_FUZZY_MAX_CHARS = 100_000
ANCHOR_WORDS = 2  # longest words of a string used as anchors in large contexts
MAX_ANCHOR_HITS = 64  # windows examined per anchor word
MAX_FIND_HITS = 256  # occurrences examined by a plain `find` loop before a slower complete method

# Apostrophes, periods and commas inside a word or number join it ("U.S." -> "us", "1,500" -> "1500",
# "Wood's" -> "woods"); any other punctuation separates words ("comedy-drama" -> "comedy drama").
# (The punctuation is matched first and its neighbours checked after: much faster than a lookbehind
# tried at every position.)
_JOINERS = re.compile(r"['’ʼ.,](?<=\w.)(?=\w)")
_ASCII_SEPARATORS = re.compile(r"[!-/:-@\[-`{-~]+")  # ASCII punctuation and symbols, "_" included
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# Scripts written without spaces between words: whole-word matching does not apply to them.
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_NUMBER_TOKEN = re.compile(r"[0-9](?:[0-9.,]*[0-9])?")
_NUMBER_VALUE = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?")


def fold(text: str) -> str:
    """NFKC and casefold: the light normalisation most verbatim values are found with."""
    text = unicodedata.normalize("NFKC", text)
    return text.lower() if text.isascii() else text.casefold()


def normalize_text(text: str) -> str:
    """Fold, join or split at punctuation, collapse whitespace."""
    text = _JOINERS.sub("", fold(text))
    text = _ASCII_SEPARATORS.sub(" ", text)
    if not text.isascii():
        odd = frozenset(c for c in set(_NON_ASCII.findall(text)) if not c.isalnum() and not c.isspace())
        if odd:
            text = _separator_pattern(odd).sub(" ", text)
    return " ".join(text.split())


@lru_cache(maxsize=1024)
def _separator_pattern(chars: frozenset[str]) -> re.Pattern[str]:
    """Non-ASCII punctuation and symbols (dashes, curly quotes, ...) of one text: found via the few
    non-ASCII characters it has, because a `[^\\w\\s]` scan over every character is slow."""
    return re.compile("[" + "".join(re.escape(c) for c in sorted(chars)) + "]+")


def _number_value(token: str) -> Decimal | None:
    """The value of a complete numeric token: plain ("1500", "2.5") or comma-grouped ("1,500");
    anything else ("1,2,3", "10,5", "1.2.3") is not one number."""
    return Decimal(token.replace(",", "")) if _NUMBER_VALUE.fullmatch(token) else None


class NormalizedContext:
    """A context prepared once for many lookups; the heavier forms are built only when needed."""

    def __init__(self, context: str) -> None:
        self.folded = fold(context)

    @cached_property
    def text(self) -> str:
        return normalize_text(self.folded)

    @cached_property
    def padded(self) -> str:
        return f" {self.text} "  # so " word " finds whole words only

    @cached_property
    def numbers(self) -> frozenset[Decimal]:
        """Every complete number written in the context, by value ("1,500" and "1500" are 1500)."""
        values = (_number_value(token) for token in _NUMBER_TOKEN.findall(self.folded))
        return frozenset(v for v in values if v is not None)


def normalize_context(context: str) -> NormalizedContext:
    """Cached: records written about the same source item share its context. Large contexts get a
    cache of their own, so a few of them cannot hold much memory or evict the many small ones."""
    return _normalize_large(context) if len(context) > FULL_FUZZY_MAX_CHARS else _normalize_small(context)


@lru_cache(maxsize=256)
def _normalize_small(context: str) -> NormalizedContext:
    return NormalizedContext(context)


@lru_cache(maxsize=2)
def _normalize_large(context: str) -> NormalizedContext:
    return NormalizedContext(context)


def iter_leaves(ground_truth: Any) -> list[tuple[str, str | int | float]]:
    """(path, value) of every string and number in document order; booleans and nulls are skipped.
    Iterative, so deeply nested data cannot hit the recursion limit."""
    leaves: list[tuple[str, str | int | float]] = []
    stack: list[tuple[str, Any]] = [("$", ground_truth)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((paths.child(path, str(k)), v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((paths.index(path, i), v) for i, v in reversed(list(enumerate(value))))
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            leaves.append((path, value))
    return leaves


def check_grounding(ground_truth: Any, context: str | NormalizedContext) -> GroundingInfo:
    ctx = context if isinstance(context, NormalizedContext) else normalize_context(context)
    leaves = iter_leaves(ground_truth)
    seen: dict[Any, bool] = {}  # repeated values are looked up once
    ungrounded = []
    for path, value in leaves:
        memo_key: Any = (type(value), value)
        found = seen.get(memo_key)
        if found is None:
            found = seen[memo_key] = is_grounded(value, ctx)
        if not found:
            ungrounded.append(path)
    grounded = len(leaves) - len(ungrounded)
    return GroundingInfo(
        leaves=len(leaves),
        grounded=grounded,
        fraction=grounded / len(leaves) if leaves else 1.0,
        ungrounded_paths=ungrounded,
    )


def is_grounded(value: str | int | float, ctx: NormalizedContext) -> bool:
    if isinstance(value, str):
        return _string_grounded(value, ctx)
    return _number_grounded(value, ctx)


def _number_grounded(value: int | float, ctx: NormalizedContext) -> bool:
    """Found when some complete numeric token of the context has the same value (sign ignored)."""
    if isinstance(value, float) and not math.isfinite(value):
        return False
    number = Decimal(abs(value)) if isinstance(value, int) else Decimal(repr(abs(value)))
    whole = int(number)
    text = ctx.folded
    # Tokens with this value start with its integer part, plain or grouped: look there first.
    for spelling in {str(whole), f"{whole:,}"}:
        start = 0
        for _ in range(MAX_FIND_HITS):
            hit = text.find(spelling, start)
            if hit < 0:
                break
            start = hit + 1
            if hit and (text[hit - 1].isdigit() or (text[hit - 1] in ".," and text[hit - 2 : hit - 1].isdigit())):
                continue  # inside a longer number
            token = _NUMBER_TOKEN.match(text, hit)
            if token is not None and _number_value(token.group()) == number:
                return True
        else:
            return number in ctx.numbers  # a very frequent spelling: scan every number once instead
    return False


def _string_grounded(value: str, ctx: NormalizedContext) -> bool:
    # Fast path: the folded value as whole words of the folded context (most values are copied).
    folded = fold(value).strip()
    if folded and _find_words(ctx.folded, folded):
        return True
    needle = normalize_text(value)
    if not needle:
        return False  # empty or punctuation only: nothing that could be found
    if f" {needle} " in ctx.padded:
        return True
    if _UNSPACED.search(needle) and needle in ctx.text:
        return True
    if FUZZY_MIN_CHARS <= len(needle) <= FUZZY_MAX_CHARS:
        return _fuzzy_grounded(needle, ctx.text)
    return False


def _find_words(text: str, needle: str) -> bool:
    """`needle` occurs in `text` not glued to letters or digits on either side (scripts without spaces
    need no boundary). Gives up after many near misses: the normalised search follows anyway."""
    if _UNSPACED.search(needle):
        return needle in text
    check_before, check_after = needle[0].isalnum(), needle[-1].isalnum()
    start = 0
    for _ in range(MAX_FIND_HITS):
        hit = text.find(needle, start)
        if hit < 0:
            return False
        end = hit + len(needle)
        if (not check_before or hit == 0 or not text[hit - 1].isalnum()) and (
            not check_after or end == len(text) or not text[end].isalnum()
        ):
            return True
        start = hit + 1
    return False


def _fuzzy_grounded(needle: str, text: str) -> bool:
    if len(text) <= FULL_FUZZY_MAX_CHARS:
        return fuzz.partial_ratio(needle, text, score_cutoff=FUZZY_CUTOFF) >= FUZZY_CUTOFF
    # Large context: align only around exact hits of the needle's longest words. A string with a typo
    # in every long word is then missed; that is the price of a bounded cost.
    slack = len(needle) // 10 + 2
    words = sorted({w for w in needle.split() if len(w) >= 3}, key=len, reverse=True)[:ANCHOR_WORDS]
    for word in words:
        offset = needle.find(word)
        start = 0
        for _ in range(MAX_ANCHOR_HITS):
            hit = text.find(word, start)
            if hit < 0:
                break
            low = max(0, hit - offset - slack)
            window = text[low : hit - offset + len(needle) + slack]
            if fuzz.partial_ratio(needle, window, score_cutoff=FUZZY_CUTOFF) >= FUZZY_CUTOFF:
                return True
            start = hit + 1
    return False
