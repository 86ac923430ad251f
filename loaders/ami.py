"""AMI loader: meeting transcripts, never audio.

Inputs, any of:

- the Hub (`path=None`): the plain Kaldi transcript `annotations/<split>/text` of `edinburghcstr/ami`,
  fetched alone with `huggingface_hub` (the audio archives are never touched);
- local Kaldi files: a `text` file (`UTTID WORD WORD ...`; a `segments` file beside it, `UTTID RECID
  BEGIN_SEC END_SEC`, gives the times when present), a folder holding them, or a folder of
  `<split>/text` folders;
- rows with the Hub dataset's columns (`meeting_id, audio_id, text, begin_time, end_time,
  microphone_id, speaker_id`; `audio` is never read): JSONL, parquet or a `save_to_disk` folder.

Utterances are grouped by meeting, ordered by begin time (then speaker, then id) and written one per
line as `[m:ss] SPEAKER: TEXT` (`[h:mm:ss]` from an hour on). Each meeting is one source item, or,
with `max_context_tokens`, several windows cut at utterance boundaries (`<meeting>#w<N>`, N from 1).
Bad lines are returned as problems with their line numbers, never skipped silently.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any

from core.boundary import InputRejected, check_value, read_json_lines
from core.models import SourceItem
from loaders.base import LoadProblem, LoadResult
from loaders.kaldi import KaldiError, iter_kaldi_segments, iter_kaldi_text

__all__ = [
    "AmiFormatError",
    "AmiLoadResult",
    "AmiUttId",
    "Utterance",
    "estimate_tokens",
    "format_line",
    "format_timestamp",
    "format_transcript",
    "hub_download",
    "iter_kaldi_text",
    "load_ami",
    "meeting_items",
    "parse_utt_id",
    "sample_path",
    "sort_utterances",
    "utterance_from_row",
    "window_utterances",
]

HUB_REPO = "edinburghcstr/ami"
HUB_CONFIGS = ("ihm", "sdm")
HUB_SPLITS = ("train", "dev", "eval")
# Where a split's Kaldi transcript sits in the Hub repository. Taken from the repository's loading
# script (`_ANNOTATIONS_ARCHIVE_URL = _BASE_DATA_URL + "annotations/{split}/text"`), which reads the
# same file for both configs. Change it here if the repository moves the file.
HUB_TEXT_PATH = "annotations/{split}/text"
# Split names as the Kaldi files spell them; the Hub dataset's names are accepted too.
SPLIT_ALIASES = {"train": "train", "dev": "dev", "validation": "dev", "eval": "eval", "test": "eval"}
ROW_FILE_SUFFIXES = (".jsonl", ".parquet")
IGNORED_COLUMNS = frozenset({"audio"})  # never read, never decoded
# AMI speaker ids: sex, two letters, three digits, sometimes a suffix (MEE006, FEE005, MTD011UID).
SPEAKER_ID = re.compile(r"^[MF][A-Z]{2}\d{3}[A-Z]*$")
TOKENS_PER_WORD = 1.3
RAW_LIMIT = 2000

TokenEstimator = Callable[[str], float]
Downloader = Callable[[str], "str | Path"]


class AmiFormatError(ValueError):
    """An input that cannot be used; `code` names the kind of problem."""

    def __init__(self, message: str, code: str = "bad_row") -> None:
        super().__init__(message)
        self.code = code


def sample_path() -> Path:
    """The embedded sample: one short synthetic meeting in the Hub's row format."""
    return Path(__file__).parent / "samples" / "ami" / "sample.ihm.jsonl"


# ---------------------------------------------------------------------------------------------------
# Utterances and their ids


@dataclass(frozen=True, slots=True)
class Utterance:
    utt_id: str
    meeting_id: str
    speaker: str
    begin_cs: int  # centiseconds from the start of the meeting
    end_cs: int
    text: str
    microphone: str | None = None

    @property
    def begin_s(self) -> float:
        return self.begin_cs / 100

    @property
    def end_s(self) -> float:
        return self.end_cs / 100


_ORDER = attrgetter("begin_cs", "speaker", "utt_id")


def sort_utterances(utterances: Iterable[Utterance]) -> list[Utterance]:
    """Transcript order: begin time, then speaker, then utterance id (so ties are deterministic)."""
    return sorted(utterances, key=_ORDER)


@dataclass(frozen=True, slots=True)
class AmiUttId:
    meeting_id: str
    microphone: str | None
    speaker: str
    begin_cs: int
    end_cs: int


