"""Writes sample.ihm.jsonl and authored.jsonl: a short synthetic AMI-style meeting written by this
project (meeting XX0001a, invented speakers), and authored records about it.

The meeting is in the Hub dataset's row format (`edinburghcstr/ami`, config ihm, without `audio`),
rows grouped by speaker as in the Kaldi files, text upper case without punctuation. Kept beside the
sample so anyone can see how it was made; run it to regenerate:

    .venv/bin/python loaders/samples/ami/make_sample.py

The last two authored records are wrong on purpose (an undeclared ground-truth key; fewer than three
properties) so that a run on the sample shows rejections.
"""

import json
from pathlib import Path

HERE = Path(__file__).parent
MEETING = "XX0001a"
MICS = {"FXX001": "H00", "MXX002": "H01", "FXX003": "H02", "MXX004": "H03"}
START_CS = 150
GAP_CS = 30
SAME = "same"  # starts together with the previous utterance

# (speaker, text[, gap in centiseconds or SAME])
SCRIPT = [
    ("FXX001", "OKAY LET'S START THIS IS OUR FIRST DESIGN MEETING FOR THE BIKE LIGHT"),
    ("FXX001", "THE AGENDA IS THE BATTERY THE CASE THE COLOUR AND THE BUTTONS AND THEN THE PRICE"),
    ("MXX004", "SOUNDS GOOD"),
    ("FXX001", "SO FIRST THE BATTERY WHAT DO WE THINK"),
    ("MXX002", "I THINK WE SHOULD USE A RECHARGEABLE BATTERY WITH A USB CHARGER"),
    ("MXX002", "PEOPLE HATE BUYING NEW BATTERIES"),
    ("MXX004", "MM-HMM THE SURVEY SAYS YOUNG RIDERS CHARGE EVERYTHING FROM THEIR LAPTOP"),
    ("FXX003", "UM WHAT ABOUT A SOLAR PANEL ON TOP"),
    ("MXX002", "A SOLAR PANEL WOULD ADD ABOUT FOUR EUROS TO EACH UNIT"),
    ("FXX001", "THAT'S TOO MUCH FOR OUR BUDGET"),
    ("FXX003", "OKAY FAIR ENOUGH FORGET THE SOLAR PANEL"),
    ("FXX001", "SO WE GO WITH THE RECHARGEABLE BATTERY AND A USB CHARGER"),
    ("MXX002", "YEAH"),
    ("MXX004", "YEAH AGREED", SAME),
    ("FXX001", "NEXT THE CASE"),
    ("MXX002", "I WOULD MAKE IT FROM ALUMINIUM BECAUSE IT'S LIGHT AND STRONG"),
    ("FXX003", "ALUMINIUM DENTS WHEN THE BIKE FALLS OVER"),
    ("FXX003", "I'D RATHER HAVE A RUBBER CASE"),
    ("MXX004", "RUBBER IS ALSO CHEAPER"),
    ("MXX002", "HMM RUBBER SCRATCHES LESS TOO I SUPPOSE"),
    ("FXX001", "OKAY SO A RUBBER CASE"),
    ("FXX001", "AND THE COLOUR"),
    ("MXX004", "BRIGHT YELLOW TESTED BEST WITH OUR TARGET GROUP"),
    ("FXX003", "YELLOW IS EASIER TO SEE AT NIGHT TOO"),
    ("FXX001", "RIGHT BRIGHT YELLOW THEN"),
    ("FXX001", "NOW THE BUTTONS"),
    ("FXX003", "I PROPOSE ONE BIG BUTTON THAT YOU CAN PRESS WITH GLOVES ON"),
    ("FXX003", "PRESS ONCE FOR ON AND TWICE FOR FLASHING"),
    ("MXX004", "WHAT ABOUT VOICE CONTROL THAT'S VERY TRENDY RIGHT NOW"),
    ("MXX002", "VOICE CONTROL DOESN'T WORK IN THE WIND"),
    ("FXX001", "AND IT WON'T FIT IN THE BUDGET EITHER"),
    ("MXX004", "OKAY LET'S DROP IT"),
    ("FXX001", "SO ONE BIG BUTTON"),
    ("FXX001", "ABOUT THE PRICE MANAGEMENT WANTS US TO SELL IT FOR TWENTY FIVE EUROS"),
    ("MXX004", "COMPETITORS SELL SIMILAR LIGHTS FOR THIRTY EUROS SO THAT'S FINE"),
    ("FXX001", "AND THE PRODUCTION COST HAS TO STAY UNDER TWELVE EUROS FIFTY"),
    ("MXX002", "WITH RUBBER AND A RECHARGEABLE BATTERY WE SHOULD MANAGE THAT"),
    ("FXX001", "OKAY LET'S SPLIT THE WORK BEFORE THE NEXT MEETING"),
    ("FXX001", "WHO CAN FIND OUT WHAT THE USB CHARGER COSTS"),
    ("MXX002", "I'LL ASK THE SUPPLIER FOR A PRICE QUOTE ON THE USB CHARGER BY FRIDAY"),
    ("FXX001", "GREAT AND SOMEBODY NEEDS TO DRAW THE BUTTON"),
    ("FXX003", "I'LL MAKE THREE SKETCHES OF THE BIG BUTTON"),
    ("FXX001", "AND CAN YOU CHECK IF THE FACTORY HAS YELLOW RUBBER"),
    ("MXX004", "YES I'LL CALL THE RUBBER FACTORY ON MONDAY"),
    ("FXX001", "I'LL WRITE THE MINUTES AND SEND THEM TO EVERYONE TONIGHT"),
    ("MXX004", "WHEN IS THE NEXT MEETING"),
    ("FXX001", "NEXT MEETING IS ON WEDNESDAY AT TEN"),
    ("FXX003", "OKAY"),
    ("MXX002", "SEE YOU THEN", SAME),
    ("FXX001", "THANKS EVERYONE"),
]


