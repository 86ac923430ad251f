"""core/fast_json.py gives exactly what `json` gives: the same values read, the same canonical text written
(content hashes and LLM cache keys depend on that text), the same error for what is not JSON."""

from __future__ import annotations

import enum
import json
import math
import random
import struct
import sys
from typing import Any

import pytest

from core import models
from core.fast_json import canonical_json, loads


def _json_canonical(value: Any) -> str:
    """The oracle: the standard library's canonical spelling, written here again on purpose."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _same(a: Any, b: Any) -> bool:
    """Equal as values and as types (1 is not 1.0; NaN equals NaN here)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True) and repr(a) == repr(b)


def _random_float(rng: random.Random) -> float:
    kind = rng.randrange(4)
    if kind == 0:  # any bit pattern: subnormals, huge, NaN and infinities
        return struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
    if kind == 1:
        return rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30)
    if kind == 2:
        return float(rng.randint(-(10**17), 10**17))
    return rng.randint(1, 99_999) / 10 ** rng.randint(0, 9)


def _random_string(rng: random.Random) -> str:
    """Control characters, quotes, backslashes, words that look like float spellings, and any code point."""
    pieces = ["\x00", "\x1f", "\x7f", '"', "\\", "/", "\u2028", "é", "e-mail", "1e+5", "0.00001", "null", " "]
    out = []
    for _ in range(rng.randint(0, 8)):
        if rng.random() < 0.5:
            out.append(rng.choice(pieces))
        else:
            point = rng.randint(0, sys.maxunicode)
            out.append(chr(point) if not 0xD800 <= point <= 0xDFFF else "x")
    return "".join(out)


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 4 else 7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.randint(-(2**70), 2**70) if rng.random() < 0.2 else rng.randint(-1000, 10**12)
    if kind == 3:
        return _random_float(rng)
    if kind in (4, 5, 6):
        return _random_string(rng)
    if kind == 7:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return {_random_string(rng): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def test_canonical_text_is_the_standard_librarys_on_random_values() -> None:
    rng = random.Random(20261128)
    for _ in range(20_000):
        value = _random_value(rng)
        assert canonical_json(value) == _json_canonical(value), value


def test_every_float_is_spelled_as_json_spells_it() -> None:
    """orjson spells "1e-8" and "0.00001" where `json` spells "1e-08" and "1e-05", and NaN as null: a value
    with a float must go to `json`."""
    rng = random.Random(7)
    for _ in range(200_000):
        number = _random_float(rng)
        assert canonical_json(number) == _json_canonical(number), repr(number)
        assert canonical_json({"v": [number]}) == _json_canonical({"v": [number]}), repr(number)
    for number in (1e-05, 1e-08, 1e16, 1e22, 5e-324, -0.0, math.nan, math.inf, -math.inf, 1e15, 0.0001):
        assert canonical_json(number) == _json_canonical(number)


def test_every_code_point_and_key_order_as_json_writes_them() -> None:
    points = [chr(c) for c in range(0x30000) if not 0xD800 <= c <= 0xDFFF] + [chr(c) for c in range(0xE0000, 0x110000)]
    text = "".join(points)
    assert canonical_json(text) == _json_canonical(text)
    rng = random.Random(3)
    keyed = {rng.choice(points) + rng.choice(points): n for n in range(5000)}
    assert canonical_json(keyed) == _json_canonical(keyed)


def test_values_orjson_refuses_are_written_by_json() -> None:
    class Name(str):
        """A str subclass, as a StrEnum is: orjson refuses it as a key."""

    deep: list[Any] = []
    for _ in range(300):
        deep = [deep]

    class Colour(enum.Enum):
        RED = 1

    for value in (2**70, -(2**64), {1: "a", 2: "b"}, Name("x"), {"k": Name("y")}, {Name("z"): 1}, deep):
        assert canonical_json(value) == _json_canonical(value)
    for value in ({"a": float("nan")}, [1.5e-07], {"n": None, "x": 1e16}):
        assert canonical_json(value) == _json_canonical(value)
    with pytest.raises(TypeError):  # orjson would write an enum's value; json refuses it, and so does this
        canonical_json({"c": Colour.RED})
        assert canonical_json(value) == _json_canonical(value)


def test_what_json_cannot_write_still_fails() -> None:
    circular: list[Any] = []
    circular.append(circular)
    with pytest.raises(ValueError, match="Circular"):
        canonical_json({"a": circular})
    with pytest.raises(TypeError):
        canonical_json({"a": object()})
    with pytest.raises(TypeError):
        canonical_json({"a": {1, 2}})


def test_record_ids_and_hashes_are_unchanged() -> None:
    """Record ids, content hashes and cache keys are made with this writer, and keep their spelling."""
    assert models.canonical_json is canonical_json
    value = {"b": [1, 2.5, None, "é"], "a": {"z": 1e-07, "y": True}}
    assert canonical_json(value) == _json_canonical(value) == '{"a":{"y":true,"z":1e-07},"b":[1,2.5,null,"é"]}'
    plain = {"b": [1, None, "é"], "a": {"y": True}}
    assert canonical_json(plain) == '{"a":{"y":true},"b":[1,null,"é"]}'
    assert models.make_record_id("hotpotqa", "5a8b", "Who?") == (
        "1d25fc8eedaf278ccdbd0125fc21be50c2f99ec226029f50f097776b2bcd4f35"  # computed with json.dumps
    )


def test_reading_gives_the_standard_librarys_values_on_random_text() -> None:
    rng = random.Random(11)
    for _ in range(20_000):
        value = _random_value(rng)
        for text in (json.dumps(value), json.dumps(value, ensure_ascii=False, indent=1)):
            assert _same(loads(text), json.loads(text)), text
    for text in ("1E400", "-1e400", "NaN", "-Infinity", "123456789012345678901234567890", '{"a": 1, "a": 2}', "-0"):
        assert _same(loads(text), json.loads(text)), text


def test_reading_what_the_fast_parser_refuses_falls_back_to_json() -> None:
    deep = "[" * 300 + "]" * 300
    for text in ('"\\ud800"', '["\\udc00\\ud800"]', deep, deep.encode()):
        assert _same(loads(text), json.loads(text)), text
    assert loads(b"\xef\xbb\xbf{}") == json.loads(b"\xef\xbb\xbf{}") == {}
    assert loads('{"a":1}'.encode("utf-16")) == {"a": 1}


@pytest.mark.parametrize("text", ["", "{", "[1,]", '{"a" 1}', "nan", "01", "[1] x", "'a'", "\ufeff{}"])
def test_what_is_not_json_raises_jsons_error(text: str) -> None:
    with pytest.raises(json.JSONDecodeError):
        loads(text)
