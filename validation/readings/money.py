"""Money: currency names, words and symbols as ISO codes, amounts said with their currency."""

from __future__ import annotations

import re
from functools import lru_cache

_MONEY_UNITS = r"euros?|pounds?|dollars?|quid|bucks|francs?|marks?|yen|rupees?|pesos?|krona|kronor|kroner"


_MONEY_WORDS_RE = re.compile(
    rf"\b(?P<main>[\w-]+(?:[\s-]+[\w-]+){{0,3}}?)\s+(?P<unit>{_MONEY_UNITS})(?:\s+(?:and\s+)?(?P<minor>[\w-]+(?:[\s-]+[\w-]+)?))?",
    re.IGNORECASE,
)


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


_MINOR_MONEY = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:cents?|pence|p)\b", re.IGNORECASE)
