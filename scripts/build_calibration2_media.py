"""Builds tests/data/calibration2/{ami,olmocr}.jsonl (hand-written cases; contexts cut from repository data)."""
# ruff: noqa: E501  (case notes and questions are data, kept on one line each)

import json
from pathlib import Path

from loaders.ami import load_ami

ROOT = Path(".")
ami_ctx = load_ami("tests/data/ami/ES2002d.ihm.jsonl").items[0].context.split("\n")


def win(a, b):  # 1-based inclusive line numbers of the loader's context
    return "\n".join(ami_ctx[a - 1 : b])


OL = ROOT / "tests/data/olmocr_bench/olmocr_pipeline"


def page(name):
    return (OL / name).read_text(encoding="utf-8")


def F(t, d):
    return {"type": t, "description": d}


def obj(props, desc=None, required=None):
    o = {"type": "object", "properties": props, "required": required or list(props), "additionalProperties": False}
    if desc:
        o["description"] = desc
    return o


def arr(items, d):
    return {"type": "array", "items": items, "description": d}


cases = {"ami": [], "olmocr": []}


def add(src, cid, label, kind, note, sid, q, schema, gt, ctx, ev=None, who="curator-m"):
    c = {
        "id": f"v2-{src}-{cid}",
        "label": label,
        "kind": kind,
        "note": note,
        "source": src,
        "source_id": sid,
        "question": q,
        "json_schema": schema,
        "ground_truth": gt,
        "annotator": who,
    }
    if ev:
        c["evidence"] = ev
    c["context"] = ctx
    cases[src].append(c)


