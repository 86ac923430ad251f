"""The judge interface and the stage that runs a judge over validated records."""

from __future__ import annotations

from typing import Protocol

from core.models import Record
from core.verdicts import JudgeVerdict, ValidationReport


class Judge(Protocol):
    name: str
    version: str

    def judge(self, record: Record, report: ValidationReport, threshold: int) -> JudgeVerdict: ...
