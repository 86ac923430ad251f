"""What stands next to a located value says it is the wrong one: a figure corrected right after, a list that leaves
out an item of its enumeration, a value from another entity's phrase or paragraph. Each family has wrong answers
that raise the doubt and right answers, in the same context, that do not."""

from __future__ import annotations

from typing import Any

import pytest

from core.evidence import parse_evidence_map
from validation.evidence import check_evidence
from validation.field_hints import field_hints


def _schema(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return {"type": "object", "properties": {k: _schema(v) for k, v in value.items()}}
    if isinstance(value, list):
        return {"type": "array", "items": _schema(value[0]) if value else {}}
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int | float):
        return {"type": "number"}
    return {"type": ["string", "null"]}


def codes(
    truth: dict[str, Any],
    context: str,
    question: str = "",
    evidence: dict[str, Any] | None = None,
    schema: dict[str, Any] | None = None,
) -> set:
    parsed, problems = parse_evidence_map(evidence or {})
    assert not problems
    result = check_evidence(truth, context, parsed, field_hints(truth, schema or _schema(truth)), question)
    return {(issue.code, issue.path) for issue in result.issues}


# ---- a figure corrected right after -------------------------------------------------------------------------

MEETING = """[0:01] FEE001: SO THE BUDGET FOR THE LAMP
[0:04] FEE001: WE CAN SPEND TWELVE EUROS ON EACH ONE
[0:07] MEE002: TWELVE
[0:08] FEE001: SORRY FOURTEEN EUROS I READ THE WRONG LINE
[0:11] MEE002: OKAY FOURTEEN
[0:13] MEE003: AND THE CASE IS PLASTIC
[0:15] MEE003: WE SELL IT FOR THIRTY EUROS"""

PROSE = (
    "The Harbour Run is an annual race along the Elsford sea wall. Its course was first measured at 12 km, sorry, "
    "at 14 km after the 2009 extension. The race was founded in 1984 by the Elsford Harriers."
)
REPORT = (
    "The Wend Valley census counted 5,120 households in 2011. The figure was revised to 5,410 households after "
    "late returns were counted. The valley has three villages."
)


@pytest.mark.parametrize(
    ("wrong", "right", "context", "path"),
    [
        (
            {"budget_eur": 12, "case_material": "plastic", "price_eur": 30},
            {"budget_eur": 14, "case_material": "plastic", "price_eur": 30},
            MEETING,
            "$.budget_eur",
        ),
        (
            {"race": "Harbour Run", "course_km": 12, "founded_year": 1984},
            {"race": "Harbour Run", "course_km": 14, "founded_year": 1984},
            PROSE,
            "$.course_km",
        ),
        (
            {"valley": "Wend Valley", "households": 5120, "villages": 3},
            {"valley": "Wend Valley", "households": 5410, "villages": 3},
            REPORT,
            "$.households",
        ),
    ],
)
def test_a_figure_taken_back_right_after_is_doubted(
    wrong: dict[str, Any], right: dict[str, Any], context: str, path: str
) -> None:
    assert ("corrected_value", path) in codes(wrong, context)
    assert not {c for c in codes(right, context) if c[0] == "corrected_value"}


def test_a_figure_said_again_after_the_correction_stands() -> None:
    meeting = MEETING + "\n[0:18] FEE001: NO WAIT IT WAS TWELVE AFTER ALL\n[0:20] MEE002: OKAY TWELVE"
    assert not {c for c in codes({"budget_eur": 12, "price_eur": 30}, meeting) if c[0] == "corrected_value"}


def test_another_quantity_after_a_correction_word_is_no_correction() -> None:
    meeting = "[0:01] FEE001: THE CASE COSTS TWELVE EUROS\n[0:04] MEE002: SORRY WHAT\n[0:05] MEE002: WE HAVE 400 UNITS"
    assert not codes({"case_cost_eur": 12, "units": 400}, meeting) & {("corrected_value", "$.case_cost_eur")}


