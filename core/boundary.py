"""The input boundary: every line, row or editor text from outside is held to the limits of
core/limits.py before it can become a source item or a record.

A line that breaks one (too long, too deep, too many containers, a string too long, not UTF-8, a lone
surrogate, not JSON) becomes an `InputRejected` with a code, and the caller keeps it as a rejection with
its line or item number; the other lines load. So nothing that is stored is too deep to be read back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from core.limits import (
    MAX_INPUT_CONTAINERS,
    MAX_INPUT_NESTING,
    MAX_LINE_BYTES,
    MAX_STRING_CHARS,
    measure,
)

RAW_LIMIT = 2000  # characters of a rejected line kept in its report
_SURROGATE = re.compile("[\ud800-\udfff]")
# A JSON escape that may decode to a surrogate: only then are the parsed strings searched for one.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SPACE = re.compile(r"[ \t\r\n]*")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class InputRejected(ValueError):
    """A line or value that cannot be taken in; `code` names why, the message says what to fix."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class InputLine:
    """One line of a JSONL file or one item of a JSON list: its value, or the problem that rejected it."""

    number: int  # 1-based line (JSONL) or item (JSON list)
    value: Any
    raw: str  # the start of the text, for the rejection report
    problem: InputRejected | None = None


def check_value(value: Any, *, scan_strings: bool = True) -> None:
    """Raise InputRejected unless `value` is within the nesting, size and string limits.

    `scan_strings=False` skips the walk over strings when the caller knows none can be too long or
    hold a surrogate (a short line without a surrogate escape)."""
    depth, containers = measure(value, MAX_INPUT_NESTING, MAX_INPUT_CONTAINERS)
    if depth > MAX_INPUT_NESTING:
        raise _too_deep()
    if containers > MAX_INPUT_CONTAINERS:
        raise InputRejected("too_large", f"has more than {MAX_INPUT_CONTAINERS:,} objects/arrays")
    if scan_strings:
        for text in _strings(value):
            if len(text) > MAX_STRING_CHARS:
                raise InputRejected(
                    "value_too_long",
                    f"a string of {len(text):,} characters (at most {MAX_STRING_CHARS:,} per value): {text[:60]!r}...",
                )
            if _SURROGATE.search(text):
                raise InputRejected(
                    "lone_surrogate", f"a string holds a lone UTF-16 surrogate, which is not text: {text[:60]!r}"
                )


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different: JSON parsers disagree on which of two equal keys wins
    (Python's keeps the last, silently), so a line that repeats one is rejected."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        repeated = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise InputRejected(
            "duplicate_key", f"the key {repeated!r} appears twice in one object; keep one of its values"
        )
    return value


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys)


def _number_too_long(exc: ValueError) -> InputRejected:
    digits = re.search(r"value has (\d+) digits", str(exc))
    size = f"{int(digits.group(1)):,} digits" if digits else "too many digits"
    return InputRejected("number_too_long", f"a number with {size} (at most 4,300): write it as a string")


def _too_deep() -> InputRejected:
    return InputRejected("too_deep", f"nests more than {MAX_INPUT_NESTING} objects/arrays (the limit for any input)")


