"""Right answers the checks used to reject or hold, each beside a wrong answer of the same family that must still
be held or rejected: a comparison of two dates, a rule the toolkit cannot recompute, a percentage with a decimal
comma, a value a quote works out ("half what we have now"), ticked boxes, a form's HTML label | value rows, a
money field named after what it buys (`day_ticket_eur`), a quantity inside a short quote, a scale named by the
object, "8,90" which holds no 8, densities, a speaker field on a topic named around the quote, a seed answer in
another unit and an afternoon time given on the morning's side of the clock. The cases are written for these
tests (made-up contexts)."""

from __future__ import annotations

from judge.heuristic_answers import _answer_match
from judge.heuristic_slips import near_miss
from tests.validation.test_reading_families import check, failures, issues
from validation.evidence_given import derive
from validation.readings import conversion_supports
from validation.readings.fields import field_hint
from validation.readings.units import quantity_mentions

# ---- derived values ----------------------------------------------------------------------------------------

TWO_BIRTHS = (
    "Greta Lind\nGreta Lind (born March 3, 1958) is a Swedish painter.\n\n"
    "Oskar Berg\nOskar Berg (born 21 November 1961) is a Swedish sculptor."
)


def test_earlier_and_later_compare_iso_dates() -> None:
    assert derive("earlier", ["1958-03-03", "1961-11-21"]) is True
    assert derive("later", ["1958-03-03", "1961-11-21"]) is False
    assert derive("earlier", ["09:30", "10:00"]) is True
    assert derive("max", ["1958-03-03", "1961-11-21"]) == "1961-11-21"
    assert derive("earlier", ["1958", "1958-03-03"]) is None  # the same year: cannot tell at that precision
    assert derive("earlier", ["1958-03-03", "09:30"]) is None  # a date and a clock time do not compare


def test_a_boolean_derived_from_two_dates_is_recomputed() -> None:
    evidence = {
        "$.lind_born": {"kind": "normalised", "quote": "March 3, 1958"},
        "$.berg_born": {"kind": "normalised", "quote": "21 November 1961"},
        "$.lind_is_older": {"derived_from": ["$.lind_born", "$.berg_born"], "rule": "earlier"},
    }
    right = check({"lind_born": "1958-03-03", "berg_born": "1961-11-21", "lind_is_older": True}, TWO_BIRTHS, evidence)
    assert not failures(right) and not issues(right) & {("unverified_derivation", "$.lind_is_older")}
    wrong = check({"lind_born": "1958-03-03", "berg_born": "1961-11-21", "lind_is_older": False}, TWO_BIRTHS, evidence)
    assert ("evidence_mismatch", "$.lind_is_older") in failures(wrong)


def test_a_rule_that_cannot_be_recomputed_is_a_doubt_not_a_rejection() -> None:
    evidence = {"$.total": {"derived_from": ["$.painter", "$.sculptor"], "rule": "sum"}}
    result = check({"painter": "Greta Lind", "sculptor": "Oskar Berg", "total": 2}, TWO_BIRTHS, evidence)
    assert not failures(result)
    assert ("unverified_derivation", "$.total") in issues(result)


# ---- numbers a quote states another way ------------------------------------------------------------------------

REPORT = "Results 2024\nOperating margin rose to 11,7 % (2023: 10,9 %). Revenue was EUR 4,2 billion."


def test_a_percentage_with_a_decimal_comma_is_its_fraction() -> None:
    evidence = {"$.margin_2024": {"kind": "normalised", "quote": "11,7 %"}}
    assert not failures(check({"margin_2024": 0.117, "year": 2024}, REPORT, evidence))
    assert ("evidence_mismatch", "$.margin_2024") in failures(
        check({"margin_2024": 0.109, "year": 2024}, REPORT, evidence)
    )


SEATS = "[3:01] FEE011: THE NEW HALL HAS THIRTY SEATS WHICH IS HALF WHAT WE HAVE NOW\n[3:06] MEE012: OKAY"


