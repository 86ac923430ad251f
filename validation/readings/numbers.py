"""Numbers however written: digits with decimal commas, scale words and letters, spelled-out numbers, ordinals,
OCR digit slips, rounded figures."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from validation.number_words import ordinal_words, spelled_number
from validation.readings.money import _MONEY_UNITS, _MONEY_WORDS_RE

Place = tuple[int, int, str]  # (start, end, how)


_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12, "bn": 10**9, "m": 10**6,
           "k": 10**3, "mn": 10**6}  # fmt: skip


_DECIMAL_COMMA = re.compile(r"(?<![\d.,])(\d{1,3}(?:\.\d{3})*|\d+),(\d{1,2}|\d{4,})(?![\d,])")


_PLAIN_NUMBER = re.compile(r"(?<![\w.])[-−–]?\d+(?:[.,]\d+)*")


_SCALED = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)\s*(thousand|million|billion|trillion|bn|mn|m|k)\b", re.IGNORECASE)


# Words that are a number in a phrase, where no digit is written. text2num reads the spelled-out ones.
_NUMBER_LEXICON = {
    "half": Decimal("0.5"), "a half": Decimal("0.5"), "one half": Decimal("0.5"), "a quarter": Decimal("0.25"),
    "three quarters": Decimal("0.75"), "a third": Decimal(1) / 3, "dozen": Decimal(12), "a dozen": Decimal(12),
    "monotypic": Decimal(1), "sole": Decimal(1), "only": Decimal(1), "single": Decimal(1), "lone": Decimal(1),
    "unique": Decimal(1), "both": Decimal(2), "pair": Decimal(2), "twice": Decimal(2), "couple": Decimal(2),
    "twins": Decimal(2), "double": Decimal(2), "triple": Decimal(3), "thrice": Decimal(3), "none": Decimal(0),
    "no": Decimal(0), "zero": Decimal(0), "nil": Decimal(0),
}  # fmt: skip


_LEXICON = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _NUMBER_LEXICON), key=len, reverse=True)) + r")\b", re.I)


_SPELLED_WORDS = (
    "zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    "seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million"
)


_SPELLED_RUN = re.compile(rf"\b(?:(?:{_SPELLED_WORDS})(?:[ \t-]+(?:and[ \t-]+)?)?)+\b", re.IGNORECASE)


def to_decimal(value: Any) -> Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        if isinstance(value, int):
            return Decimal(value)
        if isinstance(value, float):
            return Decimal(repr(value))
        if isinstance(value, str):
            return _decimal_of_text(value)
    except InvalidOperation:
        return None
    return None


_DECIMAL_TEXT = re.compile(r"-?\d+(\.\d+)?")


@lru_cache(maxsize=4096)
def _decimal_of_text(value: str) -> Decimal | None:
    """A string that is a plain number ("1,500", "-3.5"): the rules ask for the same values many times a record.
    Decimals are immutable, so one may be handed out again."""
    text = value.strip().replace(",", "").replace("−", "-").replace("–", "-")
    return Decimal(text) if _DECIMAL_TEXT.fullmatch(text) else None


def close(a: Decimal | float, b: Decimal | float, *, rounding: Decimal | None = None) -> bool:
    """Equal; with `rounding` (a converted value), also equal to the curator's precision (804.7 for 804.672) or
    within 0.5%."""
    x, y = Decimal(str(a)), Decimal(str(b))
    if abs(x - y) <= Decimal("1e-9") * max(Decimal(1), abs(x)):
        return True
    if rounding is None:
        return False
    if abs(x - y) <= rounding / 2 + Decimal("1e-12"):
        return True
    return abs(x - y) <= Decimal("0.005") * max(abs(x), abs(y))


def precision_of(value: Decimal) -> Decimal:
    """The rounding step of a value as written: 804.7 -> 0.1, 805 -> 1."""
    exponent = value.normalize().as_tuple().exponent
    return Decimal(1).scaleb(exponent) if isinstance(exponent, int) and exponent < 0 else Decimal(1)


def _number_token(text: str) -> Decimal | None:
    text = text.replace("−", "-").replace("–", "-")
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


@lru_cache(maxsize=64)
def number_mentions(text: str) -> tuple[tuple[int, int, Decimal, str], ...]:
    """(start, end, value, how) of every number a text states in a way other than plain digits: decimal commas,
    scale words, money in words, spelled-out numbers and number words."""
    found: list[tuple[int, int, Decimal, str]] = []
    for match in _DECIMAL_COMMA.finditer(text):
        whole, fraction = match.group(1).replace(".", ""), match.group(2)
        if len(fraction) != 3:  # "5,250" may be thousands; "5,25" and "21,0975" are not
            value = _number_token(f"{whole}.{fraction}")
            if value is not None:
                found.append((match.start(), match.end(), value, "decimal comma"))
                percent = re.match(r"\s*(?:%|per ?cent)", text[match.end() : match.end() + 10], re.I)
                if percent:  # "11,7 %" as the fraction 0.117, as "11.7%" is read
                    found.append((match.start(), match.end() + percent.end(), value / 100, "decimal comma"))
                scale = re.match(r"\s*(thousand|million|billion|bn|mn)\b", text[match.end() : match.end() + 12], re.I)
                if scale:
                    found.append((match.start(), match.end() + scale.end(), value * _SCALES[scale.group(1).lower()],
                                  "decimal comma"))  # fmt: skip
    for match in _SCALED.finditer(text):
        value = _number_token(match.group(1).replace(",", "."))
        if value is not None:
            found.append((match.start(), match.end(), value * _SCALES[match.group(2).lower()], "scale word"))
    for match in _SPELLED_RUN.finditer(text):
        words = match.group().strip()
        value = spelled_number(words)
        if value is None and words.lower().endswith((" and a", " and an")):
            value = spelled_number(words.rsplit(" ", 2)[0])
        if value is None:
            continue
        fraction = _FRACTION_AFTER.match(text, match.end() - (len(match.group()) - len(match.group().rstrip())))
        if fraction or re.search(r"\band an?$", words, re.IGNORECASE):
            tail = text[match.start() : match.end() + 16]
            half = re.search(r"and an?\s+(half|quarter)", tail, re.IGNORECASE)
            if half:  # "twelve and a half" is 12.5, never 12
                value += Decimal("0.5") if half.group(1).lower() == "half" else Decimal("0.25")
        found.append((match.start(), match.end(), value, "spelled out"))
    for match in _MONEY_WORDS_RE.finditer(text):
        main = _amount(match.group("main"))
        if main is None:
            continue
        minor = _amount(match.group("minor") or "")
        if minor is not None and minor < 100:
            found.append((match.start(), match.end(), main + minor / 100, "money in words"))
    for match in _LEXICON.finditer(text):
        found.append((match.start(), match.end(), _NUMBER_LEXICON[match.group().lower()], "number word"))
    for match in _SPACED_THOUSANDS.finditer(text):
        value = _number_token(re.sub(r"[\s\u00a0\u2009\u202f]", "", match.group()))
        if value is not None:
            found.append((match.start(), match.end(), value, "spaced thousands"))
    for match in _ORDINAL_WORD.finditer(text):
        word = match.group().lower()
        value = Decimal(_ORDINALS[word]) if word in _ORDINALS else _number_token(word[:-2])
        if value is not None:
            found.append((match.start(), match.end(), value, "ordinal"))
    for match in _SCALE_LETTER.finditer(text):
        value = _number_token(match.group(1))
        if value is not None:
            found.append((match.start(), match.end(), value * _LETTER_SCALES[match.group(2)], "scale letter"))
    for match in _MIXED_FRACTION.finditer(text):
        whole, top, bottom = (int(g) for g in match.groups())
        if bottom:
            found.append((match.start(), match.end(), Decimal(whole) + Decimal(top) / Decimal(bottom), "fraction"))
    for match in _PERCENT_RANGE.finditer(text):
        for group in (1, 2):
            value = _number_token(match.group(group))
            if value is not None:
                found.append((match.start(), match.end(), value / 100, "percent range"))
    for match in _PARENTHESISED.finditer(text):
        value = _number_token(match.group(1))
        if value is not None:
            found.append((match.start(), match.end(), -value, "accounting negative"))
    for match in _OCR_SLIP.finditer(text):
        written = match.group()
        if sum(c.isdigit() for c in written) >= 2 and any(c in "lIO" for c in written):
            value = _number_token(written.translate(_OCR_DIGITS))
            if value is not None:
                found.append((match.start(), match.end(), value, "OCR slip"))
    found += _digitised_lines(text)
    return tuple(found)


# A digit an OCR engine read as a letter ("27l" for 271, "1O5" for 105): a curator reading the page corrects it.
_OCR_SLIP = re.compile(r"(?<![\w.,])[\dlIO]*\d[\dlIO]*(?:\.\d+)?(?![\w])")


_OCR_DIGITS = str.maketrans("lIO", "110")


_LETTER_SCALES = {"K": Decimal(10**3), "M": Decimal(10**6), "B": Decimal(10**9), "T": Decimal(10**12)}


_SCALE_LETTER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?([KMBT])\b")


_MIXED_FRACTION = re.compile(r"(?<![\w./])(\d+)[\s-]+(\d+)/(\d+)(?![\w/])")


_PERCENT_RANGE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:-|–|to)\s*(\d+(?:\.\d+)?)\s*(?:%|percent|per cent)", re.I)


_PARENTHESISED = re.compile(r"\((\d{1,3}(?:,\d{3})*(?:\.\d+)?)\)")


_DECIMALS = re.compile(r"(?<![\w.])\d+\.\d{2,}(?![\d])")


def _rounded_places(value: Decimal, text: str) -> list[Place]:
    """A number written with more decimals than the value, which is it rounded (41.8 for "41.84")."""
    step = precision_of(value)
    if step >= 1 and value == value.to_integral_value():
        exponent = 0
    else:
        exponent = step.as_tuple().exponent if isinstance(step.as_tuple().exponent, int) else 0
    places: list[Place] = []
    for match in _DECIMALS.finditer(text):
        written = _number_token(match.group())
        if written is None or written == value:
            continue
        if written.quantize(Decimal(1).scaleb(exponent)) == value:
            places.append((match.start(), match.end(), "rounded"))
    return places


_FRACTION_AFTER = re.compile(r"\s*and an?\s+(?:half|quarter)\b", re.IGNORECASE)


_SPACED_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+(?:\.\d+)?(?![\d])")


_ORDINALS = ordinal_words(100)


_ORDINAL_WORD = re.compile(
    r"\b(?:" + "|".join(sorted(map(re.escape, _ORDINALS), key=len, reverse=True)) + r"|\d+(?:st|nd|rd|th))\b",
    re.IGNORECASE,
)


_HAS_NUMBER_WORD = re.compile(rf"\b(?:{_SPELLED_WORDS})\b", re.IGNORECASE)


_SPOKEN_FRACTION = re.compile(r"(?<![\d.])\bpoint ((?:\d )*\d)\b")


_PERCENT_AFTER = re.compile(r"\s*(?:%|percent|per cent)", re.IGNORECASE)


@lru_cache(maxsize=64)
def _spelled_lines(text: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, the line with its spelled-out numbers written as digits by text2num) of each line of the
    text that spells a number out; "ten-month" is read as "ten month"."""
    from text_to_num import alpha2digit

    lines = []
    position = 0
    for line in text.split("\n"):
        start, end = position, position + len(line)
        position = end + 1
        if not _HAS_NUMBER_WORD.search(line):
            continue
        lowered = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", line.lower())
        digits = alpha2digit(lowered, "en")
        if digits != lowered:
            lines.append((start, end, digits))
    return tuple(lines)


