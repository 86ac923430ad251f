"""Writes sample.json: a small HotpotQA-format sample written by this project (fictional facts).

Kept beside the sample so anyone can see how it was made; run it to regenerate.
"""

import json
from pathlib import Path

P = {
    "Marrow Creek Observatory": [
        "Marrow Creek Observatory is an astronomical observatory near the town of Elsford, founded in 1931.",
        " Its main instrument is a 1.2 metre reflecting telescope built by the Halvorsen Optical Works.",
        " The observatory was directed by Ingrid Solvang from 1958 to 1977.",
    ],
    "Ingrid Solvang": [
        "Ingrid Solvang (1912 - 1990) was a Norwegian-born astronomer known for her catalogue of variable stars.",
        " She studied at the University of Oslo before moving to Elsford in 1949.",
    ],
    "Halvorsen Optical Works": [
        "Halvorsen Optical Works was a Danish maker of lenses and mirrors, active from 1902 to 1968.",
        " The firm was based in Aarhus.",
    ],
    "Elsford": [
        "Elsford is a market town on the river Wend with a population of 14,300.",
        " It is known for its wool market and its observatory.",
    ],
    "The Lantern Keepers": [
        "The Lantern Keepers is a 1998 novel by the Welsh writer Cadi Morgan.",
        " It follows three lighthouse families on the island of Ynys Bach.",
        " The novel won the Tir Prize in 1999.",
    ],
    "Cadi Morgan": [
        "Cadi Morgan (born 1961) is a Welsh novelist and teacher from Aberteifi.",
        " She has written nine novels.",
    ],
    "Salt and Iron": [
        "Salt and Iron is a 2004 novel by the Scottish writer Ewan Dalgleish.",
        " It is set in a shipyard on the Clyde in 1912.",
    ],
    "Ewan Dalgleish": [
        "Ewan Dalgleish (born 1958) is a Scottish novelist from Greenock.",
        " He worked as a welder before publishing his first book in 1991.",
    ],
    "Tir Prize": [
        "The Tir Prize is a literary award for fiction about coastal communities, first given in 1987.",
    ],
    "Brannock Bridge": [
        "Brannock Bridge is a stone arch bridge over the river Wend, completed in 1764.",
        " It has seven arches and a length of 212 metres.",
        " It was designed by the engineer Thomas Pell.",
    ],
    "Thomas Pell (engineer)": [
        "Thomas Pell (1721 - 1789) was an English civil engineer.",
        " He also designed the Hollin Canal and the harbour wall at Saltmouth.",
    ],
    "Hollin Canal": [
        "The Hollin Canal is a 26 mile canal opened in 1771 to carry coal to Elsford.",
    ],
    "Quill (band)": [
        "Quill are an English folk band formed in Saltmouth in 1983.",
        " The band's founding members were Rosa Kett, Dan Ashby and Mo Reade.",
        " Their third album, Harbour Lights, reached number 12 on the UK Albums Chart.",
    ],
    "The Tidewaters": [
        "The Tidewaters are an Irish folk band formed in Galway in 1979.",
        " They have released eleven studio albums.",
    ],
    "Harbour Lights (album)": [
        "Harbour Lights is the third studio album by Quill, released in 1989 on Fenwick Records.",
    ],
    "Fenwick Records": [
        "Fenwick Records is an independent record label founded in 1976 in Newcastle.",
    ],
    "Vesna Ilic": [
        "Vesna Ilic (born 1975) is a Serbian chess grandmaster.",
        " She won the European Women's Chess Championship in 2003.",
    ],
    "Marta Oyelaran": [
        "Marta Oyelaran (born 1981) is a Nigerian-British chess player and coach.",
        " She became a grandmaster in 2006 and coaches the junior team of the Saltmouth Chess Club.",
    ],
    "Saltmouth Chess Club": [
        "Saltmouth Chess Club is a chess club founded in 1894, one of the oldest in England.",
    ],
}


def record(_id, question, answer, qtype, level, supporting, titles):
    return {
        "_id": _id,
        "question": question,
        "answer": answer,
        "type": qtype,
        "level": level,
        "supporting_facts": [[t, i] for t, i in supporting],
        "context": [[t, P[t]] for t in titles],
    }


