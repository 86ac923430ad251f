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

# Values walked at most: a larger value, or one that holds itself, is left to `json` (which says it is circular).
_WALK_LIMIT = 1_000_000


def loads(text: str | bytes) -> Any:
    """`json.loads(text)`. pydantic_core reads what `json` reads, the same way (big integers, NaN, the last
    of two equal keys); what it refuses (a lone surrogate escape, a UTF-8 byte-order mark, more than 200
    levels, text that is not JSON) goes to `json`, which gives its own value or its own error."""
    try:
        return from_json(text)
    except ValueError:
        return json.loads(text)


def canonical_json(value: Any) -> str:
    """One spelling per JSON value, so hashes and caches do not depend on key order: `json.dumps(value,
    sort_keys=True, ensure_ascii=False, separators=(",", ":"))`, written by orjson where its text is the same."""
    if not _plain(value):
        return _json_canonical(value)
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # orjson.JSONEncodeError: an integer beyond 64 bits, a key not exactly a str, a deep value
        return _json_canonical(value)


def _plain(value: Any) -> bool:
    """Whether `value` holds only dicts, lists, tuples, strings, integers, booleans and None: values orjson
    spells as `json` does. A float is not: orjson writes "1e-8", "0.00001" and NaN where `json` writes
    "1e-08", "1e-05" and NaN (tests/test_fast_json.py). Walking the values costs less than a tenth of
    `json.dumps` on a record with its context; searching the text for a float's spelling cost more."""
    stack = [value]
    for _ in range(_WALK_LIMIT):
        if not stack:
            return True
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is dict:
            stack.extend(item.values())
        elif kind is list or kind is tuple:
            stack.extend(item)
        else:
            return False
    return False


def _json_canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
