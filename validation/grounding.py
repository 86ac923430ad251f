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
from decimal import Decimal, InvalidOperation
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

# Apostrophes, periods and commas inside a word or number join it ("U.S." -> "us", "1,500" -> "1500",
# "Wood's" -> "woods"); any other punctuation separates words ("comedy-drama" -> "comedy drama").
_JOINERS = re.compile(r"(?<=\w)['’ʼ.,](?=\w)")
_SEPARATORS = re.compile(r"(?:[^\w\s]|_)+")
# Scripts written without spaces between words: whole-word matching does not apply to them.
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_NUMBER = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?")


def normalize_text(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _JOINERS.sub("", text)
    text = _SEPARATORS.sub(" ", text)
    return " ".join(text.split())


class NormalizedContext:
    """A context prepared once for many lookups: normalised text and (lazily) the numbers it contains."""

    def __init__(self, context: str) -> None:
        self.nfkc = unicodedata.normalize("NFKC", context)
        self.text = normalize_text(self.nfkc)
        self.padded = f" {self.text} "  # so " word " finds whole words only

    @cached_property
    def numbers(self) -> frozenset[Decimal]:
        """Every number written in the context, by value ("1,500" and "1500" are both 1500)."""
        return frozenset(Decimal(m.replace(",", "")) for m in _NUMBER.findall(self.nfkc))


@lru_cache(maxsize=8)
def normalize_context(context: str) -> NormalizedContext:
    """Cached: records written about the same source item share its context."""
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
    if isinstance(value, float) and not math.isfinite(value):
        return False
    try:
        number = Decimal(abs(value)) if isinstance(value, int) else Decimal(repr(abs(value)))
    except InvalidOperation:
        return False
    return number in ctx.numbers


def _string_grounded(value: str, ctx: NormalizedContext) -> bool:
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