def parse_utt_id(utt_id: str) -> AmiUttId:
    """Parse `AMI_<meeting>_<mic>_<speaker>_<begin cs>_<end cs>` from the right.

    The last two fields are the begin and end in centiseconds and the second field is the meeting.
    Between them stand the speaker and the microphone (`H00`, `SDM`, ...) in either order: the
    speaker is the field shaped like an AMI speaker id (the rightmost one), else the field just
    before the times; whatever remains is the microphone.
    """
    fields = utt_id.split("_")
    if len(fields) < 5:
        raise AmiFormatError(
            f"utterance id {utt_id!r} has {len(fields)} '_'-separated fields; expected "
            "AMI_<meeting>_<mic>_<speaker>_<begin cs>_<end cs>",
            "bad_utterance_id",
        )
    begin, end = fields[-2], fields[-1]
    if not (begin.isascii() and begin.isdigit() and end.isascii() and end.isdigit()):
        raise AmiFormatError(f"utterance id {utt_id!r} does not end in <begin cs>_<end cs> digits", "bad_utterance_id")
    meeting = fields[1]
    middle = fields[2:-2]
    at = next((i for i in range(len(middle) - 1, -1, -1) if SPEAKER_ID.match(middle[i])), len(middle) - 1)
    speaker = middle.pop(at)
    if not meeting or not speaker:
        raise AmiFormatError(f"utterance id {utt_id!r} has an empty meeting or speaker", "bad_utterance_id")
    begin_cs, end_cs = int(begin), int(end)
    if end_cs < begin_cs:
        raise AmiFormatError(f"utterance id {utt_id!r} ends before it begins", "bad_times")
    return AmiUttId(meeting, "_".join(middle) or None, speaker, begin_cs, end_cs)


def _centiseconds(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise AmiFormatError(f"`{name}` must be a number of seconds >= 0, got {value!r}", "bad_times")
    return round(value * 100)


def _required_str(row: Mapping[str, Any], name: str) -> str:
    value = row.get(name)
    if not isinstance(value, str) or not value.strip():
        raise AmiFormatError(f"`{name}` must be a non-empty string, got {value!r}")
    return value.strip()


def utterance_from_row(row: Mapping[str, Any]) -> Utterance:
    """One row with the Hub dataset's columns. `audio` and unknown columns are ignored."""
    meeting = _required_str(row, "meeting_id")
    speaker = _required_str(row, "speaker_id")
    text = row.get("text")
    if not isinstance(text, str):
        raise AmiFormatError(f"`text` must be a string, got {text!r}")
    text = " ".join(text.split())
    if not text:
        raise AmiFormatError("`text` is empty", "empty_text")
    begin_cs = _centiseconds(row.get("begin_time"), "begin_time")
    end_cs = _centiseconds(row.get("end_time"), "end_time")
    if end_cs < begin_cs:
        raise AmiFormatError(
            f"end_time {row.get('end_time')} is before begin_time {row.get('begin_time')}", "bad_times"
        )
    utt_id = row.get("audio_id") or row.get("id")
    if not isinstance(utt_id, str) or not utt_id:
        utt_id = f"{meeting}_{speaker}_{begin_cs:07d}_{end_cs:07d}"
    microphone = row.get("microphone_id")
    return Utterance(
        utt_id, meeting, speaker, begin_cs, end_cs, text, microphone if isinstance(microphone, str) else None
    )


# ---------------------------------------------------------------------------------------------------
# Formatting and windows


def format_timestamp(seconds: float) -> str:
    """`m:ss` (minutes not padded), or `h:mm:ss` from an hour on; seconds are floored."""
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"timestamp must be a number of seconds >= 0, got {seconds!r}")
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def format_line(utterance: Utterance) -> str:
    return f"[{format_timestamp(utterance.begin_cs // 100)}] {utterance.speaker}: {utterance.text}"


def format_transcript(utterances: Iterable[Utterance]) -> str:
    """One `[m:ss] SPEAKER: TEXT` line per utterance, in transcript order."""
    return "\n".join(map(format_line, sort_utterances(utterances)))


def estimate_tokens(text: str) -> float:
    """Rough token count: whitespace-separated words x 1.3 (a usual ratio for English under BPE
    tokenizers). Pass another function as `estimate=` (e.g. a real tokenizer's length) to swap it."""
    return len(text.split()) * TOKENS_PER_WORD


