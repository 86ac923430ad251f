"""The fast paths of validation/evidence.py find exactly what the regular expressions they replace find."""

from __future__ import annotations

import random
import re
from decimal import Decimal

import pytest

from validation import evidence_places as evidence

# Characters chosen to hit the edge cases: case, word boundaries ("_" is a word character), runs of
# whitespace of several kinds, digit groups, signs, and non-ASCII letters and digits (the regex path).
ALPHABET = "aAbBcC __-.,\t\n\x1c0123456789é٣"
REFERENCE_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def _texts(seed: int, count: int, longest: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, longest))) for _ in range(count)]


@pytest.mark.parametrize("seed", range(4))
def test_phrase_places_equal_the_phrase_pattern(seed: int) -> None:
    texts = _texts(seed, 400, 40)
    rng = random.Random(seed + 100)
    for text in texts:
        for _ in range(5):
            # a phrase cut from the text (so it is often found), or from another text
            source = text if rng.random() < 0.7 else rng.choice(texts)
            start = rng.randint(0, len(source))
            phrase = source[start : start + rng.randint(1, 8)].strip()
            if not phrase:
                continue
            if rng.random() < 0.3:
                phrase = phrase.swapcase()
            expected = [m.span() for m in evidence._phrase_pattern(phrase).finditer(text)][: evidence.MAX_OCCURRENCES]
            assert evidence._phrase_places(phrase, text) == expected, (phrase, text)


def test_phrase_places_stop_at_the_occurrence_limit() -> None:
    text = "Ab ab " * (evidence.MAX_OCCURRENCES + 10)
    assert len(evidence._phrase_places("ab", text)) == evidence.MAX_OCCURRENCES


@pytest.mark.parametrize("seed", range(4))
def test_whole_word_search_equals_the_regex(seed: int) -> None:
    rng = random.Random(seed)
    for text in _texts(seed, 2000, 30):
        needle = text[rng.randint(0, len(text)) :][: rng.randint(1, 5)] or "a"
        expected = re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", text) is not None
        assert evidence._whole_word_in(text, needle) == expected, (needle, text)


@pytest.mark.parametrize("seed", range(4))
def test_number_tokens_equal_the_reference_pattern(seed: int) -> None:
    for text in _texts(seed, 3000, 20):
        expected = [m.span() for m in REFERENCE_NUMBER.finditer(text)]
        found = (evidence._ASCII_NUMBER_TOKEN if text.isascii() else evidence._NUMBER_TOKEN).finditer(text)
        assert [m.span() for m in found] == expected, text
        assert [m.span() for m in evidence._NUMBER_TOKEN.finditer(text)] == expected, text


@pytest.mark.parametrize("seed", range(4))
def test_number_places_equal_the_whole_text_index(seed: int) -> None:
    rng = random.Random(seed)
    digits = "0012345,.,. -a%k"
    for _ in range(3000):
        text = "".join(rng.choice(digits) for _ in range(rng.randint(0, 24)))
        index = evidence._number_index.__wrapped__(text)
        wanted = [rng.choice(list(index))] if index and rng.random() < 0.6 else []
        wanted.append(Decimal(rng.choice(["0", "1", "5", "-5", "0.5", "12", "1500", "-0.0", "100"])))
        for number in wanted:
            assert evidence._number_places(text, number) == index.get(number, []), (text, number)


def test_number_places_of_non_finite_numbers_and_number_heavy_texts() -> None:
    assert evidence._number_places("inf nan 1", Decimal("Infinity")) == []
    text = " ".join(["7"] * (evidence.MAX_NUMBER_RUNS + 50)) + " 7,000"
    assert evidence._number_places(text, Decimal(7)) == evidence._number_index(text)[Decimal(7)]
    assert evidence._number_places(text, Decimal(7000)) == [(len(text) - 5, len(text))]


def test_number_places_find_both_spellings_of_large_numbers_in_one_scan() -> None:
    # Plain and grouped spellings, inside larger numbers, glued to letters, signed, at the text's edges.
    text = "1500 1,500. 21,500 1,5001 11500 x1500 1500b -1,500 1,500,000 1500.5 12,345,678 2345678 1,500"
    for number in ("1500", "-1500", "1500000", "1500.5", "12345678", "2345678", "500", "5001", "21500"):
        expected = evidence._number_index.__wrapped__(text).get(Decimal(number), [])
        assert evidence._number_places(text, Decimal(number)) == expected, number
    assert len(evidence._number_places(text, Decimal(1500))) == 4


LABEL_ALPHABET = "aB :::  \t\u2003/&()-x|"  # label characters, colons and several kinds of whitespace
REFERENCE_LABEL = re.compile(r"([A-Za-z][A-Za-z /&()-]{0,40}):\s*$")


@pytest.mark.parametrize("seed", range(4))
def test_a_label_is_the_one_the_pattern_finds_on_the_whole_line(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(3000):
        junk = "".join(rng.choice(LABEL_ALPHABET) for _ in range(rng.randint(0, 60)))
        label = "".join(rng.choice("aB /&()-x") for _ in range(rng.randint(0, 50)))  # up to past the limit
        line = junk + label + rng.choice([":", ":", ""]) + rng.choice(["", " ", "\t ", "\u2003"]) + " 1951"
        if line.lstrip().startswith("|"):
            continue  # a table row: its label is the column header, not this pattern
        layout = evidence.Layout(evidence.normalize_context(line))
        match = REFERENCE_LABEL.search(line[: len(line) - 4])
        assert layout.label(len(line) - 4) == (match.group(1) if match else ""), line


def test_a_values_places_are_found_once_per_context_and_each_caller_gets_its_own_list(monkeypatch) -> None:
    from validation.grounding import NormalizedContext

    calls: list[object] = []
    find = evidence._find_occurrences
    monkeypatch.setattr(evidence, "_find_occurrences", lambda value, ctx: calls.append(value) or find(value, ctx))
    ctx = NormalizedContext("Built in 1931, the dam is 221 m high; in 1931 it was the highest.")
    first = evidence._occurrences(1931, ctx)
    assert [ctx.raw[s:e] for s, e, _ in first] == ["1931", "1931"]
    first.clear()  # a caller's change to its list is its own
    assert evidence._occurrences(1931, ctx) == find(1931, ctx)
    assert evidence._occurrences(1931.0, ctx) == find(1931.0, ctx)  # a float is its own key
    assert calls == [1931, 1931.0]