def _digitised_lines(text: str) -> list[tuple[int, int, Decimal, str]]:
    """Numbers of lines that spell numbers out, read after text2num wrote them as digits ("SIXTEEN POINT EIGHT"
    -> 16.8, "SEVENTY PERCENT" -> 0.7, "TWELVE EUROS FIFTY" -> 12.5). Each is placed on its whole line: the
    rewritten line's offsets are not the text's."""
    found: list[tuple[int, int, Decimal, str]] = []
    for start, end, digits in _spelled_lines(text):
        for match in _PLAIN_NUMBER.finditer(digits):
            value = _number_token(match.group().replace(",", "."))
            if value is None or re.match(r"\s+and an?\s+(?:half|quarter)", digits[match.end() :]):
                continue  # "12 and a half": read below as 12.5
            found.append((start, end, value, "spelled out"))
            if _PERCENT_AFTER.match(digits, match.end()):
                found.append((start, end, value / 100, "spelled out"))
        for match in re.finditer(rf"(\d+)\s+(?:{_MONEY_UNITS})\s+(?:and\s+)?(\d{{1,2}})\b", digits):
            found.append((start, end, Decimal(match.group(1)) + Decimal(match.group(2)) / 100, "money in words"))
        for match in re.finditer(r"(\d+) and a half", digits):
            found.append((start, end, Decimal(match.group(1)) + Decimal("0.5"), "spelled out"))
        # a spoken decimal with no whole part: text2num leaves "point five" as "point 5", "point two five" as
        # "point 2 5"; said aloud it is 0.5, 0.25
        for match in _SPOKEN_FRACTION.finditer(digits):
            found.append((start, end, Decimal("0." + match.group(1).replace(" ", "")), "spelled out"))
    return found


def _amount(words: str) -> Decimal | None:
    words = words.strip()
    if not words:
        return None
    if re.fullmatch(r"\d+(?:[.,]\d+)?", words):
        return _number_token(words.replace(",", "."))
    tokens = words.split()
    for start in range(len(tokens)):  # the longest spelled-out tail: "costs twelve" -> twelve
        value = spelled_number(" ".join(tokens[start:]))
        if value is not None:
            return value
    return None
