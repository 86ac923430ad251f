"""A correct value written another way than the text is recognised; a wrong one is not."""

from __future__ import annotations

from decimal import Decimal

import pytest

from validation.readings import conversion_supports, number_places, quote_supports, string_places
from validation.readings.clock import clock_value
from validation.readings.fields import field_hint


@pytest.mark.parametrize(
    ("value", "text", "hint", "found"),
    [
        ("804.7", "the route is 500 miles long", ("distance_km", "length in kilometres"), True),
        ("500", "the route is 500 miles long", ("distance_km", ""), False),  # unconverted: no reading
        ("5.2", "revenue of 5,2 billion euros", ("", ""), True),
        ("5200000000", "revenue of 5,2 billion euros", ("", ""), True),
        ("12.5", "IT COSTS TWELVE EUROS FIFTY", ("price", ""), True),
        ("12.5", "THE BUDGET IS TWELVE AND A HALF POUNDS", ("budget", ""), True),
        ("12", "THE BUDGET IS TWELVE AND A HALF POUNDS", ("budget", ""), False),
        ("0.5", "about half of them", ("", ""), True),
        ("1", "a monotypic genus", ("species", ""), True),
        ("16.8", "SIXTEEN POINT EIGHT", ("", ""), True),
        ("0.5", "SO WE HAVE POINT FIVE EURO TO PLAY WITH", ("margin", ""), True),
        ("0.25", "IT WEIGHS POINT TWO FIVE", ("weight", ""), True),
        ("0.5", "WE WENT TO POINT A AND THEN FIVE", ("", ""), False),
        ("0.7", "WE SAID SEVENTY PERCENT", ("", ""), True),
        ("0.1", "TEN CENTS LEFT", ("money_left_eur", ""), True),
        ("900", "ANOTHER FIFTEEN MINUTES", ("extra_time_s", ""), True),
        ("754600", "some 754 600 smokers", ("", ""), True),
        ("30.48", "thrown at 100 ft/s", ("velocity_m_s", ""), True),
        ("25", "a lake of 0.25 km² ", ("lake_area_ha", ""), True),
        ("2", "the second companion book", ("", ""), True),
    ],
)
def test_numbers_written_another_way(value: str, text: str, hint: tuple[str, str], found: bool) -> None:
    assert bool(number_places(Decimal(value), text, field_hint(*hint))) is found


@pytest.mark.parametrize(
    ("value", "text", "found"),
    [
        ("09:30", "we meet at 9:30 AM sharp", True),
        ("08:00", "EIGHT IN THE MORNING", True),
        ("10:00", "LET'S MEET AT TEN", True),
        ("09:30", "half past nine in the morning", True),
        ("14:00", "until two in the afternoon", True),
        ("02:00", "until two in the afternoon", False),
        ("1990s", "popular in the 90s", True),
        ("1970s", "founded in 1976", True),
        ("1980s", "founded in 1976", False),
        ("Reunion", "the island of Réunion", True),
        ("Jan Minac", "we thank Ján Mináč for", True),
        ("Football Bowl Subdivision", "the NCAA FBS level", True),
        ("EUR", "FOUR EUROS EACH", True),
        ("2015-02-26", "February 23-26, 2015", True),
        ("2015-02-27", "February 23-26, 2015", False),
        ("1864-01-15", "January 15th, 1864", True),
    ],
)
def test_strings_written_another_way(value: str, text: str, found: bool) -> None:
    assert bool(string_places(value, text)) is found


def test_clock_values_with_and_without_a_marker() -> None:
    assert clock_value("09:30") == {570}
    assert clock_value("9:30 pm") == {1290}
    assert clock_value("Tuesday") is None


def test_a_quote_supports_its_reading_and_not_another_number() -> None:
    assert quote_supports(12.5, "TWELVE AND A HALF POUNDS")
    assert not quote_supports(13, "TWELVE AND A HALF POUNDS")


def test_convert_evidence_is_computed_to_the_curators_precision() -> None:
    assert conversion_supports(804.7, "500 miles", None, "km") is True
    assert conversion_supports(500, "500 miles", None, "km") is False
    assert conversion_supports(1, "no number here", None, "km") is None


def test_a_field_says_its_unit_money_count_or_clock_time() -> None:
    assert field_hint("height_cm", "height").unit == "centimeter"
    assert field_hint("birth_year", "year of birth").unit is None  # a point in time, no duration
    assert field_hint("price", "price in pounds").currency == "GBP"
    assert field_hint("num_countries", "").is_count and not field_hint("president_number", "").is_count
    assert field_hint("first_sailing", "time of first sailing", frozenset({"string"})).is_time


def test_an_accent_the_text_does_not_have_is_no_reading() -> None:
    assert string_places("Ingrid Solvang", "the director, Ingrid Sólvang, studied") != []
    assert string_places("Ingrid Sólvang", "the director, Ingrid Solvang, studied") == []
    assert string_places("Ingrid So\u0301lvang", "the director, Ingrid Solvang, studied") == []