def window_utterances(
    utterances: Iterable[Utterance], max_tokens: int, estimate: TokenEstimator = estimate_tokens
) -> list[list[Utterance]]:
    """Cut a meeting into consecutive windows of at most `max_tokens` (the sum of the estimates of
    their formatted lines), at utterance boundaries. Every utterance lands in exactly one window, in
    transcript order; an utterance larger than the budget alone gets a window of its own."""
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    windows: list[list[Utterance]] = []
    current: list[Utterance] = []
    used = 0.0
    for utterance in sort_utterances(utterances):
        cost = estimate(format_line(utterance))
        if current and used + cost > max_tokens:
            windows.append(current)
            current, used = [], 0.0
        current.append(utterance)
        used += cost
    if current:
        windows.append(current)
    return windows


def _describe(meeting: str, utterances: Sequence[Utterance], split: str | None) -> dict[str, Any]:
    speakers = sorted({u.speaker for u in utterances})
    start = min(u.begin_cs for u in utterances)
    end = max(u.end_cs for u in utterances)
    metadata: dict[str, Any] = {
        "meeting_id": meeting,
        "num_speakers": len(speakers),
        "num_utterances": len(utterances),
        "duration_s": (end - start) / 100,  # first begin to last end
        "speakers": speakers,
    }
    if split:
        metadata["split"] = split
    return metadata


def meeting_items(
    meeting: str,
    utterances: Sequence[Utterance],
    *,
    split: str | None = None,
    max_context_tokens: int | None = None,
    estimate: TokenEstimator = estimate_tokens,
    extra: Mapping[str, Any] | None = None,
) -> list[SourceItem]:
    """The source item(s) of one meeting: whole, or one per window when it exceeds the budget."""
    ordered = sort_utterances(utterances)
    windows = [ordered] if max_context_tokens is None else window_utterances(ordered, max_context_tokens, estimate)
    items = []
    for number, window in enumerate(windows, start=1):
        metadata = _describe(meeting, window, split)
        source_id = meeting
        if len(windows) > 1:
            source_id = f"{meeting}#w{number}"
            metadata.update(
                window=number,
                num_windows=len(windows),
                window_start_s=window[0].begin_cs / 100,
                window_end_s=max(u.end_cs for u in window) / 100,
            )
        metadata.update(extra or {})
        context = "\n".join(map(format_line, window))
        items.append(SourceItem(source="ami", source_id=source_id, context=context, metadata=metadata))
    return items


# ---------------------------------------------------------------------------------------------------
# Loading


@dataclass
class AmiLoadResult(LoadResult):
    """Items and problems (from LoadResult) plus AMI counts. `rows_read` counts text lines and rows."""

    utterances: int = 0  # utterances that went into transcripts
    meetings: int = 0
    segments_without_text: int = 0  # `segments` lines whose utterance has no `text` line
    meetings_not_found: list[str] = field(default_factory=list)  # asked for with `meetings=`, absent

    @property
    def malformed(self) -> list[tuple[int, str, str]]:
        """Every rejected line as (line number, raw line, reason); `problems` also names the file."""
        return [(p.line_no, p.raw, f"{p.code}: {p.message}") for p in self.problems]

    @property
    def counts(self) -> dict[str, int]:
        return {
            "rows_read": self.rows_read,
            "utterances": self.utterances,
            "malformed": len(self.problems),
            "meetings": self.meetings,
            "items": len(self.items),
            "segments_without_text": self.segments_without_text,
        }


class _Collector:
    """Gathers utterances by meeting, rejecting duplicates and keeping every problem."""

    def __init__(self, result: AmiLoadResult, meetings: Collection[str] | None) -> None:
        self.result = result
        self.wanted = None if meetings is None else set(meetings)
        self.by_meeting: dict[str, list[Utterance]] = defaultdict(list)
        self.splits: dict[str, set[str]] = defaultdict(set)
        self.first_seen: dict[str, tuple[str, int]] = {}

    def problem(self, origin: str, line_no: int, code: str, message: str, raw: str) -> None:
        self.result.problems.append(LoadProblem(origin, line_no, code, message, raw[:RAW_LIMIT]))

    def add(self, origin: str, line_no: int, raw: str, utterance: Utterance, split: str | None) -> None:
        if self.wanted is not None and utterance.meeting_id not in self.wanted:
            return
        earlier = self.first_seen.get(utterance.utt_id)
        if earlier is not None:
            self.problem(
                origin,
                line_no,
                "duplicate_utterance",
                f"utterance {utterance.utt_id} was already read ({earlier[0]} line {earlier[1]}); the first is kept",
                raw,
            )
            return
        self.first_seen[utterance.utt_id] = (origin, line_no)
        self.by_meeting[utterance.meeting_id].append(utterance)
        if split:
            self.splits[utterance.meeting_id].add(split)


def _split_from_dir(directory: Path) -> str | None:
    return SPLIT_ALIASES.get(directory.name.lower())