RECORDS = [
    record(
        "sob-sample-0001",
        "Which university did the director of Marrow Creek Observatory from 1958 to 1977 study at?",
        "University of Oslo",
        "bridge",
        "medium",
        [("Marrow Creek Observatory", 2), ("Ingrid Solvang", 1)],
        ["Elsford", "Marrow Creek Observatory", "Halvorsen Optical Works", "Ingrid Solvang"],
    ),
    record(
        "sob-sample-0002",
        "Were the authors of The Lantern Keepers and Salt and Iron of the same nationality?",
        "no",
        "comparison",
        "hard",
        [("The Lantern Keepers", 0), ("Salt and Iron", 0)],
        ["Tir Prize", "The Lantern Keepers", "Cadi Morgan", "Salt and Iron", "Ewan Dalgleish"],
    ),
    record(
        "sob-sample-0003",
        "How many arches does the bridge designed by the engineer of the Hollin Canal have?",
        "seven",
        "bridge",
        "hard",
        [("Brannock Bridge", 1), ("Brannock Bridge", 2), ("Thomas Pell (engineer)", 1)],
        ["Hollin Canal", "Brannock Bridge", "Elsford", "Thomas Pell (engineer)"],
    ),
    record(
        "sob-sample-0004",
        "Which band was formed earlier, Quill or The Tidewaters?",
        "The Tidewaters",
        "comparison",
        "easy",
        [("Quill (band)", 0), ("The Tidewaters", 0)],
        ["Harbour Lights (album)", "Quill (band)", "Fenwick Records", "The Tidewaters"],
    ),
    record(
        "sob-sample-0005",
        "In what year was the record label that released Harbour Lights founded?",
        "1976",
        "bridge",
        "easy",
        [("Harbour Lights (album)", 0), ("Fenwick Records", 0)],
        ["Quill (band)", "Harbour Lights (album)", "The Tidewaters", "Fenwick Records"],
    ),
    record(
        "sob-sample-0006",
        "Who was born first, Vesna Ilic or Marta Oyelaran?",
        "Vesna Ilic",
        "comparison",
        "medium",
        [("Vesna Ilic", 0), ("Marta Oyelaran", 0)],
        ["Saltmouth Chess Club", "Vesna Ilic", "Marta Oyelaran"],
    ),
    record(
        "sob-sample-0007",
        "Which is longer, Brannock Bridge or the Hollin Canal?",
        "Hollin Canal",
        "comparison",
        "medium",
        [("Brannock Bridge", 1), ("Hollin Canal", 0)],
        ["Brannock Bridge", "Elsford", "Hollin Canal"],
    ),
]


def obj(properties, description=None):
    schema = {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}
    if description:
        schema["description"] = description
    return schema


def s(description, kind="string"):
    return {"type": kind, "description": description}


def arr(items, description):
    return {"type": "array", "items": items, "description": description}


def authored(source_id, question, schema, ground_truth, annotator="curator-a", evidence=None):
    line = {"source_id": source_id, "question": question, "json_schema": schema, "ground_truth": ground_truth}
    line["annotator"] = annotator
    if evidence:
        line["evidence"] = evidence  # where values not copied from the context come from
    return json.dumps(line, ensure_ascii=False)


Q = {r["_id"]: r["question"] for r in RECORDS}
PERSON = obj({"name": s("the person's name"), "role": s("their role as the context states it")})

GOOD = [
    authored(
        "sob-sample-0001",
        Q["sob-sample-0001"],
        obj(
            {
                "observatory": obj({"name": s("the observatory"), "town": s("where it is")}, "the observatory"),
                "director": obj(
                    {"name": s("who directed it 1958-1977"), "birth_country_adjective": s("nationality as written")},
                    "the bridge entity",
                ),
                "answer": s("the university the director studied at"),
            }
        ),
        {
            "observatory": {"name": "Marrow Creek Observatory", "town": "Elsford"},
            "director": {"name": "Ingrid Solvang", "birth_country_adjective": "Norwegian"},
            "answer": "University of Oslo",
        },
    ),
    authored(
        "sob-sample-0002",
        Q["sob-sample-0002"],
        obj(
            {
                "books": arr(
                    obj(
                        {"title": s("novel title"), "author": s("its author"), "nationality": s("author's nationality")}
                    ),
                    "each novel compared, with its author",
                ),
                "same_nationality": s("whether the two authors share a nationality", "boolean"),
                "comparison_basis": s("what was compared"),
            }
        ),
        {
            "books": [
                {"title": "The Lantern Keepers", "author": "Cadi Morgan", "nationality": "Welsh"},
                {"title": "Salt and Iron", "author": "Ewan Dalgleish", "nationality": "Scottish"},
            ],
            "same_nationality": False,
            "comparison_basis": "writer",
        },
        "curator-b",
    ),
    authored(
        "sob-sample-0003",
        Q["sob-sample-0003"],
        obj(
            {
                "engineer": s("who designed the Hollin Canal"),
                "bridge": obj(
                    {"name": s("the bridge he designed"), "arches": s("number of arches as written")}, "the bridge"
                ),
                "other_works": arr(s("a work"), "his other works named in the context"),
            }
        ),
        {
            "engineer": "Thomas Pell",
            "bridge": {"name": "Brannock Bridge", "arches": "seven"},
            "other_works": ["Hollin Canal", "harbour wall at Saltmouth"],
        },
    ),
    authored(
        "sob-sample-0004",
        Q["sob-sample-0004"],
        obj(
            {
                "bands": arr(
                    obj({"name": s("band"), "formed_in": s("year formed", "integer"), "city": s("where formed")}),
                    "the two bands with their formation",
                ),
                "formed_earlier": s("the band formed earlier"),
                "years_apart": s("years between the formations", "integer"),
            }
        ),
        {
            "bands": [
                {"name": "Quill", "formed_in": 1983, "city": "Saltmouth"},
                {"name": "The Tidewaters", "formed_in": 1979, "city": "Galway"},
            ],
            "formed_earlier": "The Tidewaters",
            "years_apart": 4,
        },
        "curator-b",
        evidence={
            "$.years_apart": {"derived_from": ["$.bands[0].formed_in", "$.bands[1].formed_in"], "rule": "difference"}
        },
    ),
    authored(
        "sob-sample-0005",
        Q["sob-sample-0005"],
        obj(
            {
                "album": obj({"title": s("album"), "band": s("who recorded it"), "year": s("release", "integer")}),
                "label": obj({"name": s("record label"), "city": s("where founded")}, "the label"),
                "founded": s("year the label was founded", "integer"),
            }
        ),
        {
            "album": {"title": "Harbour Lights", "band": "Quill", "year": 1989},
            "label": {"name": "Fenwick Records", "city": "Newcastle"},
            "founded": 1976,
        },
    ),
    authored(
        "sob-sample-0006",
        Q["sob-sample-0006"],
        obj(
            {
                "players": arr(
                    obj({"name": s("player"), "born": s("birth year", "integer")}), "the two players compared"
                ),
                "born_first": s("the player born first"),
                "comparison_basis": s("what is compared"),
            }
        ),
        {
            "players": [{"name": "Vesna Ilic", "born": 1975}, {"name": "Marta Oyelaran", "born": 1981}],
            "born_first": "Vesna Ilic",
            "comparison_basis": "born",
        },
    ),
]