# ---- a list that leaves out an item of its enumeration -----------------------------------------------------

AGENDA = """[0:01] FEE001: OKAY LET'S START
[0:03] FEE001: THE AGENDA IS THE SCREEN THE BATTERY AND THE STRAP AND THEN THE BOX
[0:08] MEE002: SOUNDS GOOD"""
LANGUAGES = (
    "Tidewater Tales is a novel by Nia Ellis. It has been translated into Welsh, Breton, Basque, Galician and "
    "Irish. The cover is by Ted Marsh."
)
CREW = "The Wend ferry is run by three sailors: Tom Pell, Ann Reed and Ben Ashe. It sails twice a day."


@pytest.mark.parametrize(
    ("wrong", "right", "context", "path"),
    [
        (
            {"agenda": ["screen", "battery", "strap"], "chair": "FEE001"},
            {"agenda": ["screen", "battery", "strap", "box"], "chair": "FEE001"},
            AGENDA,
            "$.agenda",
        ),
        (
            {"languages": ["Welsh", "Breton", "Galician", "Irish"], "author": "Nia Ellis"},
            {"languages": ["Welsh", "Breton", "Basque", "Galician", "Irish"], "author": "Nia Ellis"},
            LANGUAGES,
            "$.languages",
        ),
        (
            {"sailors": ["Tom Pell", "Ann Reed"], "trips_per_day": 2},
            {"sailors": ["Tom Pell", "Ann Reed", "Ben Ashe"], "trips_per_day": 2},
            CREW,
            "$.sailors",
        ),
    ],
)
def test_a_list_that_skips_an_item_of_its_enumeration_is_doubted(
    wrong: dict[str, Any], right: dict[str, Any], context: str, path: str
) -> None:
    assert ("list_missing_item", path) in codes(wrong, context)
    assert ("list_missing_item", path) not in codes(right, context)


def test_a_list_the_question_narrows_is_not_doubted() -> None:
    truth = {"languages": ["Welsh", "Breton", "Galician", "Irish"], "author": "Nia Ellis"}
    question = "Into which Celtic languages other than Basque has the novel been translated?"
    assert ("list_missing_item", "$.languages") not in codes(truth, LANGUAGES, question)


def test_items_in_different_sentences_are_no_enumeration() -> None:
    context = "Welsh is spoken in Wales. Breton is spoken in Brittany, and Basque in the Basque Country."
    assert ("list_missing_item", "$.languages") not in codes({"languages": ["Welsh", "Breton"]}, context)


def test_a_lower_case_tail_after_proper_names_is_no_item() -> None:
    context = "It has been translated into Welsh, Breton and several other languages."
    assert ("list_missing_item", "$.languages") not in codes({"languages": ["Welsh", "Breton"]}, context)


# ---- a value from the article of another entity ------------------------------------------------------------

ARTICLES = """Harbour Lights
Harbour Lights is a 2003 young adult novel by Mara Quinn, published by Gullstone Books. It follows two sisters.

Mara Quinn
Mara Quinn (born 1970) is a Cornish author from Penzance. She writes for teenagers.

Tom Varga
Tom Varga is a Hungarian-born illustrator. His picture books are published by Redfern Press in London.

Penzance
Penzance is a town in Cornwall, England. It is the most westerly major town in Cornwall."""


@pytest.mark.parametrize(
    ("wrong", "right", "path"),
    [
        (  # the publisher of another person's books
            {"novel": "Harbour Lights", "author": "Mara Quinn", "publisher": "Redfern Press"},
            {"novel": "Harbour Lights", "author": "Mara Quinn", "publisher": "Gullstone Books"},
            "$.publisher",
        ),
        (  # the birthplace of another person
            {"author": "Mara Quinn", "born": 1970, "nationality": "Hungarian-born"},
            {"author": "Mara Quinn", "born": 1970, "nationality": "Cornish"},
            "$.nationality",
        ),
        (  # the country of an article nothing in the record leads to
            {"novel": "Harbour Lights", "year": 2003, "country": "England"},
            {"novel": "Harbour Lights", "year": 2003, "author": "Mara Quinn"},
            "$.country",
        ),
    ],
)
def test_a_value_found_only_in_another_entitys_article_is_doubted(
    wrong: dict[str, Any], right: dict[str, Any], path: str
) -> None:
    question = "Who wrote Harbour Lights, and who published it?"
    assert ("value_from_other_entity", path) in codes(wrong, ARTICLES, question)
    assert not {c for c in codes(right, ARTICLES, question) if c[0] == "value_from_other_entity"}


