"""Writes the embedded olmOCR-bench-style sample: three one-page PDFs made by this project
(fictional content), their tests, and nothing else (authored.jsonl is written by hand).

Layout, as in olmOCR-bench: `bench_data/<category>.jsonl` holds the tests and
`bench_data/pdfs/<category>/*.pdf` the pages; the table PDFs sit in `pdfs/tables/` while their
tests are `table_tests.jsonl`. The PDFs are drawn with reportlab (a dev-only tool: the
committed PDFs are what the toolkit reads) and embed reportlab's bundled Bitstream Vera font, so
they render the same on every machine. Run `python loaders/samples/olmocr/make_sample.py` to
regenerate them; the output is deterministic.
"""

from __future__ import annotations

import json
from pathlib import Path

from reportlab.lib.pagesizes import LETTER
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

HERE = Path(__file__).resolve().parent
BENCH = HERE / "bench_data"
WIDTH, HEIGHT = LETTER

pdfmetrics.registerFont(TTFont("Vera", "Vera.ttf"))
pdfmetrics.registerFont(TTFont("VeraBd", "VeraBd.ttf"))


def _canvas(path: Path, title: str) -> canvas.Canvas:
    path.parent.mkdir(parents=True, exist_ok=True)
    c = canvas.Canvas(str(path), pagesize=LETTER, invariant=1, pageCompression=1)
    c.setTitle(title)
    c.setAuthor("sob-curation-toolkit sample")
    c.setCreator("loaders/samples/olmocr/make_sample.py")
    return c


def _wrap(text: str, font: str, size: float, width: float) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        trial = f"{current} {word}".strip()
        if pdfmetrics.stringWidth(trial, font, size) <= width:
            current = trial
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines


def _paragraphs(c: canvas.Canvas, paragraphs: list[str], x: float, y: float, width: float, size: float = 11) -> float:
    c.setFont("Vera", size)
    for paragraph in paragraphs:
        for line in _wrap(paragraph, "Vera", size, width):
            c.drawString(x, y, line)
            y -= size * 1.45
        y -= size * 0.8
    return y


# --- tables/harbour_tides.pdf -------------------------------------------------------------

TABLE_TITLE = "Saltmouth Harbour Ferry Timetable, Summer 2024"
TABLE_INTRO = (
    "The Saltmouth Harbour Board runs three ferry routes from the north quay. Sailings marked "
    "with the route code below leave daily from 1 June to 31 August."
)
TABLE_ROWS = [
    ["Route", "Destination", "First sailing", "Last sailing", "Fare"],
    ["F1", "Gull Island", "07:15", "19:45", "4.50"],
    ["F2", "Brannock Point", "08:00", "18:30", "6.20"],
    ["F3", "Ynys Bach", "09:30", "17:00", "11.00"],
    ["F4", "Wend Estuary", "10:10", "16:40", "7.80"],
]
TABLE_NOTE = "Children under twelve travel at half fare. Bicycles are carried free on routes F1 and F2."


def make_table(path: Path) -> None:
    c = _canvas(path, TABLE_TITLE)
    margin = 72
    c.setFont("VeraBd", 16)
    c.drawString(margin, HEIGHT - 96, TABLE_TITLE)
    y = _paragraphs(c, [TABLE_INTRO], margin, HEIGHT - 130, WIDTH - 2 * margin)
    col_widths = [70, 140, 100, 100, 58]
    row_h = 26
    top = y - 10
    for r, row in enumerate(TABLE_ROWS):
        x = margin
        c.setFont("VeraBd" if r == 0 else "Vera", 11)
        for text, w in zip(row, col_widths, strict=True):
            c.rect(x, top - (r + 1) * row_h, w, row_h, stroke=1, fill=0)
            c.drawString(x + 6, top - (r + 1) * row_h + 9, text)
            x += w
    y = top - len(TABLE_ROWS) * row_h - 30
    _paragraphs(c, [TABLE_NOTE], margin, y, WIDTH - 2 * margin)
    c.showPage()
    c.save()


# --- multi_column/wend_valley_news.pdf ----------------------------------------------------

NEWS_TITLE = "Wend Valley News"
LEFT_COLUMN = [
    "Elsford market reopens. After eight months of repairs the covered wool market on Bridge "
    "Street opened again on Saturday with forty two stalls.",
    "The market hall was built in 1868 and its roof was damaged in the January storms. The "
    "town council paid for the new slate roof and the stall holders raised the money for new lamps.",
    "Market days remain Tuesday and Saturday, from eight in the morning until two in the afternoon.",
]
RIGHT_COLUMN = [
    "Observatory open nights. Marrow Creek Observatory will open its dome to visitors on the "
    "first Friday of every month this autumn.",
    "Visitors can look through the 1.2 metre reflecting telescope when the sky is clear. Tickets "
    "cost three pounds and the money goes to the upkeep of the dome.",
    "The first open night is on 4 October and places must be booked at the town library.",
]


def make_two_columns(path: Path) -> None:
    c = _canvas(path, NEWS_TITLE)
    margin = 60
    gap = 28
    col_w = (WIDTH - 2 * margin - gap) / 2
    c.setFont("VeraBd", 20)
    c.drawString(margin, HEIGHT - 90, NEWS_TITLE)
    _paragraphs(c, LEFT_COLUMN, margin, HEIGHT - 130, col_w)
    _paragraphs(c, RIGHT_COLUMN, margin + col_w + gap, HEIGHT - 130, col_w)
    c.showPage()
    c.save()


