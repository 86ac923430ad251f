"""Names and codes: diacritics dropped, initials, names in the other order, acronyms, demonyms, state and province
codes, a code printed with a character OCR confuses."""

from __future__ import annotations

import re
from functools import lru_cache

from unidecode import unidecode

from validation.readings.numbers import Place


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