# ---------------- AMI (ES2002d) ----------------
A, B, C, D, E = win(1, 60), win(83, 160), win(150, 230), win(215, 300), win(296, 400)
add(
    "ami",
    "recap-plan",
    "right",
    "boolean derived from negation (no LCD)",
    "The recap says a snowman shape, no LCD display, kinetic power and battery, rubber buttons: the 'NO LCD DISPLAY' phrase makes the boolean false.",
    "v2-ami-es2002d-w01a",
    "In the chair's recap of the previous meeting, what shape, display, power sources and button material had been agreed?",
    obj(
        {
            "shape": F("string", "shape of the remote control agreed last time"),
            "lcd_display_planned": F("boolean", "whether an LCD display was part of last meeting's plan"),
            "power_sources": arr({"type": "string"}, "power sources planned last time"),
            "button_material": F("string", "material of the buttons"),
        }
    ),
    {
        "shape": "snowman",
        "lcd_display_planned": False,
        "power_sources": ["kinetic", "battery"],
        "button_material": "rubber",
    },
    A,
)
add(
    "ami",
    "lcd-speaker",
    "wrong",
    "wrong speaker credited (nearby participant)",
    "MEE007 presents the prototype and says it will have an LCD screen; MEE006 only jokes 'NINJA HOMER' just before, yet is credited.",
    "v2-ami-es2002d-w01b",
    "Who announced that the prototype now has an LCD screen, and how is the menu reached?",
    obj(
        {
            "announced_by": F("string", "AMI speaker id of the participant who announced the LCD screen"),
            "screen": F("string", "kind of screen on the prototype"),
            "menu_access": F("string", "control used to reach the menu"),
        }
    ),
    {
        "announced_by": "MEE006",
        "screen": "very basic small LCD screen",
        "menu_access": "scroll wheel with a confirm button",
    },
    A,
    {"$.announced_by": "MEE006"},
)
add(
    "ami",
    "lcd-columns",
    "right",
    "spelled-out number as integer",
    "MEE006 says the LCD 'ONLY HAS FOUR COLUMNS' and is 'A VERY SIMPLE LCD'; four written as 4.",
    "v2-ami-es2002d-w01c",
    "How many columns does the prototype's LCD have, who described it, and what does it show?",
    obj(
        {
            "lcd_columns": F("integer", "number of columns of the LCD panel"),
            "described_by": F("string", "AMI speaker id of the participant who described it"),
            "shows": F("string", "what the LCD displays"),
        }
    ),
    {"lcd_columns": 4, "described_by": "MEE006", "shows": "the function in use, such as brightness or contrast"},
    A,
)
add(
    "ami",
    "recap-talkback",
    "wrong",
    "boolean against the text (feature ruled out)",
    "The recap says 'NO NEED FOR TALK-BACK', but talk-back is marked as included; the jog-dial, rubber-button and slogan values are right.",
    "v2-ami-es2002d-w01d",
    "Which features from last meeting's plan does the chair list: talk-back, a jog-dial, rubber buttons, the slogan?",
    obj(
        {
            "talk_back": F("boolean", "true if talk-back is part of the plan"),
            "jog_dial": F("boolean", "true if a jog-dial is part of the plan"),
            "rubber_buttons": F("boolean", "true if the buttons are rubber"),
            "slogan_on_remote": F("boolean", "true if the slogan is to appear on the remote"),
        }
    ),
    {"talk_back": True, "jog_dial": True, "rubber_buttons": True, "slogan_on_remote": True},
    A,
    {"$.talk_back": "TALK-BACK", "$.jog_dial": "HOPEFULLY A JOG-DIAL"},
)
add(
    "ami",
    "height-mm",
    "right",
    "unit conversion cm to mm",
    "The chair settles on 'TEN CENTIMETRES IN HEIGHT'; 100 in a millimetre field is the correct conversion.",
    "v2-ami-es2002d-w02a",
    "What height did the team settle on for the remote, and who stated the figure?",
    obj(
        {
            "height_mm": F("number", "height of the remote in millimetres"),
            "stated_by": F("string", "AMI speaker id of who stated the agreed height"),
            "compared_to": F(
                ["string", "null"], "everyday object whose usual length was compared to the agreed height, if any"
            ),
        }
    ),
    {"height_mm": 100, "stated_by": "FEE005", "compared_to": "a pen"},
    B,
    {
        "$.height_mm": {"kind": "convert", "quote": "TEN CENTIMETRES IN HEIGHT", "unit_from": "cm", "unit_to": "mm"},
        "$.compared_to": "A PEN IS ABOUT TEN CENTIMETRES",
    },
)
add(
    "ami",
    "standby-ms",
    "wrong",
    "units ignored (seconds in a ms field)",
    "Holding the red button 'FOR MAYBE TWO SECONDS' sends stand-by: 2 in a millisecond field should be 2000.",
    "v2-ami-es2002d-w02b",
    "How long must the red button be held to send stand-by, and what else is it used for?",
    obj(
        {
            "standby_hold_ms": F("number", "hold time before the stand-by signal, in milliseconds"),
            "button_colour": F("string", "colour of the button"),
            "other_use": F("string", "the button's other use"),
        }
    ),
    {"standby_hold_ms": 2, "button_colour": "red", "other_use": "confirm button for the LCD screen"},
    B,
)
add(
    "ami",
    "red-button",
    "right",
    "list of roles; spelled-out number",
    "MEE007 describes the red button: power, stand-by after two seconds held, confirm for the LCD screen.",
    "v2-ami-es2002d-w02c",
    "Describe the red button of the prototype.",
    obj(
        {
            "described_by": F("string", "AMI speaker id"),
            "functions": arr({"type": "string"}, "what the button does"),
            "hold_seconds_for_standby": F("number", "seconds to hold for stand-by"),
        }
    ),
    {
        "described_by": "MEE007",
        "functions": ["power", "stand-by", "confirm for the LCD screen"],
        "hold_seconds_for_standby": 2,
    },
    B,
)
add(
    "ami",
    "volume-jog",
    "right",
    "paraphrase (jog-dial used as volume)",
    "MEE007 says volume was going to have its own control but the jog-dial is used as the volume instead; channels are reached straight with buttons.",
    "v2-ami-es2002d-w02d",
    "How are volume and channel selection handled on the prototype?",
    obj(
        {
            "volume_control": F("string", "control used for the volume"),
            "separate_volume_buttons": F("boolean", "true if the remote keeps separate volume buttons"),
            "channel_selection": F("string", "how the user goes straight to a channel"),
        }
    ),
    {
        "volume_control": "jog-dial",
        "separate_volume_buttons": False,
        "channel_selection": "dedicated buttons to skip straight to a channel",
    },
    B,
)
add(
    "ami",
    "dims-swap",
    "wrong",
    "two values swapped (height/width)",
    "The agreed height is ten centimetres and the width about three and a half; the answer swaps them.",
    "v2-ami-es2002d-w02e",
    "What are the remote's height and width, in centimetres?",
    obj(
        {
            "height_cm": F("number", "height in centimetres"),
            "width_cm": F("number", "width in centimetres"),
            "width_proposed_by": F("string", "AMI speaker id of who proposed the width finally echoed"),
        }
    ),
    {"height_cm": 3.5, "width_cm": 10, "width_proposed_by": "MEE006"},
    B,
)
add(
    "ami",
    "audio-list",
    "right",
    "ASR spelling normalised (BASE as bass)",
    "MEE006 lists bass (transcribed 'BASE'), mid-range, high range, left-right balance and user-programmed sound modes.",
    "v2-ami-es2002d-w03a",
    "Which audio settings did the team say the remote could change?",
    obj(
        {
            "audio_settings": arr({"type": "string"}, "audio settings mentioned"),
            "listed_by": F("string", "AMI speaker id of who listed most of them"),
            "asked_by": F("string", "AMI speaker id of who asked about sound settings"),
        }
    ),
    {
        "audio_settings": ["bass", "mid-range", "high range", "left-right balance", "pre-programmed sound modes"],
        "listed_by": "MEE006",
        "asked_by": "FEE005",
    },
    C,
)
add(
    "ami",
    "audio-dup",
    "wrong",
    "list with a duplicated item and a missing one",
    "High range is missing and mid-range appears twice.",
    "v2-ami-es2002d-w03b",
    "List the audio settings, with how many there are.",
    obj(
        {
            "settings": arr({"type": "string"}, "audio settings named"),
            "setting_count": F("integer", "number of settings listed"),
            "first_named_by": F("string", "AMI speaker id"),
        }
    ),
    {
        "settings": ["bass", "mid-range", "mid-range", "left-right balance", "pre-programmed sound modes"],
        "setting_count": 5,
        "first_named_by": "MEE006",
    },
    C,
    {"$.setting_count": {"derived_from": ["$.settings"], "rule": "count"}},
)
add(
    "ami",
    "sound-modes",
    "wrong",
    "boolean against the text",
    "MEE006 says the user could determine the series of sound modes, but user_definable is false.",
    "v2-ami-es2002d-w03c",
    "Who proposed sound modes and could users define them?",
    obj(
        {
            "proposed_by": F("string", "AMI speaker id"),
            "user_definable": F("boolean", "true if users define their own modes"),
            "activation": F("string", "what happens when a mode is clicked"),
        }
    ),
    {"proposed_by": "MEE006", "user_definable": False, "activation": "the remote goes to that setting"},
    C,
    {"$.user_definable": "PRE-PROGRAMMED SOUND MODES"},
)
add(
    "ami",
    "power-cost",
    "right",
    "boolean from a bare 'NO'; reason paraphrased",
    "Asked 'DO WE HAVE KINETIC AS WELL', MEE006 says no: battery only, because of cost restraints.",
    "v2-ami-es2002d-w04a",
    "What powers the final remote and why?",
    obj(
        {
            "battery": F("boolean", "battery power included"),
            "kinetic": F("boolean", "kinetic power included"),
            "reason": F("string", "why the power choice was made"),
        }
    ),
    {"battery": True, "kinetic": False, "reason": "cost"},
    D,
)
add(
    "ami",
    "kinetic-true",
    "wrong",
    "dropped feature marked present (self-serving evidence)",
    "Kinetic power is explicitly dropped ('NO'), yet marked as included; the evidence quotes the question, not the answer.",
    "v2-ami-es2002d-w04b",
    "Which power options and chip go into the cost sheet?",
    obj(
        {
            "kinetic_included": F("boolean", "kinetic power on the cost sheet"),
            "battery_included": F("boolean", "battery on the cost sheet"),
            "chip": F("string", "chip chosen at that point"),
        }
    ),
    {"kinetic_included": True, "battery_included": True, "chip": "advanced chip"},
    D,
    {"$.kinetic_included": "DO WE HAVE KINETIC AS WELL", "$.chip": "WE NEED AN ADVANCED CHIP"},
)
add(
    "ami",
    "case-spec",
    "right",
    "one as 1; spoken answer to a question",
    "Double-curved plastic case, one special colour, advanced chip (at this point of the meeting).",
    "v2-ami-es2002d-w04c",
    "Specify the case as filled in on the cost sheet.",
    obj(
        {
            "curvature": F("string", "single or double curved"),
            "material": F("string", "case material"),
            "case_colour_count": F("integer", "number of colours of the case"),
            "chip": F("string", "chip entered on the cost sheet"),
        }
    ),
    {"curvature": "double-curved", "material": "plastic", "case_colour_count": 1, "chip": "advanced chip"},
    D,
)
add(
    "ami",
    "pushbutton-12",
    "wrong",
    "number from another phrase (twelve as the estimate)",
    "The team writes down four push buttons; twelve is the keypad's complexity, not the estimate.",
    "v2-ami-es2002d-w04d",
    "How many push buttons did the team write on the cost sheet, and who suggested it?",
    obj(
        {
            "push_buttons_estimate": F("integer", "number of push buttons entered on the cost sheet"),
            "suggested_by": F("string", "AMI speaker id"),
            "special_button_colour": F("boolean", "special colour planned for the buttons"),
        }
    ),
    {"push_buttons_estimate": 12, "suggested_by": "MEE006", "special_button_colour": True},
    D,
)
add(
    "ami",
    "colour-absent",
    "wrong",
    "absent claimed where the value is stated",
    "The case has 'ONE SPECIAL COLOUR' and is double-curved, but the colour count is given as null with 'absent'.",
    "v2-ami-es2002d-w04e",
    "What case shape and how many case colours were chosen?",
    obj(
        {
            "case_shape": F("string", "curvature of the case"),
            "case_colours": F(["integer", "null"], "number of case colours, null if not said"),
            "explained_by": F("string", "AMI speaker id of who explained single vs double"),
        }
    ),
    {"case_shape": "double-curved", "case_colours": None, "explained_by": "MEE007"},
    D,
    {"$.case_colours": "absent", "$.case_shape": "SO WE WANT DOUBLE-CURVED"},
)
add(
    "ami",
    "four-reason",
    "right",
    "counts in words; role of a speaker",
    "MEE006 estimates four push buttons because the single rubber sheet has the complexity of twelve buttons.",
    "v2-ami-es2002d-w04f",
    "Why does the team enter four push buttons?",
    obj(
        {
            "estimate": F("integer", "push buttons entered"),
            "keypad_buttons": F("integer", "buttons on the keypad sheet"),
            "estimated_by": F("string", "AMI speaker id"),
        }
    ),
    {"estimate": 4, "keypad_buttons": 12, "estimated_by": "MEE006"},
    D,
)
add(
    "ami",
    "budget",
    "right",
    "spoken decimals and currency as ISO code",
    "The chair gives 'SIXTEEN POINT EIGHT' and corrects the overrun to 'FOUR POINT THREE' euro; EUR is the ISO code.",
    "v2-ami-es2002d-w05a",
    "What is the current cost and by how much is the team over budget?",
    obj(
        {
            "current_cost": F("number", "cost of the design so far"),
            "overrun": F("number", "amount that has to go"),
            "currency": F("string", "ISO 4217 code"),
        }
    ),
    {"current_cost": 16.8, "overrun": 4.3, "currency": "EUR"},
    E,
    {
        "$.current_cost": {"kind": "normalised", "quote": "SIXTEEN POINT EIGHT"},
        "$.overrun": {"kind": "normalised", "quote": "FOUR POINT THREE"},
        "$.currency": {"kind": "expands", "quote": "EURO"},
    },
)
add(
    "ami",
    "overrun-23",
    "wrong",
    "number from a misstatement corrected later",
    "The chair first says two point three, then MEE008 and the chair correct it to four point three; the answer keeps 2.3.",
    "v2-ami-es2002d-w05b",
    "By how much is the design over budget, in euros?",
    obj(
        {
            "overrun_eur": F("number", "amount over budget in euros"),
            "cost_so_far_eur": F("number", "total cost so far in euros"),
            "corrected_by": F("string", "AMI speaker id of who corrected the figure"),
        }
    ),
    {"overrun_eur": 2.3, "cost_so_far_eur": 16.8, "corrected_by": "MEE008"},
    E,
)
add(
    "ami",
    "lcd-cut",
    "right",
    "abbreviation link (LC display = LCD)",
    "MEE006 proposes taking away the LCD panel and advanced chip together, replaced by a regular chip.",
    "v2-ami-es2002d-w05c",
    "What cut did MEE006 propose to get back on budget?",
    obj(
        {
            "proposer": F("string", "AMI speaker id"),
            "removed": arr({"type": "string"}, "components removed"),
            "replacement_chip": F("string", "chip that replaces the removed one"),
            "rationale": F("string", "why the display is not needed"),
        }
    ),
    {
        "proposer": "MEE006",
        "removed": ["LCD display", "advanced chip"],
        "replacement_chip": "regular chip",
        "rationale": "the TV itself responds, so the user can look at the TV",
    },
    E,
)
add(
    "ami",
    "single-curve",
    "wrong",
    "wrong speaker (the one who asked, not the one who proposed)",
    "MEE007 proposes making the case single curved; MEE006 only asks how much it would save.",
    "v2-ami-es2002d-w05d",
    "Who suggested a single-curved case and what would it save?",
    obj(
        {
            "suggested_by": F("string", "AMI speaker id"),
            "saving_eur": F("number", "saving in euros"),
            "change": F("string", "the change suggested"),
        }
    ),
    {"suggested_by": "MEE006", "saving_eur": 1, "change": "make the case single curved"},
    E,
)
add(
    "ami",
    "point-three",
    "wrong",
    "decimal dropped (point three as 3)",
    "After the LCD cut the chair says 'POINT THREE TO GET RID OF': 0.3, not 3.",
    "v2-ami-es2002d-w05e",
    "After removing the LCD, how much is still to be cut and how many keypad buttons are there?",
    obj(
        {
            "remaining_eur": F("number", "amount still to cut, in euros"),
            "keypad_buttons": F("integer", "buttons on the rubber keypad"),
            "keypad_is_one_piece": F("boolean", "the keypad is one piece of rubber"),
        }
    ),
    {"remaining_eur": 3, "keypad_buttons": 12, "keypad_is_one_piece": True},
    E,
)
add(
    "ami",
    "button-colours",
    "right",
    "paraphrase of the adopted cut",
    "MEE006 suggests dropping the special colours of the pad buttons; they 'JUST BECOME NORMAL COLOURED BUTTONS'.",
    "v2-ami-es2002d-w05f",
    "Which last cut was made to the buttons, by whose suggestion, and which buttons does it concern?",
    obj(
        {
            "cut": F("string", "what was cut"),
            "suggested_by": F("string", "AMI speaker id"),
            "applies_to": F("string", "which buttons"),
        }
    ),
    {"cut": "special colours for the buttons", "suggested_by": "MEE006", "applies_to": "the number pad buttons"},
    E,
)

