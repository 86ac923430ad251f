"""Other ways a correct value is written in a text: the readings the toolkit recognises before it doubts a value.

A curator writes 804.7 in a `distance_km` field for "500 miles", 5.2 for "5,2 billion", "09:30" for "9:30 AM" or
"half past nine", 12.5 for "twelve euros fifty", 0.5 for "half", 1 for "monotypic", "1990s" for "the 90s",
"Reunion" for "Réunion", "Football Bowl Subdivision" for "FBS" and "EUR" for "euros". Each reading is found
with a maintained library where one exists: `pint` converts units, `text2num` reads spelled-out numbers inside
phrases, `babel` knows currency names, symbols and codes, `unidecode` drops diacritics. These readings are
tried only after the verbatim search failed, so the common case pays nothing for them.

`FieldHint` is what a field says about its value (its key, description and schema type): the unit a number is
in, whether it is money, a count, a time of day.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from unidecode import unidecode

from validation.date_mentions import iso_date_places
from validation.number_words import ordinal_words, spelled_number
from validation.table_units import header_unit_numbers

Place = tuple[int, int, str]  # (start, end, how)

# ---- what a field says about its value --------------------------------------------------------------------

# Unit words a field name or description may carry, as pint reads them. Only these: pint also reads "in"
# (inch), "a" (year) and "at" as units, which field names are full of.
_UNIT_WORDS = {
    "mm": "millimeter", "cm": "centimeter", "m": "meter", "km": "kilometer", "metre": "meter", "metres": "meter",
    "meter": "meter", "meters": "meter", "centimetres": "centimeter", "centimeters": "centimeter",
    "centimetre": "centimeter", "millimetres": "millimeter", "kilometre": "kilometer", "kilometres": "kilometer",
    "kilometer": "kilometer", "kilometers": "kilometer", "mile": "mile", "miles": "mile", "mi": "mile",
    "ft": "foot", "foot": "foot", "feet": "foot", "inch": "inch", "inches": "inch", "yard": "yard", "yards": "yard",
    "km/h": "kilometer_per_hour", "m/s": "meter_per_second", "ft/s": "foot_per_second", "mi/h": "mile_per_hour",
    '"': "inch", "″": "inch", "”": "inch", "in.": "inch", "'": "foot", "′": "foot",
    "ms": "millisecond", "msec": "millisecond", "milliseconds": "millisecond", "millisecond": "millisecond",
    "sec": "second", "secs": "second",
    "kg": "kilogram", "kilogram": "kilogram", "kilograms": "kilogram", "kilos": "kilogram", "g": "gram",
    "gram": "gram", "grams": "gram", "lb": "pound", "lbs": "pound", "oz": "ounce", "tonne": "metric_ton",
    "tonnes": "metric_ton", "ton": "metric_ton", "tons": "metric_ton", "l": "liter", "litre": "liter",
    "litres": "liter", "liter": "liter", "liters": "liter", "ml": "milliliter", "gallon": "gallon",
    "gallons": "gallon", "mph": "mile_per_hour", "kmh": "kilometer_per_hour", "kph": "kilometer_per_hour",
    "knots": "knot", "acre": "acre", "acres": "acre", "hectare": "hectare", "hectares": "hectare", "ha": "hectare",
    "km2": "kilometer**2", "km²": "kilometer**2", "m²": "meter**2", "m2": "meter**2", "mi²": "mile**2",
    "sq km": "kilometer**2", "sq mi": "mile**2", "sq m": "meter**2", "sqkm": "kilometer**2", "sqmi": "mile**2",
    "celsius": "degree_Celsius", "°c": "degree_Celsius", "ºc": "degree_Celsius", "℃": "degree_Celsius",
    "degrees celsius": "degree_Celsius", "degree celsius": "degree_Celsius", "degrees c": "degree_Celsius",
    "°f": "degree_Fahrenheit", "ºf": "degree_Fahrenheit", "℉": "degree_Fahrenheit",
    "degrees fahrenheit": "degree_Fahrenheit", "degree fahrenheit": "degree_Fahrenheit",
    "degrees f": "degree_Fahrenheit", "kelvin": "kelvin",
    "fahrenheit": "degree_Fahrenheit", "seconds": "second", "second": "second", "minutes": "minute",
    "minute": "minute", "mins": "minute", "hours": "hour", "hour": "hour", "hrs": "hour", "days": "day",
    "day": "day", "weeks": "week", "week": "week", "months": "month", "years": "year", "year": "year",
    "kw": "kilowatt", "mw": "megawatt", "kwh": "kilowatt_hour", "w": "watt", "watts": "watt", "volts": "volt",
    "v": "volt", "mah": "milliampere_hour", "gb": "gigabyte", "mb": "megabyte",
    "pa": "pascal", "kpa": "kilopascal", "mpa": "megapascal", "gpa": "gigapascal", "psi": "psi",
    "mg": "milligram", "milligrams": "milligram", "µg": "microgram", "μg": "microgram", "ug": "microgram",
    "micrograms": "microgram", "m3": "meter**3", "m³": "meter**3", "cm3": "centimeter**3", "cm³": "centimeter**3",
}  # fmt: skip


def _per_volume_units() -> dict[str, str]:
    """Densities and concentrations, as papers write them: "g/cm3", "g/cm³", "g cm-3", "g cm⁻³", "mg/l", "mg l-1"."""
    masses = {"kg": "kilogram", "g": "gram", "mg": "milligram", "µg": "microgram", "μg": "microgram", "ug": "microgram"}
    volumes = {"m": ("meter**3", "3", "³"), "cm": ("centimeter**3", "3", "³"), "l": ("liter", "", "¹"),
               "ml": ("milliliter", "", "¹")}  # fmt: skip
    units = {}
    for mass, mass_name in masses.items():
        for volume, (volume_name, cube, superscript) in volumes.items():
            power = "3" if cube else "1"
            spellings = {f"{mass}/{volume}{cube}", f"{mass}/{volume}{superscript if cube else ''}",
                         f"{mass} {volume}-{power}", f"{mass} {volume}⁻{superscript}"}  # fmt: skip
            units.update(dict.fromkeys(spellings, f"{mass_name} / {volume_name}"))
    return units


_UNIT_WORDS = _per_volume_units() | _UNIT_WORDS  # the plain units win where a spelling is both
# Words of a field that name a point in time rather than a duration: "year" in `birth_year` is no unit.
_NOT_DURATION = {"birth", "born", "death", "died", "founded", "start", "end", "release", "released", "date", "when"}
_MONEY_WORDS = {"price", "cost", "fare", "fee", "amount", "budget", "salary", "revenue", "money", "paid", "pay"}
_COUNT_WORDS = {"count", "number", "num", "how", "many", "total", "n"}
_TIME_WORDS = {
    "time",
    "times",
    "clock",
    "hour",
    "starts",
    "start",
    "begins",
    "departure",
    "arrival",
    "sailing",
    "opens",
}


@dataclass(frozen=True)
class FieldHint:
    key: str = ""
    description: str = ""
    unit: str | None = None  # pint unit name the value is in
    currency: str | None = None  # ISO code the value is in
    is_count: bool = False
    is_time: bool = False
    is_number: bool = False  # the schema types it a number (or integer) only
    is_boolean: bool = False  # the schema types it a boolean only (`born_in_england` holds no date)

    @property
    def words(self) -> frozenset[str]:
        return field_words(self.key, self.description)


@lru_cache(maxsize=8192)
def field_words(key: str, description: str = "") -> frozenset[str]:
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", f"{key} {description}")
    return frozenset(w for w in re.split(r"[^a-z0-9]+", text.lower()) if w)


@lru_cache(maxsize=4096)
def field_hint(key: str, description: str = "", types: frozenset[str] = frozenset()) -> FieldHint:
    """What a field's key and description say about its value's unit, currency, count or clock time."""
    description = _DATE_PATTERN.sub(" ", description)  # the "MM" of "YYYY-MM-DD" is no millimetre
    key_words = field_words(key)
    words = field_words(key, description)
    unit = _compound_unit(key)
    # A unit in the key wins over one in the description ("height_cm": "height of the tower").
    for source in (key_words, words):
        if unit:
            break
        for word in sorted(source, key=lambda w: -len(w)):
            if word in _UNIT_WORDS and not (word in ("year", "years", "day", "days") and words & _NOT_DURATION):
                if word == "m" and "m" not in key.lower().split("_"):
                    continue
                unit = _UNIT_WORDS[word]
                break
        if unit:
            break
    if unit is None and key.lower().split("_")[-1:] == ["s"] and len(key.split("_")) > 1:
        unit = "second"  # `duration_s`
    currency = _currency_in(words)
    if currency is not None and unit == "pound":
        unit = None  # "price in pounds": money, not mass
    if unit in _TIME_UNITS and _currency_in(key_words) is not None:
        unit = None  # `day_ticket_eur`, `price_per_hour_usd`: an amount of money, the time word names what it buys
    if currency is None and words & _MONEY_WORDS:
        currency = ""  # money in an unnamed currency
    lowered = key.lower()
    is_count = (
        bool(key_words & {"count", "num", "total"})
        or lowered.startswith(("n_", "number_of", "num_"))
        or "how many" in description.lower()
        or "number of" in description.lower()
    )
    is_time = bool(key_words & _TIME_WORDS) and not is_count and (not types or "string" in types)
    is_number = bool(types) and types - {"null"} <= {"number", "integer"} and bool(types - {"null"})
    is_boolean = types - {"null"} == {"boolean"}
    return FieldHint(key, description, unit, currency, is_count, is_time, is_number, is_boolean)


_TIME_UNITS = {"second", "minute", "hour", "day", "week", "month", "year"}
_DATE_PATTERN = re.compile(r"\b(?:yyyy|yy|mm|dd|hh|ss)(?:\s?[-/.:]\s?(?:yyyy|yy|mm|dd|hh|ss))+\b", re.IGNORECASE)


def _compound_unit(key: str) -> str | None:
    """A unit written over two tokens of a key: `speed_m_s` (m/s), `speed_km_h`, `velocity_ft_s`."""
    tokens = [t for t in re.split(r"[^a-z0-9]+", key.lower()) if t]
    for first, second in zip(tokens, tokens[1:], strict=False):
        name = _UNIT_WORDS.get(f"{first}/{second}")
        if name:
            return name
    return None


# ---- numbers --------------------------------------------------------------------------------------------

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
_MONEY_UNITS = r"euros?|pounds?|dollars?|quid|bucks|francs?|marks?|yen|rupees?|pesos?|krona|kronor|kroner"
_MONEY_WORDS_RE = re.compile(
    rf"\b(?P<main>[\w-]+(?:[\s-]+[\w-]+){{0,3}}?)\s+(?P<unit>{_MONEY_UNITS})(?:\s+(?:and\s+)?(?P<minor>[\w-]+(?:[\s-]+[\w-]+)?))?",
    re.IGNORECASE,
)


def to_decimal(value: Any) -> Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        if isinstance(value, int):
            return Decimal(value)
        if isinstance(value, float):
            return Decimal(repr(value))
        if isinstance(value, str):
            text = value.strip().replace(",", "").replace("−", "-").replace("–", "-")
            return Decimal(text) if re.fullmatch(r"-?\d+(\.\d+)?", text) else None
    except InvalidOperation:
        return None
    return None


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


# ---- quantities with units (pint) ----------------------------------------------------------------------

_QUANTITY = re.compile(
    r"(?<![\w.,])(?P<number>\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+(?:\.\d+)?(?![\d.,])"  # "4 050 metres"
    r"|(?<![\w.])[-−–]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])[-−–]?\d+(?:[.,]\d+)?)\s?-?\s?"
    r"(?P<unit>(?:sq(?:uare)?\.?\s)?[a-zA-Zµμ°º℃℉/²³]+(?:[23](?!\d))?"  # "km²", "g/cm3"
    r"(?:\s(?:per|an|a)\s[a-z]+|\s(?:Celsius|Fahrenheit|C|F)\b)?|[\"″”′])"
)


_UNIT_NAMES = frozenset(_UNIT_WORDS.values())
_HAS_UNIT_WORD = re.compile(
    r"\b(?:" + "|".join(sorted((re.escape(w) for w in _UNIT_WORDS if len(w) >= 3), key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def _registry() -> Any:
    import pint

    return pint.UnitRegistry()


@lru_cache(maxsize=512)
def parse_unit(word: str) -> Any:
    """The pint unit a unit word in a text names, or None ("miles" -> mile, "km/h" -> kilometer / hour)."""
    cleaned = word.strip().lower().rstrip(".")
    name = _UNIT_WORDS.get(cleaned) or _UNIT_WORDS.get(cleaned.replace(" ", ""))
    if name is None and word.strip() in _UNIT_NAMES:
        name = word.strip()  # already a unit's name ("centimeter", from a field hint)
    if name is None:
        return None
    try:
        return _registry().parse_units(name)
    except Exception:  # pint raises several kinds for names it does not know
        return None


@lru_cache(maxsize=64)
def quantity_mentions(text: str) -> tuple[tuple[int, int, Decimal, str], ...]:
    """(start, end, magnitude, unit name) of the quantities written with a unit ("500 miles", "1.2 m")."""
    found = []
    for match in _QUANTITY.finditer(text):
        unit_text = match.group("unit")
        unit = None
        words = unit_text.split()
        for size in range(len(words), 0, -1):  # the longest unit phrase pint reads
            unit = parse_unit(" ".join(words[:size]))
            if unit is not None:
                unit_text = " ".join(words[:size])
                break
        if unit is None:
            continue
        written = re.sub(r"[ \u00a0\u2009\u202f]", "", match.group("number"))
        number = _number_token(written.replace(",", "") if "," in written[-4:-3] else written.replace(",", "."))
        if number is None:
            continue
        end = match.start("unit") + len(unit_text)
        found.append((match.start(), end, number, str(unit)))
    found += _digitised_quantities(text)
    found += _worded_quantities(text)
    found += compound_durations(text)
    return tuple(found)


_DURATION_UNITS = {"h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600, "min": 60, "mins": 60,
                   "minute": 60, "minutes": 60, "sec": 1, "secs": 1, "second": 1, "seconds": 1}  # fmt: skip
_DURATION_PART = (
    rf"(?:\d+(?:[.,]\d+)?|an?|(?:(?:{_SPELLED_WORDS})[\s-]+)*(?:{_SPELLED_WORDS}))\s*"
    r"(?:hours?|hrs?|h|minutes?|mins?|min|seconds?|secs?|sec)\b(?:\s+and\s+an?\s+half\b)?"
)
_COMPOUND_DURATION = re.compile(rf"\b{_DURATION_PART}(?:\s*(?:,|and)?\s*{_DURATION_PART})+", re.IGNORECASE)
_HOURS_MINUTES = re.compile(r"(?<![\w.:])(\d{1,2})\s?h\s?(\d{2})\b(?!\s*(?:min|m\b))", re.IGNORECASE)
_TIME_UNIT = re.compile(r"\d\s?h\b|\b(?:hours?|hrs?|minutes?|mins?|seconds?|secs?)\b", re.IGNORECASE)
_ONE_PART = re.compile(
    rf"(?P<number>\d+(?:[.,]\d+)?|an?|(?:(?:{_SPELLED_WORDS})[\s-]+)*(?:{_SPELLED_WORDS}))\s*"
    r"(?P<unit>hours?|hrs?|h|minutes?|mins?|min|seconds?|secs?|sec)\b(?P<half>\s+and\s+an?\s+half\b)?",
    re.IGNORECASE,
)


def compound_durations(text: str) -> list[tuple[int, int, Decimal, str]]:
    """Durations written in several units ("1 hr 10 min", "two hours and fifteen minutes", "1h10", "an hour and a
    half"), as one total in seconds: a field in minutes reads 70 from "1 hr 10 min"."""
    found: list[tuple[int, int, Decimal, str]] = []
    if not _TIME_UNIT.search(text):
        return found
    for match in _COMPOUND_DURATION.finditer(text):
        total = Decimal(0)
        for part in _ONE_PART.finditer(match.group()):
            words = part.group("number").lower()
            number = _number_token(words.replace(",", ".")) or spelled_number(words)
            if words in ("a", "an"):
                number = Decimal(1)
            if number is None:
                break
            seconds = _DURATION_UNITS[part.group("unit").lower()]
            total += number * seconds + (Decimal(seconds) / 2 if part.group("half") else 0)
        else:
            found.append((match.start(), match.end(), total, "second"))
    for match in _HOURS_MINUTES.finditer(text):
        total = Decimal(int(match.group(1)) * 3600 + int(match.group(2)) * 60)
        found.append((match.start(), match.end(), total, "second"))
    for part in _ONE_PART.finditer(text) if "half" in text.lower() else ():  # "an hour and a half"
        if part.group("half") and part.group("number").lower() in ("a", "an", "one", "1"):
            seconds = _DURATION_UNITS[part.group("unit").lower()]
            found.append((part.start(), part.end(), Decimal(seconds) * 3 / 2, "second"))
    return found


_WORDED_QUANTITY = re.compile(
    rf"\b(?P<number>an?|(?:(?:{_SPELLED_WORDS})[\s-]+(?:and[\s-]+)?)*(?:{_SPELLED_WORDS}))\s+(?P<unit>[a-z]{{3,}})\b",
    re.IGNORECASE,
)


def _worded_quantities(text: str) -> list[tuple[int, int, Decimal, str]]:
    """Small quantities in words, where text2num writes no digits: "about a centimetre", "TWO CENTIMETRES"."""
    found = []
    if not _HAS_UNIT_WORD.search(text):
        return found
    for match in _WORDED_QUANTITY.finditer(text):
        unit = parse_unit(match.group("unit"))
        if unit is None:
            continue
        words = match.group("number").lower()
        number = Decimal(1) if words in ("a", "an") else spelled_number(words)
        if number is not None:
            found.append((match.start(), match.end(), number, str(unit)))
    return found


_CARRY_CHARS = 400  # how far back a bare number borrows the unit of the last quantity said
_CARRY_LINES = 8
_CARRY_SECONDS = 60  # in a transcript: within a minute of talk


def carried_quantities(text: str, stamped: str | None = None) -> list[tuple[int, int, Decimal, str]]:
    """Numbers said without a unit right after a quantity with one, read in that unit: "ABOUT TWO CENTIMETRES"
    ... "WE'LL SAY TWO POINT FIVE" is 2.5 centimetres. Only the last unit said, a few lines back, or in a
    meeting (`stamped`: the transcript with its timestamps, same offsets as `text`) within a minute."""
    stamped = stamped if stamped is not None and len(stamped) == len(text) else text
    quantities = sorted(quantity_mentions(text))
    if not quantities:
        return []
    found = []
    for start, end, value, _ in number_mentions(text) + tuple(_plain_numbers(text)):
        if any(q_start <= start < q_end or start <= q_start < end for q_start, q_end, _, _ in quantities):
            continue  # the number of a quantity, or a line that holds one
        if value in _stamp_numbers(stamped, start):
            continue  # a number of a line's timestamp, read with the line's words
        unit = _unit_before(text, stamped, quantities, start)
        if unit is not None:
            found.append((start, end, value, unit))
    return found


def carried_unit(text: str, offset: int, stamped: str | None = None) -> str | None:
    """The unit a bare number at `offset` is said in: that of the last quantity said just before (see
    `carried_quantities`), or None."""
    stamped = stamped if stamped is not None and len(stamped) == len(text) else text
    quantities = sorted(quantity_mentions(text))
    if any(q_start <= offset < q_end for q_start, q_end, _, _ in quantities):
        return None  # a number with its own unit
    return _unit_before(text, stamped, quantities, offset)


def _unit_before(text: str, stamped: str, quantities: list[tuple[int, int, Decimal, str]], start: int) -> str | None:
    before = [q for q in quantities if q[1] <= start]
    if not before:
        return None
    q_start, q_end, _, unit = before[-1]
    said, then = _stamp_seconds(stamped, q_start), _stamp_seconds(stamped, start)
    if said is not None and then is not None:
        near = 0 <= then - said <= _CARRY_SECONDS  # a meeting: the same exchange
    else:
        near = start - q_end <= _CARRY_CHARS and text.count("\n", q_end, start) <= _CARRY_LINES
    return unit if near else None


_STAMP = re.compile(r"\[(\d+):(\d+)(?::(\d+))?\]")


def _stamp_numbers(text: str, offset: int) -> set[Decimal]:
    line_start = text.rfind("\n", 0, offset + 1) + 1
    stamp = _STAMP.match(text, line_start)
    return {Decimal(int(g)) for g in stamp.groups() if g is not None} if stamp else set()


def _stamp_seconds(text: str, offset: int) -> int | None:
    line_start = text.rfind("\n", 0, offset + 1) + 1
    stamp = _STAMP.match(text, line_start)
    if stamp is None:
        return None
    parts = [int(g) for g in stamp.groups() if g is not None]
    return parts[0] * 60 + parts[1] if len(parts) == 2 else parts[0] * 3600 + parts[1] * 60 + parts[2]


def _plain_numbers(text: str) -> list[tuple[int, int, Decimal, str]]:
    found = []
    for match in _PLAIN_NUMBER.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if text.startswith("[", line_start) and match.start() < text.find("]", line_start):
            continue  # a transcript's timestamp
        value = _number_token(match.group().replace(",", ""))
        if value is not None:
            found.append((match.start(), match.end(), value, "digits"))
    return found


def _digitised_quantities(text: str) -> list[tuple[int, int, Decimal, str]]:
    """Quantities spelled out ("FIFTEEN MINUTES", "TEN CENTS"), placed on their whole line."""
    found = []
    for start, end, digits in _spelled_lines(text):
        for match in _QUANTITY.finditer(digits):
            words = match.group("unit").split()
            unit = next((u for size in range(len(words), 0, -1) if (u := parse_unit(" ".join(words[:size])))), None)
            number = _number_token(match.group("number").replace(",", "."))
            if unit is not None and number is not None:
                found.append((start, end, number, str(unit)))
    return found


def convert(magnitude: Decimal, unit_from: str, unit_to: str) -> Decimal | None:
    """`magnitude unit_from` in `unit_to`, or None when the two are no units of one dimension."""
    registry = _registry()
    try:
        source = registry.Quantity(float(magnitude), registry.parse_units(unit_from))
        return Decimal(str(source.to(registry.parse_units(unit_to)).magnitude))
    except Exception:  # DimensionalityError, UndefinedUnitError, ...
        return None


def unit_of_place(text: str, start: int, end: int) -> str | None:
    """The unit written right after a number found at start-end ("1.2 metres" -> meter), if any."""
    for q_start, q_end, _, unit in quantity_mentions(text):
        if q_start <= start < q_end and end <= q_end + 1:
            return unit
    return None


# ---- clock times, decades, dates ------------------------------------------------------------------------

_CLOCK = re.compile(
    r"\b(?P<h>\d{1,2})(?:[:.h](?P<m>\d{2}))?\s*(?P<ampm>[ap]\.?\s?m\b\.?|o'?clock|hrs|hours|h\b)?",
    re.IGNORECASE,
)
_SPOKEN_CLOCK = re.compile(
    r"(?<!half\s)\b(?:(?P<part>half|quarter|ten|five|twenty|twenty[- ]five)\s+(?P<rel>past|to|after)\s+)?"
    rf"(?P<h>{_SPELLED_WORDS}|\d{{1,2}})(?:\s+(?P<m>{_SPELLED_WORDS}(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?))?"
    r"\s*(?P<when>o'?clock|in the morning|in the afternoon|in the evening|at night|a\.?m\.?|p\.?m\.?)",
    re.IGNORECASE,
)
# "half past eight", "a quarter to six", British "half seven" (7:30): a clock time without o'clock or am/pm.
_RELATIVE_CLOCK = re.compile(
    r"\b(?:(?P<part>half|quarter|ten|five|twenty|twenty[- ]five)\s+(?P<rel>past|to|after)|(?P<british>half))\s+"
    rf"(?P<h>{_SPELLED_WORDS}|\d{{1,2}})\b(?!\s*(?:hours?|minutes?|days?|of|per|percent|%))"
    r"(?:\s*(?P<when>in the morning|in the afternoon|in the evening|at night|a\.?m\.?|p\.?m\.?))?",
    re.IGNORECASE,
)
_AT_HOUR = re.compile(
    rf"\b(?:at|by|until|till|from|before|after)\s+(?P<h>{_SPELLED_WORDS}|\d{{1,2}})\b(?![:.]\d)", re.IGNORECASE
)
_VALUE_CLOCK = re.compile(r"^\s*(\d{1,2})(?:[:.h](\d{2}))?\s*([ap]\.?m\.?)?\s*$", re.IGNORECASE)


def clock_value(value: str) -> set[int] | None:
    """Minutes after midnight a value names ("09:30" -> {570}; "9:30" without am/pm -> {570, 1290})."""
    match = _VALUE_CLOCK.match(value)
    if match is None or (match.group(2) is None and match.group(3) is None):
        return None
    return _minutes(int(match.group(1)), int(match.group(2) or 0), (match.group(3) or "").lower(), strict=True)


def _minutes(hour: int, minute: int, marker: str, strict: bool = False) -> set[int] | None:
    if not (0 <= hour <= 24 and 0 <= minute < 60):
        return None
    marker = marker.replace(".", "").replace(" ", "")
    if marker.startswith("p") or marker in ("intheafternoon", "intheevening", "atnight"):
        return {((hour % 12) + 12) * 60 + minute}
    if marker.startswith("a") or marker == "inthemorning":
        return {(hour % 12) * 60 + minute}
    if hour > 12 or hour == 0 or (strict and marker == ""):
        return {hour * 60 + minute} if strict or hour > 12 else {hour * 60 + minute, (hour + 12) % 24 * 60 + minute}
    return {hour * 60 + minute, (hour + 12) % 24 * 60 + minute}


def _hour_of(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    value = spelled_number(word)
    return int(value) if value is not None and value == int(value) else None


@lru_cache(maxsize=64)
def clock_mentions(text: str) -> tuple[tuple[int, int, frozenset[int]], ...]:
    """(start, end, minutes after midnight) of the times of day a text states, however written."""
    found: list[tuple[int, int, frozenset[int]]] = []
    for match in _CLOCK.finditer(text):
        if match.group("m") is None and match.group("ampm") is None:
            continue
        minutes = _minutes(int(match.group("h")), int(match.group("m") or 0), (match.group("ampm") or "").lower())
        if minutes:
            found.append((match.start(), match.end(), frozenset(minutes)))
    for match in _SPOKEN_CLOCK.finditer(text):
        hour = _hour_of(match.group("h").lower())
        if hour is None:
            continue
        minute = 0
        if match.group("m"):
            spoken = spelled_number(match.group("m"))
            minute = int(spoken) if spoken is not None and spoken < 60 else 0
        if match.group("part"):
            part = {"half": 30, "quarter": 15, "ten": 10, "five": 5, "twenty": 20}.get(
                match.group("part").lower().replace("-", " ").split()[0], 25
            )
            if match.group("part").lower().replace("-", " ") == "twenty five":
                part = 25
            if match.group("rel").lower() == "to":
                hour, minute = hour - 1, 60 - part
            else:
                minute = part
        minutes = _minutes(hour, minute, match.group("when").lower().replace("o'clock", "").replace("oclock", ""))
        if minutes:
            found.append((match.start(), match.end(), frozenset(minutes)))
    for match in _RELATIVE_CLOCK.finditer(text):
        if any(start <= match.start() < end for start, end, _ in found):
            continue
        hour = _hour_of(match.group("h").lower())
        if hour is None or not 1 <= hour <= 12:
            continue
        if match.group("british"):
            minute = 30
        else:
            part = match.group("part").lower().replace("-", " ")
            minute = {"half": 30, "quarter": 15, "ten": 10, "five": 5, "twenty": 20, "twenty five": 25}[part]
            if match.group("rel").lower() == "to":
                hour, minute = (hour - 1) or 12, 60 - minute
        minutes = _minutes(hour, minute, (match.group("when") or "").lower())
        if minutes:
            found.append((match.start(), match.end(), frozenset(minutes)))
    spoken = [(start, end) for start, end, _ in found]
    for match in _AT_HOUR.finditer(text):
        if any(start <= match.start("h") < end for start, end in spoken):
            continue  # "until two in the afternoon" is 14:00, read above, not also 2:00
        hour = _hour_of(match.group("h").lower())
        if hour is not None and 1 <= hour <= 12:
            found.append((match.start("h"), match.end("h"), frozenset(_minutes(hour, 0, "") or ())))
    return tuple(found)


_DECADE_VALUE = re.compile(r"^\s*(\d{2})(\d)0'?s\s*$")
_DECADE_WORDS = {
    "twenties": 2, "thirties": 3, "forties": 4, "fifties": 5, "sixties": 6, "seventies": 7, "eighties": 8,
    "nineties": 9,
}  # fmt: skip


def decade_places(value: str, text: str) -> list[Place]:
    """ "1990s" for "the 90s", "'90s", "nineties" or "1990s"."""
    match = _DECADE_VALUE.match(value)
    if match is None:
        return []
    century, decade = match.group(1), int(match.group(2))
    patterns = [rf"\b{century}{decade}0'?s\b", rf"(?<![\d])['’]?{decade}0'?s\b", rf"\b{century}{decade}\d\b"]
    words = [w for w, d in _DECADE_WORDS.items() if d == decade]
    patterns += [rf"\b{w}\b" for w in words]
    places: list[Place] = []
    for pattern in patterns:
        places += [(m.start(), m.end(), "normalised") for m in re.finditer(pattern, text, re.IGNORECASE)]
    return places


# ---- strings: diacritics, abbreviations, currency codes ---------------------------------------------------


def ascii_fold(text: str) -> str:
    """Lower case without diacritics or punctuation ("Réunion" -> "reunion"), by unidecode."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", unidecode(text).lower()).split())


@lru_cache(maxsize=64)
def _ascii_context(text: str) -> str:
    return f" {ascii_fold(text)} "


def _initials(phrase: str) -> str:
    words = [w for w in re.split(r"[\s-]+", phrase) if w]
    significant = [w for w in words if w[:1].isupper() or w[:1].isdigit()]
    return "".join(w[0] for w in significant).upper() if len(significant) >= 2 else ""


_CAPITALISED_RUN = re.compile(r"(?:[A-Z][\w'’&.-]*)(?:\s+(?:of|the|and|for|de|&)?\s*[A-Z][\w'’&.-]*)+")
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9&]{1,9}\b")


_CURRENCY_WORDS = {
    "euro": "EUR", "euros": "EUR", "pound": "GBP", "pounds": "GBP", "quid": "GBP", "pence": "GBP", "dollar": "USD",
    "dollars": "USD", "bucks": "USD", "yen": "JPY",
}  # fmt: skip


@lru_cache(maxsize=1)
def _currency_names() -> dict[str, str]:
    """Lower-cased currency names, plurals and symbols -> ISO code, from babel's English locale data."""
    from babel import Locale

    locale = Locale.parse("en")
    names: dict[str, str] = {}
    for code in ("EUR", "GBP", "USD", "JPY", "CHF", "CAD", "AUD", "SEK", "NOK", "DKK", "INR", "CNY", "RUB", "MXN"):
        for count in (1, 2):
            from babel.numbers import get_currency_name, get_currency_symbol

            names[get_currency_name(code, count=count, locale=locale).lower()] = code
            symbol = get_currency_symbol(code, locale=locale)
            if not symbol.isalpha():
                names[symbol] = code
    for word, code in _CURRENCY_WORDS.items():
        names.setdefault(word, code)
    return names


def _currency_in(words: set[str]) -> str | None:
    names = _currency_names()
    for word in words:
        if word.upper() in set(names.values()):
            return word.upper()
        if word in names:
            return names[word]
    return None


@lru_cache(maxsize=64)
def _ascii_index(text: str) -> tuple[str, tuple[int, ...]]:
    """The text lower-cased without diacritics (unidecode, character by character) and, for each of its
    characters, the offset of the character of `text` it comes from."""
    pieces: list[str] = []
    origin: list[int] = []
    for position, char in enumerate(text):
        folded = char if char.isascii() else unidecode(char)
        pieces.append(folded.lower())
        origin.extend([position] * len(folded))
    return "".join(pieces), tuple(origin)


def ascii_places(value: str, text: str) -> list[Place]:
    """A name written without its diacritics ("Reunion" for "Réunion"), or with them where the text has none."""
    if not value.isascii() or text.isascii():
        # Only diacritics the text has and the value dropped: an accent the text lacks ("Sólvang" for "Solvang")
        # is no reading of it.
        return []
    needle = value.lower().strip()
    if not needle:
        return []
    folded, origin = _ascii_index(text)
    places = []
    for match in re.finditer(rf"(?<![a-z0-9]){re.escape(needle)}(?![a-z0-9])", folded):
        places.append((origin[match.start()], origin[match.end() - 1] + 1, "diacritics"))
    return places[:16]


def date_places(value: str, text: str) -> list[Place]:
    """An ISO date for a date written another way: "June 12th, 2025", "14.03.2025", "the twelfth of June" with
    2025 said elsewhere, a day of a range ("February 23-26, 2015" holds 2015-02-26)."""
    return iso_date_places(value, text)


_NAME_PART = re.compile(r"[A-Z][\w'’-]*\.?")


def _reordered_name(value: str, text: str) -> list[Place]:
    """A name in the other order: "B. Weigelt" for "Weigelt, B.", "Weigelt, B." for "B. Weigelt"."""
    if "," in value:
        last, _, first = value.partition(",")
        other = f"{first.strip()} {last.strip()}"
    else:
        parts = value.split()
        if len(parts) < 2 or not all(_NAME_PART.fullmatch(p) for p in parts):
            return []
        other = f"{parts[-1]}, {' '.join(parts[:-1])}"
    if len(other.split()) < 2:
        return []
    pattern = r"\s*".join(re.escape(piece) for piece in other.split())
    return [(m.start(), m.end(), "name order") for m in re.finditer(pattern, text)][:8]


@lru_cache(maxsize=1)
def _demonyms() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Country names (and their other spellings: "USA", "Republic of Ireland") -> the adjectives of their people
    ("American"), and each adjective -> the names of its countries, lower-cased, from countryinfo's data."""
    from countryinfo import all_countries

    by_name: dict[str, tuple[str, ...]] = {}
    by_adjective: dict[str, list[str]] = {}
    for country in all_countries():
        try:
            name, adjective, others = country.name(), country.demonym(), country.alt_spellings() or []
        except Exception:  # a territory without the data: no reading
            continue
        if not name or not adjective:
            continue
        adjectives = tuple(a.strip() for a in re.split(r"[,/]", adjective) if a.strip())
        names = [name, *(o for o in others if len(o) > 3 and not o.isupper())]  # not "US", "GBR": codes
        for spelled in names:
            by_name[spelled.lower()] = by_name.get(spelled.lower(), ()) + adjectives
        for word in adjectives:
            by_adjective.setdefault(word.lower(), []).extend(names)
    # The nations of the United Kingdom, which countryinfo lists as one country ("English" for England).
    for name, adjective in (("England", "English"), ("Scotland", "Scottish"), ("Wales", "Welsh"),
                            ("Northern Ireland", "Northern Irish")):  # fmt: skip
        by_name[name.lower()] = (adjective,)
        by_adjective.setdefault(adjective.lower(), []).append(name)
    return by_name, {word: tuple(names) for word, names in by_adjective.items()}


@lru_cache(maxsize=1)
def _subdivision_names() -> dict[str, tuple[str, ...]]:
    """The short code of each state, province or region (the part after the country: "OH" of US-OH) -> its
    names, from pycountry's ISO 3166-2 data."""
    import pycountry

    names: dict[str, list[str]] = {}
    for subdivision in pycountry.subdivisions:
        short = subdivision.code.split("-", 1)[1]
        names.setdefault(short, []).append(subdivision.name)
    return {short: tuple(found) for short, found in names.items()}


def subdivision_places(value: str, text: str) -> list[Place]:
    """A state's or province's code given for the name the text writes ("OH" for "Ohio", "NSW" for "New South
    Wales")."""
    names = _subdivision_names().get(value.strip().upper()) if value.strip().isupper() else None
    if not names:
        return []
    pattern = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return [(m.start(), m.end(), "abbreviation") for m in re.finditer(rf"(?<!\w)(?:{pattern})(?!\w)", text, re.I)][:16]


def demonym_places(value: str, text: str) -> list[Place]:
    """A country given for the adjective the text uses ("Norway" for "Norwegian-born", "United States" for
    "an American rock band"), or an adjective given for the country the text names."""
    by_name, by_adjective = _demonyms()
    wanted = value.strip().lower()
    words = by_name.get(wanted) or by_adjective.get(wanted)
    if not words:
        return []
    pattern = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return [(m.start(), m.end(), "demonym") for m in re.finditer(rf"(?<![\w-])(?:{pattern})(?!\w)", text, re.I)][:16]


# Characters OCR reads for one another: a code or model name "GPT-4o" printed as "GPT-40".
_OCR_CONFUSED = {"0": "0Oo", "o": "0Oo", "O": "0Oo", "1": "1lI|", "l": "1lI|", "I": "1lI|", "5": "5S", "S": "5S",
                 "8": "8B", "B": "8B"}  # fmt: skip


def ocr_slip_places(value: str, text: str) -> list[Place]:
    """Where a code mixing letters and digits is printed with one character OCR confuses ("GPT-40" for the curator's
    corrected "GPT-4o"): at most one such slip, and never in a value of digits alone (a number's digits are its
    meaning)."""
    if not (4 <= len(value) <= 40 and re.search(r"\d", value) and re.search(r"[A-Za-z]", value)):
        return []
    pattern = "".join(f"[{re.escape(_OCR_CONFUSED[c])}]" if c in _OCR_CONFUSED else re.escape(c) for c in value)
    places = []
    for match in re.finditer(rf"(?<![\w-]){pattern}(?![\w-])", text):
        slips = sum(a != b for a, b in zip(match.group(), value, strict=True))
        if slips == 1:
            places.append((match.start(), match.end(), "OCR slip"))
    return places


def string_places(value: str, text: str) -> list[Place]:
    """Where a string is written another way: without diacritics, as an abbreviation or its expansion, as a
    currency word for an ISO code, as a decade or a clock time."""
    stripped = value.strip()
    if not stripped:
        return []
    places = decade_places(stripped, text)
    if places:
        return places
    minutes = clock_value(stripped)
    if minutes is not None:
        return [(s, e, "normalised") for s, e, said in clock_mentions(text) if said & minutes]
    places = ascii_places(stripped, text)
    if places:
        return places
    places = _reordered_name(stripped, text)
    if places:
        return places
    places = date_places(stripped, text)
    if places:
        return places
    if stripped[:1].isupper() and len(stripped) <= 60:
        places = demonym_places(stripped, text)
        if places:
            return places
    places = ocr_slip_places(stripped, text)
    if places:
        return places
    initials = _initials(stripped)
    if initials and len(initials) >= 2:
        places += [(m.start(), m.end(), "abbreviation") for m in re.finditer(rf"\b{re.escape(initials)}\b", text)]
    if _ACRONYM.fullmatch(stripped):
        if len(stripped) <= 3:
            places += subdivision_places(stripped, text)
        for match in _CAPITALISED_RUN.finditer(text):
            if _initials(match.group()) == stripped.upper():
                places.append((match.start(), match.end(), "expansion"))
        for name in currency_names_of(stripped.upper()):
            pattern = rf"\b{re.escape(name)}\b" if name[:1].isalpha() and name[-1:].isalpha() else re.escape(name)
            places += [(m.start(), m.end(), "currency") for m in re.finditer(pattern, text, re.IGNORECASE)]
    return places


@lru_cache(maxsize=256)
def currency_names_of(code: str) -> tuple[str, ...]:
    """The ways a text names the currency of an ISO code: babel's English names, singular and plural ("Mauritian
    rupee", "Mauritian rupees"), its symbol where it is no word, and the common words for it ("quid")."""
    from babel.numbers import get_currency_name, get_currency_symbol, list_currencies

    if code not in list_currencies():
        return ()
    names = {get_currency_name(code, count=count, locale="en").lower() for count in (1, 2)}
    symbol = get_currency_symbol(code, locale="en")
    if not symbol.isalpha() and symbol != code:
        names.add(symbol)
    names |= {word for word, iso in _CURRENCY_WORDS.items() if iso == code}
    names |= {name for name, iso in _currency_names().items() if iso == code}
    return tuple(sorted(names))


# ---- the entry points ------------------------------------------------------------------------------------


_PER_HUNDRED = re.compile(
    r"\s*(?:parts?\s+)?(?:per\b|percent|%|in\s+(?:a\s+|one\s+)?hundred|in\s+100|of\s+100|out\s+of)", re.I
)
_FRACTION_WORDS = {"fraction", "share", "proportion", "ratio", "rate", "part", "parts", "portion"}
_MINOR_MONEY = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:cents?|pence|p)\b", re.IGNORECASE)


# What follows a number written below zero: "86 metres below sea level", "12 °C below freezing".
BELOW_ZERO = re.compile(
    r"\s*(?:[a-zA-Z°%.′\"]{1,12}\s*){0,2}\(?\s*(?:[\d,.]+\s*[a-z]{1,6}\s*\)?\s*)?(?:below|under)\s+"
    r"(?:sea[\s-]level|zero|freezing|mean sea level)",
    re.IGNORECASE,
)


def number_places(value: Decimal, text: str, hint: FieldHint | None = None, stamped: str | None = None) -> list[Place]:
    """Where a number is written another way than its digits, including converted from another unit when its
    field names one, and a negative one as its size "below sea level"."""
    rounding = precision_of(value)
    places: list[Place] = [(s, e, how) for s, e, said, how in number_mentions(text) if close(said, value)]
    if value < 0:
        places += [(m.start(), m.end(), "below zero") for m in _PLAIN_NUMBER.finditer(text)
                   if (n := _number_token(m.group())) is not None and close(n, -value)
                   and BELOW_ZERO.match(text, m.end())]  # fmt: skip
    places += _rounded_places(value, text)
    if hint is not None and hint.words & {"percent", "percentage", "pct"} and value > 1:
        places += [(s, e, how) for s, e, said, how in number_mentions(text) if close(said * 100, value)]
    if hint is not None and hint.words & _FRACTION_WORDS and 0 < value < 1:
        hundred = value * 100  # "40 parts in 100", "about sixty [per cent]" for a share
        places += [
            (s, e, "per hundred") for s, e, said, how in number_mentions(text)
            if how == "spelled out" and close(said, hundred)
        ]  # fmt: skip
        places += [(m.start(), m.end(), "per hundred") for m in _PLAIN_NUMBER.finditer(text)
                   if (n := _number_token(m.group())) is not None and n == hundred
                   and _PER_HUNDRED.match(text, m.end())]  # fmt: skip
    if hint is not None and hint.currency is not None:
        from text_to_num import alpha2digit

        for match in _MINOR_MONEY.finditer(alpha2digit(text.lower(), "en") if len(text) < 400 else text):
            if close(Decimal(match.group(1)) / 100, value):
                places.append((0, min(len(text), match.end()), "minor currency unit"))
    for start, end, magnitude, written in header_unit_numbers(text) if hint is not None else ():
        if written == "%" and hint.words & _FRACTION_WORDS and close(magnitude / 100, value):
            places.append((start, end, "per hundred, the header's unit"))
        elif hint.unit and (unit := parse_unit(written)) is not None and str(unit) != hint.unit:
            converted = convert(magnitude, str(unit), hint.unit)
            if converted is not None and close(converted, value, rounding=rounding):
                places.append((start, end, "converted from the header's unit"))
    if hint is not None and hint.unit:
        for start, end, magnitude, unit in quantity_mentions(text):
            if unit == hint.unit:  # "a centimetre" for 1 in a field in cm: a number only its unit's words say
                if close(magnitude, value):
                    places.append((start, end, "with its unit"))
                continue
            converted = convert(magnitude, unit, hint.unit)
            if converted is not None and close(converted, value, rounding=rounding):
                places.append((start, end, "converted"))
        if not places:
            for start, end, magnitude, unit in carried_quantities(text, stamped):
                converted = convert(magnitude, unit, hint.unit)
                if converted is not None and unit != hint.unit and close(converted, value, rounding=rounding):
                    places.append((start, end, "converted"))
    return places


def quote_supports(value: Any, quote: str, hint: FieldHint | None = None) -> bool:
    """Is `value` a reading of `quote` by any of the rules above?"""
    if isinstance(value, bool) or value is None:
        return False
    number = to_decimal(value)
    if number is not None and not isinstance(value, str):
        return bool(number_places(number, quote, hint))
    if isinstance(value, str):
        if number is not None and number_places(number, quote, hint):
            return True
        return bool(string_places(value, quote))
    return False


def conversion_supports(value: Any, quote: str, unit_from: str | None, unit_to: str | None) -> bool | None:
    """For `convert` evidence: does a number of the quote, in its unit or `unit_from`, equal the value in `unit_to`?
    None when the quote holds no number or the units cannot be read. False only when the quote holds one number and its
    conversion is another value: a quote with several ("forty miles ... the Old Mill is twenty five") may hold the
    right one in a form the toolkit does not read, so a mismatch there is a doubt, not a proof."""
    number = to_decimal(value)
    if number is None or unit_to is None:
        return None
    target = str(parse_unit(unit_to) or unit_to)
    origin = str(parse_unit(unit_from) or unit_from) if unit_from else None
    quantities = quantity_mentions(quote)
    candidates: list[tuple[Decimal, str]] = [(m, u) for _, _, m, u in quantities]
    if origin is not None:  # the curator names the unit: every other number of the quote may be in it
        rest = quote
        for start, end, _, _ in quantities:  # "3 200 metres" is one number, not 3 and 200
            if quote[start : start + 1].isdigit() and end - start < 40:  # (a spelled quantity stands for its line)
                rest = rest[:start] + " " * (end - start) + rest[end:]
        bare = [n for n in (_number_token(t) for t in _PLAIN_NUMBER.findall(rest)) if n is not None]
        candidates += [(n, origin) for n in bare + [said for _, _, said, _ in number_mentions(rest)]]
    elif not candidates:
        return None
    converted = [convert(magnitude, unit, target) for magnitude, unit in candidates]
    if origin is not None:
        converted += [convert(magnitude, origin, target) for magnitude, _ in candidates]
    readable = [c for c in converted if c is not None]
    if any(close(c, number, rounding=precision_of(number)) for c in readable):
        return True
    if not readable:
        return None
    return False if len({magnitude for magnitude, _ in candidates}) == 1 else None
