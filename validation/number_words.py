"""Numbers written as words: cardinals read by text2num ("three hundred and five"), ordinals written by num2words
("twenty-first"). Shared by the readings of numbers and of dates."""

from __future__ import annotations

import re
from decimal import Decimal


def spelled_number(words: str) -> Decimal | None:
    """A number spelled out in words ("twelve", "three hundred and five"), read by text2num."""
    from text_to_num import text2num

    cleaned = " ".join(re.split(r"[\s-]+", words.strip().lower().replace(" and ", " ")))
    if not cleaned:
        return None
    try:
        return Decimal(text2num(cleaned, "en"))
    except (ValueError, IndexError):
        return None


def ordinal_words(last: int = 100) -> dict[str, int]:
    """ "first" .. `last`, written by num2words (as "twenty-first"; "twenty first" is read too)."""
    from num2words import num2words

    words = {}
    for number in range(1, last + 1):
        word = num2words(number, to="ordinal")
        words[word] = number
        words[word.replace("-", " ")] = number
    return words