def test_a_bridge_article_the_answer_leads_to_is_no_other_entity() -> None:
    # Penzance's own article is reached through Mara Quinn's ("from Penzance"): a bridge, not a stray value.
    truth = {"author": "Mara Quinn", "hometown": "Penzance", "county": "Cornwall"}
    assert not {
        c
        for c in codes(truth, ARTICLES, "Where is the author of Harbour Lights from?")
        if c[0].startswith("value_from")
    }


def test_an_article_the_question_names_is_no_other_entity() -> None:
    truth = {"novel": "Harbour Lights", "author": "Mara Quinn", "illustrator_publisher": "Redfern Press"}
    question = "Who wrote Harbour Lights, and who publishes Tom Varga's picture books?"
    assert ("value_from_other_entity", "$.illustrator_publisher") not in codes(truth, ARTICLES, question)


SHIPS = """SS Merrow
SS Merrow was a cargo steamer of the Alder Line. She left Bristol on her last voyage in March 1921.

Joan Pell (captain)
Joan Pell (1880 - 9 March 1921) was the master of the Merrow, and she was lost with her ship in a gale.

Lundy
Lundy is an island off the coast of Devon, first recorded in 1086 and owned by the National Trust."""


def test_an_article_that_speaks_of_what_the_question_asks_about_is_no_other_entity() -> None:
    # The date is in the captain's article only, and that article speaks of the ship the question names.
    truth = {"ship": "SS Merrow", "port": "Bristol", "loss_date": "1921-03-09"}
    question = "From which port did the Merrow leave, and on what date was she lost?"
    assert not {c for c in codes(truth, SHIPS, question) if c[0] == "value_from_other_entity"}
    # An article that speaks neither of the ship nor of the answer's values stays another entity's.
    stray = {"ship": "SS Merrow", "port": "Bristol", "owner": "National Trust"}
    assert ("value_from_other_entity", "$.owner") in codes(stray, SHIPS, question)


# ---- who said it ----------------------------------------------------------------------------------------------

DESIGN = """[0:01] FEE001: SO WHAT ABOUT THE STRAP
[0:04] MEE002: I THINK WE SHOULD MAKE THE STRAP FROM RECYCLED LEATHER
[0:09] MEE003: HOW MUCH WOULD THAT COST US
[0:11] MEE002: ABOUT TWO EUROS MORE
[0:14] FEE001: FINE
[0:15] MEE003: AND WE COULD ADD A SOLAR PANEL ON THE LID
[0:19] FEE001: TOO EXPENSIVE I THINK
[0:21] MEE002: YEAH FORGET THE PANEL"""


@pytest.mark.parametrize(
    ("question", "key", "wrong", "right"),
    [
        ("Who proposed a strap made from recycled leather, and what would it cost?", "proposed_by", "MEE003", "MEE002"),
        ("Who suggested a solar panel on the lid, and who rejected it?", "suggested_by", "FEE001", "MEE003"),
        ("Who wanted the strap made of recycled leather?", "speaker", "FEE001", "MEE002"),
    ],
)
def test_a_speaker_who_never_says_what_the_question_asks_about_is_doubted(
    question: str, key: str, wrong: str, right: str
) -> None:
    assert ("speaker_mismatch", f"$.{key}") in codes({key: wrong, "extra_cost_eur": 2}, DESIGN, question)
    assert ("speaker_mismatch", f"$.{key}") not in codes({key: right, "extra_cost_eur": 2}, DESIGN, question)