def _split_from_name(name: str) -> str | None:
    for token in re.split(r"[^a-z]+", name.lower()):
        if token in SPLIT_ALIASES:
            return SPLIT_ALIASES[token]
    return None


def _read_kaldi(
    collector: _Collector,
    text_path: Path,
    segments_path: Path | None,
    split: str | None,
    origin: str | None = None,
) -> None:
    origin = origin or str(text_path)
    times: dict[str, tuple[int, int]] = {}
    if segments_path is not None:
        for seg in iter_kaldi_segments(segments_path):
            if isinstance(seg, KaldiError):
                collector.problem(str(segments_path), seg.line_no, "bad_segment", seg.reason, seg.raw)
            else:
                times[seg.utt_id] = (round(seg.begin_s * 100), round(seg.end_s * 100))
    result = collector.result
    for entry in iter_kaldi_text(text_path):
        result.rows_read += 1
        if isinstance(entry, KaldiError):
            collector.problem(origin, entry.line_no, "bad_line", entry.reason, entry.raw)
            continue
        try:
            uid = parse_utt_id(entry.utt_id)
        except AmiFormatError as exc:
            collector.problem(origin, entry.line_no, exc.code, str(exc), entry.raw)
            continue
        if not entry.text:
            collector.problem(origin, entry.line_no, "empty_text", "an utterance id with no words", entry.raw)
            continue
        begin_cs, end_cs = times.pop(entry.utt_id, None) or (uid.begin_cs, uid.end_cs)
        utterance = Utterance(entry.utt_id, uid.meeting_id, uid.speaker, begin_cs, end_cs, entry.text, uid.microphone)
        collector.add(origin, entry.line_no, entry.raw, utterance, split)
    result.segments_without_text += len(times)


def _jsonl_rows(path: Path) -> Iterator[tuple[int, Any, str]]:
    """Lines held to the input limits (core/boundary.py): one that is not UTF-8, not JSON, too long
    or too deep is rejected with its number, and the rest load."""
    for line in read_json_lines(path):
        if line.problem is not None:
            yield line.number, AmiFormatError(str(line.problem), line.problem.code), line.raw
        else:
            yield line.number, line.value, line.raw


def _within_limits(row: Any) -> Any:
    """Parquet and saved-dataset rows are held to the same limits as JSONL lines."""
    try:
        check_value(row)
    except InputRejected as exc:
        return AmiFormatError(str(exc), exc.code)
    return row


def _parquet_rows(path: Path) -> Iterator[tuple[int, Any, str]]:
    import pyarrow.parquet as pq

    names = pq.read_schema(path).names
    columns = [name for name in names if name not in IGNORED_COLUMNS]
    table = pq.read_table(path, columns=columns)
    line_no = 0
    for batch in table.to_batches(max_chunksize=10_000):
        for row in batch.to_pylist():
            line_no += 1
            yield line_no, row, ""


def _saved_dataset_rows(path: Path) -> Iterator[tuple[str | None, int, Any, str]]:
    """Rows of a `save_to_disk` folder (a Dataset or a DatasetDict), without the `audio` column."""
    import datasets

    loaded = datasets.load_from_disk(str(path))
    parts = list(loaded.items()) if isinstance(loaded, datasets.DatasetDict) else [(path.name, loaded)]
    for name, dataset in parts:
        split = SPLIT_ALIASES.get(str(name).lower())
        dataset = dataset.select_columns([c for c in dataset.column_names if c not in IGNORED_COLUMNS])
        line_no = 0
        for batch in dataset.iter(batch_size=10_000):
            columns = list(batch)
            for values in zip(*(batch[c] for c in columns), strict=True):
                line_no += 1
                yield split, line_no, _within_limits(dict(zip(columns, values, strict=True))), ""


def _read_rows(collector: _Collector, origin: str, rows: Iterable[tuple[str | None, int, Any, str]]) -> None:
    for split, line_no, row, raw in rows:
        collector.result.rows_read += 1
        raw = raw or (json.dumps(row, ensure_ascii=False, default=str) if not isinstance(row, Exception) else "")
        try:
            if isinstance(row, AmiFormatError):
                raise row
            if not isinstance(row, Mapping):
                raise AmiFormatError("expected a JSON object", "not_an_object")
            utterance = utterance_from_row(row)
        except AmiFormatError as exc:
            collector.problem(origin, line_no, exc.code, str(exc), raw)
            continue
        collector.add(origin, line_no, raw, utterance, split)


