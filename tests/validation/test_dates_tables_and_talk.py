"""More right answers the checks used to hold, each beside a wrong answer of the same family that must still be
held or rejected: dates in numeric and spoken forms (the year said elsewhere), clock times said as "half past
eight", four decimals after a decimal comma, units named in a table's header, OCR slips, a share of another
amount, a number in a band's name at a sentence's start, a field's "YYYY-MM-DD", a heading's "as agreed", a
figure corrected in the talk about another object, and a null beside another object's value."""

from __future__ import annotations

from decimal import Decimal

from judge.heuristic_slips import _date_slip
from tests.validation.test_reading_families import check, failures, issues
from validation.date_mentions import date_mentions, iso_date_places, year_of_words, years_written
from validation.readings import number_places
from validation.readings.clock import clock_mentions
from validation.readings.fields import field_hint
from validation.readings.numbers import number_mentions

# ---- dates ----------------------------------------------------------------------------------------------------


def test_numeric_and_spoken_dates_are_read() -> None:
    def read(text: str) -> set[tuple[int | None, int, int | None]]:
        return {(m.year, m.month, m.day) for m in date_mentions(text)}

    assert read("Invoice date 14.03.2025") == {(2025, 3, 14)}
    assert read("due 03/14/2025") == {(2025, 3, 14)}
    assert read("on 04/05/2025") == {(2025, 5, 4), (2025, 4, 5)}  # either order: both readings stand
    assert read("IT'S ON THURSDAY THE TWELFTH OF JUNE") == {(None, 6, 12)}
    assert read("DATE IS FRIDAY THE SIXTEENTH OF MAY TWENTY TWENTY FIVE") == {(2025, 5, 16)}
    assert (2015, 2, 26) in read("held February 23-26, 2015 in Rome")
    assert read("version 1.2.3, you may go") == set()


def test_years_said_in_words() -> None:
    assert year_of_words("twenty twenty five") == 2025
    assert year_of_words("nineteen eighty-four") == 1984
    assert year_of_words("two thousand and five") == 2005
    assert year_of_words("nineteen oh five") == 1905
    assert year_of_words("twenty five") is None
    assert years_written("THE CLUB'S TWENTY TWENTY FIVE SEASON and 1998") == {2025, 1998}


def test_a_day_and_month_take_the_year_said_elsewhere_unless_the_month_has_another() -> None:
    talk = "THIS IS THE REVIEW FOR THE TWENTY TWENTY FIVE SEASON. I'LL HAVE THEM OUT BY THE FIRST OF JUNE"
    assert iso_date_places("2025-06-01", talk)
    assert not iso_date_places("2024-06-01", talk)  # that year is never said
    assert not iso_date_places("2025-06-02", talk)  # nor that day
    assert not iso_date_places("2025-06-01", talk + ". THE JUNE 2024 ACCOUNTS ARE OUT")  # June has another year
    assert _date_slip("2025-06-01", talk) is None
    assert _date_slip("2024-06-01", talk) is not None


def test_a_numeric_date_quoted_as_evidence_supports_its_iso_value() -> None:
    text = "Rechnung\nInvoice date: 14.03.2025\nDelivery date: 07.03.2025\nCustomer: K-20931"
    right = check({"invoice": "Rechnung", "invoice_date": "2025-03-14", "customer": "K-20931"}, text,
                  {"$.invoice_date": "14.03.2025"})  # fmt: skip
    assert not failures(right) and ("evidence_unverified", "$.invoice_date") not in issues(right)
    wrong = check({"invoice": "Rechnung", "invoice_date": "2025-03-07", "customer": "K-20931"}, text,
                  {"$.invoice_date": "14.03.2025"})  # fmt: skip
    assert {("evidence_mismatch", "$.invoice_date"), ("evidence_unverified", "$.invoice_date")} & (
        failures(wrong) | issues(wrong)
    )


def test_yyyy_mm_dd_in_a_description_names_no_millimetres() -> None:
    hint = field_hint("passed_on", "date it was passed, in ISO 8601 form, YYYY-MM-DD", frozenset({"string", "null"}))
    assert hint.unit is None
    assert field_hint("length_mm", "", frozenset({"number"})).unit == "millimeter"