def test_a_question_too_vague_to_name_a_topic_raises_nothing() -> None:
    assert ("speaker_mismatch", "$.chair") not in codes({"chair": "MEE003"}, DESIGN, "Who chaired it?")


# ---- a number claimed absent that the text states ----------------------------------------------------------

TOWN = (
    "Elsford\nElsford is a market town on the river Wend. The population was 14,300 at the 2011 census.\n\n"
    "Wend Valley\nThe Wend Valley has three villages. Its first school opened in 1872."
)
TALLY = """[0:01] FEE001: HOW MANY COLOURS DO WE WANT FOR THE CASE
[0:04] MEE002: JUST TWO COLOURS FOR THE CASE
[0:07] FEE001: OKAY AND THE SHAPE
[0:09] MEE003: DOUBLE CURVED"""
NUMBER_OR_NULL = {"type": ["integer", "null"]}


@pytest.mark.parametrize(
    ("wrong", "right", "context", "schema", "path"),
    [
        (
            {"town": "Elsford", "population": None, "river": "Wend"},
            {"town": "Elsford", "population": 14300, "river": "Wend"},
            TOWN,
            {"type": "object", "properties": {"town": {"type": "string"}, "population": NUMBER_OR_NULL,
                                              "river": {"type": "string"}}},
            "$.population",
        ),
        (
            {"case_colours": None, "case_shape": "double curved"},
            {"case_colours": 2, "case_shape": "double curved"},
            TALLY,
            {"type": "object", "properties": {"case_colours": NUMBER_OR_NULL, "case_shape": {"type": "string"}}},
            "$.case_colours",
        ),
    ],
)  # fmt: skip
def test_a_number_claimed_absent_that_the_text_states_is_doubted(
    wrong: dict[str, Any], right: dict[str, Any], context: str, schema: dict[str, Any], path: str
) -> None:
    absent = {path: "absent"}
    assert ("absent_but_stated", path) in codes(wrong, context, evidence=absent, schema=schema)
    assert ("absent_but_stated", path) not in codes(right, context, schema=schema)


def test_a_year_is_no_statement_of_a_count() -> None:
    schema = {"type": "object", "properties": {"valley": {"type": "string"}, "schools": NUMBER_OR_NULL}}
    truth = {"valley": "Wend Valley", "schools": None}
    assert ("absent_but_stated", "$.schools") not in codes(truth, TOWN, evidence={"$.schools": "absent"}, schema=schema)


def test_another_objects_count_is_no_statement_of_this_ones() -> None:
    items = {"type": "object", "properties": {"town": {"type": "string"}, "population": NUMBER_OR_NULL}}
    schema = {"type": "object", "properties": {"towns": {"type": "array", "items": items}}}
    truth = {"towns": [{"town": "Elsford", "population": 14300}, {"town": "Wend Valley", "population": None}]}
    evidence = {"$.towns[1].population": "absent"}
    assert ("absent_but_stated", "$.towns[1].population") not in codes(truth, TOWN, evidence=evidence, schema=schema)


# ---- a curator's quote that holds the words of other fields -------------------------------------------------

HALL = "The Wend Hall is a 3,200 capacity (2,750 seated) concert hall in Elsford that opened in 1931."


@pytest.mark.parametrize(
    ("wrong", "right", "evidence"),
    [
        (
            {"hall": "Wend Hall", "seated_capacity": 3200, "total_capacity": 2750},
            {"hall": "Wend Hall", "seated_capacity": 2750, "total_capacity": 3200},
            {"$.seated_capacity": "3,200 capacity (2,750 seated)"},
        ),
        (
            {"hall": "Wend Hall", "seated_capacity": 3200, "total_capacity": 2750},
            {"hall": "Wend Hall", "seated_capacity": 2750, "total_capacity": 3200},
            {"$.total_capacity": "3,200 capacity (2,750 seated)", "$.seated_capacity": "3,200 capacity (2,750 seated)"},
        ),
    ],
)
def test_a_number_is_read_where_it_stands_in_a_longer_quote(
    wrong: dict[str, Any], right: dict[str, Any], evidence: dict[str, Any]
) -> None:
    found = codes(wrong, HALL, evidence=evidence)
    assert {c for c in found if c[0] in ("value_from_other_phrase", "possible_swap") and c[1] == "$.seated_capacity"}
    assert not {
        c for c in codes(right, HALL, evidence=evidence) if c[0] in ("value_from_other_phrase", "possible_swap")
    }