def _is_saved_dataset(directory: Path) -> bool:
    return (directory / "dataset_dict.json").is_file() or (
        (directory / "state.json").is_file() and (directory / "dataset_info.json").is_file()
    )


def _read_file(collector: _Collector, path: Path) -> None:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        split = _split_from_name(path.name)
        _read_rows(collector, str(path), ((split, n, row, raw) for n, row, raw in _jsonl_rows(path)))
    elif suffix == ".parquet":
        split = _split_from_name(path.name)
        rows = _parquet_rows(path)
        _read_rows(collector, str(path), ((split, n, _within_limits(row), raw) for n, row, raw in rows))
    elif path.name == "segments":
        raise AmiFormatError(f"{path}: a `segments` file alone has no words; pass its `text` file or folder")
    else:  # a Kaldi `text` file, with the `segments` beside it if there is one
        segments = path.parent / "segments"
        _read_kaldi(collector, path, segments if segments.is_file() else None, _split_from_dir(path.parent))


def _read_path(collector: _Collector, path: Path) -> None:
    if not path.exists():
        raise FileNotFoundError(f"AMI input {path} does not exist")
    if path.is_file():
        _read_file(collector, path)
        return
    if _is_saved_dataset(path):
        _read_rows(collector, str(path), _saved_dataset_rows(path))
        return
    saved: list[Path] = []
    files: list[Path] = []
    for candidate in sorted(path.rglob("*")):
        if any(parent in saved for parent in candidate.parents):
            continue
        if candidate.is_dir() and _is_saved_dataset(candidate):
            saved.append(candidate)
        elif candidate.is_file() and (candidate.name == "text" or candidate.suffix.lower() in ROW_FILE_SUFFIXES):
            files.append(candidate)
    if not saved and not files:
        raise AmiFormatError(f"{path}: no Kaldi `text` file, .jsonl/.parquet file or saved dataset inside", "no_input")
    for directory in saved:
        _read_rows(collector, str(directory), _saved_dataset_rows(directory))
    for file in files:
        _read_file(collector, file)


def hub_download(filename: str) -> Path:
    """Fetch one file of the Hub dataset repository (cached by huggingface_hub)."""
    from huggingface_hub import hf_hub_download

    return Path(hf_hub_download(repo_id=HUB_REPO, repo_type="dataset", filename=filename))


def _read_hub(collector: _Collector, splits: Iterable[str], download: Downloader) -> None:
    for name in splits:
        split = SPLIT_ALIASES.get(name)
        if split is None:
            raise ValueError(f"unknown AMI split {name!r}; use {', '.join(HUB_SPLITS)}")
        filename = HUB_TEXT_PATH.format(split=split)
        _read_kaldi(collector, Path(download(filename)), None, split, origin=f"hub:{HUB_REPO}/{filename}")


def load_ami(
    path: Path | str | None = None,
    *,
    hub_config: str = "ihm",
    splits: Iterable[str] = HUB_SPLITS,
    max_context_tokens: int | None = None,
    meetings: Collection[str] | None = None,
    estimate: TokenEstimator = estimate_tokens,
    download: Downloader | None = None,
) -> AmiLoadResult:
    """Load AMI meetings from `path` (Kaldi files, row files, a saved dataset) or, with `path=None`,
    from the Hub's Kaldi transcripts of `splits` (`hub_config` is recorded; both configs share
    the transcripts). `meetings` keeps only those meeting ids. `download(filename) -> local path`
    replaces the Hub download (tests point it at local files)."""
    if hub_config not in HUB_CONFIGS:
        raise ValueError(f"unknown AMI config {hub_config!r}; use one of {', '.join(HUB_CONFIGS)}")
    if max_context_tokens is not None and max_context_tokens < 1:
        raise ValueError(f"max_context_tokens must be >= 1, got {max_context_tokens}")
    result = AmiLoadResult()
    collector = _Collector(result, meetings)
    extra: dict[str, Any] = {}
    if path is None:
        _read_hub(collector, splits, download or hub_download)
        extra["hub_config"] = hub_config
    else:
        _read_path(collector, Path(path))
    for meeting in sorted(collector.by_meeting):
        utterances = collector.by_meeting[meeting]
        split = "+".join(sorted(collector.splits.get(meeting, ()))) or None
        result.items.extend(
            meeting_items(
                meeting,
                utterances,
                split=split,
                max_context_tokens=max_context_tokens,
                estimate=estimate,
                extra=extra,
            )
        )
        result.utterances += len(utterances)
    result.meetings = len(collector.by_meeting)
    if meetings is not None:
        result.meetings_not_found = sorted(set(meetings) - set(collector.by_meeting))
    return result