def rows() -> list[dict]:
    out, begin, end = [], START_CS, START_CS
    for speaker, text, *rest in SCRIPT:
        gap = rest[0] if rest else GAP_CS
        if gap != SAME:
            begin = end + gap
        end = begin + 40 + 35 * len(text.split())
        mic = MICS[speaker]
        out.append(
            {
                "meeting_id": MEETING,
                "audio_id": f"AMI_{MEETING}_{mic}_{speaker}_{begin:07d}_{end:07d}",
                "text": text,
                "begin_time": begin / 100,
                "end_time": end / 100,
                "microphone_id": mic,
                "speaker_id": speaker,
            }
        )
    # Grouped by speaker (then time), as the Kaldi files list them: the loader must reorder.
    return sorted(out, key=lambda r: (r["microphone_id"], r["begin_time"]))


def obj(properties: dict, **extra) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
        **extra,
    }


def array_of(properties: dict) -> dict:
    return {"type": "array", "items": obj(properties)}


STR, INT = {"type": "string"}, {"type": "integer"}
ANNOTATOR = "sob-sample-author"

RECORDS = [
    {
        "question": "List every action item agreed for the next meeting: the task as said, the speaker who "
        "took it on and the deadline they gave (null when none).",
        "json_schema": obj(
            {
                "work_split_proposed_by": STR,
                "action_items": array_of({"owner": STR, "task": STR, "deadline": {"type": ["string", "null"]}}),
                "num_action_items": INT,
            }
        ),
        "ground_truth": {
            "work_split_proposed_by": "FXX001",
            "action_items": [
                {
                    "owner": "MXX002",
                    "task": "ASK THE SUPPLIER FOR A PRICE QUOTE ON THE USB CHARGER",
                    "deadline": "FRIDAY",
                },
                {"owner": "FXX003", "task": "MAKE THREE SKETCHES OF THE BIG BUTTON", "deadline": None},
                {"owner": "MXX004", "task": "CALL THE RUBBER FACTORY", "deadline": "MONDAY"},
                {"owner": "FXX001", "task": "WRITE THE MINUTES AND SEND THEM TO EVERYONE", "deadline": "TONIGHT"},
            ],
            "num_action_items": 4,
        },
    },
    {
        "question": "For each design decision, in the order taken, give the agenda topic, the option chosen "
        "and the speaker who first proposed that option.",
        "json_schema": obj(
            {
                "decisions": array_of({"topic": STR, "choice": STR, "proposed_by": STR}),
                "num_decisions": INT,
                "closed_by": {"type": "string", "description": "the speaker who announced the decisions"},
            }
        ),
        "ground_truth": {
            "decisions": [
                {"topic": "BATTERY", "choice": "RECHARGEABLE BATTERY WITH A USB CHARGER", "proposed_by": "MXX002"},
                {"topic": "CASE", "choice": "RUBBER CASE", "proposed_by": "FXX003"},
                {"topic": "COLOUR", "choice": "BRIGHT YELLOW", "proposed_by": "MXX004"},
                {"topic": "BUTTONS", "choice": "ONE BIG BUTTON", "proposed_by": "FXX003"},
            ],
            "num_decisions": 4,
            "closed_by": "FXX001",
        },
    },
    {
        "question": "Which proposals were dropped? For each, give the proposal, who made it, and the "
        "objection raised against it with the speaker who raised it.",
        "json_schema": obj(
            {
                "dropped_proposals": array_of(
                    {"proposal": STR, "proposed_by": STR, "objection": STR, "objected_by": STR}
                ),
                "num_dropped": INT,
                "num_distinct_proposers": INT,
            }
        ),
        "ground_truth": {
            "dropped_proposals": [
                {
                    "proposal": "A SOLAR PANEL ON TOP",
                    "proposed_by": "FXX003",
                    "objection": "A SOLAR PANEL WOULD ADD ABOUT FOUR EUROS TO EACH UNIT",
                    "objected_by": "MXX002",
                },
                {
                    "proposal": "ALUMINIUM",
                    "proposed_by": "MXX002",
                    "objection": "ALUMINIUM DENTS WHEN THE BIKE FALLS OVER",
                    "objected_by": "FXX003",
                },
                {
                    "proposal": "VOICE CONTROL",
                    "proposed_by": "MXX004",
                    "objection": "VOICE CONTROL DOESN'T WORK IN THE WIND",
                    "objected_by": "MXX002",
                },
            ],
            "num_dropped": 3,
            "num_distinct_proposers": 3,
        },
    },
    {
        "question": "What selling price and production cost limit were set, who announced them, and what "
        "price do competitors charge according to the meeting?",
        "json_schema": obj(
            {
                "selling_price": STR,
                "production_cost_limit": STR,
                "announced_by": STR,
                "competitor_price": STR,
                "competitor_price_mentioned_by": STR,
            }
        ),
        "ground_truth": {
            "selling_price": "TWENTY FIVE EUROS",
            "production_cost_limit": "TWELVE EUROS FIFTY",
            "announced_by": "FXX001",
            "competitor_price": "THIRTY EUROS",
            "competitor_price_mentioned_by": "MXX004",
        },
    },
    {
        "question": "Who argued for the rubber case and with what argument, and who had proposed the "
        "material it replaced?",
        "json_schema": obj(
            {
                "proposed_by": STR,
                "supporters": array_of({"speaker": STR, "argument": STR}),
                "replaced_material": STR,
                "replaced_material_proposed_by": STR,
            }
        ),
        "ground_truth": {
            "proposed_by": "FXX003",
            "supporters": [
                {"speaker": "MXX004", "argument": "RUBBER IS ALSO CHEAPER"},
                {"speaker": "MXX002", "argument": "RUBBER SCRATCHES LESS TOO"},
            ],
            "replaced_material": "ALUMINIUM",
            "replaced_material_proposed_by": "MXX002",
        },
    },
    # Bad on purpose: `location` is not declared in the schema.
    {
        "question": "When is the next meeting and who asked about it?",
        "json_schema": obj({"day": STR, "time": STR, "asked_by": STR}),
        "ground_truth": {"day": "WEDNESDAY", "time": "TEN", "asked_by": "MXX004", "location": "ROOM TWO"},
    },
    # Bad on purpose: only two properties.
    {
        "question": "Who chaired the meeting and how many people spoke?",
        "json_schema": obj({"chair": STR, "num_speakers": INT}),
        "ground_truth": {"chair": "FXX001", "num_speakers": 4},
    },
]


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _strings(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner)


def main() -> None:
    meeting_rows = rows()
    transcript = "\n".join(f"{r['speaker_id']}: {r['text']}" for r in meeting_rows)
    for record in RECORDS[:5]:
        for text in _strings(record["ground_truth"]):
            assert text in transcript, f"ground truth {text!r} is not in the transcript"
    with (HERE / "sample.ihm.jsonl").open("w", encoding="utf-8") as handle:
        for row in meeting_rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    with (HERE / "authored.jsonl").open("w", encoding="utf-8") as handle:
        for record in RECORDS:
            line = {"source_id": MEETING, **record, "annotator": ANNOTATOR}
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
