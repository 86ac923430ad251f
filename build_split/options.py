"""The options of one run, checked at the CLI boundary."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from core.llm.failures import DEFAULT_MAX_CONSECUTIVE_FAILURES
from core.sources import get_source, source_names, sources
from exports.dataset_description import DatasetDescription
from exports.versions import parse_version
from judge.rubric import DEFAULT_THRESHOLD
from validation.rules import RuleSet, rule_set


class RunOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str  # a registered source (core/sources.py)
    # The source's own options (an instance of its `options_model`); given as a dict, or as keyword arguments
    # named after its fields (`RunOptions(source="olmocr", mix="sob")`).
    source_options: Any = None
    workspace: Path = Path("workspace")
    sample: bool = False
    input: Path | None = None
    from_hub: bool = False
    limit: int | None = Field(default=None, ge=1)
    seed: int = 0
    label_studio_url: str | None = None
    label_studio_api_key: str | None = Field(default=None, repr=False)  # a secret: never printed
    start_label_studio: bool = False
    label_studio_port: int | None = Field(default=None, ge=1, le=65535)
    label_studio_workers: int = Field(default=1, ge=1, le=64)  # a started Label Studio's processes
    keep_label_studio: bool = False
    database: str | None = None  # PostgreSQL for a started Label Studio: postgresql://USER@HOST:PORT/NAME, no password
    label_studio_media: Literal["auto", "local-files", "upload"] = "auto"  # how page images reach Label Studio
    authored: Path | None = None
    serve: bool = False  # keep syncing with Label Studio until stopped (build_split/service.py)
    listen: str | None = None  # with serve: HOST:PORT for Label Studio's webhooks (a server on another host)
    adopt: bool = False  # write into a Label Studio project another workspace made
    overlap: int = Field(default=1, ge=1, le=2)  # curators who author each record independently
    blind_second: bool = False  # with overlap 2: the second curator never sees the draft's answer
    overwrite: bool = False  # apply incoming versions that conflict with another origin's (core/revisions.py)
    judge: Literal["heuristic", "gemini", "openai"] = "heuristic"
    judge_model: str | None = None
    prefilter: bool = False
    review: bool = False  # the reviewer pass (Gemini 2.5 Flash) between validation and the judge
    review_model: str | None = None
    audit: int | None = Field(default=None, ge=1, le=10_000)  # records per residual-error audit round
    rounds: int = Field(default=5, ge=1, le=100)
    draft: bool = False
    draft_model: str | None = None
    draft_limit: int | None = Field(default=None, ge=1)
    llm_base_url: str | None = None
    concurrency: int = Field(default=8, ge=1, le=1024)
    rpm: float | None = Field(default=None, gt=0)
    llm_timeout: float = Field(default=120.0, gt=0)
    batch: bool = False
    retry_failed: bool = False  # ask again for LLM replies cached as malformed (and rejected drafts)
    max_consecutive_failures: int = Field(default=DEFAULT_MAX_CONSECUTIVE_FAILURES, ge=0)  # 0: never stop
    threshold: int = Field(default=DEFAULT_THRESHOLD, ge=0, le=100)
    # The gate's rule set (validation/rules/selection.py): codes of docs/rules.md.
    select: list[str] | None = None  # exactly these flag/note rules run (None: the catalogue's defaults)
    ignore: list[str] = Field(default_factory=list)
    reject: list[str] = Field(default_factory=list)  # flags that reject instead of holding the record
    allow_unreviewed: bool = False  # write a release whose rows only the heuristic pre-filter checked
    release_partial: bool = False  # write a release while records wait on a transient LLM failure
    release: str | None = None
    test_size: int | None = Field(default=None, ge=1)  # a fixed-size, stratified, sticky test split
    calibration: Path | None = None  # `python -m judge.calibrate --output` figures, stated in the release card
    with_page_images: bool = False  # the release gets a `page_image` column (exports/page_images.py)
    push: str | None = None  # a Hub repo id (owner/name) or a local folder: see exports.hub.parse_target
    private: bool = False
    dry_run: bool = False
    description: DatasetDescription | None = None  # the project file's title, licence, citation (the card's)
    status_only: bool = False
    list_rejections: bool = False

    @model_validator(mode="before")
    @classmethod
    def _gather_source_options(cls, data: Any) -> Any:
        """Keyword arguments that are no field of the run are the source's own options."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        given = dict(data.pop("source_options", None) or {})
        for key in [k for k in data if k not in cls.model_fields]:
            given[key] = data.pop(key)
        data["source_options"] = given
        return data

    @model_validator(mode="after")
    def _known_rules(self) -> RunOptions:
        self.rule_set()  # an unknown code, or a guard turned off, is refused here with its one-line reason
        return self

    def rule_set(self) -> RuleSet:
        return rule_set(self.select, self.ignore, self.reject)

    @field_validator("source")
    @classmethod
    def _registered(cls, value: str) -> str:
        get_source(value)  # a clear ValueError that lists the registered sources
        return value

    @field_validator("source_options")
    @classmethod
    def _source_options(cls, value: Any, info: ValidationInfo) -> Any:
        name = info.data.get("source")
        if name is None:
            return value  # the source itself was refused
        source = get_source(name)
        if isinstance(value, source.options_model):
            return value
        given = dict(value or {})
        owned = source.options_model.model_fields
        for key in given:
            if key not in owned:
                owners = [s.name for s in sources() if key in s.options_model.model_fields]
                flag = "--" + key.replace("_", "-")
                if not owners:
                    raise ValueError(f"{flag}: no source has this option")
                raise ValueError(f"{flag}: only applies with --source {' or '.join(owners)}")
        try:
            options = source.options_model.model_validate(given)
        except ValidationError as exc:
            raise ValueError(
                "; ".join(
                    ("--" + "-".join(str(p) for p in e["loc"]).replace("_", "-") + ": " if e["loc"] else "")
                    + str(e["msg"]).removeprefix("Value error, ")
                    for e in exc.errors()
                )
            ) from None
        source.configure(options)
        return options

    @model_validator(mode="after")
    def _kept_apart(self) -> RunOptions:
        """A config with its own items and records (`documents@invoices`): every stage keys on it."""
        self.source = get_source(self.source).partition(self.source_options)
        return self

    @field_validator("input")
    @classmethod
    def _one_input(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        if value is not None and info.data.get("sample"):
            raise ValueError(
                "--sample and --input both say where the source items come from: pass one of them "
                "(--sample loads the embedded sample, --input PATH your files)"
            )
        return value

    @field_validator("from_hub")
    @classmethod
    def _hub_alone(cls, value: bool, info: ValidationInfo) -> bool:
        if value and (info.data.get("sample") or info.data.get("input") is not None):
            raise ValueError("--from-hub cannot be combined with --sample or --input: pass one source of items")
        return value

    @field_validator("label_studio_workers")
    @classmethod
    def _workers_of_a_started_server(cls, value: int, info: ValidationInfo) -> int:
        if value > 1 and not info.data.get("start_label_studio"):
            raise ValueError("sets the processes of a Label Studio the toolkit starts: add --start-label-studio")
        return value

    @field_validator("database")
    @classmethod
    def _database_url(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and not info.data.get("start_label_studio"):
            raise ValueError("is the database of a Label Studio the toolkit starts: add --start-label-studio")
        if value is not None:
            from authoring.database import parse_database_url

            parse_database_url(value, from_argv=True)  # a clear error now, not when Label Studio starts
        return value

    @field_validator("blind_second")
    @classmethod
    def _blind_needs_two(cls, value: bool, info: ValidationInfo) -> bool:
        if value and info.data.get("overlap", 1) < 2:
            raise ValueError("needs --overlap 2: the second curator is the one who works without the draft's answer")
        return value

    @field_validator("listen")
    @classmethod
    def _host_port(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None:
            parse_listen(value)
            if not info.data.get("serve"):
                raise ValueError("it takes Label Studio's webhooks for --serve: add --serve")
        return value

    @field_validator("release")
    @classmethod
    def _semver(cls, value: str | None) -> str | None:
        if value is not None:
            parse_version(value)  # the release writer's own rule: MAJOR.MINOR.PATCH without leading zeros
        return value

    @field_validator("test_size")
    @classmethod
    def _test_split(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None and not info.data.get("release"):
            raise ValueError("needs --release VERSION: the test size applies when a release is written")
        source = info.data.get("source")
        if value is not None and source is not None and not get_source(source).has_split("test"):
            with_test = [name for name in source_names() if get_source(name).has_split("test")]
            raise ValueError(
                f"only the text config has a test split: {source}'s release has none "
                f"(--source {' or '.join(with_test)} has one)"
            )
        return value

    @field_validator("with_page_images")
    @classmethod
    def _page_images(cls, value: bool, info: ValidationInfo) -> bool:
        from exports import page_images

        if value and not info.data.get("release"):
            raise ValueError("needs --release VERSION: the page images are a column of the release")
        if value and not page_images.supports(str(info.data.get("source"))):
            raise ValueError(f"only {', '.join(page_images.sources_with_pages())} records have rendered pages")
        return value

    @field_validator("calibration")
    @classmethod
    def _calibration_file(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        if value is not None and not info.data.get("release"):
            raise ValueError("needs --release VERSION: the calibration is stated in the release card")
        if value is not None and not value.is_file():
            raise ValueError(f"{value} is not a file: write it with python -m judge.calibrate ... --output FILE.json")
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


def parse_listen(value: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:PORT` for IPv6) as given to --listen; ValueError saying what is wrong."""
    host, sep, port = value.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{value!r} is not HOST:PORT (e.g. 0.0.0.0:8765)")
    return host, int(port)
