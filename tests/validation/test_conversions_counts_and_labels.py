"""Right answers the checks used to hold, each beside a wrong answer of the same family that must still be held or
rejected: temperatures converted between Fahrenheit and Celsius, "a centimetre" for 1, a price said aloud in
two-digit groups, a null the text itself says is unknown, a count the answer computes from its own list, a "no"
that denies another noun, a value under its own label on the line above, a price written in two columns, small
numbers of a table's rows, day names written short, the option a comparison did not choose named as such, and a
person's article named by their surname."""

from __future__ import annotations

from judge.heuristic_answers import _wrong_choice
from judge.heuristic_slips import near_miss
from tests.validation.test_reading_families import check, failures, issues

# ---- conversions and numbers said in words ------------------------------------------------------------------

HEAT = "Death Valley\nOn July 10, 1913, Furnace Creek recorded an air temperature of 134 °F, the highest ever measured."


def test_a_temperature_converted_from_fahrenheit_is_its_evidence() -> None:
    evidence = {"$.max_temperature_celsius": {"kind": "convert", "quote": "134 °F", "unit_to": "°C"}}
    right = check({"max_temperature_celsius": 56.7, "place": "Furnace Creek", "year": 1913}, HEAT, evidence)
    assert not failures(right) and not {code for code, _ in issues(right)} & {"evidence_unverified", "unit_mismatch"}
    wrong = check({"max_temperature_celsius": 134, "place": "Furnace Creek", "year": 1913}, HEAT, evidence)
    assert ("evidence_mismatch", "$.max_temperature_celsius") in failures(wrong)


def test_a_unit_said_with_a_stands_for_one() -> None:
    talk = "[1:02] FEE005: SO THAT WOULD BE ABOUT A CENTIMETRE FOR A BUTTON\n[1:05] MEE006: YEAH"
    evidence = {"$.button_size_cm": {"kind": "normalised", "quote": "SO THAT WOULD BE ABOUT A CENTIMETRE FOR A BUTTON"}}
    right = check({"button_size_cm": 1, "speaker": "FEE005", "topic": "buttons"}, talk, evidence)
    assert ("evidence_unverified", "$.button_size_cm") not in issues(right)
    wrong = check({"button_size_cm": 10, "speaker": "FEE005", "topic": "buttons"}, talk, evidence)
    assert ("evidence_unverified", "$.button_size_cm") in issues(wrong) | failures(wrong)


def test_a_price_said_aloud_in_two_digit_groups() -> None:
    talk = "[2:10] MEH122: FIFTY FIVE PEOPLE AT TWENTY NINE FIFTY IS SIXTEEN TWENTY TWO FIFTY\n[2:15] FEI130: OKAY"
    quote = {"kind": "normalised", "quote": "FIFTY FIVE PEOPLE AT TWENTY NINE FIFTY IS SIXTEEN TWENTY TWO FIFTY"}
    right = check({"total_eur": 1622.5, "people": 55, "price_eur": 29.5}, talk, {"$.total_eur": quote})
    assert not failures(right) and ("evidence_unverified", "$.total_eur") not in issues(right)
    # A slip against words the toolkit may misread is held for a person, not rejected outright ...
    slipped = check({"total_eur": 1662.5, "people": 55, "price_eur": 29.5}, talk, {"$.total_eur": quote})
    assert ("evidence_unverified", "$.total_eur") in issues(slipped)
    assert ("evidence_mismatch", "$.total_eur") not in failures(slipped)
    # ... while digits that contradict the value still prove it wrong.
    written = "Catering: 55 people at 29.50 each, 1,622.50 in all."
    wrong = check({"total_eur": 1662.5, "people": 55, "price_eur": 29.5}, written, {"$.total_eur": "1,622.50"})
    assert ("evidence_mismatch", "$.total_eur") in failures(wrong)


# ---- nulls the text says are unknown --------------------------------------------------------------------------

BEETHOVEN = (
    "Ludwig van Beethoven\nLudwig van Beethoven was a German composer. He was baptised in Bonn on 17 December 1770; "
    "the exact date of his birth is not recorded. He died in Vienna on 26 March 1827."
)


