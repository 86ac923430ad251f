"""A held-out adversarial set for the pre-filter (validation + heuristic judge), hand-built.

Half are wrong answers that look right (`expect="reject"`), half right answers that look wrong
(`expect="accept"`), across the three sources. HotpotQA cases use real contexts from
tests/data/hotpotqa (by `_id`); AMI and olmOCR cases carry short contexts written for this set in the
shape the loaders produce (`[m:ss] SPEAKER: TEXT` lines; olmOCR markdown with pipe tables).
Every case names the failure mode it stands for: the cases of issue 10 are all here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def s(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def n(description: str) -> dict[str, Any]:
    return {"type": "number", "description": description}


def i(description: str) -> dict[str, Any]:
    return {"type": "integer", "description": description}


def b(description: str) -> dict[str, Any]:
    return {"type": "boolean", "description": description}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {**schema, "type": [schema["type"], "null"]}


def obj(description: str = "", **properties: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
    if description:
        schema["description"] = description
    return schema


def arr(description: str, items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "description": description, "items": items}


@dataclass
class Case:
    id: str
    source: str  # hotpotqa | ami | olmocr
    expect: str  # "accept" (a right answer that looks wrong) | "reject" (a wrong answer that looks right)
    why: str
    json_schema: dict[str, Any]
    ground_truth: dict[str, Any]
    question: str | None = None  # default: the HotpotQA seed question
    hotpot_id: str | None = None
    context: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)


# ---- HotpotQA (real contexts) ----------------------------------------------------------------------------

NATIONALITY = "5a8b57f25542995d1e6f1371"  # Scott Derrickson and Ed Wood: same nationality? yes
OLDER = "5a7bbb64554299042af8f7cc"  # Annie Morton or Terry Richardson: who is older? Terry Richardson
ARENA = "5a87ab905542996e4f3088c1"  # arena of the Lewiston Maineiacs seats 3,677
FERGUSON = "5ab6d09255429954757d337d"  # Ferguson managed Manchester United from 1986 to 2013
BROWN = "5a75e05c55429976ec32bc5f"  # Brown County population 9,984
WRITER = "5a8133725542995ce29dcbdb"  # Henry Roth or Robert Erskine Childers from England? Childers
TRIGIANI = "5a8e3ea95542995a26add48d"  # Greenwich Village, New York City

PEOPLE_SCHEMA = obj(
    people=arr(
        "the two people compared",
        obj("a person", name=s("name as written"), nationality=s("nationality adjective as written")),
    ),
    both_filmmakers=b("whether both make films"),
    same_nationality=b("whether they share a nationality"),
)
AGES_SCHEMA = obj(
    people=arr("the two people", obj("a person", name=s("name as written"), born=s("date of birth"))),
    older=s("who is older"),
    basis=s("what is compared"),
)
ARENA_SCHEMA_STR = obj(
    team=s("the team"),
    arena=obj("its home arena", name=s("arena name"), city=s("where it is")),
    seating_capacity=s("seated capacity as written"),
)
ARENA_SCHEMA_INT = obj(
    team=s("the team"),
    arena=obj("its home arena", name=s("arena name"), city=s("where it is")),
    seating_capacity=i("seated capacity"),
)
TENURE_SCHEMA = obj(
    recruit=s("the player recruited"),
    manager=obj("who recruited him", name=s("manager's name"), club=s("club managed")),
    tenure=obj("years managing the club", start_year=i("first year"), end_year=i("last year")),
)
COUNTY_SCHEMA = obj(
    lake=s("the fishing lake"),
    county=obj("the county it is in", name=s("county name"), state=s("state")),
    population=i("county population at the 2010 census"),
)
WRITERS_SCHEMA = obj(
    writers=arr("the two writers", obj("a writer", name=s("name as written"), origin=s("where from"))),
    from_england=s("the writer from England"),
    basis=s("what is compared"),
)
DIRECTOR_SCHEMA = obj(
    film=s("the film"),
    director=obj("its director", name=s("director's name"), role=s("other work")),
    neighborhood=s("neighbourhood she is based in"),
    city=s("city"),
)
WHOLE = "__CONTEXT__"  # replaced by the whole context: a copy of it as the answer

CASES: list[Case] = [
    Case(
        "hq-bool-wrong-leaf",
        "hotpotqa",
        "reject",
        "same_nationality is false; another boolean (both_filmmakers) is true and used to pass",
        PEOPLE_SCHEMA,
        {
            "people": [
                {"name": "Scott Derrickson", "nationality": "American"},
                {"name": "Ed Wood", "nationality": "American"},
            ],
            "both_filmmakers": True,
            "same_nationality": False,
        },
        hotpot_id=NATIONALITY,
    ),
    Case(
        "hq-bool-derived-right",
        "hotpotqa",
        "accept",
        "same_nationality true, derived from the two nationalities by the rule `equal`",
        PEOPLE_SCHEMA,
        {
            "people": [
                {"name": "Scott Derrickson", "nationality": "American"},
                {"name": "Ed Wood", "nationality": "American"},
            ],
            "both_filmmakers": True,
            "same_nationality": True,
        },
        hotpot_id=NATIONALITY,
        evidence={
            "$.same_nationality": {
                "derived_from": ["$.people[0].nationality", "$.people[1].nationality"],
                "rule": "equal",
            }
        },
    ),
    Case(
        "hq-bool-derived-miscomputed",
        "hotpotqa",
        "reject",
        "evidence claims `equal` of two equal nationalities, but the value says false",
        PEOPLE_SCHEMA,
        {
            "people": [
                {"name": "Scott Derrickson", "nationality": "American"},
                {"name": "Ed Wood", "nationality": "American"},
            ],
            "both_filmmakers": True,
            "same_nationality": False,
        },
        question="Did Scott Derrickson and Ed Wood have different nationalities or the same one?",
        hotpot_id=NATIONALITY,
        evidence={
            "$.same_nationality": {
                "derived_from": ["$.people[0].nationality", "$.people[1].nationality"],
                "rule": "equal",
            }
        },
    ),
    Case(
        "hq-reworded-wrong",
        "hotpotqa",
        "reject",
        "the question is reworded, which used to skip the seed-answer check; the answer is wrong",
        PEOPLE_SCHEMA,
        {
            "people": [
                {"name": "Scott Derrickson", "nationality": "American"},
                {"name": "Ed Wood", "nationality": "American"},
            ],
            "both_filmmakers": True,
            "same_nationality": False,
        },
        question="Did Scott Derrickson and Ed Wood share the same nationality?",
        hotpot_id=NATIONALITY,
    ),
    Case(
        "hq-reworded-right",
        "hotpotqa",
        "accept",
        "the same question reworded, answered right",
        PEOPLE_SCHEMA,
        {
            "people": [
                {"name": "Scott Derrickson", "nationality": "American"},
                {"name": "Ed Wood", "nationality": "American"},
            ],
            "both_filmmakers": True,
            "same_nationality": True,
        },
        question="Did Scott Derrickson and Ed Wood share the same nationality?",
        hotpot_id=NATIONALITY,
    ),
    Case(
        "hq-birth-dates-swapped",
        "hotpotqa",
        "reject",
        "the two birth dates are swapped; both dates are in the context, so they looked grounded",
        AGES_SCHEMA,
        {
            "people": [
                {"name": "Annie Morton", "born": "August 14, 1965"},
                {"name": "Terry Richardson", "born": "October 8, 1970"},
            ],
            "older": "Terry Richardson",
            "basis": "born",
        },
        hotpot_id=OLDER,
    ),
    Case(
        "hq-birth-dates-iso",
        "hotpotqa",
        "accept",
        "birth dates normalised to ISO 8601: not in the context as written",
        AGES_SCHEMA,
        {
            "people": [
                {"name": "Annie Morton", "born": "1970-10-08"},
                {"name": "Terry Richardson", "born": "1965-08-14"},
            ],
            "older": "Terry Richardson",
            "basis": "born",
        },
        hotpot_id=OLDER,
    ),
    Case(
        "hq-capacity-substring",
        "hotpotqa",
        "reject",
        "'3' passed as the capacity because it is a substring of '3,677'",
        ARENA_SCHEMA_STR,
        {
            "team": "Lewiston Maineiacs",
            "arena": {"name": "Androscoggin Bank Colisée", "city": "Lewiston"},
            "seating_capacity": "3",
        },
        hotpot_id=ARENA,
    ),
    Case(
        "hq-capacity-total-not-seated",
        "hotpotqa",
        "reject",
        "4,000 is in the same sentence, but it is the total capacity, not the seated one",
        ARENA_SCHEMA_INT,
        {
            "team": "Lewiston Maineiacs",
            "arena": {"name": "Androscoggin Bank Colisée", "city": "Lewiston"},
            "seating_capacity": 4000,
        },
        hotpot_id=ARENA,
    ),
    Case(
        "hq-capacity-integer",
        "hotpotqa",
        "accept",
        "seating_capacity 3677 for the context's '3,677' (seed answer '3,677 seated')",
        ARENA_SCHEMA_INT,
        {
            "team": "Lewiston Maineiacs",
            "arena": {"name": "Androscoggin Bank Colisée", "city": "Lewiston"},
            "seating_capacity": 3677,
        },
        hotpot_id=ARENA,
    ),
    Case(
        "hq-tenure-wrong-end",
        "hotpotqa",
        "reject",
        "the end year is wrong (2003; the context says 2013), every other value is right",
        TENURE_SCHEMA,
        {
            "recruit": "David Beckham",
            "manager": {"name": "Alexander Chapman Ferguson", "club": "Manchester United"},
            "tenure": {"start_year": 1986, "end_year": 2003},
        },
        hotpot_id=FERGUSON,
    ),
    Case(
        "hq-tenure-split",
        "hotpotqa",
        "accept",
        "the seed answer 'from 1986 to 2013' split into start_year and end_year",
        TENURE_SCHEMA,
        {
            "recruit": "David Beckham",
            "manager": {"name": "Alexander Chapman Ferguson", "club": "Manchester United"},
            "tenure": {"start_year": 1986, "end_year": 2013},
        },
        hotpot_id=FERGUSON,
    ),
    Case(
        "hq-population-typo",
        "hotpotqa",
        "reject",
        "population 9948 for 9,984: digits transposed",
        COUNTY_SCHEMA,
        {
            "lake": "Brown State Fishing Lake",
            "county": {"name": "Brown County", "state": "Kansas"},
            "population": 9948,
        },
        hotpot_id=BROWN,
    ),
    Case(
        "hq-population-comma",
        "hotpotqa",
        "accept",
        "population 9984 for the context's '9,984'",
        COUNTY_SCHEMA,
        {
            "lake": "Brown State Fishing Lake",
            "county": {"name": "Brown County", "state": "Kansas"},
            "population": 9984,
        },
        hotpot_id=BROWN,
    ),
    Case(
        "hq-writer-wrong",
        "hotpotqa",
        "reject",
        "names the other writer; both names are in the context",
        WRITERS_SCHEMA,
        {
            "writers": [
                {"name": "Henry Roth", "origin": "American"},
                {"name": "Robert Erskine Childers", "origin": "English"},
            ],
            "from_england": "Henry Roth",
            "basis": "origin",
        },
        hotpot_id=WRITER,
    ),
    Case(
        "hq-writer-without-honours",
        "hotpotqa",
        "accept",
        "'Robert Erskine Childers' for the seed answer 'Robert Erskine Childers DSC'",
        WRITERS_SCHEMA,
        {
            "writers": [
                {"name": "Henry Roth", "origin": "American"},
                {"name": "Robert Erskine Childers", "origin": "English"},
            ],
            "from_england": "Robert Erskine Childers",
            "basis": "origin",
        },
        hotpot_id=WRITER,
    ),
    Case(
        "hq-answer-spread",
        "hotpotqa",
        "accept",
        "the seed answer 'Greenwich Village, New York City' spread over two fields",
        DIRECTOR_SCHEMA,
        {
            "film": "Big Stone Gap",
            "director": {"name": "Adriana Trigiani", "role": "best-selling author"},
            "neighborhood": "Greenwich Village",
            "city": "New York City",
        },
        hotpot_id=TRIGIANI,
    ),
    Case(
        "hq-older-as-written",
        "hotpotqa",
        "accept",
        "birth dates as written, the older person named",
        AGES_SCHEMA,
        {
            "people": [
                {"name": "Annie Morton", "born": "October 8, 1970"},
                {"name": "Terry Richardson", "born": "August 14, 1965"},
            ],
            "older": "Terry Richardson",
            "basis": "born",
        },
        hotpot_id=OLDER,
    ),
    Case(
        "hq-population-string",
        "hotpotqa",
        "accept",
        "population as the string '9,984', with a quoted span as evidence",
        obj(
            lake=s("the fishing lake"),
            county=obj("the county it is in", name=s("county name"), state=s("state")),
            population=s("county population at the 2010 census, as written"),
        ),
        {
            "lake": "Brown State Fishing Lake",
            "county": {"name": "Brown County", "state": "Kansas"},
            "population": "9,984",
        },
        hotpot_id=BROWN,
        evidence={"$.population": "the county population was 9,984"},
    ),
    Case(
        "hq-copied-context",
        "hotpotqa",
        "reject",
        "a copy of the whole context as one value: everything is 'grounded'",
        DIRECTOR_SCHEMA,
        {
            "film": "Big Stone Gap",
            "director": {"name": "Adriana Trigiani", "role": WHOLE},
            "neighborhood": "Greenwich Village",
            "city": "New York City",
        },
        question="Who directed Big Stone Gap, what else does she do, and where is she based?",
        hotpot_id=TRIGIANI,
    ),
]

# ---- AMI (a meeting written for this set, in the loader's format) -------------------------------------------

MEETING = """[0:01] FXX001: OKAY LET'S START WITH THE BUDGET FOR THE REMOTE
[0:05] MXX002: THE REMOTE SHOULD COST TWELVE AND A HALF POUNDS AT MOST
[0:12] FXX003: I THINK WE SHOULD USE A RUBBER CASE SO IT DOES NOT BREAK
[0:18] MXX004: YEAH
[0:20] FXX001: AND THE BATTERY SHOULD LAST TWO YEARS
[0:31] MXX002: YEAH
[0:40] FXX003: I WILL DRAW THE SKETCHES BY FRIDAY
[0:47] MXX004: OKAY
[0:52] MXX002: AND I WILL CALL THE RUBBER FACTORY"""

REMOTE_SCHEMA = obj(
    price_limit_pounds=nullable(n("the most the remote may cost, in pounds")),
    case_material=nullable(s("material chosen for the case")),
    battery_life_years=nullable(i("how long the battery should last, in years")),
    sketches=obj("who draws the sketches and by when", owner=nullable(s("speaker")), deadline=nullable(s("day"))),
)
ONE_TURN_SCHEMA = obj(
    price=obj("the price limit", amount=n("amount"), currency=s("currency word as said"), limit=s("limit words")),
    said_by=s("speaker"),
    topic=s("what is priced"),
)

CASES += [
    Case(
        "ami-words-as-numbers",
        "ami",
        "accept",
        "'TWELVE AND A HALF POUNDS' -> 12.5 and 'TWO YEARS' -> 2: numbers spoken as words",
        REMOTE_SCHEMA,
        {
            "price_limit_pounds": 12.5,
            "case_material": "RUBBER",
            "battery_life_years": 2,
            "sketches": {"owner": "FXX003", "deadline": "FRIDAY"},
        },
        question="What did the team decide about the remote's price, case material and battery life, "
        "and who draws the sketches by when?",
        context=MEETING,
    ),
    Case(
        "ami-nulls-and-yeah",
        "ami",
        "reject",
        "nulls plus the word 'YEAH': the old multi-turn score counted any substring hit",
        REMOTE_SCHEMA,
        {
            "price_limit_pounds": None,
            "case_material": "YEAH",
            "battery_life_years": None,
            "sketches": {"owner": None, "deadline": None},
        },
        question="What did the team decide about the remote's price, case material and battery life, "
        "and who draws the sketches by when?",
        context=MEETING,
    ),
    Case(
        "ami-timestamps-as-values",
        "ami",
        "reject",
        "price 20 and battery 40: integers found only in the [m:ss] timestamps",
        REMOTE_SCHEMA,
        {
            "price_limit_pounds": 20,
            "case_material": "RUBBER",
            "battery_life_years": 40,
            "sketches": {"owner": "FXX003", "deadline": "FRIDAY"},
        },
        question="What did the team decide about the remote's price, case material and battery life, "
        "and who draws the sketches by when?",
        context=MEETING,
    ),
    Case(
        "ami-twelve-not-twelve-and-a-half",
        "ami",
        "reject",
        "price 12 where the meeting said twelve and a half",
        REMOTE_SCHEMA,
        {
            "price_limit_pounds": 12,
            "case_material": "RUBBER",
            "battery_life_years": 2,
            "sketches": {"owner": "FXX003", "deadline": "FRIDAY"},
        },
        question="What did the team decide about the remote's price, case material and battery life, "
        "and who draws the sketches by when?",
        context=MEETING,
    ),
    Case(
        "ami-one-utterance",
        "ami",
        "accept",
        "every value comes from one utterance: a weak multi-turn question, yet a right answer; the pre-filter "
        "reports its multi_turn score and leaves the verdict to the LLM judge",
        ONE_TURN_SCHEMA,
        {
            "price": {"amount": 12.5, "currency": "POUNDS", "limit": "AT MOST"},
            "said_by": "MXX002",
            "topic": "THE REMOTE",
        },
        question="What price limit was given for the remote, in what currency, and by which speaker?",
        context=MEETING,
    ),
    Case(
        "ami-absent-deadline",
        "ami",
        "accept",
        "no deadline was given for the factory call: null with `absent` evidence is right",
        obj(
            price_limit_pounds=n("the most the remote may cost, in pounds"),
            case_material=s("material chosen for the case"),
            factory_call=obj("the call to the factory", owner=s("speaker"), deadline=nullable(s("day"))),
        ),
        {
            "price_limit_pounds": 12.5,
            "case_material": "RUBBER",
            "factory_call": {"owner": "MXX002", "deadline": None},
        },
        question="What price and case material were agreed, and who calls the rubber factory by when?",
        context=MEETING,
        evidence={"$.factory_call.deadline": "absent", "$.price_limit_pounds": "TWELVE AND A HALF POUNDS"},
    ),
    Case(
        "ami-quoted-spans",
        "ami",
        "accept",
        "every value with a quoted span from the utterance it comes from; the owner is a speaker label",
        REMOTE_SCHEMA,
        {
            "price_limit_pounds": 12.5,
            "case_material": "RUBBER",
            "battery_life_years": 2,
            "sketches": {"owner": "FXX003", "deadline": "FRIDAY"},
        },
        question="What did the team decide about the remote's price, case material and battery life, "
        "and who draws the sketches by when?",
        context=MEETING,
        evidence={
            "$.price_limit_pounds": {"kind": "normalised", "quote": "TWELVE AND A HALF POUNDS AT MOST"},
            "$.case_material": "USE A RUBBER CASE",
            "$.battery_life_years": {"kind": "normalised", "quote": "LAST TWO YEARS"},
            "$.sketches.deadline": "DRAW THE SKETCHES BY FRIDAY",
        },
    ),
    Case(
        "ami-evidence-in-timestamp",
        "ami",
        "reject",
        "evidence for 40 quotes the timestamp '0:40'",
        REMOTE_SCHEMA,
        {
            "price_limit_pounds": 12.5,
            "case_material": "RUBBER",
            "battery_life_years": 40,
            "sketches": {"owner": "FXX003", "deadline": "FRIDAY"},
        },
        question="What did the team decide about the remote's price, case material and battery life, "
        "and who draws the sketches by when?",
        context=MEETING,
        evidence={"$.battery_life_years": "0:40"},
    ),
]

# ---- olmOCR (pages written for this set, as olmOCR markdown) ------------------------------------------------

FERRIES = """# Harbour ferries — summer timetable

