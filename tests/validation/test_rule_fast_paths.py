"""The cheap tests that let a rule stop early decide exactly as the rule would: each is run against the rule's own
work on random text, and must both let through everything the rule could flag and stop some of what it cannot."""

from __future__ import annotations

import random
import re
from decimal import Decimal, InvalidOperation
from types import SimpleNamespace

import pytest

from validation import characters
from validation.evidence_places import _layout
from validation.field_rules.units import _SCALE_AFTER, _may_name_scale
from validation.neighbour_checks import check_corrected, may_be_corrected
from validation.readings.numbers import to_decimal

SCALE_PIECES = ["43", "78.7", "1,4", "5", " ", "  ", "\t", "million", "Million", "MILLION", "billions", "bn", "Mn",
                "thousand", "trillion", "M", "K", "B", "T", "k", "m", "b", "t", "x", ".", "-", "illion", "ſ", "\u212a",
                "é", "mi", "llion", "n"]  # fmt: skip


def _random_texts(seed: int, pieces: list[str], count: int, most: int) -> list[str]:
    """`count` texts of 1 to `most` pieces each, the same for a seed."""
    rng = random.Random(seed)
    return ["".join(rng.choices(pieces, k=rng.randint(1, most))) for _ in range(count)]


@pytest.mark.parametrize("seed", range(3))
def test_a_window_the_scale_gate_stops_holds_no_scale_the_pattern_finds(seed: int) -> None:
    stopped = 0
    for window in _random_texts(seed, SCALE_PIECES, 4000, 6):
        if not _may_name_scale(window):
            stopped += 1
            assert _SCALE_AFTER.search(window) is None, window
    assert stopped > 100  # the gate stops windows, or it saves nothing


def test_the_scale_gate_lets_every_scale_through() -> None:
    for window in ["43 million", "78.7M", "3.71T", "1.4 bn", "12 THOUSAND", "5,2 Billion", "7 mn", "9K"]:
        assert _may_name_scale(window) and _SCALE_AFTER.search(window), window
    assert not _may_name_scale("1850. It lies")


CORRECTION_PIECES = ["the price was", "12", "14", "4.3", "2.3", "sorry", "I mean", "i meant", "revised to", "but",
                     "not twelve but", "or rather", "updated", "wait no", "and", "members", ",", ".", "!", "\n",
                     "Sorry", "MEANT", "scratch that", "fourteen", "twelve"]  # fmt: skip
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _contexts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    contexts = []
    for n in range(count):
        words = [rng.choice(CORRECTION_PIECES) for _ in range(rng.randint(4, 40))]
        if n % 3 == 0:  # a meeting transcript: `[m:ss] SPEAKER: words` lines
            lines = [" ".join(words[i : i + 5]).replace("\n", " ") for i in range(0, len(words), 5)]
            contexts.append("\n".join(f"[0:{i:02d}] {'AB'[i % 2]}: {line}" for i, line in enumerate(lines)))
        else:
            contexts.append(" ".join(words))
    return contexts


@pytest.mark.parametrize("seed", range(3))
def test_a_figure_the_correction_gate_stops_is_corrected_under_no_limit(seed: int) -> None:
    rng = random.Random(seed)
    stopped = flagged = 0
    for context in _contexts(seed, 600):
        layout = _layout(context)
        for match in NUMBER.finditer(layout.text):
            place = match.span()
            leaf = SimpleNamespace(path="$.price", key="price", value=float(match.group()))
            for limit in (None, rng.randint(place[1], len(layout.text) + 5)):
                said: list[str] = []
                check_corrected(
                    leaf, Decimal(match.group()), place, layout, lambda *args, seen=said: seen.append(args[0]), limit
                )
                flagged += bool(said)
                if not may_be_corrected(place, layout):
                    stopped += 1
                    assert not said, (context, place, limit)
    assert stopped > 50 and flagged > 20  # both outcomes occur: the test can fail


DECIMAL_PIECES = ["1", "500", ",", ".", "-", "−", "–", " ", "0", "12", "x", "٣", "e5", "+"]


def _reference_decimal(value: str) -> Decimal | None:
    """to_decimal of a string as it was written before its answers were cached."""
    text = value.strip().replace(",", "").replace("−", "-").replace("–", "-")
    try:
        return Decimal(text) if re.fullmatch(r"-?\d+(\.\d+)?", text) else None
    except InvalidOperation:
        return None


@pytest.mark.parametrize("seed", range(2))
def test_a_cached_decimal_of_a_string_is_the_one_computed_afresh(seed: int) -> None:
    read = 0
    for value in _random_texts(seed, DECIMAL_PIECES, 3000, 5):
        expected = _reference_decimal(value)
        for _ in range(2):  # the first answer is cached, the second comes from the cache
            got = to_decimal(value)
            assert got == expected and str(got) == str(expected), value
        read += expected is not None
    assert read > 100


STRING_PIECES = ["a", "Z", "7", " ", "-", "\n", "\t", "\x00", "\u200b", "é", "е", "e\u0301", "~", "\x7f"]


def _json_value(rng: random.Random, depth: int = 0) -> object:
    kind = rng.random()
    if depth < 3 and kind < 0.3:
        return {"".join(rng.choices(STRING_PIECES, k=rng.randint(1, 3))): _json_value(rng, depth + 1) for _ in range(3)}
    if depth < 3 and kind < 0.45:
        return [_json_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if kind < 0.9:
        return "".join(rng.choices(STRING_PIECES, k=rng.randint(0, 6)))
    return rng.choice([1, 2.5, None, True])


@pytest.mark.parametrize("seed", range(3))
def test_a_value_of_plain_ascii_needs_no_normalising_and_hides_nothing(seed: int) -> None:
    rng = random.Random(seed)
    plain = 0
    for _ in range(3000):
        value = _json_value(rng)
        if characters.plain_ascii(value):
            plain += 1
            assert characters.normalised(value) == value and not list(characters.value_problems(value)), value
    assert 100 < plain < 2900  # both kinds occur: the test can fail