def _strings(value: Any) -> Iterator[str]:
    """Every key and string inside `value` (depth is checked first, so the stack stays small)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            for key, child in node.items():
                if isinstance(key, str):
                    yield key
                stack.append(child)
        elif isinstance(node, list | tuple):
            stack.extend(node)


def parse_json_text(text: str) -> Any:
    """Parse one line (or one editor's text) of JSON within the limits, or raise InputRejected."""
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_LINE_BYTES:
        raise InputRejected("line_too_large", f"{size:,} bytes of JSON (at most {MAX_LINE_BYTES:,})")
    try:
        value = _DECODER.decode(text)
    except InputRejected:
        raise
    except json.JSONDecodeError as exc:
        raise InputRejected("malformed_json", f"not valid JSON: {exc}") from None
    except RecursionError:
        raise _too_deep() from None
    except ValueError as exc:  # an integer past Python's 4,300-digit conversion limit
        raise _number_too_long(exc) from None
    strings = len(text) > MAX_STRING_CHARS or _SURROGATE_ESCAPE.search(text) is not None
    if strings or not few_containers(text):
        check_value(value, scan_strings=strings)
    return value


def few_containers(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether the JSON text `text[start:end]` is within the nesting and container limits without walking its
    value: each object or array of the value opens with a `{` or `[` of the text (one inside a string only adds
    to the count), so a text with at most MAX_INPUT_NESTING of them holds at most that many containers, on any
    path or in all. Nearly every line is such a text; the walk was 8% of a load."""
    end = len(text) if end is None else end
    return text.count("[", start, end) + text.count("{", start, end) <= min(MAX_INPUT_NESTING, MAX_INPUT_CONTAINERS)


def read_json_lines(path: Path) -> Iterator[InputLine]:
    """The non-blank lines of a JSONL file, each parsed within the limits or rejected with its number.

    Lines are read as bytes with a cap and decoded one by one, so a line that is too long or not UTF-8
    rejects that line only."""
    with Path(path).open("rb") as handle:
        yield from read_json_lines_from(handle)


def read_json_lines_from(handle: BinaryIO) -> Iterator[InputLine]:
    """`read_json_lines` on a file already open for reading in binary (e.g. one opened without following links)."""
    for number, data in raw_json_lines_from(handle):
        line = data if isinstance(data, InputLine) else input_line(number, data)
        if line is not None:
            yield line


def raw_json_lines_from(handle: BinaryIO) -> Iterator[tuple[int, bytes | InputLine]]:
    """(line number, its bytes) for every line, not yet decoded or parsed (`input_line` does that, in another
    process if need be); a line past MAX_LINE_BYTES comes as its rejection, the rest of it skipped unread."""
    number = 0
    while data := handle.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(data) > MAX_LINE_BYTES and not data.endswith(b"\n"):
            size = len(data) + _skip_rest_of_line(handle)
            problem = InputRejected("line_too_large", f"the line has {size:,} bytes (at most {MAX_LINE_BYTES:,})")
            yield number, InputLine(number, None, _excerpt(data), problem)
            continue
        yield number, data


def input_line(number: int, data: bytes) -> InputLine | None:
    """One line's bytes decoded and parsed within the limits, or rejected with its reason; None when blank."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problem = InputRejected(
            "invalid_utf8", f"not valid UTF-8 at byte {exc.start + 1} of the line; save the file as UTF-8"
        )
        return InputLine(number, None, _excerpt(data), problem)
    if number == 1:
        text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
    if not text.strip():
        return None
    raw = text.rstrip("\r\n")[:RAW_LIMIT]
    try:
        return InputLine(number, parse_json_text(text), raw)
    except InputRejected as problem:
        return InputLine(number, None, raw, problem)


def read_json_list(text: str) -> Iterator[InputLine]:
    """The items of a JSON list one by one, each within the limits or rejected with its item number.

    Raises InputRejected for the whole text only when it is not a list or its syntax is broken (then
    no item boundary can be trusted)."""
    decoder = _DECODER
    pos = _SPACE.match(text, 1 if text.startswith("\ufeff") else 0).end()  # after a byte-order mark
    if not text.startswith("[", pos):
        raise InputRejected("not_a_list", "expected a JSON list")
    pos = _SPACE.match(text, pos + 1).end()
    if text.startswith("]", pos):
        return
    number = 0
    while True:
        number += 1
        start = pos
        problem: InputRejected | None = None
        try:
            value, pos = decoder.raw_decode(text, start)
        except InputRejected as exc:  # a duplicate key
            value, pos, problem = None, _end_of_value(text, start, number), exc
        except json.JSONDecodeError as exc:
            raise InputRejected("malformed_json", f"item {number} is not valid JSON: {exc}") from None
        except RecursionError:
            value, pos = None, _end_of_value(text, start, number)
            problem = _too_deep()
        except ValueError as exc:  # an integer past Python's 4,300-digit conversion limit
            value, pos, problem = None, _end_of_value(text, start, number), _number_too_long(exc)
        if problem is None:
            try:
                if pos - start > MAX_LINE_BYTES:
                    raise InputRejected("line_too_large", f"{pos - start:,} characters (at most {MAX_LINE_BYTES:,})")
                strings = pos - start > MAX_STRING_CHARS or _SURROGATE_ESCAPE.search(text, start, pos) is not None
                if strings or not few_containers(text, start, pos):
                    check_value(value, scan_strings=strings)
            except InputRejected as exc:
                value, problem = None, exc
        yield InputLine(number, value, text[start : min(pos, start + RAW_LIMIT)], problem)
        pos = _SPACE.match(text, pos).end()
        if text.startswith(",", pos):
            pos = _SPACE.match(text, pos + 1).end()
            continue
        if text.startswith("]", pos) and not text[pos + 1 :].strip():
            return
        raise InputRejected("malformed_json", f"after item {number}: expected ',' or ']' at character {pos + 1}")


def _end_of_value(text: str, start: int, number: int) -> int:
    """Where the list or object starting at `start` ends, found without recursion (brackets outside strings)."""
    depth = 0
    for token in _TOKEN.finditer(text, start):
        mark = token.group()
        if mark in "[{":
            depth += 1
        elif mark in "]}":
            depth -= 1
            if depth == 0:
                return token.end()
    raise InputRejected("malformed_json", f"item {number} never ends")


def _skip_rest_of_line(handle: BinaryIO) -> int:
    skipped = 0
    while chunk := handle.readline(1 << 20):
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return skipped


def _excerpt(data: bytes) -> str:
    return data[: RAW_LIMIT * 4].decode("utf-8", errors="replace")[:RAW_LIMIT].rstrip("\r\n")
