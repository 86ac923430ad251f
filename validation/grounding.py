"""Is each ground-truth value found in the context? A signal for the judge and the curator, never a
rejection: answers may legitimately paraphrase, compute or count.

* Strings: found as whole words (not glued to letters or digits) in the context as written, else in the
  folded context (NFKC, casefold), else in the normalised context (also punctuation stripped, whitespace
  collapsed), else, for strings of 8 to 1,000 characters, by fuzzy match (`rapidfuzz.fuzz.partial_ratio`
  >= 90 on the normalised texts). Scripts written without spaces (CJK, Thai, ...) need no word boundary.
* Numbers (not booleans): found when a complete number of the context has the same value, written plain
  or comma-grouped: 1500 matches "1500" and "1,500"; 3.0 matches "3"; 45 matches "45%"; 208 does not
  match inside "4,208". The sign counts: -5 needs a minus sign ("-", "−", "–" or the word "minus") before
  the digits, 5 must not have one (a hyphen glued to a word or number, as in "1986-2013", is no sign).
* Transcript markup never grounds anything: the `[m:ss] SPEAKER:` prefix of every line of a meeting
  transcript is blanked (same length, so offsets hold) before any lookup, so the integers 0-59 of the
  timestamps and the speaker labels are not evidence.
* Booleans and nulls are not leaves: they cannot be looked up in text.

Speed: a context is prepared once (`normalize_context` caches recent ones; or pass a `NormalizedContext`)
and each form is built only when a value needs it, so records whose values are copied verbatim never pay
for normalising their context. Fuzzy matching scans the whole context only up to 100,000 characters;
above that it only looks at windows around exact hits of the string's longest words, so a 1 MB context
with 50 leaves stays well under a second.
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
# ASCII punctuation and symbols ("_" included) become spaces by a byte table on the UTF-8 text, several
# times faster than a regex; UTF-8 multi-byte sequences never contain ASCII bytes, so they are untouched.
_ASCII_PUNCTUATION = bytes(b for b in range(0x21, 0x7F) if not chr(b).isalnum())
_ASCII_SEPARATORS = bytes.maketrans(_ASCII_PUNCTUATION, b" " * len(_ASCII_PUNCTUATION))
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# Scripts written without spaces between words: whole-word matching does not apply to them.
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_NUMBER_TOKEN = re.compile(r"[0-9](?:[0-9.,]*[0-9])?")
_TRANSCRIPT_MARKUP = re.compile(r"^\[\d{1,3}:\d{2}(?::\d{2})?\] [^:\n]{1,64}: ", re.MULTILINE)
_MINUS_SIGNS = "-−–"
_NUMBER_VALUE = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?")


def fold(text: str) -> str:
    """NFKC and casefold: the light normalisation most verbatim values are found with."""
    text = unicodedata.normalize("NFKC", text)
    return text.lower() if text.isascii() else text.casefold()


def normalize_text(text: str) -> str:
    """Fold, join or split at punctuation, collapse whitespace."""
    return _normalize_folded(fold(text))


def _normalize_folded(text: str) -> str:
    text = _JOINERS.sub("", text)
    text = text.encode("utf-8", "surrogatepass").translate(_ASCII_SEPARATORS).decode("utf-8", "surrogatepass")
    if not text.isascii():
        odd = [c for c in set(_NON_ASCII.findall(text)) if not c.isalnum() and not c.isspace()]
        if len(odd) <= 16:
            for char in odd:  # dashes, curly quotes, ...: a few plain replaces beat a regex scan
                text = text.replace(char, " ")
        else:
            text = _separator_pattern(frozenset(odd)).sub(" ", text)
    return " ".join(text.split())


@lru_cache(maxsize=1024)
def _separator_pattern(chars: frozenset[str]) -> re.Pattern[str]:
    """A text's many distinct non-ASCII punctuation marks and symbols (found via its non-ASCII
    characters, because a `[^\\w\\s]` scan over every character is slow)."""
    return re.compile("[" + "".join(re.escape(c) for c in sorted(chars)) + "]+")


def _number_value(token: str) -> Decimal | None:
    """The value of a complete numeric token: plain ("1500", "2.5") or comma-grouped ("1,500");
    anything else ("1,2,3", "10,5", "1.2.3") is not one number."""
    return Decimal(token.replace(",", "")) if _NUMBER_VALUE.fullmatch(token) else None


def mask_markup(context: str) -> str:
    """The context with every transcript line prefix (`[m:ss] SPEAKER: `) blanked, offsets unchanged."""
    if "] " not in context:
        return context
    return _TRANSCRIPT_MARKUP.sub(lambda m: " " * len(m.group()), context)


def transcript_speakers(context: str) -> frozenset[str]:
    """The speaker labels of a meeting transcript (empty for any other context)."""
    return frozenset(m.group()[m.group().index("] ") + 2 : -2] for m in _TRANSCRIPT_MARKUP.finditer(context))


def is_negative_at(text: str, hit: int) -> bool:
    """Is the number starting at `hit` written with a minus sign (not a hyphen glued to a word or number)?"""
    if hit and text[hit - 1] in _MINUS_SIGNS:
        return hit < 2 or not text[hit - 2].isalnum()
    return text[max(0, hit - 6) : hit].lower() == "minus "


class NormalizedContext:
    """A context prepared for many lookups. Each form is built on first use: most values are copied
    verbatim and found in the raw text, so most records never pay for folding or normalising.
    `original` is the context as written; `raw` is it with transcript markup blanked (same offsets)."""

    def __init__(self, context: str) -> None:
        self.original = context
        self.raw = mask_markup(context)
        # Where each value is written (validation/evidence_places.py): the locator and the field rules ask for
        # the same values of a record several times.
        self.places: dict[tuple[type, str | int | float], list[tuple[int, int, str]]] = {}

    @cached_property
    def folded(self) -> str:
        return fold(self.raw)

    @cached_property
    def text(self) -> str:
        return _normalize_folded(self.folded)

    @cached_property
    def padded(self) -> str:
        return f" {self.text} "  # so " word " finds whole words only

    @cached_property
    def numbers(self) -> frozenset[Decimal]:
        """Every complete number written in the context, by signed value ("1,500" and "1500" are 1500)."""
        values = set()
        for match in _NUMBER_TOKEN.finditer(self.folded):
            value = _number_value(match.group())
            if value is not None:
                values.add(-value if is_negative_at(self.folded, match.start()) else value)
        return frozenset(values)


@lru_cache(maxsize=64)
def lowered_text(text: str) -> str:
    """The context in lower case, once per context: the locator and the field rules both search it."""
    return text.lower()


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
    """Found when some complete numeric token of the context has the same value and sign."""
    if isinstance(value, float) and not math.isfinite(value):
        return False
    number = Decimal(value) if isinstance(value, int) else Decimal(repr(value))
    found = _find_number(ctx.raw, number)
    if not found and not ctx.raw.isascii():
        found = _find_number(ctx.folded, number)  # fullwidth or other compatibility digits
    if found is None:
        return number in ctx.numbers  # a very frequent spelling: scan every number once instead
    return found


def _find_number(text: str, number: Decimal) -> bool | None:
    """Does a numeric token with this value occur? None when there were too many near misses to check.
    Such tokens start with the value's integer part, plain or grouped, so only those places are read."""
    negative = number < 0
    number = abs(number)
    whole = int(number)
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
                if number == 0 or is_negative_at(text, hit) == negative:
                    return True
        else:
            return None
    return False


def _string_grounded(value: str, ctx: NormalizedContext) -> bool:
    # Fast paths: the value as whole words of the raw context, then of the folded one (most values
    # are copied, so the context is rarely folded and more rarely normalised).
    stripped = value.strip()
    if stripped and _find_words(ctx.raw, stripped):
        return True
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


def longest_first(words: set[str] | frozenset[str]) -> list[str]:
    """A set's words, longest first and ties in alphabetical order: a set's own order follows the process's hash
    seed, and a rule that takes the first of them must take the same one in every run."""
    return sorted(words, key=lambda w: (-len(w), w))


def _fuzzy_grounded(needle: str, text: str) -> bool:
    if len(text) <= FULL_FUZZY_MAX_CHARS:
        return fuzz.partial_ratio(needle, text, score_cutoff=FUZZY_CUTOFF) >= FUZZY_CUTOFF
    # Large context: align only around exact hits of the needle's longest words. A string with a typo
    # in every long word is then missed; that is the price of a bounded cost.
    slack = len(needle) // 10 + 2
    words = longest_first({w for w in needle.split() if len(w) >= 3})[:ANCHOR_WORDS]
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
