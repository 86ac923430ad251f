"""The options of one run, checked at the CLI boundary."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

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
    label_studio_url: str | None = None
    label_studio_api_key: str | None = Field(default=None, repr=False)  # a secret: never printed
    start_label_studio: bool = False
    label_studio_port: int | None = Field(default=None, ge=1, le=65535)
    keep_label_studio: bool = False
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
    push: str | None = None  # a Hub repo id (owner/name) or a local folder: see exports.hub.parse_target
    private: bool = False
    dry_run: bool = False
    status_only: bool = False
    list_rejections: bool = False

    @field_validator("release")
    @classmethod
    def _semver(cls, value: str | None) -> str | None:
        if value is not None and not SEMVER.match(value):
            raise ValueError(f"release version {value!r} is not a semantic version like 0.1.0")
        return value

    @field_validator("push")
    @classmethod
    def _push_target(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return value
        if not info.data.get("release"):
            raise ValueError("needs --release VERSION: the release to publish (written now, or an existing one)")
        from exports.hub import parse_target

        parse_target(value)  # a clear ValueError for an empty target
        return value

    @field_validator("private", "dry_run")
    @classmethod
    def _only_with_push(cls, value: bool, info: ValidationInfo) -> bool:
        if value and not info.data.get("push"):
            raise ValueError("only applies with --push REPO_ID|FOLDER")
        return value