def test_a_value_the_quote_works_out_is_a_doubt_not_a_rejection() -> None:
    evidence = {"$.current_seats": {"kind": "normalised", "quote": "THIRTY SEATS WHICH IS HALF WHAT WE HAVE NOW"}}
    result = check({"current_seats": 60, "new_seats": 30}, SEATS, evidence)
    assert ("evidence_mismatch", "$.current_seats") not in failures(result)
    plain = "[3:01] FEE011: THE NEW HALL HAS THIRTY SEATS\n[3:06] MEE012: OKAY"
    wrong = check({"new_seats": 40}, plain, {"$.new_seats": {"kind": "normalised", "quote": "THIRTY SEATS"}})
    assert ("evidence_mismatch", "$.new_seats") in failures(wrong)  # one number, not this one: still proof


PRICES = "| Item | Qty | Unit price (EUR) |\n|---|---|---|\n| Gloves | 15 | 8,90 |\n| Tubes | 8 | 21,75 |"


def test_a_price_with_a_decimal_comma_holds_no_whole_number() -> None:
    truth = {
        "lines": [
            {"item": "Gloves", "qty": 15, "unit_price_eur": 8.9},
            {"item": "Tubes", "qty": 8, "unit_price_eur": 21.75},
        ]
    }
    result = check(truth, PRICES)
    assert ("value_in_wrong_field", "$.lines[1].qty") not in issues(result)
    swapped = check({"lines": [{"item": "Tubes", "qty": 21.75, "unit_price_eur": 8}]}, PRICES)
    assert ("value_in_wrong_field", "$.lines[0].qty") in issues(swapped)


# ---- forms -------------------------------------------------------------------------------------------------

FORM = (
    "## Workshop registration\n\n<table>\n<tr><th>Field</th><th>Entry</th></tr>\n"
    "<tr><td>Surname</td><td>Okafor</td></tr>\n<tr><td>First name(s)</td><td>Ada Nneka</td></tr>\n"
    "<tr><td>City</td><td>Leeds</td></tr>\n</table>\n\n"
    "**Lunch, 4 May:** ☐ Yes ☒ No\n\n**Evening tour:** ☒ Yes ☐ No\n"
)


def test_a_ticked_box_says_which_option_is_chosen() -> None:
    right = check({"surname": "Okafor", "joins_tour": True, "has_lunch": False}, FORM)
    assert not {("boolean_against_text", "$.joins_tour"), ("boolean_against_text", "$.has_lunch")} & issues(right)
    wrong = check({"surname": "Okafor", "joins_tour": True, "has_lunch": True}, FORM)
    assert ("boolean_against_text", "$.has_lunch") in issues(wrong)


def test_an_html_row_labels_its_value() -> None:
    right = check({"person": {"surname": "Okafor", "first_names": "Ada Nneka", "city": "Leeds"}}, FORM)
    assert not {code for code, _ in issues(right)} & {"value_not_near_entity", "value_in_wrong_field"}
    swapped = check({"person": {"surname": "Okafor", "first_names": "Leeds", "city": "Ada Nneka"}}, FORM)
    assert ("value_in_wrong_field", "$.person.first_names") in issues(swapped)


# ---- units -------------------------------------------------------------------------------------------------


def test_a_money_field_named_after_what_it_buys_has_no_time_unit() -> None:
    assert field_hint("day_ticket_eur").unit is None and field_hint("day_ticket_eur").currency == "EUR"
    assert field_hint("price_per_hour_usd").unit is None
    assert field_hint("duration_days").unit == "day"  # no currency in the key: still a duration
    fares = "Fares: single €3,40 · day ticket €7,80 · journey time 1 hr 5 min"
    right = check({"single_eur": 3.4, "day_ticket_eur": 7.8}, fares)
    assert ("unit_mismatch", "$.day_ticket_eur") not in issues(right)


RIVER = (
    "Lake Ontario\nThe lake is 8 feet above its 1900 level.\n\n"
    "Saint Lawrence River\nThe river flows about 740 miles from Lake Ontario to the Gulf of Saint Lawrence."
)