# Rejected on purpose, so the funnel shows each kind of rejection.
BAD = [
    # validation: a key the schema does not declare (undeclared_key)
    authored(
        "sob-sample-0003",
        "How long is the bridge designed by Thomas Pell over the river Wend?",
        obj({"bridge": s("the bridge"), "length_m": s("length in metres", "integer"), "river": s("river")}),
        {"bridge": "Brannock Bridge", "length_m": 212, "river": "Wend", "arches": 7},
    ),
    # validation: the ground truth breaks its own schema (a string where an integer is declared)
    authored(
        "sob-sample-0005",
        "When was the third album by Quill released, and on which label?",
        obj({"album": s("album"), "year": s("release year", "integer"), "label": s("label")}),
        {"album": "Harbour Lights", "year": "1989", "label": "Fenwick Records"},
    ),
    # judge: values invented, not in the context (low grounding)
    authored(
        "sob-sample-0001",
        "What telescope does Marrow Creek Observatory use, and who built it?",
        obj({"telescope": s("instrument"), "maker": s("who built it"), "maker_country": s("maker's country")}),
        {"telescope": "2.4 metre refractor", "maker": "Carl Zeiss Jena", "maker_country": "Germany"},
        "curator-c",
    ),
    # judge: the answer contradicts the seed answer (low accuracy)
    authored(
        "sob-sample-0007",
        Q["sob-sample-0007"],
        obj(
            {
                "longer": s("the longer of the two"),
                "bridge_length": s("length of Brannock Bridge as written"),
                "canal_length": s("length of the Hollin Canal as written"),
            }
        ),
        {"longer": "Brannock Bridge", "bridge_length": "212 metres", "canal_length": "26 mile"},
        "curator-c",
    ),
    # import: the same record twice in one file (the first is kept)
    authored(
        "sob-sample-0004",
        Q["sob-sample-0004"],
        obj({"a": s("a"), "b": s("b"), "c": s("c")}),
        {"a": "Quill", "b": "Galway", "c": "Saltmouth"},
        "curator-c",
    ),
    # import: malformed JSON, an unknown source id, a missing field
    '{"source_id": "sob-sample-0002", "question": "Who wrote Salt and Iron?", "json_schema": {"type": "object"',
    authored("sob-sample-9999", "Which lighthouse is oldest?", obj({"a": s("a"), "b": s("b"), "c": s("c")}), {}),
    json.dumps({"source_id": "sob-sample-0006", "question": "Where is Saltmouth Chess Club?", "json_schema": {}}),
]


if __name__ == "__main__":
    out = Path(__file__).with_name("sample.json")
    out.write_text(json.dumps(RECORDS, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    authored_out = Path(__file__).with_name("authored.jsonl")
    authored_out.write_text("\n".join(GOOD + BAD) + "\n", encoding="utf-8")
    print(f"wrote {len(RECORDS)} records to {out} and {len(GOOD) + len(BAD)} lines to {authored_out}")
