"""Grounding on real HotpotQA contexts: strings and numbers found in the context, after normalisation."""

from __future__ import annotations

import random
import string
from typing import Any

import pytest

from validation.grounding import NormalizedContext, check_grounding, normalize_context, normalize_text

KANSAS_CITY_ID = "5a7166395542994082a3e814"  # population "4,208", enrollment "16,600", "2,340,000"
FISHING_LAKE_ID = "5a75e05c55429976ec32bc5f"  # answer "9,984"; "62 acres (0.25 km²)"; "12.5 years"


@pytest.fixture(scope="module")
def kansas_city(hotpot_contexts: dict[str, str]) -> str:
    return hotpot_contexts[KANSAS_CITY_ID]


def test_ground_truth_copied_from_the_context_is_fully_grounded(
    good_ground_truth: dict[str, Any], ed_wood_context: str
) -> None:
    info = check_grounding(good_ground_truth, ed_wood_context)
    # 8 strings and 1 number; null is no leaf
    assert (info.leaves, info.grounded, info.fraction, info.ungrounded_paths) == (9, 9, 1.0, [])


def test_invented_values_are_reported_by_path(good_ground_truth: dict[str, Any], ed_wood_context: str) -> None:
    good_ground_truth["director"] = "Steven Spielberg"
    good_ground_truth["cast"][1]["character"] = "Captain Nemo"
    good_ground_truth["release_year"] = 2003
    info = check_grounding(good_ground_truth, ed_wood_context)
    assert info.ungrounded_paths == ["$.release_year", "$.director", "$.cast[1].character"]
    assert (info.leaves, info.grounded) == (9, 6)
    assert info.fraction == pytest.approx(6 / 9)


def test_normalisation_case_punctuation_whitespace_and_unicode(ed_wood_context: str) -> None:
    values = {
        "upper": "TIM BURTON",
        "quotes": "“The Exorcism of Emily Rose”",  # written with straight quotes in the context
        "spaces": "  Deliver   Us From Evil ",
        "dash": "Little Rock – North Little Rock",  # written "Little Rock–North Little Rock"
        "fullwidth": "Ｊｏｈｎｎｙ Ｄｅｐｐ",  # NFKC folds fullwidth letters
        "possessive": "Woods life",  # "Wood's life": an apostrophe inside a word joins it
    }
    assert check_grounding(values, ed_wood_context).ungrounded_paths == []


def test_whole_words_only_for_short_strings(ed_wood_context: str) -> None:
    # "Wood" is in the context, "Woo" only inside words; too short for fuzzy matching.
    assert check_grounding({"a": "Wood", "b": "Woo"}, ed_wood_context).ungrounded_paths == ["$.b"]


def test_fuzzy_match_tolerates_a_typo(ed_wood_context: str) -> None:
    info = check_grounding(
        {"a": "Scott Derickson", "b": "Patricia Arquete", "c": "Totally Different Person"}, ed_wood_context
    )
    assert info.ungrounded_paths == ["$.c"]


def test_numbers_formatted_with_commas(kansas_city: str) -> None:
    assert "4,208" in kansas_city and "16,600" in kansas_city
    ground_truth = {
        "population_2010": 4208,
        "enrollment": 16600.0,
        "metro_population": 2340000,
        "population_as_text": "4,208",
        "census_year": 2010,
        "invented": 4209,
        "part_of_a_longer_number": 208,  # only inside "4,208"
        "flag": True,  # booleans are not leaves
    }
    info = check_grounding(ground_truth, kansas_city)
    assert info.leaves == 7
    assert info.ungrounded_paths == ["$.invented", "$.part_of_a_longer_number"]


def test_number_forms(hotpot_contexts: dict[str, str]) -> None:
    context = hotpot_contexts[FISHING_LAKE_ID]
    ground_truth = {"population": 9984, "acres": 62.0, "km2": 0.25, "years": 12.5, "depth": -13, "nan": float("nan")}
    # The context writes 13 without a minus sign: -13 is not what it says.
    assert check_grounding(ground_truth, context).ungrounded_paths == ["$.depth", "$.nan"]
    assert check_grounding({"t": -5, "u": 5}, "Lows of -5 C.").ungrounded_paths == ["$.u"]
    assert check_grounding({"t": -5}, "It fell to minus 5 degrees.").ungrounded_paths == []
    assert check_grounding({"start": 1986, "end": 2013}, "He served 1986-2013.").ungrounded_paths == []
    assert check_grounding({"p": 45}, "Turnout was 45% this year.").ungrounded_paths == []
    assert check_grounding({"p": 3.0}, "It took 3 days.").ungrounded_paths == []
    assert check_grounding({"p": 3}, "It took 3.5 days.").ungrounded_paths == ["$.p"]
    assert check_grounding({"p": 1500}, "About 1500 people.").ungrounded_paths == []


def test_empty_and_punctuation_only_strings_are_ungrounded(ed_wood_context: str) -> None:
    assert check_grounding({"a": "", "b": "—", "c": None}, ed_wood_context).ungrounded_paths == ["$.a", "$.b"]


def test_no_leaves_is_fully_grounded() -> None:
    info = check_grounding({"a": None, "b": [True, False]}, "anything")
    assert (info.leaves, info.fraction, info.ungrounded_paths) == (0, 1.0, [])


def test_unicode_keys_and_values_and_unspaced_scripts() -> None:
    context = "東京タワーは東京都港区芝公園にある総合電波塔である。 Café Müller, Zürich."
    ground_truth = {"名前": "東京タワー", "所在地": "港区", "first name": "CAFÉ MÜLLER", "city": "Zürich"}
    assert check_grounding(ground_truth, context).ungrounded_paths == []
    invented = {"名前": "大阪", "first name": "Zurich", "list": [{"ключ": "значение"}]}
    assert check_grounding(invented, context).ungrounded_paths == ["$.名前", '$["first name"]', "$.list[0].ключ"]


def test_normalize_text() -> None:
    assert normalize_text("  U.S.  Comedy-drama, “1,500” Wood's\u00a0life_x ") == "us comedy drama 1500 woods life x"


def test_context_is_prepared_once() -> None:
    context = "Some text " * 10
    assert normalize_context(context) is normalize_context(context)
    prepared = NormalizedContext(context)
    assert check_grounding({"a": "some text"}, prepared).grounded == 1


def test_one_megabyte_context_with_50_leaves() -> None:
    rng = random.Random(7)
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 9))) for _ in range(3000)]
    context = " ".join(rng.choices(words, k=180_000))[:1_000_000] + " 1,234,567 people."
    assert len(context) >= 1_000_000
    leaves: dict[str, Any] = {}
    for i in range(20):  # copied phrases
        start = rng.randrange(100_000)
        leaves[f"copied_{i}"] = " ".join(context[start:].split()[1:4])
    for i in range(20):  # invented phrases, long enough to go through fuzzy matching
        leaves[f"invented_{i}"] = f"zqx invented value number {i} xq"
    for i in range(9):
        leaves[f"number_{i}"] = 987_654 + i
    leaves["big"] = 1234567
    info = check_grounding(leaves, context)  # its speed is measured by benchmarks/bench_text_pipeline.py
    assert info.leaves == 50 and info.grounded == 21