# ---- a year or number from the phrase of another event ----------------------------------------------------

NOVELS = (
    "Harbour Lights is a 2003 novel by Mara Quinn. It is set in a fishing village in 1921. "
    "The Wend Bridge is a stone bridge completed in 1764. The nearby Hollin Canal was opened in 1771. "
    "Ingrid Solvang (1912 - 1990) was a Norwegian-born astronomer. "
    "Quill is a folk band from Elsford. Originally a five-piece group, the band currently has four members."
)


@pytest.mark.parametrize(
    ("wrong", "right", "path"),
    [
        ({"novel": "Harbour Lights", "publication_year": 1921}, {"novel": "Harbour Lights", "publication_year": 2003},
         "$.publication_year"),
        ({"bridge": "Wend Bridge", "completed_year": 1771}, {"bridge": "Wend Bridge", "completed_year": 1764},
         "$.completed_year"),
        ({"band": "Quill", "current_members": 5}, {"band": "Quill", "current_members": 4}, "$.current_members"),
        ({"band": "Quill", "original_members": 4}, {"band": "Quill", "original_members": 5}, "$.original_members"),
    ],
)  # fmt: skip
def test_a_value_from_the_phrase_of_another_event_is_doubted(
    wrong: dict[str, Any], right: dict[str, Any], path: str
) -> None:
    assert ("value_from_other_phrase", path) in codes(wrong, NOVELS)
    assert ("value_from_other_phrase", path) not in codes(right, NOVELS)


def test_a_compound_word_names_no_event() -> None:
    truth = {"astronomer": "Ingrid Solvang", "birth_year": 1912, "death_year": 1990}
    assert not {c for c in codes(truth, NOVELS) if c[0] == "value_from_other_phrase"}


TABLE = """| Source | Type | Tokens | Words | Docs |
| Harbour | Code | 83.0B | 70.0B | 78.7M |
| Gullstone | Web | 41.5B | 33.2B | 12.1M |"""


@pytest.mark.parametrize(
    ("wrong", "right", "quote"),
    [
        ({"tokens_billions": 70.0, "docs_millions": 78.7}, {"tokens_billions": 83.0, "docs_millions": 78.7},
         "| Harbour | Code | 83.0B | 70.0B"),
        ({"tokens_billions": 33.2, "docs_millions": 12.1}, {"tokens_billions": 41.5, "docs_millions": 12.1},
         "| Gullstone | Web | 41.5B | 33.2B | 12.1M |"),
    ],
)  # fmt: skip
def test_a_quoted_table_row_is_read_at_the_numbers_own_cell(
    wrong: dict[str, Any], right: dict[str, Any], quote: str
) -> None:
    evidence = {"$.tokens_billions": quote}
    assert ("value_in_wrong_field", "$.tokens_billions") in codes(wrong, TABLE, evidence=evidence)
    assert ("value_in_wrong_field", "$.tokens_billions") not in codes(right, TABLE, evidence=evidence)


# ---- a number that labels another named item ---------------------------------------------------------------

SERIES = (
    'Tidewater Tales is the third companion book to the "Harbour" series. It takes place before book #12, '
    '"The Lighthouse", and after No. 9 Salt Roads. Route 66 Press published it.'
)