# ---------------- olmOCR ----------------
LIN = page("lincoln_letter_pg1_repeat1.md")
BN = page("buildingnotes_pg1_repeat1.md")
ER = page("earnings_pg1_repeat1.md")
OM = page("olmo2-pg4_pg1_repeat1.md")
SP = page("small_page_size_pg1_repeat1.md")
MN = page("mattsnotes_pg1_repeat1.md")
RTG = page("headers_footers/ff1fc6a205ad039139ce566851b6b260c929_pg1_pg1_repeat1.md")
WG = page("headers_footers/ff4f7dad78081cff727d19ab51c181d4a661_pg1_pg1_repeat1.md")
DW = page("discoverworld_crazy_table4_pg1_repeat1.md")
add(
    "olmocr",
    "lincoln-date",
    "right",
    "date as ISO",
    "'January 15th, 1864' as 1864-01-15; signed Abraham Lincoln at the Executive Mansion, Washington City.",
    "v2-olm-lincoln-a",
    "When and where was the order written, and who signed it?",
    obj(
        {
            "date": F("string", "date, ISO 8601"),
            "place": F("string", "city written in the heading"),
            "signed_by": F("string", "signatory"),
        }
    ),
    {"date": "1864-01-15", "place": "Washington City", "signed_by": "Abraham Lincoln"},
    LIN,
    {"$.date": {"kind": "normalised", "quote": "January 15th, 1864"}},
)
add(
    "olmocr",
    "lincoln-swap",
    "wrong",
    "two values swapped between objects",
    "Trimble (held at Fort McHenry) is offered for Major White (held at Richmond); the names are swapped, places kept.",
    "v2-olm-lincoln-b",
    "Which prisoner is offered, in exchange for whom, and where is each held?",
    obj(
        {
            "offered": obj(
                {"name": F("string", "prisoner offered"), "held_at": F("string", "where held")}, "the prisoner offered"
            ),
            "sought": obj(
                {"name": F("string", "prisoner sought"), "held_at": F("string", "where held")},
                "the prisoner asked for in return",
            ),
            "authorised_officer": F("string", "who is authorised to make the offer"),
        }
    ),
    {
        "offered": {"name": "Major White", "held_at": "Fort McHenry"},
        "sought": {"name": "Brigadier General Trimble", "held_at": "Richmond"},
        "authorised_officer": "Major General Hitchcock",
    },
    LIN,
)
add(
    "olmocr",
    "lincoln-roles",
    "right",
    "linked by role and pronoun",
    "Hitchcock is the Commissioner of Exchanges; 'He' sends the offer by Henry M. Warfield of Baltimore with a pass to City Point.",
    "v2-olm-lincoln-c",
    "Who is the commissioner, who carries the offer, and where does the pass lead?",
    obj(
        {
            "commissioner_of_exchanges": F("string", "name and rank"),
            "messenger": obj({"name": F("string", "name"), "city": F("string", "home city")}, "who carries the offer"),
            "pass_to": F("string", "destination of the pass"),
            "under_flag_of_truce": F("boolean", "sent under a flag of truce"),
        }
    ),
    {
        "commissioner_of_exchanges": "Major General Hitchcock",
        "messenger": {"name": "Henry M. Warfield", "city": "Baltimore"},
        "pass_to": "City Point",
        "under_flag_of_truce": True,
    },
    LIN,
)
add(
    "olmocr",
    "notes-cm",
    "right",
    "unit conversion inches to cm",
    '36" = 91.44 cm, 24" = 60.96 cm, 32" = 81.28 cm, the last figure on each line converted.',
    "v2-olm-bnotes-a",
    "For Master, Bath and DOWN BATH, give the last dimension on the line in centimetres.",
    obj(
        {
            "rooms": arr(
                obj(
                    {
                        "room": F("string", "room label"),
                        "last_dimension_cm": F(
                            "number", "last dimension on the line, in centimetres (the note gives inches)"
                        ),
                    }
                ),
                "one per room",
            ),
            "unit_in_note": F("string", "unit written in the note"),
            "room_count": F("integer", "number of rooms listed here"),
        }
    ),
    {
        "rooms": [
            {"room": "Master", "last_dimension_cm": 91.44},
            {"room": "Bath", "last_dimension_cm": 60.96},
            {"room": "DOWN BATH", "last_dimension_cm": 81.28},
        ],
        "unit_in_note": "inches",
        "room_count": 3,
    },
    BN,
    {
        "$.rooms[0].last_dimension_cm": {"kind": "convert", "quote": '36"', "unit_from": "inch", "unit_to": "cm"},
        "$.room_count": {"derived_from": ["$.rooms"], "rule": "count"},
    },
)
add(
    "olmocr",
    "notes-inch-as-cm",
    "wrong",
    "units ignored (inches in a cm field)",
    "Master Bath's 30\" is put as 30 in a centimetre field (76.2 cm); the Laundry value is converted correctly.",
    "v2-olm-bnotes-b",
    "Give Master Bath's and Laundry's last dimension in centimetres.",
    obj(
        {
            "master_bath_cm": F("number", "last dimension, centimetres"),
            "laundry_cm": F("number", "last dimension, centimetres"),
            "source_unit": F("string", "unit the note uses"),
        }
    ),
    {"master_bath_cm": 30, "laundry_cm": 91.44, "source_unit": "inches"},
    BN,
)
add(
    "olmocr",
    "notes-fractions",
    "right",
    "mixed fractions as decimals",
    "'7 1/4' = 7.25, '4 3/4' = 4.75, '8 1/4' = 8.25 for the middle value of Master, Laundry and UTIL.",
    "v2-olm-bnotes-c",
    "What is the middle figure on the Master, Laundry and UTIL lines, as decimals?",
    obj(
        {
            "master": F("number", "middle figure on the Master line"),
            "laundry": F("number", "middle figure on the Laundry line"),
            "util": F("number", "middle figure on the UTIL line"),
        }
    ),
    {"master": 7.25, "laundry": 4.75, "util": 8.25},
    BN,
)
add(
    "olmocr",
    "arm-deal",
    "right",
    "money in words; fuller name",
    "Arm purchase from SoftBank Group Corp terminated February 2022; $1.4 billion termination cost recorded in fiscal 2023.",
    "v2-olm-earn-a",
    "What deal was terminated, with whom, when, and at what cost?",
    obj(
        {
            "target": F("string", "company to be acquired"),
            "seller": F("string", "selling company, full name"),
            "announced": F("string", "month of the termination announcement, YYYY-MM"),
            "termination_cost_usd": F("number", "cost in US dollars"),
            "fiscal_year_recorded": F("integer", "fiscal year the cost was recorded"),
        }
    ),
    {
        "target": "Arm",
        "seller": "SoftBank Group Corp",
        "announced": "2022-02",
        "termination_cost_usd": 1.4e9,
        "fiscal_year_recorded": 2023,
    },
    ER,
    {"$.termination_cost_usd": {"kind": "normalised", "quote": "$1.4 billion"}},
)
add(
    "olmocr",
    "fasb-years",
    "wrong",
    "two deadlines swapped",
    "The November 2023 segment standard was adopted in fiscal 2025 and the December 2023 income-tax one is expected in fiscal 2026; the years are swapped.",
    "v2-olm-earn-b",
    "In which fiscal years are the two 2023 FASB standards adopted?",
    obj(
        {
            "segment_expense_standard": obj(
                {"issued": F("string", "YYYY-MM"), "adoption_fiscal_year": F("integer", "fiscal year of adoption")},
                "November 2023 standard",
            ),
            "income_tax_standard": obj(
                {
                    "issued": F("string", "YYYY-MM"),
                    "adoption_fiscal_year": F("integer", "fiscal year of (expected) adoption"),
                },
                "December 2023 standard",
            ),
            "issuer": F("string", "standard setter, full name"),
        }
    ),
    {
        "segment_expense_standard": {"issued": "2023-11", "adoption_fiscal_year": 2026},
        "income_tax_standard": {"issued": "2023-12", "adoption_fiscal_year": 2025},
        "issuer": "Financial Accounting Standards Board",
    },
    ER,
)
add(
    "olmocr",
    "fasb-adopted",
    "wrong",
    "boolean against heading (not yet adopted)",
    "The income-tax standard is under 'Not Yet Adopted' ('We expect to adopt'), yet marked adopted.",
    "v2-olm-earn-c",
    "Has the income-tax disclosure standard been adopted, and is a material impact expected?",
    obj(
        {
            "adopted": F("boolean", "already adopted"),
            "material_impact_expected": F("boolean", "material impact on the statements expected"),
            "issued": F("string", "month issued, YYYY-MM"),
        }
    ),
    {"adopted": True, "material_impact_expected": False, "issued": "2023-12"},
    ER,
    {"$.adopted": "We adopted this standard in our fiscal year 2025 annual report."},
)
add(
    "olmocr",
    "award-count",
    "right",
    "count derived from a list; abbreviations",
    "Four award types: RSUs, PSUs, market-based PSUs and the ESPP.",
    "v2-olm-earn-d",
    "Which awards does stock-based compensation cover, and how many?",
    obj(
        {
            "award_types": arr({"type": "string"}, "award types"),
            "award_type_count": F("integer", "number of award types"),
            "note_number": F("integer", "note the section belongs to"),
        }
    ),
    {"award_types": ["RSUs", "PSUs", "market-based PSUs", "ESPP"], "award_type_count": 4, "note_number": 3},
    ER,
    {"$.award_type_count": {"derived_from": ["$.award_types"], "rule": "count"}},
)
add(
    "olmocr",
    "olmo-mix",
    "right",
    "words to numbers; 'over 95%' as fraction",
    "About 3.9 trillion tokens, over 95% web; repositories with fewer than 2 stars removed.",
    "v2-olm-olmo-a",
    "Describe the OLMo 2 Mix 1124 size, web share and code filter.",
    obj(
        {
            "total_tokens": F("number", "approximate total tokens"),
            "min_web_fraction": F("number", "lower bound on the web fraction, 0-1"),
            "min_github_stars": F("integer", "stars a repository needs to be kept"),
        }
    ),
    {"total_tokens": 3.9e12, "min_web_fraction": 0.95, "min_github_stars": 2},
    OM,
)
add(
    "olmocr",
    "starcoder-col",
    "wrong",
    "wrong table column (Words for Tokens)",
    "StarCoder has 83.0B tokens; 70.0B is the Words column. Docs 78.7M is right.",
    "v2-olm-olmo-b",
    "How large is the StarCoder part of the mix?",
    obj(
        {
            "tokens_billions": F("number", "tokens, in billions"),
            "documents_millions": F("number", "documents, in millions"),
            "type": F("string", "data type"),
        }
    ),
    {"tokens_billions": 70.0, "documents_millions": 78.7, "type": "Code"},
    OM,
)
add(
    "olmocr",
    "stars-offbyone",
    "wrong",
    "off-by-one from a 'fewer than' phrase",
    "Documents from repositories with fewer than 2 stars are removed, so at least 2 are needed; 1 is wrong.",
    "v2-olm-olmo-c",
    "What is the minimum number of GitHub stars a repository needs for its code to be kept, and where does the code come from?",
    obj(
        {
            "min_stars_kept": F("integer", "smallest star count kept"),
            "code_source": F("string", "code dataset"),
            "licensing": F("string", "licence of the repositories"),
        }
    ),
    {"min_stars_kept": 1, "code_source": "StarCoder", "licensing": "permissively-licensed"},
    OM,
)
add(
    "olmocr",
    "dclm-row",
    "right",
    "suffix numbers expanded (T, B)",
    "DCLM-Baseline row: web pages, 3.71T tokens, 2.95B docs.",
    "v2-olm-olmo-d",
    "Give the DCLM-Baseline row of Table 1.",
    obj(
        {
            "source": F("string", "source name"),
            "type": F("string", "data type"),
            "tokens": F("number", "tokens"),
            "documents": F("number", "documents"),
        }
    ),
    {"source": "DCLM-Baseline", "type": "Web pages", "tokens": 3.71e12, "documents": 2.95e9},
    OM,
)
add(
    "olmocr",
    "bone-parts",
    "right",
    "parts per hundred as fractions",
    "40, 40 and 20 parts in 100 are 0.4, 0.4 and 0.2.",
    "v2-olm-bones-a",
    "Give the composition of the best bones for manure as fractions.",
    obj(
        {
            "earthy_and_saline": F("number", "fraction 0-1"),
            "cartilage_and_jelly": F("number", "fraction 0-1"),
            "fatty_matter": F("number", "fraction 0-1"),
        }
    ),
    {"earthy_and_saline": 0.4, "cartilage_and_jelly": 0.4, "fatty_matter": 0.2},
    SP,
)
add(
    "olmocr",
    "dung-range",
    "wrong",
    "min and max swapped",
    "Farm-yard dung at 'from 8 to 10 tons per acre': min and max are swapped; 16 bushels of bones is right.",
    "v2-olm-bones-b",
    "On the Yorkshire Wolds trial, how much bone and dung were applied per acre?",
    obj(
        {
            "bones_bushels_per_acre": F("number", "bushels of bones per acre"),
            "dung_tons_per_acre": obj(
                {"min": F("number", "tons, lower"), "max": F("number", "tons, upper")}, "farm-yard dung rate"
            ),
            "soil": F("string", "soil type"),
        }
    ),
    {"bones_bushels_per_acre": 16, "dung_tons_per_acre": {"min": 10, "max": 8}, "soil": "calcareous"},
    SP,
)
add(
    "olmocr",
    "soft-parts",
    "right",
    "spelled-out percentages as fractions",
    "Soft parts: 'about sixty' in the best bone, 'fifty per cent' on average.",
    "v2-olm-bones-c",
    "What share of bone are the soft parts, best and average, and what share of bone is animal matter?",
    obj(
        {
            "soft_parts_best": F("number", "fraction 0-1"),
            "soft_parts_average": F("number", "fraction 0-1"),
            "animal_matter_fraction": F("number", "fraction of animal matter, 'about equal parts'"),
        }
    ),
    {"soft_parts_best": 0.6, "soft_parts_average": 0.5, "animal_matter_fraction": 0.5},
    SP,
)
add(
    "olmocr",
    "gravel",
    "wrong",
    "boolean against the text",
    "For wet gravel the application 'has been found decidedly unfavourable'; marked favourable.",
    "v2-olm-bones-d",
    "How do bones do on peat and on wet gravel?",
    obj(
        {
            "peat_bushels_min": F("number", "lower bushels of dust per acre on peat"),
            "peat_bushels_max": F("number", "upper"),
            "wet_gravel_favourable": F("boolean", "true if bones suit wet gravel"),
        }
    ),
    {"peat_bushels_min": 15, "peat_bushels_max": 20, "wet_gravel_favourable": True},
    SP,
    {"$.wet_gravel_favourable": "To wet gravel, their application has been found"},
)
add(
    "olmocr",
    "mix-swap",
    "wrong",
    "two values swapped (percent columns)",
    "The first mix is ~10% CodeText and ~5% Webtext; the two are swapped.",
    "v2-olm-notes-a",
    "What is the first data mix in the notes, as fractions?",
    obj(
        {
            "source_code": F("number", "fraction 0-1"),
            "code_text": F("number", "fraction 0-1"),
            "web_text": F("number", "fraction 0-1"),
        }
    ),
    {"source_code": 0.85, "code_text": 0.05, "web_text": 0.1},
    MN,
)
add(
    "olmocr",
    "nets",
    "right",
    "abbreviation expanded; date range as ISO",
    "NETS 2015 is Nuclear and Emerging Technology for Space, February 23-26, 2015, abstract 5107.",
    "v2-olm-rtg-a",
    "Which conference was the abstract for, when, and what is its number?",
    obj(
        {
            "conference": F("string", "full conference name"),
            "start_date": F("string", "ISO date"),
            "end_date": F("string", "ISO date"),
            "abstract_number": F("integer", "abstract number"),
        }
    ),
    {
        "conference": "Nuclear and Emerging Technology for Space",
        "start_date": "2015-02-23",
        "end_date": "2015-02-26",
        "abstract_number": 5107,
    },
    RTG,
    {
        "$.conference": {"kind": "expands", "quote": "NETS"},
        "$.end_date": {"kind": "normalised", "quote": "February 23-26, 2015"},
    },
)
add(
    "olmocr",
    "presenter",
    "wrong",
    "near-miss name (co-author as presenter)",
    "Tom Hammel presents; Russell Bennett is the first co-author.",
    "v2-olm-rtg-b",
    "Who presents the paper, and for which company?",
    obj(
        {
            "presenter": F("string", "presenting author"),
            "affiliation": F("string", "presenter's company"),
            "co_author_count": F("integer", "number of co-authors"),
        }
    ),
    {"presenter": "Russell Bennett", "affiliation": "Teledyne Energy Systems", "co_author_count": 3},
    RTG,
)
add(
    "olmocr",
    "coauthors-dup",
    "wrong",
    "list with a duplicated item and a missing one",
    "Bill Otting (Aerojet Rocketdyne) is missing and Robert Sievers appears twice.",
    "v2-olm-rtg-c",
    "List the co-authors with their affiliations.",
    obj(
        {
            "co_authors": arr(obj({"name": F("string", "name"), "affiliation": F("string", "company")}), "co-authors"),
            "title": F("string", "paper title"),
            "year": F("integer", "conference year"),
        }
    ),
    {
        "co_authors": [
            {"name": "Russell Bennett", "affiliation": "Teledyne Energy Systems"},
            {"name": "Robert Sievers", "affiliation": "Teledyne Energy Systems"},
            {"name": "Robert Sievers", "affiliation": "Teledyne Energy Systems"},
        ],
        "title": "RTG Degradation Primer and Application to MMRTG",
        "year": 2015,
    },
    RTG,
)
add(
    "olmocr",
    "weigelt",
    "right",
    "name order changed",
    "Weigelt, B. written as B. Weigelt; 2005 thesis 'Molecular markers of breast cancer metastasis'.",
    "v2-olm-weigelt-a",
    "Give the citation of the publication.",
    obj(
        {
            "author": F("string", "author, given initial first"),
            "year": F("integer", "year"),
            "title": F("string", "title"),
            "open_licence": F(["boolean", "null"], "true if under an open licence, null if the page does not say"),
        }
    ),
    {
        "author": "B. Weigelt",
        "year": 2005,
        "title": "Molecular markers of breast cancer metastasis",
        "open_licence": None,
    },
    WG,
    {"$.open_licence": "absent"},
)
add(
    "olmocr",
    "seeds",
    "wrong",
    "number from another phrase (10 unit tests as seeds)",
    "Values average over 5 parametric seeds; 10 is the number of unit-test tasks.",
    "v2-olm-dw-a",
    "How many discovery tasks, unit-test tasks and seeds does the evaluation use?",
    obj(
        {
            "discovery_tasks": F("integer", "number of discovery tasks"),
            "unit_test_tasks": F("integer", "number of unit-test tasks"),
            "parametric_seeds": F("integer", "seeds averaged per cell"),
            "easy_max_steps": F("integer", "step limit for Easy tasks"),
        }
    ),
    {"discovery_tasks": 24, "unit_test_tasks": 10, "parametric_seeds": 10, "easy_max_steps": 100},
    DW,
    {"$.parametric_seeds": "across all 10 unit test tasks"},
)

for src, rows in cases.items():
    with open(f"tests/data/calibration2/{src}.jsonl", "w", encoding="utf-8") as fh:
        for c in rows:
            fh.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(src, len(rows), sum(c["label"] == "right" for c in rows))
