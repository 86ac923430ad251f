"""Right answers the checks used to hold or reject, each family beside a wrong answer of the same family that must
still be held or rejected: thousands grouped by spaces, durations in several units, a conversion quote that
holds several numbers, a speaker field quoting that speaker, two fields in units of different kinds, a currency
named by its full name, and "instead of"."""

from __future__ import annotations

from tests.validation.test_reading_families import check, failures, issues
from validation.readings import conversion_supports
from validation.readings.units import compound_durations, quantity_mentions

# ---- numbers and quantities -----------------------------------------------------------------------------------


def test_thousands_grouped_by_spaces_are_one_number() -> None:
    assert [(m, u) for _, _, m, u in quantity_mentions("a runway of 3 200 metres")] == [(3200, "meter")]
    assert conversion_supports(3.2, "3 200 metres", "m", "km") is True
    assert conversion_supports(32, "3 200 metres", "m", "km") is False  # one number, converted: another value


def test_a_conversion_quote_with_several_numbers_is_a_doubt_not_a_proof() -> None:
    quote = "the north pier is sixty miles away and the south pier thirty"
    assert conversion_supports(48.3, quote, "mile", "km") is True  # thirty miles, a bare number in the named unit
    assert conversion_supports(70, quote, "mile", "km") is None  # neither: a person decides
    text = "Ferries\nThe north pier is sixty miles away and the south pier thirty."
    truth = {"pier": "south pier", "distance_km": 70, "operator": "Ferries"}
    result = check(truth, text, {"$.distance_km": {"kind": "convert", "quote": quote, "unit_from": "mile"}})
    assert ("evidence_mismatch", "$.distance_km") not in failures(result)


def test_durations_in_several_units_are_one_total() -> None:
    seconds = {total for _, _, total, _ in compound_durations("The climb takes 2 hours 15 minutes; lunch 1h30.")}
    assert seconds == {8100, 5400}
    assert [t for *_, t, _ in compound_durations("about an hour and a half")] == [5400]
    assert compound_durations("the 1990s and 2000s, the 100 m and 200 m") == []


def test_a_duration_in_minutes_read_from_hours_and_minutes() -> None:
    text = "Summit trail\nThe summit trail takes 2 hours 15 minutes from the car park."
    right = check({"trail": "Summit trail", "duration_minutes": 135, "start": "car park"}, text,
                  {"$.duration_minutes": {"kind": "normalised", "quote": "2 hours 15 minutes"}})  # fmt: skip
    assert not failures(right) and ("evidence_unverified", "$.duration_minutes") not in issues(right)
    wrong = check({"trail": "Summit trail", "duration_minutes": 215, "start": "car park"}, text,
                  {"$.duration_minutes": {"kind": "normalised", "quote": "2 hours 15 minutes"}})  # fmt: skip
    assert ("evidence_mismatch", "$.duration_minutes") in failures(wrong)


# ---- a speaker field quoting that speaker ------------------------------------------------------------------

MEETING = (
    "[0:01] FEE013: RIGHT SO WHO IS TAKING THE MINUTES TODAY\n"
    "[0:04] MEE021: I'LL TAKE THE MINUTES TODAY\n"
    "[0:06] FEE013: GREAT THANKS\n"
    "[0:09] MEO030: YEAH\n"
    "[0:12] MEO030: AND THE BUDGET IS STILL TWO THOUSAND\n"
)


def test_a_speaker_field_quoting_what_that_speaker_said_is_supported() -> None:
    truth = {"minutes_taker": "MEE021", "budget": 2000, "meeting": "weekly"}
    result = check(truth, MEETING, {"$.minutes_taker": "I'LL TAKE THE MINUTES TODAY"})
    assert ("evidence_unverified", "$.minutes_taker") not in issues(result)


def test_a_speaker_field_quoting_another_speaker_or_a_filler_is_not() -> None:
    truth = {"minutes_taker": "FEE013", "budget": 2000, "meeting": "weekly"}
    other = check(truth, MEETING, {"$.minutes_taker": "I'LL TAKE THE MINUTES TODAY"})
    assert ("evidence_unverified", "$.minutes_taker") in issues(other)
    filler = check({**truth, "minutes_taker": "MEO030"}, MEETING, {"$.minutes_taker": "YEAH"})
    assert ("evidence_unverified", "$.minutes_taker") in issues(filler)


# ---- swaps, currencies, "instead of" -----------------------------------------------------------------------


def test_fields_in_units_of_different_kinds_are_no_swap() -> None:
    # Each value stands by the other field's word, but minutes and kilometres cannot trade places.
    text = "Harbour ferry\nThe crossing covers 30 miles; that distance takes 2 hours 15 minutes."
    truth = {"ferry": "Harbour ferry", "crossing_minutes": 135, "distance_km": 48.3}
    assert not {code for code, _ in issues(check(truth, text))} & {"possible_swap"}