def test_a_date_claimed_absent_where_the_text_gives_it_is_doubted() -> None:
    text = "Measure H\nThe ordinance, entitled Measure H, was passed by referendum on March 2, 2004."
    schema = {
        "type": "object",
        "properties": {
            "ordinance_name": {"type": "string"},
            "passed_by": {"type": "string"},
            "passed_on": {"type": ["string", "null"], "description": "date it was passed, YYYY-MM-DD"},
        },
    }
    truth = {"ordinance_name": "Measure H", "passed_by": "referendum", "passed_on": None}
    result = check(truth, text, {"$.passed_on": "absent"}, schema)
    assert ("absent_but_stated", "$.passed_on") in issues(result)


# ---- clock times ----------------------------------------------------------------------------------------------


def test_clock_times_said_in_words() -> None:
    def said(text: str) -> set[int]:
        return {minutes for _, _, found in clock_mentions(text) for minutes in found}

    assert said("registration opens at half past eight") == {8 * 60 + 30, 20 * 60 + 30}
    assert said("vacate by a quarter to six") == {5 * 60 + 45, 17 * 60 + 45}
    assert said("AT HALF SEVEN IN THE EVENING") == {19 * 60 + 30}  # not also seven o'clock
    assert said("half an hour later") == set()
    assert said("half of the 12 members") == set()


def test_a_clock_time_quoted_in_words_supports_its_value_and_not_another() -> None:
    text = "Agenda\nRegistration opens at half past eight. The rooms must be vacated by a quarter to six."
    right = check({"event": "Agenda", "opens": "08:30", "vacate_by": "17:45"}, text,
                  {"$.opens": "half past eight", "$.vacate_by": "a quarter to six"})  # fmt: skip
    assert not ({("evidence_unverified", "$.opens"), ("evidence_unverified", "$.vacate_by")} & issues(right))
    wrong = check({"event": "Agenda", "opens": "08:00", "vacate_by": "17:45"}, text, {"$.opens": "half past eight"})
    assert ("evidence_unverified", "$.opens") in issues(wrong) | failures(wrong)


# ---- numbers --------------------------------------------------------------------------------------------------


def test_four_decimals_after_a_decimal_comma() -> None:
    assert (Decimal("21.0975")) in {v for *_, v, _ in number_mentions("21,0975 km")}
    right = check({"race": "half marathon", "half_marathon_km": 21.0975, "unit": "km"},
                  "The half marathon covers 21,0975 km.", {"$.half_marathon_km": {"kind": "normalised",
                  "quote": "21,0975 km"}})  # fmt: skip
    assert not failures(right)
    wrong = check({"race": "half marathon", "half_marathon_km": 210975, "unit": "km"},
                  "The half marathon covers 21,0975 km.", {"$.half_marathon_km": {"kind": "normalised",
                  "quote": "21,0975 km"}})  # fmt: skip
    assert ("evidence_mismatch", "$.half_marathon_km") in failures(wrong)


def test_ocr_slips_of_digits_read_as_letters() -> None:
    found = {(text, v) for text, v in ((t, v) for t, v in _ocr("| C4 | 27l | 1O5 kg | 89.2 | Oslo |"))}
    assert found == {("27l", Decimal(271)), ("1O5", Decimal(105))}


def _ocr(text: str) -> list[tuple[str, Decimal]]:
    return [(text[s:e], v) for s, e, v, how in number_mentions(text) if how == "OCR slip"]


TENSILE = (
    "**Table 2.** Tensile properties\n\n"
    "<table>\n<tr><th>Specimen</th><th>Yield strength (MPa)</th><th>Elongation (%)</th></tr>\n"
    "<tr><td>C1</td><td>142</td><td>21.5</td></tr>\n<tr><td>C2</td><td>268</td><td>12.0</td></tr>\n</table>\n"
)


def test_a_unit_named_in_a_table_header_converts_its_cells() -> None:
    gpa = field_hint("yield_strength_gpa", "", frozenset({"number"}))
    assert number_places(Decimal("0.142"), TENSILE, gpa)
    assert not number_places(Decimal("1.42"), TENSILE, gpa)  # ten times off: no reading
    share = field_hint("elongation_fraction", "", frozenset({"number"}))
    assert number_places(Decimal("0.215"), TENSILE, share)
    assert not number_places(Decimal("0.0215"), TENSILE, share)
    markdown = "| Pier | Height (ft) |\n|---|---|\n| North | 1000 |\n"
    assert number_places(Decimal("304.8"), markdown, field_hint("height_m", "", frozenset({"number"})))


