"""Other ways a correct value is written in a text: the readings the toolkit recognises before it doubts a value.

A curator writes 804.7 in a `distance_km` field for "500 miles", 5.2 for "5,2 billion", "09:30" for "9:30 AM" or
"half past nine", 12.5 for "twelve euros fifty", 0.5 for "half", 1 for "monotypic", "1990s" for "the 90s",
"Reunion" for "Réunion", "Football Bowl Subdivision" for "FBS" and "EUR" for "euros". Each reading is found
with a maintained library where one exists: `pint` converts units, `text2num` reads spelled-out numbers inside
phrases, `babel` knows currency names, symbols and codes, `unidecode` drops diacritics. These readings are
tried only after the verbatim search failed, so the common case pays nothing for them.

`FieldHint` is what a field says about its value (its key, description and schema type): the unit a number is
in, whether it is money, a count, a time of day.

The readings are a layer the rules use, one module per kind: `numbers`, `money`, `units` (and durations),
`clock`, `dates`, `codes` (names, codes, demonyms), `fields` (what a field says), and `places` (the search over
them all)."""

from validation.readings.places import BELOW_ZERO, conversion_supports, number_places, quote_supports, string_places

__all__ = ["BELOW_ZERO", "conversion_supports", "number_places", "quote_supports", "string_places"]
