"""Regular expressions from input data (a schema's `pattern` and `patternProperties`) run with a time limit.

Python's `re` backtracks without bound: `^(a|aa)+$` against forty `a`s and a `!` runs for hours, cannot be
interrupted with Ctrl-C, and the record would hang every later run too. The `regex` package runs the
same syntax and takes a `timeout`; it also avoids much of the backtracking (`^(a+)+$` is instant there).

A search that runs out of time raises `PatternTooSlow`; the caller rejects the record and names the
pattern's place in the schema. Every search inside `budget()` shares one deadline, so a record with
many patterns and many strings cannot add up to a long run either.

jsonschema calls `re.search` itself for `pattern`, `patternProperties`, `additionalProperties` and
`unevaluatedProperties`; `install_in_jsonschema` points those modules at `search` below, so every
validator in the process (the toolkit's and any other) runs schema patterns with the limit.
"""

from __future__ import annotations

import contextlib
import functools
import re
import time
from collections.abc import Iterator
from typing import Any

import regex

from core.limits import MAX_SCHEMA_CONTAINERS
from validation import paths

SEARCH_SECONDS = 0.25  # one search
BUDGET_SECONDS = 1.0  # every search of one record (see `budget`)

_deadline: float | None = None


class PatternTooSlow(TimeoutError):
    """A schema's regular expression did not finish within its time limit."""

    def __init__(self, pattern: str, seconds: float) -> None:
        super().__init__(f"the pattern {pattern!r} did not finish within {seconds:g} s")
        self.pattern = pattern
        self.seconds = seconds


@contextlib.contextmanager
def budget(seconds: float = BUDGET_SECONDS) -> Iterator[None]:
    """Every search inside shares `seconds` (nested budgets keep the outer, earlier deadline)."""
    global _deadline
    outer = _deadline
    mine = time.monotonic() + seconds
    _deadline = mine if outer is None else min(outer, mine)
    try:
        yield
    finally:
        _deadline = outer


def search(pattern: Any, string: Any, flags: int = 0) -> Any:
    """`re.search` with a time limit: the match or None. Raises PatternTooSlow, or `re.error` for a
    pattern that is not a regular expression (what callers written for `re` already catch)."""
    limit = SEARCH_SECONDS
    if _deadline is not None:
        limit = max(0.001, min(limit, _deadline - time.monotonic()))
    try:
        return _compiled(pattern, flags).search(string, timeout=limit)
    except TimeoutError:
        raise PatternTooSlow(str(pattern), limit) from None
    except regex.error as exc:
        raise re.error(str(exc)) from None


@functools.lru_cache(maxsize=4096)
def _compiled(pattern: Any, flags: int) -> Any:
    """Compiled once per pattern (the `regex` module's own cache costs more than the search itself)."""
    return regex.compile(pattern, flags)


def pattern_path(schema: Any, pattern: str) -> str:
    """Where `pattern` first stands in the schema (`$.properties.code.pattern`, or the name under
    `patternProperties`), for the rejection; `$` when it cannot be found."""
    stack: list[tuple[Any, str]] = [(schema, "$")]
    seen = 0
    while stack and seen < MAX_SCHEMA_CONTAINERS:
        node, where = stack.pop()
        seen += 1
        if isinstance(node, dict):
            if node.get("pattern") == pattern:
                return paths.child(where, "pattern")
            names = node.get("patternProperties")
            if isinstance(names, dict) and pattern in names:
                return paths.child(paths.child(where, "patternProperties"), pattern)
            stack.extend((child, paths.child(where, str(key))) for key, child in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((child, paths.index(where, i)) for i, child in reversed(list(enumerate(node))))
    return "$"


class _TimedRe:
    """Stands for the `re` module inside jsonschema: only `search` is used there for schema patterns;
    anything else is the real `re`."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def search(self, pattern: Any, string: Any, flags: int = 0) -> Any:
        return search(pattern, string, flags)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def install_in_jsonschema() -> None:
    """Point jsonschema's keyword modules at the timed search (idempotent)."""
    from jsonschema import _keywords, _legacy_keywords, _utils

    for module in (_keywords, _legacy_keywords, _utils):
        if not isinstance(module.re, _TimedRe):
            module.re = _TimedRe(module.re)  # type: ignore[assignment]
