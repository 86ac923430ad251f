"""Numbers in table cells whose column header names their unit: "Yield strength (MPa)", "Length [mm]",
"Elongation (%)", "Weight, kg". A curator who gives 0.142 in a `yield_strength_gpa` field for the cell 142 under
"(MPa)" read the header, as OCR'd tables (markdown or HTML, as olmOCR writes both) put the unit there and not
beside each number.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache

_HEADER_UNIT = re.compile(r"(?:\(([^()]{1,12})\)|\[([^\[\]]{1,12})\]|,\s*([^,]{1,8}))\s*$")
_NUMBER_CELL = re.compile(r"^\s*([-−–]?\d+(?:[.,]\d+)?)\s*$")
_HTML_ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.IGNORECASE | re.DOTALL)
_HTML_CELL = re.compile(r"<t([hd])\b[^>]*>(.*?)</t[hd]>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")
_HTML_TABLE = re.compile(r"<table\b.*?</table>", re.IGNORECASE | re.DOTALL)

Cell = tuple[int, int, str]  # start, end, text


def header_unit(header: str) -> str | None:
    """The unit a column header names at its end ("Yield strength (MPa)" -> "MPa", "Elongation (%)" -> "%")."""
    match = _HEADER_UNIT.search(_TAG.sub("", header).strip())
    if match is None:
        return None
    unit = next(g for g in match.groups() if g is not None).strip()
    return unit or None


def _markdown_tables(text: str) -> list[list[list[Cell]]]:
    tables: list[list[list[Cell]]] = []
    rows: list[list[Cell]] = []
    position = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith("|"):
            cells: list[Cell] = []
            offset = position + line.index("|") + 1
            for piece in stripped.strip("|").split("|"):
                cells.append((offset, offset + len(piece), piece))
                offset += len(piece) + 1
            if not re.fullmatch(r"[\s|:-]+", stripped):  # the |---| line is no row
                rows.append(cells)
        elif rows:
            tables.append(rows)
            rows = []
        position += len(line)
    if rows:
        tables.append(rows)
    return tables


def _html_tables(text: str) -> list[list[list[Cell]]]:
    tables = []
    for table in _HTML_TABLE.finditer(text):
        rows = []
        for row in _HTML_ROW.finditer(text, table.start(), table.end()):
            rows.append([(cell.start(2), cell.end(2), cell.group(2)) for cell in _HTML_CELL.finditer(row.group())])
            rows[-1] = [(row.start() + s, row.start() + e, body) for s, e, body in rows[-1]]
        if rows:
            tables.append(rows)
    return tables


@lru_cache(maxsize=64)
def header_unit_numbers(text: str) -> tuple[tuple[int, int, Decimal, str], ...]:
    """(start, end, number, unit as written) of every number cell under a header that names a unit."""
    found: list[tuple[int, int, Decimal, str]] = []
    if "|" not in text and "<t" not in text.lower():
        return ()
    for rows in _markdown_tables(text) + _html_tables(text):
        header = rows[0]
        units = [header_unit(cell) for _, _, cell in header]
        if not any(units):
            continue
        for row in rows[1:]:
            for column, (start, end, cell) in enumerate(row):
                unit = units[column] if column < len(units) else None
                match = _NUMBER_CELL.match(_TAG.sub("", cell))
                if unit is None or match is None:
                    continue
                try:
                    number = Decimal(match.group(1).replace(",", ".").replace("−", "-").replace("–", "-"))
                except InvalidOperation:
                    continue
                found.append((start, end, number, unit))
    return tuple(found)


@lru_cache(maxsize=64)
def _cells_with_headers(text: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, header) of every body cell of the text's tables, markdown or HTML."""
    found: list[tuple[int, int, str]] = []
    if "|" not in text and "<t" not in text.lower():
        return ()
    for rows in _markdown_tables(text) + _html_tables(text):
        header = [_TAG.sub(" ", cell).strip() for _, _, cell in rows[0]]
        for row in rows[1:]:
            for column, (start, end, _) in enumerate(row):
                if column < len(header) and header[column]:
                    found.append((start, end, header[column]))
    return tuple(found)


def cell_header(text: str, offset: int) -> str | None:
    """The column header above the table cell that holds `offset` ("Unit test" for a 100 in its column)."""
    for start, end, header in _cells_with_headers(text):
        if start <= offset < end:
            return header
    return None