def test_a_null_the_text_calls_unrecorded_is_no_stated_value() -> None:
    truth = {"composer": "Ludwig van Beethoven", "birth_date": None, "baptism_date": "1770-12-17"}
    right = check(truth, BEETHOVEN, {"$.birth_date": "absent"})
    assert ("absent_but_stated", "$.birth_date") not in issues(right)
    stated = BEETHOVEN.replace("was a German", "(16 December 1770 – 26 March 1827) was a German")
    stated = stated.replace("the exact date of his birth is not recorded", "his family lived there")
    wrong = check(truth, stated, {"$.birth_date": "absent"})
    assert ("absent_but_stated", "$.birth_date") in issues(wrong) | failures(wrong)


# ---- counts the answer computes --------------------------------------------------------------------------------

APOLLO = (
    "Apollo 11\nCommander Neil Armstrong and lunar module pilot Buzz Aldrin landed on the Moon while Michael "
    "Collins stayed in orbit. Aldrin was the second person to walk on the Moon."
)


def _crew(walked: list[bool], count: int) -> dict:
    names = ["Neil Armstrong", "Buzz Aldrin", "Michael Collins"]
    return {
        "crew": [{"name": n, "walked_on_moon": w} for n, w in zip(names, walked, strict=True)],
        "mission": "Apollo 11",
        "moonwalker_count": count,
    }


def test_a_count_of_the_answers_own_flags_is_computed_not_read() -> None:
    right = check(_crew([True, True, False], 2), APOLLO)
    assert ("number_from_other_phrase", "$.moonwalker_count") not in issues(right)
    # The same "second" grounds a count the answer's list does not give: it is an ordinal, read as a count.
    wrong = check(_crew([True, True, True], 2), APOLLO)
    assert ("number_from_other_phrase", "$.moonwalker_count") in issues(wrong)


def test_a_count_of_a_subset_of_the_answers_list() -> None:
    text = "Standards\nOne standard was adopted in 2025. Two others are not yet adopted: one in 2026, one in 2028."

    def record(adopted: list[bool], count: int) -> dict:
        years = [2025, 2026, 2028]
        return {
            "standards": [{"year": y, "adopted": a} for y, a in zip(years, adopted, strict=True)],
            "body": "FASB",
            "standards_not_yet_adopted_count": count,
        }

    right = check(record([True, False, False], 2), text)
    assert ("count_mismatch", "$.standards_not_yet_adopted_count") not in issues(right)
    wrong = check(record([True, True, True], 2), text)  # no subset of its own list has two
    assert ("count_mismatch", "$.standards_not_yet_adopted_count") in issues(wrong)


# ---- booleans: what a "no" denies ------------------------------------------------------------------------------

STANDUP = (
    "[0:32] MEH122: SO I'M STILL ON THE LOGIN BUG\n[0:44] MEH122: SHOULD BE FIXED TODAY\n[0:46] MEH122: NO BLOCKERS\n"
    "[0:48] MEF103: GREAT"
)


def test_a_no_before_another_noun_denies_nothing_of_the_field() -> None:
    truth = {"fix_expected_today": True, "bug": "login bug", "speaker": "MEH122"}
    assert ("boolean_against_text", "$.fix_expected_today") not in issues(check(truth, STANDUP))
    denied = STANDUP.replace("SHOULD BE FIXED TODAY", "NO FIX TODAY IT WILL TAKE ALL WEEK")
    assert ("boolean_against_text", "$.fix_expected_today") in issues(check(truth, denied))


# ---- where a value stands on a page ----------------------------------------------------------------------------

NOTES = "V-February Flow\n\nData Components:\n\nCode:\nThe-Stack-V2\n\nCodeText:\nSE, whatever we've scraped\n\n"
NOTES += "WebText:\nHQ DCLM\n\nOther notes:\nFineWeb was dropped\n"


def test_a_value_under_its_own_label_on_the_line_above_is_tied_to_its_field() -> None:
    right = check({"components": {"code": "The-Stack-V2", "codetext": "SE, whatever we've scraped",
                                  "webtext": "HQ DCLM"}, "flow": "V-February Flow", "count": 3}, NOTES)  # fmt: skip
    assert not {code for code, _ in issues(right)} & {"value_not_near_entity"}
    wrong = check({"components": {"code": "The-Stack-V2", "codetext": "SE, whatever we've scraped",
                                  "webtext": "FineWeb"}, "flow": "V-February Flow", "count": 3}, NOTES)  # fmt: skip
    assert ("value_not_near_entity", "$.components.webtext") in issues(wrong)


