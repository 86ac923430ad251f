"""The options of one run, checked at the CLI boundary."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from judge.rubric import DEFAULT_THRESHOLD

SEMVER = re.compile(r"^\d+\.\d+\.\d+$")


class RunOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: Literal["hotpotqa", "olmocr", "ami"]
    workspace: Path = Path("workspace")
    sample: bool = False
    input: Path | None = None
    from_hub: bool = False
    limit: int | None = Field(default=None, ge=1)
    seed: int = 0
    context: Literal["all", "supporting"] = "all"
    max_context_tokens: int | None = Field(default=None, ge=100)
    categories: list[str] | None = None
    ocr_server: str | None = None  # "cpu", a URL, or None (olmocr starts vLLM on a GPU)
    ocr_markdown: Path | None = None
    ocr_model: str | None = None
    min_ocr_pass_rate: float = Field(default=0.5, ge=0.0, le=1.0)
    authored: Path | None = None
    judge: Literal["heuristic", "gemini", "openai"] = "heuristic"
    judge_model: str | None = None
    prefilter: bool = False
    draft: bool = False
    draft_model: str | None = None
    draft_limit: int | None = Field(default=None, ge=1)
    llm_base_url: str | None = None
    concurrency: int = Field(default=8, ge=1, le=1024)
    rpm: float | None = Field(default=None, gt=0)
    llm_timeout: float = Field(default=120.0, gt=0)
    batch: bool = False
    threshold: int = Field(default=DEFAULT_THRESHOLD, ge=0, le=100)
    release: str | None = None
    status_only: bool = False
    list_rejections: bool = False

    @field_validator("release")
    @classmethod
    def _semver(cls, value: str | None) -> str | None:
        if value is not None and not SEMVER.match(value):
            raise ValueError(f"release version {value!r} is not a semantic version like 0.1.0")
        return value