def test_a_share_of_another_amount_of_the_answer_is_computed() -> None:
    text = "Booking\nThe hire fee is £1,240.00. A deposit of half the hire fee is payable by 3 March 2025."
    right = check({"fee": 1240, "deposit_fraction": 0.5, "deposit_amount": 620, "venue": "Booking"}, text)
    assert not {code for code, path in issues(right) if path == "$.deposit_amount"}
    wrong = check({"fee": 1240, "deposit_fraction": 0.5, "deposit_amount": 640, "venue": "Booking"}, text)
    assert {code for code, path in issues(wrong) | failures(wrong) if path == "$.deposit_amount"}


# ---- names and headings ---------------------------------------------------------------------------------------


def test_a_capital_at_a_sentence_start_is_no_name_but_a_band_is() -> None:
    text = "Earth\nAbout 71% of the Earth's surface is covered by water. Sum 41 is a band; nothing else adds up."
    right = check({"planet": "Earth", "water_fraction": 0.71, "band": "Sum 41"}, text, {"$.water_fraction": "71%"})
    assert ("number_from_other_phrase", "$.water_fraction") not in issues(right)
    band = "Ophur\nOphur toured with The Plain White T's, Sum 41, Violent Femmes and Local H over seven years."
    wrong = check({"band": "Ophur", "years_performing": 41, "acts": 4}, band, {"$.years_performing": "Sum 41"})
    assert ("number_from_other_phrase", "$.years_performing") in issues(wrong)


def test_a_number_also_said_in_words_is_not_only_a_name() -> None:
    text = "Methods\nEach specimen was tested three times (Table 3 gives the means)."
    result = check({"section": "Methods", "tests_per_specimen": 3, "table": "Table 3"}, text)
    assert ("number_from_other_phrase", "$.tests_per_specimen") not in issues(result)


def test_a_heading_as_agreed_says_nothing_of_vat() -> None:
    text = "## Programme as agreed\n\nThe total hire fee for the two days is £1,240.00 (excluding VAT)."
    right = check({"fee": 1240, "includes_vat": False, "days": 2}, text)
    assert ("boolean_against_text", "$.includes_vat") not in issues(right)
    wrong = check({"fee": 1240, "includes_vat": True, "days": 2}, text)
    assert ("boolean_against_text", "$.includes_vat") in issues(wrong)


# ---- talk about several objects -------------------------------------------------------------------------------

RATINGS = (
    "[0:01] MEE008: FIRST ONE STYLISH LOOK AND FEEL\n"
    "[0:04] FEE005: I'D SAY FIVE\n"
    "[0:06] MEE008: OKAY LET'S GO WITH FIVE THEN\n"
    "[0:08] FEE005: OH SORRY THE SCALE IS THE OTHER WAY SO IT MEANT THREE\n"
    "[0:10] MEE008: OKAY THREE\n"
    "[0:20] MEE008: NEXT SOFT AND SPONGY\n"
    "[0:24] MEE007: I THINK IT'S ABOUT FIVE\n"
    "[0:26] MEE008: FIVE\n"
    "[0:27] FEE005: FIVE\n"
    "[0:30] MEE008: OKAY SIMPLE TO USE\n"
)


def _ratings(first: int, second: int) -> dict:
    return {
        "ratings": [
            {"criterion": "stylish look and feel", "score": first},
            {"criterion": "soft and spongy", "score": second},
        ],
        "scale_max": 7,
        "meeting": "evaluation",
    }


def test_a_figure_corrected_in_another_objects_talk_stands_for_its_own() -> None:
    right = check(_ratings(3, 5), RATINGS)
    assert ("corrected_value", "$.ratings[1].score") not in issues(right)
    wrong = check(_ratings(5, 5), RATINGS)  # the score said before the scale was turned round
    assert ("corrected_value", "$.ratings[0].score") in issues(wrong)


def test_numbers_on_separate_lines_are_separate_numbers() -> None:
    assert {v for *_, v, how in number_mentions("FIVE\nFIVE\nFIVE") if how == "spelled out"} == {Decimal(5)}