INVOICE = (
    "# RECHNUNG / INVOICE\n\n| Pos. | Beschreibung / Description | Menge / Qty | Einzelpreis / Unit price | "
    "Gesamt / Total |\n|---|---|---|---|---|\n| 1 | Thekenplatte Eiche | 1 | 1.180,00 € | 1.180,00 € |\n"
    "| 2 | Wandregal Eiche | 4 | 95,50 € | 382,00 € |\n| 3 | Montage (Std.) | 6,5 | 58,00 € | 377,00 € |\n"
    "| 4 | Anfahrt | 1 | 35,00 € | 35,00 € |\n"
)


def _items(rows: list[tuple[int, float, float, float]]) -> dict:
    items = [{"position": p, "quantity": q, "unit_price": u, "total": t} for p, q, u, t in rows]
    return {"invoice": "RECHNUNG", "currency": "EUR", "items": items}


def test_a_line_total_equal_to_its_unit_price_is_in_its_own_column() -> None:
    right = check(_items([(1, 1, 1180.0, 1180.0), (2, 4, 95.5, 382.0)]), INVOICE)
    assert ("value_in_wrong_field", "$.items[0].total") not in issues(right)
    wrong = check(_items([(1, 1, 1180.0, 1180.0), (2, 4, 95.5, 95.5)]), INVOICE)
    assert ("value_in_wrong_field", "$.items[1].total") in issues(wrong)


def test_small_numbers_of_table_rows_are_no_swap_when_each_row_holds_its_own() -> None:
    rows = [(1, 1, 1180.0, 1180.0), (2, 4, 95.5, 382.0), (3, 6.5, 58.0, 377.0), (4, 1, 35.0, 35.0)]
    right = check(_items(rows), INVOICE)
    assert not {code for code, _ in issues(right)} & {"possible_swap"}
    swapped = [(1, 1, 1180.0, 1180.0), (2, 4, 58.0, 382.0), (3, 6.5, 95.5, 377.0), (4, 1, 35.0, 35.0)]
    assert "possible_swap" in {code for code, _ in issues(check(_items(swapped), INVOICE))}


# ---- names written another way ---------------------------------------------------------------------------------


def test_day_names_written_short_on_a_form_ground_the_full_name() -> None:
    form = "Availability: [x] Tue  [ ] Wed  [x] Thurs  [x] Sat\nPreferred time: 4:30 PM"
    assert near_miss("Tuesday", form) is None
    assert near_miss("Thursday", form) is None
    assert near_miss("Monday", form) is not None  # never written, in no form


def test_the_option_not_chosen_named_as_such_is_no_wrong_choice() -> None:
    question = "Which writer was from England, Henry Roth or Robert Erskine Childers?"
    answer = "Robert Erskine Childers DSC"
    right = [("$.writer_from_england", "Robert Erskine Childers"), ("$.other_writer", "Henry Roth")]
    assert _wrong_choice(question, answer, right) is None
    swapped = [("$.writer_from_england", "Henry Roth"), ("$.other_writer", "Robert Erskine Childers")]
    assert _wrong_choice(question, answer, swapped) is not None


COMPOSERS = (
    "Wolfgang Amadeus Mozart\nWolfgang Amadeus Mozart (27 January 1756 – 5 December 1791) was a composer of the "
    "Classical period. He was born in Salzburg.\n\nLudwig van Beethoven\nLudwig van Beethoven was a German composer. "
    "He was baptised in Bonn on 17 December 1770.\n\nJoseph Haydn\nFranz Joseph Haydn (31 March 1732 – 31 May 1809) "
    "was an Austrian composer."
)


def test_an_article_named_by_its_persons_surname_is_the_records() -> None:
    question = "When were Mozart and Beethoven born, and when and where was Beethoven baptised?"
    evidence = {"$.mozart_birth_date": {"kind": "normalised", "quote": "27 January 1756"},
                "$.beethoven_baptism_city": "He was baptised in Bonn"}  # fmt: skip
    truth = {"mozart_birth_date": "1756-01-27", "beethoven_birth_date": None, "beethoven_baptism_date": "1770-12-17",
             "beethoven_baptism_city": "Bonn"}  # fmt: skip
    right = check(truth, COMPOSERS, evidence, question=question)
    assert ("value_from_other_entity", "$.mozart_birth_date") not in issues(right)
    # Haydn's date given for Mozart: his article is named by no word of the question nor of the field.
    wrong = check({**truth, "mozart_birth_date": "1732-03-31"}, COMPOSERS,
                  {**evidence, "$.mozart_birth_date": {"kind": "normalised", "quote": "31 March 1732"}},
                  question=question)  # fmt: skip
    assert ("value_from_other_entity", "$.mozart_birth_date") in issues(wrong)


