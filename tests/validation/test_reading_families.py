"""Right answers written in ways a check used to misread, each beside a wrong answer of the same family that must
still be held or rejected: a table's stated scale, a name ending in an abbreviation, a count beside two lists,
a yes/no field whose name holds a date word."""

from __future__ import annotations

from typing import Any

from core.evidence import parse_evidence_map
from validation.evidence import check_evidence
from validation.field_hints import field_hints


def _schema(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return {"type": "object", "properties": {k: _schema(v) for k, v in value.items()}}
    if isinstance(value, list):
        return {"type": "array", "items": _schema(value[0]) if value else {}}
    if isinstance(value, bool):
        return {"type": ["boolean", "null"]}
    if isinstance(value, int | float):
        return {"type": "number"}
    return {"type": ["string", "null"]}


def check(
    truth: dict[str, Any],
    context: str,
    evidence: dict[str, Any] | None = None,
    schema: dict | None = None,
    question: str = "",
):
    parsed, problems = parse_evidence_map(evidence or {})
    assert not problems
    return check_evidence(truth, context, parsed, field_hints(truth, schema or _schema(truth)), question=question)


def issues(result) -> set[tuple[str, str]]:
    return {(i.code, i.path) for i in result.issues if i.code != "unexplained_null"}


def failures(result) -> set[tuple[str, str]]:
    return {(f.code, f.path) for f in result.failures}


TABLE = (
    "Stock-based compensation\n| (In millions) | 2024 | 2023 |\n| --- | --- | --- |\n"
    "| Research and development | 3,423 | 2,532 |\n| Total | $4,737 | $3,549 |"
)
TABLE_NO_SCALE = TABLE.replace("(In millions)", "(Units)")


# ---- a table's stated scale -------------------------------------------------------------------------------


def test_a_cell_read_in_the_scale_its_table_states_is_its_reading() -> None:
    truth = {"company": "NVIDIA", "research_usd": 3423000000, "total_usd": 4737000000}
    evidence = {"$.research_usd": {"kind": "normalised", "quote": "3,423"}, "$.total_usd": "$4,737"}
    result = check(truth, TABLE, evidence)
    assert not failures(result)
    assert not {code for code, _ in issues(result)} & {"evidence_unverified", "evidence_mismatch"}


def test_thousands_stated_in_words_are_read_too() -> None:
    context = "Figures in thousands of dollars. Revenue: 1,250. Staff: 40."
    result = check({"firm": "Figures", "revenue_usd": 1250000, "staff": 40}, context, {"$.revenue_usd": "1,250"})
    assert not failures(result)


def test_a_scale_the_context_does_not_state_is_asked_not_rejected() -> None:
    truth = {"company": "NVIDIA", "research_usd": 3423000000, "total_usd": 4737}
    result = check(truth, TABLE_NO_SCALE, {"$.research_usd": {"kind": "normalised", "quote": "3,423"}})
    assert not failures(result)
    assert ("evidence_unverified", "$.research_usd") in issues(result)


def test_a_cell_scaled_by_the_wrong_power_is_still_rejected() -> None:
    # "(In millions)" and a value a thousand times the cell: neither the cell nor its stated scale
    truth = {"company": "NVIDIA", "research_usd": 3423000, "total_usd": 4737000000}
    result = check(truth, TABLE, {"$.research_usd": {"kind": "normalised", "quote": "3,423"}})
    assert ("evidence_unverified", "$.research_usd") in issues(result) or failures(result)
    wrong = check({"company": "NVIDIA", "research_usd": 2532000000, "total_usd": 1}, TABLE, {"$.research_usd": "3,423"})
    assert ("evidence_mismatch", "$.research_usd") in failures(wrong)


# ---- a name that ends in an abbreviation ------------------------------------------------------------------

WOOD = (
    "Ed Wood\nEdward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker.\n\n"
    "Conrad Brooks\nConrad Brooks (born January 3, 1931) is an American actor. He met Dr. Hamilton Osgood "
    "(March 2, 1901) in Baltimore."
)


def test_a_date_right_after_a_name_ending_in_jr_is_near_it() -> None:
    truth = {"people": [{"name": "Edward Davis Wood Jr.", "birth_date": "1924-10-10", "death_date": "1978-12-10"}]}
    assert not {code for code, _ in issues(check(truth, WOOD))} & {"value_not_near_entity"}


def test_a_title_does_not_cut_a_sentence_either() -> None:
    text = "Patients of 1962\nConrad Brooks is an American actor. Conrad Brooks was treated by Dr. Osgood in 1962."
    truth = {"people": [{"name": "Conrad Brooks", "treated_year": 1962}]}
    assert ("value_not_near_entity", "$.people[0].treated_year") not in issues(check(truth, text))


def test_another_persons_date_is_still_not_near_the_name() -> None:
    truth = {"people": [{"name": "Edward Davis Wood Jr.", "birth_date": "1931-01-03", "death_date": "1978-12-10"}]}
    assert ("value_not_near_entity", "$.people[0].birth_date") in issues(check(truth, WOOD))


# ---- a count beside two lists of what it counts -----------------------------------------------------------

BAND = (
    "Winner is a South Korean boy group formed by YG Entertainment. The group has 4 members: Jinwoo, Seunghoon, "
    "Mino and Seungyoon. Taehyun left the group."
)


def test_a_count_that_one_of_its_lists_has_is_no_mismatch() -> None:
    truth = {
        "group": "Winner",
        "current_members": ["Jinwoo", "Seunghoon", "Mino", "Seungyoon"],
        "member_count": 4,
        "former_members": ["Taehyun"],
    }
    assert ("count_mismatch", "$.member_count") not in issues(check(truth, BAND))


def test_a_count_that_none_of_its_lists_has_is_flagged() -> None:
    truth = {
        "group": "Winner",
        "current_members": ["Jinwoo", "Seunghoon", "Mino"],
        "member_count": 4,
        "former_members": ["Taehyun"],
    }
    assert ("count_mismatch", "$.member_count") in issues(check(truth, BAND))


def test_a_count_against_its_only_list_is_still_checked() -> None:
    truth = {"group": "Winner", "members": ["Jinwoo", "Seunghoon", "Mino"], "member_count": 4}
    assert ("count_mismatch", "$.member_count") in issues(check(truth, BAND))


# ---- a yes/no field whose name holds a date word -----------------------------------------------------------

WRITERS = "Henry Roth\nHenry Roth (February 8, 1906 – October 13, 1995) was an American novelist."


def test_a_boolean_about_birth_is_no_date_stated_beside_the_name() -> None:
    truth = {"writers": [{"name": "Henry Roth", "nationality": "American", "born_in_england": None}]}
    schema = _schema({"writers": [{"name": "x", "nationality": "x", "born_in_england": True}]})
    result = check(truth, WRITERS, {"$.writers[0].born_in_england": "absent"}, schema)
    assert ("absent_but_stated", "$.writers[0].born_in_england") not in issues(result)


def test_a_birth_date_given_as_absent_beside_the_name_is_still_flagged() -> None:
    truth = {"writers": [{"name": "Henry Roth", "nationality": "American", "birth_date": None}]}
    result = check(truth, WRITERS, {"$.writers[0].birth_date": "absent"})
    assert ("absent_but_stated", "$.writers[0].birth_date") in issues(result)


# ---- a country for the adjective of its people --------------------------------------------------------------


def test_a_country_is_read_from_the_adjective_the_text_uses() -> None:
    from validation.readings import string_places

    assert string_places("Norway", "the Norwegian-born astronomer")
    assert string_places("United States", "Local H is an American rock band")
    assert string_places("Denmark", "a 1998 DANISH film")
    assert string_places("American", "she was born in the United States of America")


def test_a_country_whose_adjective_the_text_does_not_use_is_not_read() -> None:
    from validation.readings import string_places

    assert not string_places("Sweden", "a Danish film")
    assert not string_places("Ireland", "an Anglo-Irish writer")  # another people's adjective
    assert not string_places("Norway", "the Norwegianborn astronomer")


def test_a_demonym_grounds_its_country_and_a_wrong_country_is_still_doubted() -> None:
    context = "Quill are a Danish folk band formed in Saltmouth in 1983."
    right = check({"band": "Quill", "country": "Denmark", "formed_in": "Saltmouth"}, context, {"$.country": "Danish"})
    assert not failures(right) and not {c for c, _ in issues(right)} & {"evidence_unverified", "ungrounded_value"}
    wrong = check({"band": "Quill", "country": "Sweden", "formed_in": "Saltmouth"}, context, {"$.country": "Danish"})
    assert ("evidence_unverified", "$.country") in issues(wrong)
    unquoted = check({"band": "Quill", "country": "Sweden", "formed_in": "Saltmouth"}, context)
    assert "$.country" in unquoted.ungrounded


# ---- a derivation rule named the other way round -----------------------------------------------------------

AUTHORS = "Welsh writer Cadi Morgan wrote it. Scottish writer Ewan Dalgleish wrote the other."
NATIONALITIES = {"$.a": "Welsh writer Cadi Morgan", "$.b": "Scottish writer Ewan Dalgleish"}


def test_a_rule_named_opposite_to_its_fields_question_is_asked_not_rejected() -> None:
    evidence = NATIONALITIES | {"$.same_nationality": {"derived_from": ["$.a", "$.b"], "rule": "not_equal"}}
    result = check({"a": "Welsh", "b": "Scottish", "same_nationality": False}, AUTHORS, evidence)
    assert not failures(result)
    assert ("evidence_unverified", "$.same_nationality") in issues(result)


def test_a_boolean_against_a_rule_its_field_agrees_with_is_still_rejected() -> None:
    evidence = NATIONALITIES | {"$.different_nationality": {"derived_from": ["$.a", "$.b"], "rule": "not_equal"}}
    result = check({"a": "Welsh", "b": "Scottish", "different_nationality": False}, AUTHORS, evidence)
    assert ("evidence_mismatch", "$.different_nationality") in failures(result)
    evidence = NATIONALITIES | {"$.same_nationality": {"derived_from": ["$.a", "$.b"], "rule": "equal"}}
    result = check({"a": "Welsh", "b": "Scottish", "same_nationality": True}, AUTHORS, evidence)
    assert ("evidence_mismatch", "$.same_nationality") in failures(result)


def test_a_difference_of_sources_in_the_other_order_is_asked_and_a_wrong_one_rejected() -> None:
    context = "Solvang directed it from 1958 to 1977."
    quotes = {"$.start": "1958", "$.end": "1977"}
    swapped = quotes | {"$.years": {"derived_from": ["$.start", "$.end"], "rule": "difference"}}
    result = check({"start": 1958, "end": 1977, "years": 19}, context, swapped)
    assert not failures(result) and ("evidence_unverified", "$.years") in issues(result)
    result = check({"start": 1958, "end": 1977, "years": 20}, context, swapped)
    assert ("evidence_mismatch", "$.years") in failures(result)


# ---- quantities in words, and a unit carried over in the same exchange ---------------------------------------

REMOTE = (
    "[13:05] FEE005: ABOUT A CENTIMETRE FOR A BUTTON\n"
    "[13:25] FEE005: ABOUT TWO CENTIMETRES OKAY\n"
    "[13:27] MEE008: TWO'S NOT VERY HIGH AT ALL THOUGH\n"
    "[13:38] FEE005: OKAY WE'LL SAY TWO POINT FIVE\n"
    "[19:40] MEE008: AND SEVEN FOR THE LOGO\n"
)
MM = {
    "type": "object",
    "properties": {
        "button_mm": {"type": "number", "description": "button size in millimetres"},
        "height_mm": {"type": "number", "description": "height in millimetres"},
        "speaker": {"type": "string"},
    },
}


def test_a_quantity_in_words_is_converted_to_the_fields_unit() -> None:
    from validation.readings.units import quantity_mentions

    assert [(m, u) for _, _, m, u in quantity_mentions("ABOUT A CENTIMETRE")] == [(1, "centimeter")]
    result = check({"button_mm": 10, "height_mm": 20, "speaker": "FEE005"}, REMOTE, schema=MM)
    assert not result.ungrounded


def test_a_bare_number_takes_the_unit_said_just_before() -> None:
    result = check({"button_mm": 10, "height_mm": 25, "speaker": "FEE005"}, REMOTE, schema=MM)
    assert "$.height_mm" not in result.ungrounded


def test_a_unit_does_not_carry_past_the_exchange_nor_into_timestamps() -> None:
    far = check({"button_mm": 10, "height_mm": 70, "speaker": "FEE005"}, REMOTE, schema=MM)
    assert "$.height_mm" in far.ungrounded  # "SEVEN" said six minutes later
    stamp = check({"button_mm": 10, "height_mm": 380, "speaker": "FEE005"}, REMOTE, schema=MM)
    assert "$.height_mm" in stamp.ungrounded  # 38 is the line's timestamp
    wrong = check({"button_mm": 1, "height_mm": 25, "speaker": "FEE005"}, REMOTE, schema=MM)
    assert "$.button_mm" in wrong.ungrounded or ("unit_mismatch", "$.button_mm") in issues(wrong)


# ---- a stretch of transcript, or a run of table cells, pasted as one value ------------------------------------

TALK = (
    "[36:17] FEE005: I THINK IT WAS QUITE GOOD THAT WE HAD TIME LIMITS\n"
    "[36:21] FEE005: BECAUSE MEETINGS REALLY DO RUN ON\n"
    "[36:22] MEE008: OH YEAH\n"
)
TOKENS = "| Source | Type | Tokens |\n| DCLM-Baseline | Web pages | 3.71T |\n| StarCoder | Code | 83.0B |\n"


def test_utterances_with_their_labels_pasted_as_a_value_are_flagged() -> None:
    pasted = TALK.strip()
    truth = {"view_on_time_limits": pasted, "said_by": "FEE005", "said_at": "36:17"}
    schema = _schema(truth)
    schema["properties"]["view_on_time_limits"]["description"] = "her view, in a sentence"
    assert ("copied_span", "$.view_on_time_limits") in issues(check(truth, TALK, schema=schema))


def test_a_view_in_her_own_words_or_one_quoted_line_is_no_copy() -> None:
    truth = {"view_on_time_limits": "time limits were good: meetings run on", "said_by": "FEE005", "said_at": "36:17"}
    assert ("copied_span", "$.view_on_time_limits") not in issues(check(truth, TALK))
    quoted = {
        "quote": "[36:17] FEE005: I THINK IT WAS QUITE GOOD THAT WE HAD TIME LIMITS",
        "said_by": "FEE005",
        "at": 1,
    }
    assert ("copied_span", "$.quote") not in issues(check(quoted, TALK))


def test_a_run_of_numbers_pasted_as_one_value_is_flagged_and_a_single_figure_is_not() -> None:
    column = {"dclm_tokens": "3.71T 83.0B 58.6B 12.2B", "type": "Web pages", "source": "DCLM-Baseline"}
    assert ("copied_span", "$.dclm_tokens") in issues(check(column, TOKENS))
    single = {"dclm_tokens": "3.71T", "type": "Web pages", "source": "DCLM-Baseline"}
    assert ("copied_span", "$.dclm_tokens") not in issues(check(single, TOKENS))
    phone = {"phone": "+44 20 7946 0958", "type": "Web pages", "source": "DCLM-Baseline"}
    assert ("copied_span", "$.phone") not in issues(check(phone, TOKENS + "Call +44 20 7946 0958."))


# ---- a unit a hundred times smaller than the field's: percent for a fraction, cents for euros ----------------

GOAL = (
    "[20:54] FEE005: SO ABOUT SIXTY NINE SEVENTY PERCENT YEAH\n"
    "[20:56] MEE008: OH RIGHT ABOUT SEVENTY YEAH SEVENTY PERCENT\n"
    "[20:58] MEE007: WE'VE ONLY GOT LIKE WHAT TEN CENTS LEFT SO\n"
)
SHARE = {
    "type": "object",
    "properties": {
        "goal_share": {"type": "number", "description": "share of the goal reached, as a fraction between 0 and 1"},
        "money_left_eur": {"type": "number", "description": "money left in the budget, in euros"},
        "asked_by": {"type": "string"},
    },
}


def test_a_percentage_in_a_fraction_field_and_cents_in_a_euro_field_are_flagged() -> None:
    result = check({"goal_share": 70, "money_left_eur": 10, "asked_by": "MEE008"}, GOAL, schema=SHARE)
    assert ("unit_mismatch", "$.goal_share") in issues(result)
    assert ("unit_mismatch", "$.money_left_eur") in issues(result)


def test_the_fraction_and_the_euros_they_stand_for_are_not() -> None:
    result = check({"goal_share": 0.7, "money_left_eur": 0.1, "asked_by": "MEE008"}, GOAL, schema=SHARE)
    assert not {code for code, _ in issues(result)} & {"unit_mismatch"}


def test_a_percent_field_and_a_cents_field_take_the_number_as_said() -> None:
    schema = {
        "type": "object",
        "properties": {
            "goal_share_percent": {"type": "number", "description": "share of the goal reached, in percent"},
            "money_left_cents": {"type": "number", "description": "money left, in euro cents"},
            "asked_by": {"type": "string"},
        },
    }
    result = check({"goal_share_percent": 70, "money_left_cents": 10, "asked_by": "MEE008"}, GOAL, schema=schema)
    assert not {code for code, _ in issues(result)} & {"unit_mismatch"}


# ---- a yes/no read against every nearby sentence that names the field ------------------------------------------

SONG = (
    '"Oh My God" is a song released in 1999. The song was sent out to radio stations as a promo for the soundtrack. '
    "Despite the attention, it was never issued as a stand-alone single for public retail."
)
SONG_ISSUED = SONG.replace("it was never issued", "it was issued in 2000")


def test_true_against_a_nearby_sentence_that_names_the_field_and_negates_it_is_flagged() -> None:
    truth = {"song": "Oh My God", "year": 1999, "retail_single": True}
    result = check(truth, SONG, {"$.retail_single": "as a promo for the soundtrack"})
    assert ("boolean_against_text", "$.retail_single") in issues(result)


def test_the_same_sentence_affirming_or_a_false_value_raise_nothing() -> None:
    evidence = {"$.retail_single": "as a promo for the soundtrack"}
    issued = check({"song": "Oh My God", "year": 1999, "retail_single": True}, SONG_ISSUED, evidence)
    assert ("boolean_against_text", "$.retail_single") not in issues(issued)
    never = check({"song": "Oh My God", "year": 1999, "retail_single": False}, SONG, evidence)
    assert ("boolean_against_text", "$.retail_single") not in issues(never)


def test_a_sentence_naming_only_one_word_of_the_field_says_nothing_of_it() -> None:
    context = SONG.replace("stand-alone single for public retail", "stand-alone single")
    result = check(
        {"song": "Oh My God", "year": 1999, "retail_single": True}, context, {"$.retail_single": "as a promo"}
    )
    assert ("boolean_against_text", "$.retail_single") not in issues(result)


# ---- a proposal's outcome read from the later turns on the same topic ------------------------------------------

PROPOSAL = (
    "[0:30] FXX003: UM WHAT ABOUT A SOLAR PANEL ON TOP\n"
    "[0:33] MXX002: A SOLAR PANEL WOULD ADD ABOUT FOUR EUROS TO EACH UNIT\n"
    "[0:38] MXX002: THE BUDGET IS TIGHT\n"
    "[0:41] FXX003: OKAY FAIR ENOUGH FORGET THE SOLAR PANEL\n"
)
KEPT = PROPOSAL.replace("OKAY FAIR ENOUGH FORGET THE SOLAR PANEL", "OKAY LET'S GO WITH THE SOLAR PANEL THEN")
ADOPTED = {
    "type": "object",
    "properties": {
        "proposed_by": {"type": "string", "description": "who proposed the solar panel"},
        "cost_eur": {"type": "number", "description": "extra cost per unit in euros"},
        "adopted": {"type": "boolean", "description": "true if the team decided to use the solar panel"},
    },
}


def test_a_proposal_dropped_a_few_turns_later_is_not_adopted() -> None:
    truth = {"proposed_by": "FXX003", "cost_eur": 4, "adopted": True}
    result = check(truth, PROPOSAL, {"$.adopted": "UM WHAT ABOUT A SOLAR PANEL ON TOP"}, ADOPTED)
    assert ("boolean_against_text", "$.adopted") in issues(result)


def test_a_proposal_taken_up_or_honestly_marked_dropped_raises_nothing() -> None:
    evidence = {"$.adopted": "UM WHAT ABOUT A SOLAR PANEL ON TOP"}
    kept = check({"proposed_by": "FXX003", "cost_eur": 4, "adopted": True}, KEPT, evidence, ADOPTED)
    assert ("boolean_against_text", "$.adopted") not in issues(kept)
    dropped = check({"proposed_by": "FXX003", "cost_eur": 4, "adopted": False}, PROPOSAL, evidence, ADOPTED)
    assert ("boolean_against_text", "$.adopted") not in issues(dropped)


# ---- a state's or province's code for the name the text writes -------------------------------------------------


def test_a_state_code_is_read_from_the_states_name() -> None:
    from validation.readings import string_places

    assert string_places("OH", "Lake Shore Cryotronics, Westerville, Ohio 43082")
    assert string_places("NSW", "a firm in Sydney, New South Wales")
    context = "Lake Shore Cryotronics, 575 McCorkle Blvd, Westerville, Ohio 43082."
    result = check(
        {"company": "Lake Shore Cryotronics", "city": "Westerville", "state": "OH"}, context, {"$.state": "Ohio"}
    )
    assert not failures(result) and ("evidence_unverified", "$.state") not in issues(result)


def test_another_states_code_is_not_read() -> None:
    from validation.readings import string_places

    assert not string_places("TX", "Westerville, Ohio 43082")
    context = "Lake Shore Cryotronics, 575 McCorkle Blvd, Westerville, Ohio 43082."
    result = check(
        {"company": "Lake Shore Cryotronics", "city": "Westerville", "state": "OK"}, context, {"$.state": "Ohio"}
    )
    assert ("evidence_unverified", "$.state") in issues(result)


# ---- a year taken from another entry of a list --------------------------------------------------------------

REFERENCES = (
    "References\n"
    "5. Irving Kaplansky, Elementary divisors and modules, Transactions of the AMS 66 (1949), no. 2, 464-491.\n"
    "7. Erich Lamprecht, Allgemeine Theorie der Gausschen Summen, Mathematische Nachrichten 9 (1953), no. 3.\n"
)


def test_a_year_from_another_entry_than_all_its_siblings_is_flagged() -> None:
    truth = {"ref": {"author": "Erich Lamprecht", "journal": "Mathematische Nachrichten", "volume": 9, "year": 1949}}
    assert ("value_from_other_entity", "$.ref.year") in issues(check(truth, REFERENCES))


def test_the_entrys_own_year_is_not() -> None:
    truth = {"ref": {"author": "Erich Lamprecht", "journal": "Mathematische Nachrichten", "volume": 9, "year": 1953}}
    assert ("value_from_other_entity", "$.ref.year") not in issues(check(truth, REFERENCES))


def test_a_sentence_with_another_events_year_is_no_entry() -> None:
    context = (
        "Fenwick Records is an independent record label founded in 1976 in Newcastle by Ann Lowe.\n\n"
        "Harbour Lights\nHarbour Lights is an album released in 1989."
    )
    truth = {"label": {"name": "Fenwick Records", "city": "Newcastle", "founder": "Ann Lowe", "album_year": 1989}}
    assert ("value_from_other_entity", "$.label.album_year") not in issues(check(truth, context))


def test_a_bare_number_kept_in_the_unit_said_before_is_a_unit_mismatch() -> None:
    talk = "[13:25] FEE005: ABOUT TWO CENTIMETRES OKAY\n[13:35] MEE008: MAYBE CLOSER TO 2.5 THEN\n"
    wrong = check({"button_mm": 10, "height_mm": 2.5, "speaker": "MEE008"}, talk, schema=MM)
    assert ("unit_mismatch", "$.height_mm") in issues(wrong)
    right = check({"button_mm": 10, "height_mm": 25, "speaker": "MEE008"}, talk, schema=MM)
    assert ("unit_mismatch", "$.height_mm") not in issues(right) and "$.height_mm" not in right.ungrounded
    later = "[13:25] FEE005: ABOUT TWO CENTIMETRES OKAY\n[19:35] MEE008: MAYBE CLOSER TO 2.5 THEN\n"
    assert ("unit_mismatch", "$.height_mm") not in issues(
        check({"height_mm": 2.5, "speaker": "MEE008"}, later, schema=MM)
    )


# ---- the digits after a spoken decimal point given as a whole number -------------------------------------------

BUDGET = (
    "[9:10] FEE005: SO WE'RE OVER BUDGET TO THE TUNE OF TWO POINT T THREE EURO\n"
    "[9:21] MEE008: AT THIS POINT THREE BUTTONS ARE LEFT\n"
)


def test_a_number_said_after_point_is_the_decimals_digits() -> None:
    result = check({"over_by_eur": 3, "speaker": "FEE005", "note": "over budget"}, BUDGET.splitlines()[0])
    assert ("scale_dropped", "$.over_by_eur") in issues(result)


def test_the_decimal_itself_and_at_this_point_are_no_slip() -> None:
    result = check({"over_by_eur": 2.3, "speaker": "FEE005", "note": "over budget"}, BUDGET)
    assert ("scale_dropped", "$.over_by_eur") not in issues(result)
    buttons = check({"buttons_left": 3, "speaker": "MEE008", "note": "buttons"}, BUDGET.splitlines()[1])
    assert ("scale_dropped", "$.buttons_left") not in issues(buttons)


# ---- a departed member listed as a current one ---------------------------------------------------------------

GROUP = (
    "Winner is a South Korean boy group. It currently consists of four members, Jinwoo, Seunghoon, Mino and "
    "Seungyoon. Originally a five-piece group with Taehyun, who later departed from the group in November 2016."
)


def test_a_member_the_text_says_left_is_no_current_member() -> None:
    truth = {"group": "Winner", "current_members": ["Jinwoo", "Seunghoon", "Mino", "Seungyoon", "Taehyun"]}
    assert ("value_from_other_phrase", "$.current_members[4]") in issues(check(truth, GROUP))


def test_current_members_and_a_list_of_all_members_raise_nothing() -> None:
    current = {"group": "Winner", "current_members": ["Jinwoo", "Seunghoon", "Mino", "Seungyoon"]}
    assert not {c for c, _ in issues(check(current, GROUP))} & {"value_from_other_phrase"}
    every = {"group": "Winner", "members": ["Jinwoo", "Seunghoon", "Mino", "Seungyoon", "Taehyun"]}
    assert ("value_from_other_phrase", "$.members[4]") not in issues(check(every, GROUP))
    replaced = "Kim left the band in 2010 and was succeeded by Lee, who still sings."
    assert not issues(check({"band": "X", "current_members": ["Lee"]}, replaced)) & {
        ("value_from_other_phrase", "$.current_members[0]")
    }