def test_a_null_beside_another_objects_value_is_not_doubted_but_a_null_beside_its_own_is() -> None:
    talk = (
        "[0:01] MEB104: I PROPOSE WE CUT THE JUNIOR FEE\n"
        "[0:05] FEB103: SO JUNIOR FEE GOES TO SEVENTY FIVE AGREED\n"
        "[0:09] FEB103: AND THE ADULT FEE RISE WE DROP\n"
    )
    truth = {"proposals": [{"fee": "junior", "agreed_fee_eur": 75}, {"fee": "adult", "agreed_fee_eur": None}],
             "effective_from": "January", "count": 2}  # fmt: skip
    assert ("absent_but_stated", "$.proposals[1].agreed_fee_eur") not in issues(check(truth, talk))
    truth["proposals"][0]["agreed_fee_eur"] = None
    assert ("absent_but_stated", "$.proposals[0].agreed_fee_eur") in issues(check(truth, talk))


# ---- which phrase, which column, which entity ------------------------------------------------------------------


def test_a_count_said_in_words_stands_by_its_field_words() -> None:
    text = (
        "League\nThe 2007 season began on 1 April 2007. Eighteen teams played 70 games each in the season, "
        "and 18 of them also entered the cup."
    )
    right = check({"league": "League", "number_of_teams": 18, "games_each": 70}, text)
    assert ("value_from_other_phrase", "$.number_of_teams") not in issues(right)
    cup = "League\nIn 2007 there were 20 teams in the league, while the cup drew 38 entrants."
    wrong = check({"league": "League", "number_of_teams": 38, "cup": "cup"}, cup)
    assert ("value_from_other_phrase", "$.number_of_teams") in issues(wrong)


def test_a_line_items_amount_equal_to_its_unit_price_stands_under_amount() -> None:
    text = (
        "# Invoice\n\n| Pos. | Description | Qty | Unit price | Amount |\n|---|---|---|---|---|\n"
        "| 1 | Corner bracket | 48 | 1.25 | 60.00 |\n| 2 | Assembly, flat rate | 1 | 150.00 | 150.00 |\n"
    )
    truth = {"line_items": [{"description": "Corner bracket", "unit_price": 1.25, "amount": 60.0},
                            {"description": "Assembly, flat rate", "unit_price": 150.0, "amount": 150.0}],
             "items": 2, "title": "Invoice"}  # fmt: skip
    assert ("value_in_wrong_field", "$.line_items[1].amount") not in issues(check(truth, text))
    truth["line_items"][0]["unit_price"], truth["line_items"][0]["amount"] = 60.0, 1.25  # swapped
    assert ("value_in_wrong_field", "$.line_items[0].amount") in issues(check(truth, text))


def test_a_value_far_from_its_entity_is_doubted_among_articles_not_on_one_page() -> None:
    page = (
        "# Helmholtz coils\n\nModel DSP Gaussmeter, see the order form below.\n\n"
        + "Specifications follow. " * 20
        + "\n\nOrder: model 475, shipped from 575 McCorkle Blvd., Westerville, OH\n"
    )
    truth = {"product": {"name": "DSP Gaussmeter", "model": "475"}, "city": "Westerville", "state": "OH"}
    assert ("value_not_near_entity", "$.product.model") not in issues(check(truth, page))
    articles = (
        "DSP Gaussmeter\nThe DSP Gaussmeter is a magnetometer sold by Lake Shore.\n\n"
        "Other meter\nThe other meter is model 475 and it is sold in Ohio.\n\n"
        "Westerville\nWesterville is a city in Ohio, near Columbus."
    )
    assert ("value_not_near_entity", "$.product.model") in issues(check(truth, articles))


def test_names_given_as_agents_of_the_other_fields_verb_are_a_possible_swap() -> None:
    text = (
        "Big Stone Gap\nBig Stone Gap is a 2014 comedy film written and directed by Adriana Trigiani and produced "
        "by Donna Gigliotti."
    )
    right = check({"film": "Big Stone Gap", "director": "Adriana Trigiani", "producer": "Donna Gigliotti"}, text)
    assert not {code for code, _ in issues(right)} & {"possible_swap"}
    wrong = check({"film": "Big Stone Gap", "director": "Donna Gigliotti", "producer": "Adriana Trigiani"}, text)
    assert {("possible_swap", "$.director"), ("possible_swap", "$.producer")} <= issues(wrong)
    both = "Heat\nHeat is a 1995 film written, directed and produced by Michael Mann, shot by Dante Spinotti."
    assert not {c for c, _ in issues(check({"film": "Heat", "director": "Michael Mann", "producer": "Michael Mann"},
                                                both))} & {"possible_swap"}  # fmt: skip
