"""JSON read and canonical JSON written by compiled libraries, with exactly the standard library's answer.

The stages read each stored record's JSON and hash canonical JSON many times per record. pydantic_core's
parser reads a record about 2.4 times faster than `json.loads`, and orjson writes canonical JSON several
times faster than `json.dumps`. Neither may change an answer: content hashes key the LLM cache and the
revisions, so one changed spelling would spend a store's API calls again. So each is used only where it gives
what `json` gives, and `json` answers everything else (tests/test_fast_json.py compares them on random
values, every code point and floats of every magnitude).
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from pydantic_core import from_json

# Sorted keys; a datetime, a dataclass or a subclass of str, int, dict or list is left to `json` (orjson would
# write what `json` refuses, or write a subclass its own way).
_ORJSON_OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)
# Where orjson's text can differ from `json`'s: a float in exponent form ("1e-8" against "1e-08") or below
# 1e-4 ("0.00001" against "1e-05"), and NaN or infinity (orjson writes null). A string that merely contains
# one of these ("e-mail") costs only the second, exact spelling.
_MAY_DIFFER = (b"e+", b"e-", b"0.0000", b"null")


def loads(text: str | bytes) -> Any:
    """`json.loads(text)`. pydantic_core reads what `json` reads, the same way (big integers, NaN, the last
    of two equal keys); what it refuses (a lone surrogate escape, a UTF-8 byte-order mark, more than 200
    levels, text that is not JSON) goes to `json`, which gives its own value or its own error."""
    try:
        return from_json(text)
    except ValueError:
        return json.loads(text)


def canonical_dumps(value: Any) -> str:
    """`json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))`: one spelling per
    JSON value."""
    try:
        text = orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError: an integer beyond 64 bits, a key not a string, a deep value
        return _json_canonical(value)
    if any(marker in text for marker in _MAY_DIFFER):
        return _json_canonical(value)
    return text.decode()


def _json_canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
