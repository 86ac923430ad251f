"""A value the context writes in no form it could be read from is asked about: a date never written with its
month, a currency code never named; one written another way is not."""

from __future__ import annotations

from judge.heuristic_slips import near_miss

REPORT = (
    "In February 2022, NVIDIA and SoftBank announced the termination of the agreement. "
    "| Year Ended | Jan 29, 2023 | Jan 28, 2024 |"
)


def test_a_year_taken_from_another_event_is_a_slip() -> None:
    why = near_miss("2023-02", REPORT)
    assert why is not None and "2023" in why
    assert near_miss("2021-02-03", REPORT) is not None  # a year the context never writes


def test_a_date_the_context_writes_in_words_or_digits_is_not() -> None:
    assert near_miss("2022-02", REPORT) is None
    assert near_miss("2023-01-29", REPORT) is None
    assert near_miss("2023-03-02", "Filed on 2/3/2023 by the clerk.") is None  # a numeric date, either order


def test_a_currency_code_the_context_never_names_is_asked_about() -> None:
    from core.models import Provenance, Record, SourceItem
    from judge.calibration import validated
    from judge.heuristic import HeuristicJudge

    item = SourceItem(
        source="ami", source_id="ES2002a", context="[0:10] MEE008: THE BUDGET IS TWELVE AND A HALF POUNDS"
    )
    schema = {
        "type": "object",
        "properties": {"budget": {"type": "number"}, "currency": {"type": "string"}, "said_by": {"type": "string"}},
        "required": ["budget", "currency", "said_by"],
    }

    def flags(currency: str) -> set[tuple[str, str]]:
        truth = {"budget": 12.5, "currency": currency, "said_by": "MEE008"}
        record = Record.build(
            item, "What budget did MEE008 give, and in which currency?", schema, truth, Provenance(annotator="t")
        )
        record, report = validated(record)
        return {(f.code, f.path) for f in HeuristicJudge().judge(record, report, 60).flags}

    assert ("ungrounded_value", "$.currency") in flags("EUR")
    assert ("ungrounded_value", "$.currency") not in flags("GBP")


def test_a_negative_value_for_a_number_the_text_gives_a_downward_direction_is_no_slip() -> None:
    assert near_miss(-8, "A ball is thrown downward with a speed of 8 ft/s from a height of 40 ft.") is None
    assert near_miss(-12, "Operating income fell by 12 million in the quarter.") is None


def test_a_sign_the_text_does_not_give_is_still_a_slip() -> None:
    assert near_miss(-8, "A ball is thrown upward with a speed of 8 ft/s.") is not None
    assert near_miss(4.2, "The temperature was -4.2 degrees at dawn.") is not None


def test_a_value_whose_abbreviation_the_text_uses_is_no_invention() -> None:
    context = "[8:02] MEE006: SO ON THE TV IT'LL SHOW YOU WHAT YOU'RE DOING"
    assert near_miss("the TV screen", context) is None
    assert near_miss("the BBC website", context) is not None  # an abbreviation the text never uses
    assert near_miss("the radio screen", context) is not None
