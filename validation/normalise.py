"""Recognised normalisations of a quoted span: what a value may be when its evidence is `normalised`.

A curator writes 3677 for "3,677", 0.736 for "73.6%", 12.5 for "TWELVE AND A HALF POUNDS" and
"1986-03-03" for "March 3, 1986". These functions list what a quote can mean, so a value is accepted
only when it is one of them; anything else is an `evidence_mismatch`, never a silent pass.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from validation.grounding import fold, normalize_text

_UNITS = {
    "zero": 0, "oh": 0, "nil": 0, "none": 0, "one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_FRACTIONS = {"half": Decimal("0.5"), "quarter": Decimal("0.25"), "quarters": Decimal("0.25")}
_NUMBER = re.compile(r"(?<![\w.])[-−–]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|(?<![\w.,])[-−–]?\d+(?:\.\d+)?")
_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
         ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
         ("november", "nov"), ("december", "dec")]
    )
    for m in names
}  # fmt: skip
_ISO_DATE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")


def words_to_number(text: str) -> Decimal | None:
    """ "twelve and a half" -> 12.5, "three thousand six hundred" -> 3600, "twenty five" -> 25.
    None when the words are not one spelled-out number."""
    words = [w for w in re.split(r"[\s-]+", fold(text)) if w and w not in ("and",)]
    if not words:
        return None
    total, current, fraction, seen = Decimal(0), Decimal(0), Decimal(0), False
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("a", "an") and i + 1 < len(words) and words[i + 1] in _FRACTIONS:
            fraction += _FRACTIONS[words[i + 1]]
            i += 2
            seen = True
            continue
        if word in _UNITS and word not in ("a", "an"):
            current += _UNITS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word in ("a", "an") and i + 1 < len(words) and words[i + 1] in _SCALES:
            current += 1
        elif word in _SCALES:
            scale = _SCALES[word]
            current = max(current, Decimal(1)) * scale
            if scale >= 1_000:
                total, current = total + current, Decimal(0)
        elif word in _FRACTIONS and seen:
            fraction += _FRACTIONS[word]
        else:
            return None
        seen = True
        i += 1
    return total + current + fraction if seen else None


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "").replace("−", "-").replace("–", "-"))
    except InvalidOperation:
        return None


def number_readings(quote: str) -> set[Decimal]:
    """Every number a quote can stand for: its digits (sign kept), percentages as fractions too,
    scale words ("3.5 million"), and spelled-out numbers ("twelve and a half")."""
    readings: set[Decimal] = set()
    folded = fold(quote)
    for match in _NUMBER.finditer(folded):
        value = _decimal(match.group())
        if value is None:
            continue
        readings.add(value)
        rest = folded[match.end() : match.end() + 12].lstrip()
        if rest.startswith("%") or rest.startswith("percent") or rest.startswith("per cent"):
            readings.add(value / 100)
        for word, scale in _SCALES.items():
            if rest.startswith(word):
                readings.add(value * scale)
    words = re.sub(r"[^\w\s-]", " ", folded)
    spelled = words_to_number(words)
    if spelled is None:  # the number words inside a longer quote ("TWELVE AND A HALF POUNDS")
        tokens = words.split()
        for size in range(len(tokens), 0, -1):
            for start in range(len(tokens) - size + 1):
                value = words_to_number(" ".join(tokens[start : start + size]))
                if value is not None and tokens[start] not in ("a", "an"):
                    readings.add(value)
            if readings:
                break
    else:
        readings.add(spelled)
    return readings | _spoken_groups(words)


def one_number_in_words(quote: str) -> bool:
    """Does a quote say exactly one number, in words ("six percent")? Several, run together as speech runs them
    ("twenty nine fifty is sixteen twenty two fifty"), are read less surely."""
    from text_to_num import alpha2digit

    folded = re.sub(r"[^\w\s-]", " ", fold(quote)).lower()
    return len(re.findall(r"\b\d+(?:[.,]\d+)?\b", alpha2digit(folded, "en"))) == 1 if len(folded) <= 600 else False


_DIGIT_RUN = re.compile(r"\b\d{1,2}(?: \d{2})+\b")


def _spoken_groups(words: str) -> set[Decimal]:
    """Each number said in words, and numbers said as two-digit groups: "sixteen twenty two fifty" is 1622.50 (or
    1622, or 22.50) and "twenty nine fifty" is 29.50, as people say prices and years aloud. `text2num` reads the
    words; the groups are joined here, since no library reads a spoken price."""
    if len(words) > 600 or not _TENS.keys() & set(words.lower().split()):
        return set()
    from text_to_num import alpha2digit

    readings: set[Decimal] = set()
    digits = alpha2digit(words.lower(), "en")
    readings.update(Decimal(n) for n in re.findall(r"\b\d+\b", digits))  # each number said ("fifty five" -> 55)
    for run in _DIGIT_RUN.finditer(digits):
        groups = run.group().split()
        for start in range(len(groups) - 1):
            for end in range(start + 2, len(groups) + 1):
                part = groups[start:end]
                readings.add(Decimal("".join(part)))
                readings.add(Decimal("".join(part[:-1])) + Decimal(part[-1]) / 100)
    return readings


def same_number(a: Decimal, b: Any) -> bool:
    if isinstance(b, bool) or not isinstance(b, int | float | Decimal):
        return False
    other = Decimal(repr(b)) if isinstance(b, float) else Decimal(b)
    return abs(a - other) <= Decimal("1e-9") * max(Decimal(1), abs(a))


def date_readings(quote: str) -> set[tuple[int, int | None, int | None]]:
    """(year, month, day) a quote can mean: "March 3, 1986", "3 March 1986", "1986-03-03", "03/1986"."""
    text = fold(quote)
    found: set[tuple[int, int | None, int | None]] = set()
    iso = re.search(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b", text)
    if iso:
        found.add((int(iso.group(1)), int(iso.group(2)), int(iso.group(3))))
    words = re.findall(r"[a-z]+|\d+", text)
    for i, word in enumerate(words):
        month = _MONTHS.get(word)
        if month is None:
            continue
        day = year = None
        after = words[i + 1 : i + 3]
        before = words[max(0, i - 1) : i]
        if after and after[0].isdigit() and len(after[0]) <= 2:
            day = int(after[0])
            if len(after) > 1 and after[1].isdigit() and len(after[1]) == 4:
                year = int(after[1])
        elif after and after[0].isdigit() and len(after[0]) == 4:
            year = int(after[0])
        if before and before[0].isdigit() and len(before[0]) <= 2:
            day = int(before[0])
            if after and after[0].isdigit() and len(after[0]) == 4:
                year = int(after[0])
        if year is not None:
            found.add((year, month, day))
    return found


def _iso_value(value: str) -> tuple[int, int | None, int | None] | None:
    match = _ISO_DATE.match(value.strip())
    if not match:
        return None
    year, month, day = (int(g) if g else None for g in match.groups())
    assert year is not None
    try:
        date(year, month or 1, day or 1)
    except ValueError:
        return None
    return year, month, day


def matches_normalised(value: Any, quote: str) -> bool:
    """Is `value` a recognised normalisation of `quote` (a unit, number, case or date format change)?"""
    if isinstance(value, bool):
        return normalize_text(quote) in (("yes", "true") if value else ("no", "false", "none", "not"))
    if isinstance(value, int | float):
        return any(same_number(reading, value) for reading in number_readings(quote))
    if isinstance(value, str):
        wanted = normalize_text(value)
        if wanted and wanted == normalize_text(quote):
            return True
        iso = _iso_value(value)
        if iso is not None:
            return any(
                reading[0] == iso[0]
                and (iso[1] is None or reading[1] == iso[1])
                and (iso[2] is None or reading[2] == iso[2])
                for reading in date_readings(quote)
            )
        number = _decimal(value.strip()) if re.fullmatch(r"[-−]?[\d,]+(\.\d+)?%?", value.strip()) else None
        if number is None and value.strip().endswith("%"):
            number = _decimal(value.strip()[:-1])
        if number is not None:
            return any(reading == number for reading in number_readings(quote))
    return False