| Route | Destination | First sailing | Last sailing | Fare |
|---|---|---|---|---|
| F1 | Porth Mawr | 07:15 | 19:45 | 6.50 |
| F2 | Ynys Fach | 08:00 | 18:30 | 8.25 |
| F3 | Ynys Bach | 09:30 | 17:00 | 11.00 |

Children under 12 travel at half fare. Bicycles are carried free of charge."""

DISTRICT = """NORTH EAST ISD

Annual report on student outcomes, 2023

Graduation rate: 73.6% of the cohort finished within four years.
Net change: -4.2% against the previous year.
Schools reporting: 41"""

FERRY_SCHEMA = obj(
    route=obj("the route with the highest fare", code=s("route code as printed"), destination=s("where it goes")),
    first_sailing=s("time of the first sailing"),
    last_sailing=s("time of the last sailing"),
    fare=s("fare as printed"),
)
ROUTE_FARE_SCHEMA = obj(
    route=obj(
        "the route to Ynys Bach",
        code=s("route code as printed"),
        destination=s("where it goes"),
        fare=s("its fare as printed"),
    ),
    child_rule=s("the fare rule for children"),
    bicycles=s("what bicycles cost"),
)
FOOTNOTE_SCHEMA = obj(
    route=obj("the route with the highest fare", code=s("route code"), destination=s("where it goes")),
    fare=s("fare as printed"),
    footnotes=arr("the page's footnotes, in order", s("a footnote")),
)
DISTRICT_SCHEMA = obj(
    district=s("the school district named in the heading"),
    graduation_rate=n("share of the cohort graduating, as a fraction"),
    net_change_percent=n("change against the previous year, in percent"),
    schools=i("schools reporting"),
)
FERRY_QUESTION = "Which ferry route has the highest fare, where does it go, and when are its first and last sailings?"
DISTRICT_QUESTION = (
    "Which district is this report about, and what were its graduation rate, net change and number of schools?"
)

CASES += [
    Case(
        "ocr-table-right",
        "olmocr",
        "accept",
        "values read from the table, each in its own column",
        FERRY_SCHEMA,
        {
            "route": {"code": "F3", "destination": "Ynys Bach"},
            "first_sailing": "09:30",
            "last_sailing": "17:00",
            "fare": "11.00",
        },
        question=FERRY_QUESTION,
        context=FERRIES,
    ),
    Case(
        "ocr-times-permuted",
        "olmocr",
        "reject",
        "first and last sailing swapped: both times are on the page, in each other's column",
        FERRY_SCHEMA,
        {
            "route": {"code": "F3", "destination": "Ynys Bach"},
            "first_sailing": "17:00",
            "last_sailing": "09:30",
            "fare": "11.00",
        },
        question=FERRY_QUESTION,
        context=FERRIES,
    ),
    Case(
        "ocr-route-fare-right",
        "olmocr",
        "accept",
        "the fare from the route's own row, and the two rules below the table",
        ROUTE_FARE_SCHEMA,
        {
            "route": {"code": "F3", "destination": "Ynys Bach", "fare": "11.00"},
            "child_rule": "Children under 12 travel at half fare",
            "bicycles": "free of charge",
        },
        question="What is the route code and fare to Ynys Bach, and what do children and bicycles pay?",
        context=FERRIES,
    ),
    Case(
        "ocr-fare-from-other-row",
        "olmocr",
        "reject",
        "the fare is F2's (8.25), given for F3's row",
        ROUTE_FARE_SCHEMA,
        {
            "route": {"code": "F3", "destination": "Ynys Bach", "fare": "8.25"},
            "child_rule": "Children under 12 travel at half fare",
            "bicycles": "free of charge",
        },
        question="What is the route code and fare to Ynys Bach, and what do children and bicycles pay?",
        context=FERRIES,
    ),
    Case(
        "ocr-invented-destination",
        "olmocr",
        "reject",
        "the destination is invented ('Ynys Mawr' is not on the page); every other value is right",
        FERRY_SCHEMA,
        {
            "route": {"code": "F3", "destination": "Ynys Mawr"},
            "first_sailing": "09:30",
            "last_sailing": "17:00",
            "fare": "11.00",
        },
        question=FERRY_QUESTION,
        context=FERRIES,
    ),
    Case(
        "ocr-all-null",
        "olmocr",
        "reject",
        "an all-null ground truth on an image page",
        obj(
            route=obj("the route", code=nullable(s("code")), destination=nullable(s("destination"))),
            first_sailing=nullable(s("first sailing")),
            last_sailing=nullable(s("last sailing")),
            fare=nullable(s("fare")),
        ),
        {
            "route": {"code": None, "destination": None},
            "first_sailing": None,
            "last_sailing": None,
            "fare": None,
        },
        question=FERRY_QUESTION,
        context=FERRIES,
    ),
    Case(
        "ocr-empty-footnotes",
        "olmocr",
        "accept",
        "the page has no footnotes: an empty list marked `absent` is right",
        FOOTNOTE_SCHEMA,
        {"route": {"code": "F3", "destination": "Ynys Bach"}, "fare": "11.00", "footnotes": []},
        question="Which route has the highest fare, where does it go, and what footnotes does the page give?",
        context=FERRIES,
        evidence={"$.footnotes": {"kind": "absent", "note": "no footnotes on the page"}},
    ),
    Case(
        "ocr-normalised-percent",
        "olmocr",
        "accept",
        "'73.6%' -> 0.736 with `normalised` evidence, 'NORTH EAST ISD' as printed, -4.2 with its sign",
        DISTRICT_SCHEMA,
        {"district": "NORTH EAST ISD", "graduation_rate": 0.736, "net_change_percent": -4.2, "schools": 41},
        question=DISTRICT_QUESTION,
        context=DISTRICT,
        evidence={"$.graduation_rate": {"kind": "normalised", "quote": "73.6%"}},
    ),
    Case(
        "ocr-percent-and-case",
        "olmocr",
        "accept",
        "0.736 for '73.6%' located by the toolkit, the district in title case",
        DISTRICT_SCHEMA,
        {"district": "North East ISD", "graduation_rate": 0.736, "net_change_percent": -4.2, "schools": 41},
        question=DISTRICT_QUESTION,
        context=DISTRICT,
    ),
    Case(
        "ocr-sign-dropped",
        "olmocr",
        "reject",
        "net change 4.2 where the page says -4.2%: the sign used to be ignored",
        DISTRICT_SCHEMA,
        {"district": "NORTH EAST ISD", "graduation_rate": 0.736, "net_change_percent": 4.2, "schools": 41},
        question=DISTRICT_QUESTION,
        context=DISTRICT,
    ),
    Case(
        "ocr-evidence-mismatch",
        "olmocr",
        "reject",
        "evidence quotes '41' for a graduation rate of 0.41: the value is not a reading of its quote",
        DISTRICT_SCHEMA,
        {"district": "NORTH EAST ISD", "graduation_rate": 0.41, "net_change_percent": -4.2, "schools": 41},
        question=DISTRICT_QUESTION,
        context=DISTRICT,
        evidence={"$.graduation_rate": {"kind": "normalised", "quote": "Schools reporting: 41"}},
    ),
]