@pytest.mark.parametrize(
    ("wrong", "right", "path"),
    [
        ({"companion_book": "Tidewater Tales", "companion_book_number": 12},
         {"companion_book": "The Lighthouse", "companion_book_number": 12}, "$.companion_book_number"),
        ({"book": "Tidewater Tales", "book_number": 9, "series": "Harbour"},
         {"book": "Salt Roads", "book_number": 9, "series": "Harbour"}, "$.book_number"),
    ],
)  # fmt: skip
def test_a_number_labelling_another_item_is_doubted(wrong: dict[str, Any], right: dict[str, Any], path: str) -> None:
    assert ("value_from_other_entity", path) in codes(wrong, SERIES)
    assert ("value_from_other_entity", path) not in codes(right, SERIES)


def test_a_number_without_a_label_mark_is_left_alone() -> None:
    truth = {"publisher": "Route 66 Press", "publisher_number": 66}
    assert ("value_from_other_entity", "$.publisher_number") not in codes(truth, SERIES)


# ---- a row number taken as a count ------------------------------------------------------------------------------

ROWS = """Table 5 covers all 4 unit test tasks.

| # | Unit test | Score |
|---|---|---|
| 25 | Dialog with an agent | 1.00 |
| 26 | Pick up an object | 0.80 |
| 27 | Search a room | 0.60 |
| 28 | Follow a moving agent | 0.40 |"""
NUMBERED_FROM_ONE = """| # | Stage | Days |
|---|---|---|
| 1 | Survey | 12 |
| 2 | Build | 40 |
| 3 | Inspect | 3 |"""


def test_a_row_label_taken_as_a_count_is_doubted() -> None:
    assert ("number_from_other_phrase", "$.unit_test_count") in codes({"unit_test_count": 28, "table": 5}, ROWS)
    assert ("number_from_other_phrase", "$.num_tasks") in codes({"num_tasks": 27, "best_task": "Search a room"}, ROWS)
    assert ("number_from_other_phrase", "$.unit_test_count") not in codes({"unit_test_count": 4, "table": 5}, ROWS)


def test_rows_numbered_from_one_agree_with_their_count() -> None:
    assert ("number_from_other_phrase", "$.stage_count") not in codes({"stage_count": 3, "days": 40}, NUMBERED_FROM_ONE)


# ---- two values paired with the wrong entity across objects -----------------------------------------------------

EXCHANGE = (
    "The commissioner is directed to offer Colonel Avery, now a prisoner of war in Fort Delmar, in exchange for "
    "Captain Hale, who is held as a prisoner at Lynchburg. The messenger travels under a flag of truce."
)
STANDARDS = (
    "In March 2021 the board issued a standard on lease disclosures. We adopted it in our fiscal year 2023 report. "
    "In June 2021 the board issued a standard on pension disclosures. We expect to adopt it in fiscal year 2025."
)


@pytest.mark.parametrize(
    ("wrong", "right", "context"),
    [
        ({"offered": {"name": "Captain Hale", "held_at": "Fort Delmar"},
          "sought": {"name": "Colonel Avery", "held_at": "Lynchburg"}},
         {"offered": {"name": "Colonel Avery", "held_at": "Fort Delmar"},
          "sought": {"name": "Captain Hale", "held_at": "Lynchburg"}}, EXCHANGE),
        ({"offered_name": "Captain Hale", "offered_held_at": "Fort Delmar",
          "sought_name": "Colonel Avery", "sought_held_at": "Lynchburg"},
         {"offered_name": "Colonel Avery", "offered_held_at": "Fort Delmar",
          "sought_name": "Captain Hale", "sought_held_at": "Lynchburg"}, EXCHANGE),
        ({"standards": [{"topic": "lease", "issued": "March 2021", "adopted_fiscal_year": 2025},
                        {"topic": "pension", "issued": "June 2021", "adopted_fiscal_year": 2023}]},
         {"standards": [{"topic": "lease", "issued": "March 2021", "adopted_fiscal_year": 2023},
                        {"topic": "pension", "issued": "June 2021", "adopted_fiscal_year": 2025}]}, STANDARDS),
    ],
)  # fmt: skip
def test_values_paired_with_the_other_objects_entity_are_doubted(
    wrong: dict[str, Any], right: dict[str, Any], context: str
) -> None:
    assert {c for c in codes(wrong, context) if c[0] == "possible_swap"}
    assert not {c for c in codes(right, context) if c[0] == "possible_swap"}