def test_a_converted_quantity_inside_a_short_quote_is_not_taken_for_the_unit_before_it() -> None:
    evidence = {"$.length_km": {"kind": "convert", "quote": "about 740 miles", "unit_from": "mile", "unit_to": "km"}}
    right = check({"river": "Saint Lawrence River", "length_km": 1191}, RIVER, evidence)
    assert not failures(right) and ("unit_mismatch", "$.length_km") not in issues(right)
    wrong = check({"river": "Saint Lawrence River", "length_km": 740}, RIVER, evidence)
    assert ("evidence_mismatch", "$.length_km") in failures(wrong)


def test_densities_and_concentrations_convert() -> None:
    assert conversion_supports(7870, "7.87 ± 0.02", "g/cm3", "kg/m3") is True
    assert conversion_supports(787, "7.87", "g/cm3", "kg/m3") is False
    assert conversion_supports(850, "0.85 mg/L", None, "µg/L") is True
    units = [unit for *_, unit in quantity_mentions("a density of 2.70 g/cm³, 12 mg/L of nitrate")]
    assert units == ["gram / centimeter ** 3", "milligram / liter"]


SIZES = "Model sizes\nThe corpus holds 2.1 trillion tokens; the second one 0.8 trillion tokens."


def test_a_scale_named_by_the_object_is_the_fields_scale() -> None:
    right = check({"tokens_trillions": {"first": 2.1, "second": 0.8}}, SIZES)
    assert ("scale_dropped", "$.tokens_trillions.first") not in issues(right)
    dropped = check({"tokens": {"first": 2.1, "second": 0.8}}, SIZES)
    assert ("scale_dropped", "$.tokens.first") in issues(dropped)


# ---- speakers ------------------------------------------------------------------------------------------------

MEETING = (
    "[4:10] FKO020: NEXT ITEM\n[4:12] FKO020: CAN THE EDITOR SEND ROUND THE NEWSLETTER DRAFT\n"
    "[4:15] MKO021: YES I'LL HAVE IT OUT BY THURSDAY\n[4:18] MKO022: GOOD\n[4:20] FKO020: THANKS"
)


def test_a_speakers_promise_in_answer_to_the_line_before_is_evidence() -> None:
    quote = "[4:15] MKO021: YES I'LL HAVE IT OUT BY THURSDAY"
    right = check({"newsletter": {"owner": "MKO021", "due": "Thursday"}}, MEETING, {"$.newsletter.owner": quote})
    assert ("evidence_unverified", "$.newsletter.owner") not in issues(right)
    filler = "[4:18] MKO022: GOOD"  # a filler takes no topic from the lines around it
    wrong = check({"newsletter": {"owner": "MKO022", "due": "Thursday"}}, MEETING, {"$.newsletter.owner": filler})
    assert ("evidence_unverified", "$.newsletter.owner") in issues(wrong)


# ---- the gate ------------------------------------------------------------------------------------------------


def test_a_seed_answer_in_another_unit_matches_a_converted_value() -> None:
    values = [("$.tunnel", "Fréjus Road Tunnel"), ("$.length_miles", 8.0)]
    score, why = _answer_match("12.9 kilometres", values, "How long, in miles, is the Fréjus Road Tunnel?", set())
    assert score >= 60, why
    wrong, _ = _answer_match("12.9 kilometres", [("$.length_miles", 9.5)], "How long, in miles?", set())
    assert wrong < 60


def test_a_time_on_the_wrong_side_of_the_clock_is_a_near_miss() -> None:
    timetable = "Last bus: 11.10 pm (Fridays only). First bus: 5.50 am."
    assert "23:10" in (near_miss("11:10", timetable) or "")
    assert near_miss("23:10", timetable) is None
    assert near_miss("05:50", timetable) is None
    assert "05:50" in (near_miss("17:50", timetable) or "")  # 5.50 am given as the afternoon