# --- headers_footers/glassworkers_minutes.pdf ---------------------------------------------

MINUTES_HEADER = "Glassworkers Guild of Saltmouth"
MINUTES_FOOTER = "Page 3 of 7"
MINUTES_TITLE = "Minutes of the Spring Meeting, 12 April 2024"
MINUTES_BODY = [
    "Present: Ada Threlkeld (chair), Owen Pryce (treasurer), Mina Castell (secretary) and eleven members of the guild.",
    "The treasurer reported a balance of 2,340 pounds after the purchase of a second annealing "
    "kiln for the workshop on Quay Lane.",
    "The meeting agreed to hold the summer exhibition in the Elsford library from 3 to 17 July. "
    "Mina Castell will write to the librarian this week.",
    "The chair thanked Owen Pryce for repairing the workshop furnace. The next meeting will be "
    "held on 14 June 2024 at seven in the evening.",
]


def make_header_footer(path: Path) -> None:
    c = _canvas(path, MINUTES_TITLE)
    margin = 72
    c.setFont("Vera", 9)
    c.drawString(margin, HEIGHT - 36, MINUTES_HEADER)
    c.line(margin, HEIGHT - 42, WIDTH - margin, HEIGHT - 42)
    c.drawRightString(WIDTH - margin, 30, MINUTES_FOOTER)
    c.setFont("VeraBd", 15)
    c.drawString(margin, HEIGHT - 100, MINUTES_TITLE)
    _paragraphs(c, MINUTES_BODY, margin, HEIGHT - 136, WIDTH - 2 * margin)
    c.showPage()
    c.save()


def tests() -> dict[str, list[dict]]:
    table_pdf = "tables/harbour_ferries.pdf"
    news_pdf = "multi_column/wend_valley_news.pdf"
    minutes_pdf = "headers_footers/glassworkers_minutes.pdf"
    return {
        "table_tests": [
            {"pdf": table_pdf, "page": 1, "id": "harbour_ferries_title", "type": "present", "text": TABLE_TITLE},
            {"pdf": table_pdf, "page": 1, "id": "harbour_ferries_note", "type": "present", "text": TABLE_NOTE},
            {
                "pdf": table_pdf,
                "page": 1,
                "id": "harbour_ferries_f2_dest",
                "type": "table",
                "cell": "F2",
                "right": "Brannock Point",
            },
            {
                "pdf": table_pdf,
                "page": 1,
                "id": "harbour_ferries_f3_fare",
                "type": "table",
                "cell": "11.00",
                "top_heading": "Fare",
            },
            {
                "pdf": table_pdf,
                "page": 1,
                "id": "harbour_ferries_f1_below",
                "type": "table",
                "cell": "F1",
                "up": "Route",
                "down": "F2",
            },
            {
                "pdf": table_pdf,
                "page": 1,
                "id": "harbour_ferries_order",
                "type": "order",
                "before": TABLE_INTRO[:60],
                "after": TABLE_NOTE[:50],
            },
        ],
        "multi_column": [
            {
                "pdf": news_pdf,
                "page": 1,
                "id": "wend_news_left_first",
                "type": "present",
                "text": "After eight months of repairs the covered wool market on Bridge Street opened again",
            },
            {
                "pdf": news_pdf,
                "page": 1,
                "id": "wend_news_right_first",
                "type": "present",
                "text": "Marrow Creek Observatory will open its dome to visitors",
            },
            {
                "pdf": news_pdf,
                "page": 1,
                "id": "wend_news_left_order",
                "type": "order",
                "before": "Elsford market reopens.",
                "after": "Market days remain Tuesday and Saturday",
            },
            {
                "pdf": news_pdf,
                "page": 1,
                "id": "wend_news_columns_order",
                "type": "order",
                "before": "Market days remain Tuesday and Saturday",
                "after": "Observatory open nights.",
            },
            {
                "pdf": news_pdf,
                "page": 1,
                "id": "wend_news_right_order",
                "type": "order",
                "before": "Observatory open nights.",
                "after": "The first open night is on 4 October",
            },
        ],
        "headers_footers": [
            {"pdf": minutes_pdf, "page": 1, "id": "guild_minutes_header", "type": "absent", "text": MINUTES_HEADER},
            {"pdf": minutes_pdf, "page": 1, "id": "guild_minutes_footer", "type": "absent", "text": MINUTES_FOOTER},
            {"pdf": minutes_pdf, "page": 1, "id": "guild_minutes_title", "type": "present", "text": MINUTES_TITLE},
            {
                "pdf": minutes_pdf,
                "page": 1,
                "id": "guild_minutes_balance",
                "type": "present",
                "text": "The treasurer reported a balance of 2,340 pounds",
            },
            {
                "pdf": minutes_pdf,
                "page": 1,
                "id": "guild_minutes_order",
                "type": "order",
                "before": "Present: Ada Threlkeld (chair)",
                "after": "The next meeting will be held on 14 June 2024",
            },
        ],
    }


def main() -> None:
    make_table(BENCH / "pdfs" / "tables" / "harbour_ferries.pdf")
    make_two_columns(BENCH / "pdfs" / "multi_column" / "wend_valley_news.pdf")
    make_header_footer(BENCH / "pdfs" / "headers_footers" / "glassworkers_minutes.pdf")
    for name, rows in tests().items():
        with (BENCH / f"{name}.jsonl").open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {BENCH}")


if __name__ == "__main__":
    main()
