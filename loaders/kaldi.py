"""Readers for the plain Kaldi data files: `text` (`UTTID WORD WORD ...`) and `segments`
(`UTTID RECID BEGIN_SEC END_SEC`).

Both yield one entry per non-blank line: the parsed line, or a `KaldiError` with its 1-based line
number, the raw line and the reason, so a caller can report bad lines instead of dropping them.
Lines are decoded one by one, so a single undecodable line is an error, not the end of the file.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

RAW_LIMIT = 2000  # characters of a bad line kept in its report


@dataclass(frozen=True, slots=True)
class KaldiText:
    line_no: int
    utt_id: str
    text: str  # the words joined by single spaces, as written (may be empty)
    raw: str  # the line as read, without its line break


@dataclass(frozen=True, slots=True)
class KaldiSegment:
    line_no: int
    utt_id: str
    recording_id: str
    begin_s: float
    end_s: float


@dataclass(frozen=True, slots=True)
class KaldiError:
    line_no: int
    raw: str
    reason: str


def _lines(path: Path) -> Iterator[tuple[int, str | None, str]]:
    """(line number, decoded line or None when it is not UTF-8, raw text) for non-blank lines."""
    with Path(path).open("rb") as handle:
        for line_no, data in enumerate(handle, start=1):
            try:
                line = data.decode("utf-8")
            except UnicodeDecodeError:
                yield line_no, None, data.decode("utf-8", errors="replace").rstrip("\r\n")[:RAW_LIMIT]
                continue
            if line.strip():
                yield line_no, line, line.rstrip("\r\n")


def iter_kaldi_text(path: Path) -> Iterator[KaldiText | KaldiError]:
    """Read a Kaldi `text` file. A line with an id and no words is returned with empty text."""
    for line_no, line, raw in _lines(path):
        if line is None:
            yield KaldiError(line_no, raw, "not valid UTF-8")
            continue
        utt_id, *words = line.split()
        yield KaldiText(line_no, utt_id, " ".join(words), raw[:RAW_LIMIT])


def _seconds(value: str) -> float:
    seconds = float(value)
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"{value!r} is not a time in seconds")
    return seconds


def iter_kaldi_segments(path: Path) -> Iterator[KaldiSegment | KaldiError]:
    """Read a Kaldi `segments` file: exactly four fields, times in seconds, begin <= end."""
    for line_no, line, raw in _lines(path):
        if line is None:
            yield KaldiError(line_no, raw, "not valid UTF-8")
            continue
        fields = line.split()
        if len(fields) != 4:
            yield KaldiError(line_no, raw[:RAW_LIMIT], f"expected 4 fields (UTTID RECID BEGIN END), got {len(fields)}")
            continue
        try:
            begin, end = _seconds(fields[2]), _seconds(fields[3])
        except ValueError as exc:
            yield KaldiError(line_no, raw[:RAW_LIMIT], f"bad time: {exc}")
            continue
        if end < begin:
            yield KaldiError(line_no, raw[:RAW_LIMIT], f"end {fields[3]} is before begin {fields[2]}")
            continue
        yield KaldiSegment(line_no, fields[0], fields[1], begin, end)