def test_values_given_with_respectively_are_not_crossed() -> None:
    context = "Avery and Hale were born in 1821 and 1830 respectively, in Lynchburg and Fort Delmar."
    truth = {"people": [{"name": "Avery", "born": 1821}, {"name": "Hale", "born": 1830}]}
    assert not {c for c in codes(truth, context) if c[0] == "possible_swap"}


# ---- a comparison answered against the answer's own values ------------------------------------------------------

PEOPLE = (
    "Mara Quinn (born 12 May 1970) is a Cornish author. Tom Varga (born 3 June 1965) is an illustrator. "
    "The Hollin Canal is 26 miles long; the Wend Bridge is 212 metres long."
)


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ({"younger": "Tom Varga", "mara_quinn_birth_year": 1970, "tom_varga_birth_year": 1965},
         {"younger": "Mara Quinn", "mara_quinn_birth_year": 1970, "tom_varga_birth_year": 1965}),
        ({"born_first": "Mara Quinn", "quinn_birth_date": "1970-05-12", "varga_birth_date": "1965-06-03"},
         {"born_first": "Tom Varga", "quinn_birth_date": "1970-05-12", "varga_birth_date": "1965-06-03"}),
        ({"longer": "Wend Bridge", "canal_length_km": 41.8, "bridge_length_km": 0.212},
         {"longer": "Hollin Canal", "canal_length_km": 41.8, "bridge_length_km": 0.212}),
    ],
)  # fmt: skip
def test_a_comparison_its_own_values_contradict_is_doubted(wrong: dict[str, Any], right: dict[str, Any]) -> None:
    path = "$." + next(iter(wrong))
    assert ("comparison_against_values", path) in codes(wrong, PEOPLE)
    assert ("comparison_against_values", path) not in codes(right, PEOPLE)


def test_death_years_say_nothing_of_who_was_born_first() -> None:
    truth = {"born_first": "Tom Varga", "quinn_death_year": 2040, "varga_death_year": 2050}
    assert ("comparison_against_values", "$.born_first") not in codes(truth, PEOPLE)


def test_a_length_comparison_ignores_years() -> None:
    truth = {"longer": "Hollin Canal", "bridge_completed_year": 1771, "canal_opened_year": 1764}
    assert ("comparison_against_values", "$.longer") not in codes(truth, PEOPLE)


# ---- a value under a label that names another field ----------------------------------------------------------------

MINUTES = """Wend Valley Rowing Club - Annual Meeting

Chair: Ann Reed, Elsford
Secretary: Ben Ashe, Saltmouth
Treasurer: Cara Voss, Elsford
Apologies: Tom Pell"""


@pytest.mark.parametrize(
    ("wrong", "right", "path"),
    [
        ({"chair": "Ben Ashe", "club": "Wend Valley Rowing Club"},
         {"chair": "Ann Reed", "club": "Wend Valley Rowing Club"}, "$.chair"),
        ({"treasurer": "Tom Pell", "secretary": "Ben Ashe"}, {"treasurer": "Cara Voss", "secretary": "Ben Ashe"},
         "$.treasurer"),
        ({"apologies": [{"name": "Cara Voss"}]}, {"apologies": [{"name": "Tom Pell"}]}, "$.apologies[0].name"),
    ],
)  # fmt: skip
def test_a_value_under_another_fields_label_is_doubted(wrong: dict[str, Any], right: dict[str, Any], path: str) -> None:
    assert ("value_in_wrong_field", path) in codes(wrong, MINUTES)
    assert ("value_in_wrong_field", path) not in codes(right, MINUTES)


def test_a_field_no_label_names_is_left_alone() -> None:
    assert ("value_in_wrong_field", "$.host") not in codes({"host": "Ann Reed", "town": "Elsford"}, MINUTES)