# ---- wrong families these readings must not let through ----------------------------------------------------------

LOWEST = (
    "Death Valley\nIts Badwater Basin is the lowest point in North America, at 86 metres below sea level.\n\n"
    "Lake Assal\nLying 155 metres below sea level, Lake Assal is the lowest point on land in Africa."
)


def test_a_value_below_sea_level_is_negative() -> None:
    right = check({"badwater_elevation_m": -86, "assal_elevation_m": -155, "lower_point": "Lake Assal"}, LOWEST)
    assert not {code for code, _ in issues(right)} & {
        "sign_against_text",
        "ungrounded_value",
        "number_from_other_phrase",
    }
    wrong = check({"badwater_elevation_m": 86, "assal_elevation_m": -155, "lower_point": "Lake Assal"}, LOWEST)
    assert ("sign_against_text", "$.badwater_elevation_m") in issues(wrong)
    depth = check({"badwater_depth_below_sea_level_m": 86, "assal_elevation_m": -155, "lower_point": "Lake Assal"},
                  LOWEST)  # fmt: skip
    assert ("sign_against_text", "$.badwater_depth_below_sea_level_m") not in issues(depth)  # a depth is positive


def test_a_fraction_ten_times_off_its_percentage_is_a_slip() -> None:
    text = "Switzerland\nAbout 23 percent of the Swiss speak French as their main language; 62% speak German."
    assert near_miss(0.023, text) is not None
    assert near_miss(2.3, text) is not None
    assert near_miss(0.23, text) is None  # the fraction
    assert near_miss(0.62, text) is None


TOTALS = (
    "# INVOICE\n\n| Pos. | Description | Qty | Unit price | Total |\n|---|---|---|---|---|\n"
    "| 1 | Counter top | 1 | 1.974,00 € | 1.974,00 € |\n\n| | |\n|---|---|\n| Nettobetrag / Net amount | 1.974,00 € |\n"
    "| zzgl. 19 % USt / VAT 19 % | 375,06 € |\n| **Rechnungsbetrag / Total due** | **2.349,06 €** |\n\n"
    "| Fällig bis / Due date | 11.04.2025 |\n"
)


def test_a_label_value_table_with_a_blank_header_names_its_rows() -> None:
    schema = {
        "type": "object",
        "properties": {
            "net_eur": {"type": "number", "description": "amount before VAT in euros"},
            "gross_eur": {"type": "number", "description": "amount due including VAT in euros"},
            "due_date": {"type": "string", "description": "payment due date, ISO"},
        },
    }
    right = check({"net_eur": 1974.0, "gross_eur": 2349.06, "due_date": "2025-04-11"}, TOTALS, schema=schema)
    assert "value_in_wrong_field" not in {code for code, _ in issues(right)}
    wrong = check({"net_eur": 2349.06, "gross_eur": 1974.0, "due_date": "2025-04-11"}, TOTALS, schema=schema)
    assert ("value_in_wrong_field", "$.net_eur") in issues(wrong)


def test_a_sentence_pasted_as_a_person_named_by_role_is_a_copy() -> None:
    text = (
        "Millau Viaduct\nIt was designed by the French structural engineer Michel Virlogeux together with the British "
        "architect Norman Foster, and built by the Eiffage group."
    )
    right = check({"structural_engineer": "Michel Virlogeux", "architect": "Norman Foster", "builder": "Eiffage"}, text)
    assert "copied_span" not in {code for code, _ in issues(right)}
    pasted = text.split("\n", 1)[1]
    wrong = check({"structural_engineer": pasted, "architect": "Norman Foster", "builder": "Eiffage"}, text)
    assert ("copied_span", "$.structural_engineer") in issues(wrong)


def test_a_code_printed_with_one_ocr_confused_character_is_its_reading() -> None:
    page = "## Setup\nAll agents use GPT-40 as their model; the baseline is GPT-4."
    right = check({"model": "GPT-4o", "baseline": "GPT-4", "section": "Setup"}, page, {"$.model": "GPT-40"})
    assert ("evidence_unverified", "$.model") not in issues(right)
    wrong = check({"model": "GPT-4.5", "baseline": "GPT-4", "section": "Setup"}, page, {"$.model": "GPT-40"})
    assert ("evidence_unverified", "$.model") in issues(wrong)


