"""Value comparison shared by the metrics: strict JSON equality and SQuAD-style token F1."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import orjson

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = re.compile(r"[^\w\s]")


def json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def same_value(a: Any, b: Any) -> bool:
    """JSON equality: 3 equals 3.0 (JSON has one number type), but `true` never equals 1 and "3"
    never equals 3 (Python's `==` would say True == 1)."""
    kind = json_kind(a)
    if kind != json_kind(b):
        return False
    if kind in ("array", "object"):
        return canonical(a) == canonical(b)
    return a == b


def canonical(value: Any) -> bytes:
    """One spelling per JSON value (sorted keys), for equality only. orjson is several times faster;
    integers beyond 64 bits (which it refuses) fall back to the standard library."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def tokens(value: Any) -> list[str]:
    """Lower-cased words without punctuation and articles; null and booleans spelled as in JSON."""
    if value is None:
        text = "null"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, dict | list):
        text = canonical(value).decode("utf-8")
    else:
        text = str(value)
    return _ARTICLES.sub(" ", _PUNCT.sub(" ", text.lower())).split()


def token_f1_counts(truth: Counter[str], predicted: Counter[str]) -> float:
    if not truth and not predicted:
        return 1.0
    if not truth or not predicted:
        return 0.0
    overlap = sum((truth & predicted).values())
    if overlap == 0:
        return 0.0
    precision = overlap / sum(predicted.values())
    recall = overlap / sum(truth.values())
    return 2 * precision * recall / (precision + recall)


def token_f1(truth: Any, predicted: Any) -> float:
    return token_f1_counts(Counter(tokens(truth)), Counter(tokens(predicted)))