def test_two_dates_by_each_others_words_are_still_a_possible_swap() -> None:
    text = "Treaty of Example\nThe treaty was signed on 4 May 1950 and came into force on 9 June 1951."
    truth = {"treaty": "Treaty of Example", "signed_date": "1951-06-09", "in_force_date": "1950-05-04"}
    found = issues(check(truth, text))
    assert ("possible_swap", "$.signed_date") in found or ("value_in_wrong_field", "$.signed_date") in found


def test_a_currency_code_is_read_from_the_currencys_full_name() -> None:
    text = "Samoa\nSamoa is an island country. Its currency is the Samoan tala; Tonga uses the paʻanga."
    right = check({"country": "Samoa", "currency_code": "WST", "capital": None}, text)
    assert not {code for code, path in issues(right) if path == "$.currency_code"}
    wrong = check({"country": "Samoa", "currency_code": "NZD", "capital": None}, text)
    assert {code for code, path in issues(wrong) if path == "$.currency_code"}


def test_instead_of_denies_what_follows_it_not_what_precedes_it() -> None:
    text = "Vale Railway\nThe Vale Railway runs steam locomotives instead of diesel units on its summer services."
    right = check({"railway": "Vale Railway", "runs_steam_locomotives": True, "season": "summer"}, text)
    assert ("boolean_against_text", "$.runs_steam_locomotives") not in issues(right)
    wrong = check({"railway": "Vale Railway", "runs_diesel_units": True, "season": "summer"}, text)
    assert ("boolean_against_text", "$.runs_diesel_units") in issues(wrong)


# ---- wrong answers of two more families: a scale letter dropped, one utterance pasted -------------------------

FIRM = "Acme Robotics\nAcme Robotics reported revenue of $4.2B in 2023 and employs 12K people."


def test_a_number_read_without_its_scale_letter_is_flagged() -> None:
    schema = {
        "type": "object",
        "properties": {
            "company": {"type": "string"},
            "revenue_usd": {"type": "number", "description": "revenue, a plain amount in dollars (not in billions)"},
            "employees": {"type": "integer", "description": "number of employees"},
        },
    }
    wrong = check({"company": "Acme Robotics", "revenue_usd": 4.2, "employees": 12000}, FIRM, schema=schema)
    assert ("scale_dropped", "$.revenue_usd") in issues(wrong)
    right = check({"company": "Acme Robotics", "revenue_usd": 4200000000, "employees": 12000}, FIRM, schema=schema)
    assert not {code for code, _ in issues(right)} & {"scale_dropped"}


def test_a_number_in_the_scale_its_field_names_is_not() -> None:
    schema = {
        "type": "object",
        "properties": {
            "company": {"type": "string"},
            "revenue_usd_billions": {"type": "number", "description": "revenue in billions of dollars"},
            "employees_thousands": {"type": "number", "description": "staff, in thousands"},
        },
    }
    truth = {"company": "Acme Robotics", "revenue_usd_billions": 4.2, "employees_thousands": 12}
    assert not {code for code, _ in issues(check(truth, FIRM, schema=schema))} & {"scale_dropped"}


def test_one_utterance_with_its_timestamp_pasted_as_a_value_is_flagged() -> None:
    value = "I'LL TAKE THE MINUTES TODAY\n[0:06] FEE013: GREAT THANKS"
    wrong = check({"minutes_taker": "MEE021", "summary": value, "meeting": "weekly"}, MEETING)
    assert ("copied_span", "$.summary") in issues(wrong)
    excerpt = check({"minutes_taker": "MEE021", "transcript_excerpt": value, "meeting": "weekly"}, MEETING)
    assert ("copied_span", "$.transcript_excerpt") not in issues(excerpt)


def test_a_calendar_year_after_a_duration_is_no_quantity_in_its_unit() -> None:
    text = (
        "Elsford market reopens. After eight months of repairs the covered market on Mill Lane opened again on "
        "Saturday with thirty stalls.\n\nThe hall was built in 1868 and its roof was damaged in the storms."
    )
    schema = {
        "type": "object",
        "properties": {
            "town": {"type": "string"},
            "hall_built": {"type": "integer", "description": "year the hall was built"},
            "repairs_years": {"type": "number", "description": "length of the repairs, in years"},
        },
    }
    right = check({"town": "Elsford", "hall_built": 1868, "repairs_years": 0.67}, text, schema=schema)
    assert ("unit_mismatch", "$.hall_built") not in issues(right)
    wrong = check({"town": "Elsford", "hall_built": 1868, "repairs_years": 8}, text, schema=schema)
    assert ("unit_mismatch", "$.repairs_years") in issues(wrong) or "$.repairs_years" in wrong.ungrounded