def test_a_speaker_introduced_by_role_who_takes_the_floor_next() -> None:
    talk = (
        "[0:10] FEB101: THREE THINGS ON THE LIST\n[0:16] FEB101: OUR TREASURER IS GONNA TAKE US THROUGH THE NUMBERS\n"
        "[0:19] MEB102: THANKS UM\n[0:21] MEB102: SO THE BALANCE WAS FORTY ONE THOUSAND\n[0:31] FEB103: THAT'S THE ROOF"
    )
    quote = {"$.presented_by": "OUR TREASURER IS GONNA TAKE US THROUGH THE NUMBERS"}
    right = check({"presented_by": "MEB102", "balance_eur": 41000, "chair": "FEB101"}, talk, quote)
    assert ("evidence_unverified", "$.presented_by") not in issues(right)
    wrong = check({"presented_by": "FEB103", "balance_eur": 41000, "chair": "FEB101"}, talk, quote)
    assert ("evidence_unverified", "$.presented_by") in issues(wrong)


def test_a_nation_of_the_uk_given_for_its_adjective() -> None:
    text = "John Smith\nJohn Smith was an English actor.\n\nErnest Shackleton\nShackleton was an Anglo-Irish explorer."
    right = check({"actor": "John Smith", "country": "England", "explorer": "Ernest Shackleton"}, text)
    assert ("ungrounded_value", "$.country") not in issues(right)
    wrong = check({"actor": "John Smith", "country": "Wales", "explorer": "Ernest Shackleton"}, text)
    assert ("ungrounded_value", "$.country") in issues(wrong)  # "Welsh" is never written


def test_a_number_whose_sentence_starts_with_its_fields_words() -> None:
    page = (
        "## Baselines\nResults across all 10 unit test tasks are averaged over 5 seeds. Easy tasks are run to a "
        "maximum of 100 steps. Unit tests tasks are run to a maximum of 100 steps."
    )
    right = check({"max_steps": {"easy": 100, "unit_test": 100}, "seeds": 5, "section": "Baselines"}, page)
    assert ("value_from_other_phrase", "$.max_steps.unit_test") not in issues(right)
    other = page.replace("Unit tests tasks are run to a maximum of 100 steps.", "Other runs stop at 100 steps.")
    wrong = check({"max_steps": {"easy": 100, "unit_test": 100}, "seeds": 5, "section": "Baselines"}, other)
    assert ("value_from_other_phrase", "$.max_steps.unit_test") in issues(wrong)


FORM = (
    "## Volunteer Registration Form\n\n<table>\n<tr><td>Full name</td><td>OKONKWO, Adaeze N.</td></tr>\n"
    "<tr><td>Telephone</td><td>0161 496 0732</td></tr>\n<tr><td>Fax</td><td>—</td></tr>\n</table>\n\n"
    "Emergency contact: Chidi Okonkwo (brother)"
)


def test_a_null_for_a_value_a_form_fills_in_is_stated() -> None:
    truth = {"telephone": None, "fax": None, "emergency_contact": {"name": "Chidi Okonkwo", "relation": "brother"}}
    found = issues(check(truth, FORM, {"$.telephone": "absent", "$.fax": "absent"}))
    assert ("absent_but_stated", "$.telephone") in found
    assert ("absent_but_stated", "$.fax") not in found  # a dash fills in nothing


def test_a_deadline_said_on_the_line_that_assigns_the_action() -> None:
    talk = (
        "[2:20] FEA012: RIGHT ACTIONS\n[2:22] FEA012: TOM YOU'LL BOOK HARTLEY AND PAY THE DEPOSIT\n[2:26] MEB020: YEP\n"
        "[2:27] FEA012: AND SARAH CAN YOU UPDATE THE MEMBERSHIP FORMS BY THE END OF NOVEMBER\n[2:32] FEC031: WILL DO"
    )
    truth = {
        "actions": [
            {"task": "BOOK HARTLEY AND PAY THE DEPOSIT", "deadline": None},
            {"task": "UPDATE THE MEMBERSHIP FORMS", "deadline": None},
        ],
        "assigned_by": "FEA012",
        "count": 2,
    }
    found = issues(check(truth, talk))
    assert ("absent_but_stated", "$.actions[1].deadline") in found
    assert ("absent_but_stated", "$.actions[0].deadline") not in found
