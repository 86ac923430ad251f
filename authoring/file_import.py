"""Import curators' work from a JSONL file, one authored record per line.

Every line either becomes a record or a rejection with its line number and reasons:
malformed JSON, lines beyond the input limits (core/boundary.py: too long, too deep, not UTF-8),
missing or unknown fields and unknown source ids are never skipped silently, and never stored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from core.authored_line import AuthoredLine
from core.batching import batched
from core.boundary import InputLine, read_json_lines
from core.evidence import Evidence, parse_evidence_map
from core.limits import check_nesting
from core.models import Provenance, Reason, Record, SourceItem, utcnow
from validation import characters

STAGE = "import"
READ_BATCH = 2000  # lines per batch: the source items of one batch are looked up together

# Source id -> item for the ids of one batch (absent: unknown or unreadable), e.g. Store.source_items_by_id.
SourceLookup = Callable[[Sequence[str]], Mapping[str, SourceItem]]


@dataclass
class ImportResult:
    origin: str
    records: list[Record] = field(default_factory=list)
    rejections: list[tuple[int, str, list[Reason]]] = field(default_factory=list)
    lines: int = 0
    # record id -> (line number, SHA-256 of the line): where each yielded record came from (its revision's origin)
    line_of: dict[str, tuple[int, str]] = field(default_factory=dict)


def _reasons_from_pydantic(exc: ValidationError) -> list[Reason]:
    reasons = []
    for error in exc.errors():
        loc = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"])
        code = {"missing": "missing_field", "extra_forbidden": "unknown_field"}.get(error["type"], "invalid_field")
        reasons.append(Reason(stage=STAGE, code=code, message=f"{loc}: {error['msg']}", path=loc))
    return reasons


def import_authored(path: Path, items: Mapping[str, SourceItem]) -> ImportResult:
    """Read `path` against the known source items (by source_id), every record in `result.records`."""
    result, records = stream_authored(path, lambda _ids: items)
    result.records = list(records)
    return result


def stream_authored(
    path: Path, lookup: SourceLookup, batch_size: int = READ_BATCH
) -> tuple[ImportResult, Iterator[Record]]:
    """The records of `path`, read `batch_size` lines at a time, and the result that collects the
    rejections (in line order) as the records are consumed. `lookup` is asked only for the source ids
    of one batch, so neither the file nor the source items are ever all in memory."""
    if path.is_dir():
        raise ValueError(f"authored file {path} is a folder: pass the JSONL file itself")
    if not path.is_file():
        raise FileNotFoundError(f"authored file {path} does not exist")
    result = ImportResult(origin=f"authored:{origin_path(path)}")
    return result, _records(path, lookup, batch_size, result)


def origin_path(path: Path) -> str:
    """A file as an origin knows it: by its resolved path, so `alice/fix.jsonl` and `bob/fix.jsonl` are two
    origins (one may not silently replace the other's values) and its rejections are its own."""
    return str(path.resolve())


def _records(path: Path, lookup: SourceLookup, batch_size: int, result: ImportResult) -> Iterator[Record]:
    first_line_of: dict[str, int] = {}  # record id -> line: duplicates are found across the whole file
    now = utcnow()
    for batch in batched(read_json_lines(path), batch_size):
        result.lines += len(batch)
        checked = [(parsed, _check_line(parsed)) for parsed in batch]
        wanted = {outcome[0].source_id for _, outcome in checked if isinstance(outcome, tuple)}
        items = lookup(sorted(wanted)) if wanted else {}
        for parsed, outcome in checked:
            line_no = parsed.number
            if not isinstance(outcome, tuple):
                result.rejections.append((line_no, parsed.raw, outcome))
                continue
            authored, evidence = outcome
            item = items.get(authored.source_id)
            if item is None:
                reason = Reason(
                    stage=STAGE,
                    code="unknown_source_id",
                    message=f"line {line_no}: source_id {authored.source_id!r} is not a loaded source item "
                    "(load its source first, or fix the id)",
                    path="$.source_id",
                )
                result.rejections.append((line_no, parsed.raw, [reason]))
                continue
            record = Record.build(
                item,
                authored.question,
                authored.json_schema,
                authored.ground_truth,
                Provenance(
                    annotator=authored.annotator,
                    authored_via=f"file:{path.name}",
                    authored_at=now,
                    draft_model=authored.draft_model,
                    time_spent_s=authored.time_spent_s,
                ),
                evidence=evidence,
            )
            earlier = first_line_of.get(record.record_id)
            if earlier is not None:
                reason = Reason(
                    stage=STAGE,
                    code="duplicate_record",
                    message=f"line {line_no}: same source_id and question as line {earlier}; the first is kept",
                )
                result.rejections.append((line_no, parsed.raw, [reason]))
                continue
            first_line_of[record.record_id] = line_no
            result.line_of[record.record_id] = (line_no, hashlib.sha256(parsed.raw.encode("utf-8")).hexdigest())
            yield record


def _check_line(parsed: InputLine) -> tuple[AuthoredLine, dict[str, Evidence]] | list[Reason]:
    """Every check of one line that does not need its source item: the line and its evidence, or why not."""
    line_no = parsed.number
    if parsed.problem is not None:
        return [Reason(stage=STAGE, code=parsed.problem.code, message=f"line {line_no}: {parsed.problem}")]
    payload = parsed.value
    if not isinstance(payload, dict):
        return [Reason(stage=STAGE, code="not_an_object", message=f"line {line_no}: expected a JSON object")]
    try:
        authored = AuthoredLine.model_validate(payload)
    except ValidationError as exc:
        return _reasons_from_pydantic(exc)
    too_big = check_nesting(authored.json_schema, authored.ground_truth)
    if too_big:
        # The same limits the validation stage applies, here before anything is stored.
        return [
            Reason(stage=STAGE, code=f.code, message=f"line {line_no}: {f.message}", path=f"$.{f.check}")
            for f in too_big
        ]
    authored, hidden = _characters(authored, line_no)
    if hidden:
        return hidden
    evidence, problems = parse_evidence_map(authored.evidence)
    if problems:
        return [
            Reason(stage=STAGE, code="invalid_evidence", message=f"line {line_no}: {where}: {why}", path=where)
            for where, why in problems
        ]
    return authored, evidence


def _characters(authored: AuthoredLine, line_no: int) -> tuple[AuthoredLine, list[Reason]]:
    """The line in one Unicode normalisation (validation/characters.py), and a reason for every ground-truth
    string that holds a character nobody can see or a word that mixes look-alike alphabets."""
    if all(characters.plain_ascii(part) for part in (authored.question, authored.ground_truth, authored.evidence)):
        return authored, []  # nothing to normalise or to find
    authored = authored.model_copy(
        update={
            "question": characters.normalised(authored.question),
            "ground_truth": characters.normalised(authored.ground_truth),
            "evidence": characters.normalised(authored.evidence),
        }
    )
    reasons = [
        Reason(stage=STAGE, code=code, message=f"line {line_no}: {where} {message}", path=where)
        for where, code, message in characters.value_problems(authored.ground_truth)
    ]
    return authored, reasons
