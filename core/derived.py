"""What the stages add to a record, kept beside the authored record instead of inside it.

Validation fills `output.validated_output`, the located `output.evidence` and
`metadata.schema_complexity`; the judge fills `provenance.judge` and `provenance.judged_at`. Stored in
the `records.derived` column as `{section: {field: value}}`, a stage writes about 1 KB per record
instead of rewriting the whole record with its context (about 6 KB for HotpotQA): DuckDB's WAL, its
checkpoints and the memory it holds for un-checkpointed updates shrink by as much. Whoever reads a
record reads it merged (`read_record`), so nothing downstream sees the split.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import to_json

from core import fast_json
from core.models import Record

# The sections of a record a stage may add to, and nothing else: a derived field can never overwrite
# the record's identity, its context, question, schema or ground truth.
SECTIONS = frozenset({"output", "metadata", "provenance"})
PROTECTED = {"output": frozenset({"ground_truth"}), "metadata": frozenset({"source", "source_id"})}


def check(derived: object) -> dict[str, dict[str, Any]]:
    """`derived` if it only adds to the sections a stage may add to; ValueError naming what it may not do."""
    if not isinstance(derived, dict):
        raise ValueError("derived fields: not an object")
    for section, fields in derived.items():
        if section not in SECTIONS or not isinstance(fields, dict):
            raise ValueError(f"derived fields: unknown section {section!r}")
        if PROTECTED.get(section, frozenset()) & fields.keys():
            raise ValueError(f"derived fields: {section} may not replace {sorted(PROTECTED[section] & fields.keys())}")
    return derived


def merged(data: dict[str, Any], derived: dict[str, Any]) -> dict[str, Any]:
    """The record's JSON data with the stage outputs in place (`data` is updated and returned)."""
    for section, fields in check(derived).items():
        target = data.get(section)
        data[section] = {**target, **fields} if isinstance(target, dict) else dict(fields)
    return data


def read_record(record_text: str, derived_text: str | None) -> Record:
    """The stored record with its stage outputs. Raises ValidationError/ValueError when it does not parse.

    The record is parsed from its JSON text in one pass (the fast path: the context is most of it); only
    the small sections the stages add to are merged as Python data and validated again."""
    record = Record.model_validate_json(record_text)
    if not derived_text:
        return record
    update = {}
    for section, fields in check(fast_json.loads(derived_text)).items():
        current = getattr(record, section)
        update[section] = type(current).model_validate({**current.model_dump(), **fields})
    return record.model_copy(update=update)


def with_changes(derived_text: str | None, changes: dict[str, dict[str, Any]]) -> str:
    """The derived column after a stage sets `changes` ({section: {field: value}}), other outputs kept."""
    derived = fast_json.loads(derived_text) if derived_text else {}
    check(changes)  # the same checks as on reading: a bad write fails here, not on every later read
    for section, fields in changes.items():
        derived[section] = {**derived.get(section, {}), **fields}
    # pydantic's serialiser: models (evidence) are written by their own schema, as `model_dump_json` would,
    # and NaN/Infinity stay the constants `json.dumps` writes; several times faster than `json.dumps`.
    return to_json(derived, inf_nan_mode="constants").decode()
