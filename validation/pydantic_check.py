"""Re-validate a record through the `Record` model: fields assigned after construction are not checked
by pydantic (no `validate_assignment`), and import code needs the same failures for raw dicts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError

from core.models import Record
from core.verdicts import ValidationFailure
from validation import paths

CHECK = "pydantic"


def parse_record(data: Record | Mapping[str, Any] | Any) -> tuple[Record | None, list[ValidationFailure]]:
    """The validated `Record` (a fresh copy) and no failures, or None and every pydantic error."""
    if isinstance(data, BaseModel):
        try:
            # warnings off: a wrongly typed field is reported below by validation, not as a warning
            data = data.model_dump(warnings=False)
        except PydanticSerializationError as exc:
            return None, [
                ValidationFailure(check=CHECK, code="pydantic_serialization", message=paths.shorten(str(exc)))
            ]
    try:
        return Record.model_validate(data), []
    except ValidationError as exc:
        return None, [_failure(error) for error in exc.errors(include_url=False)]


def check_pydantic(data: Record | Mapping[str, Any] | Any) -> list[ValidationFailure]:
    """Every pydantic error as `pydantic_<error type>` (e.g. `pydantic_missing`) at its field path."""
    return parse_record(data)[1]


def _failure(error: Any) -> ValidationFailure:
    path = paths.join(error["loc"])
    return ValidationFailure(
        check=CHECK, code=f"pydantic_{error['type']}", message=paths.shorten(f"{path}: {error['msg']}"), path=path
    )
