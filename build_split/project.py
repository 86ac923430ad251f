"""The project file (`sob-project.toml`): what the dataset is (title, description, licence, citation, languages, Hub
repo) and how each of its configs is built (source, inputs, source options, judge, threshold, workspace).

Read with `tomllib`, checked by Pydantic; an error names the key and its line. `python -m build_split init` writes a
commented one. Every command reads the file found in the current folder or a parent (or `--project FILE`); a flag
given on the command line overrides it. Relative paths in it are relative to the file's folder.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from core.sources import CONFIG_NAME, get_source, source_names, sources
from exports.dataset_description import DatasetDescription
from validation.rules.selection import rule_set

PROJECT_FILENAME = "sob-project.toml"
DATASET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")  # a Hub repo name


class ProjectError(ValueError):
    """A project file that cannot be used; the message names the file, the key and its line."""


class DatasetSection(DatasetDescription):
    """`[dataset]`: the dataset as its card and the Hub show it."""

    name: str = Field(pattern=DATASET_NAME.pattern)
    description_file: Path | None = None  # Markdown the curator owns; read at each release instead of `description`

    @model_validator(mode="after")
    def _one_description(self) -> DatasetSection:
        if self.description_file is not None and self.description.strip():
            raise ValueError("give description or description_file, not both")
        return self


class RulesSection(BaseModel):
    """`[configs.NAME.rules]`: the gate's rule set (codes of docs/rules.md), as --select/--ignore/--reject say it."""

    model_config = ConfigDict(extra="forbid")

    select: list[str] | None = None  # exactly these flag rules run (None: the catalogue's defaults)
    ignore: list[str] = Field(default_factory=list)  # flag rules turned off
    reject: list[str] = Field(default_factory=list)  # flags that reject the record instead of holding it

    @model_validator(mode="after")
    def _known_codes(self) -> RulesSection:
        rule_set(self.select, self.ignore, self.reject)  # an unknown code, or a rejection turned off: a clear error
        return self


class ConfigSection(BaseModel):
    """`[configs.NAME]`: one release config, and where its items come from."""

    model_config = ConfigDict(extra="forbid")

    source: str
    sample: bool = False
    input: Path | None = None
    from_hub: bool = False
    options: dict[str, Any] = Field(default_factory=dict)  # the source's own options (text_column, ocr_server, ...)
    judge: Literal["heuristic", "gemini", "openai"] | None = None
    judge_model: str | None = None
    threshold: int | None = Field(default=None, ge=0, le=100)
    workspace: Path | None = None  # else the project's
    rules: RulesSection = Field(default_factory=lambda: RulesSection())

    @model_validator(mode="after")
    def _one_input(self) -> ConfigSection:
        given = [name for name in ("sample", "input", "from_hub") if getattr(self, name) not in (None, False)]
        if len(given) > 1:
            raise ValueError(f"{' and '.join(given)} both say where the items come from: keep one")
        get_source(self.source)  # a clear error that lists the registered sources
        return self


class ProjectFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dataset: DatasetSection
    workspace: Path = Path("workspace")
    configs: dict[str, ConfigSection] = Field(min_length=1)

    @model_validator(mode="after")
    def _config_names(self) -> ProjectFile:
        for name, entry in self.configs.items():
            if not CONFIG_NAME.match(name):
                raise ValueError(f"configs.{name}: not a usable config name (letters, digits, '_', '-', '.')")
            source = get_source(entry.source)
            if "config" not in source.options_model.model_fields and name != source.release_config:
                raise ValueError(
                    f"configs.{name}: --source {entry.source} releases config {source.release_config!r}; "
                    f"name this table [configs.{source.release_config}]"
                )
        return self


class Project:
    """A read project file: its folder (for relative paths) and its validated content."""

    def __init__(self, path: Path, content: ProjectFile) -> None:
        self.path = path
        self.folder = path.parent
        self.content = content

    def resolve(self, path: Path | None) -> Path | None:
        return None if path is None else (path if path.is_absolute() else self.folder / path)

    def description(self) -> DatasetDescription:
        """The card's description; a description file is read now, so the curator's edits reach the next release."""
        dataset = self.content.dataset
        fields = dataset.model_dump(exclude={"name", "description_file"})
        if dataset.description_file is not None:
            file = self.resolve(dataset.description_file)
            assert file is not None
            try:
                fields["description"] = file.read_text(encoding="utf-8")
            except OSError as exc:
                raise ProjectError(f"{self.path}: dataset.description_file: {file} cannot be read ({exc})") from exc
        return DatasetDescription.model_validate(fields)

    def pick(self, source: str | None, config: str | None) -> tuple[str, ConfigSection] | None:
        """The config a command works on: named by `--config`, else the one of `--source`, else the only one."""
        configs = self.content.configs
        if config is not None and config in configs:
            return config, configs[config]
        if config is not None:
            return None  # a config the project does not list: the flags alone say what to do
        matching = {name: c for name, c in configs.items() if source is None or c.source == source}
        if len(matching) == 1:
            return next(iter(matching.items()))
        if not matching:
            return None
        listed = ", ".join(f"{name} (--source {c.source})" for name, c in matching.items())
        raise ProjectError(f"{self.path} has {len(matching)} configs ({listed}): say which with --config NAME")


def find_project(start: Path) -> Path | None:
    """The project file in `start` or the nearest parent folder that has one."""
    for folder in (start.resolve(), *start.resolve().parents):
        candidate = folder / PROJECT_FILENAME
        if candidate.is_file():
            return candidate
    return None


def key_line(text: str, location: tuple[str | int, ...]) -> int | None:
    """The line (1-based) where the key at `location` (as Pydantic reports it) is written, or its table's line."""
    keys = [str(part) for part in location]
    table: list[str] = []
    best: int | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        header = re.match(r"^\[\s*([^\[\]]+?)\s*\]$", line)
        if header:
            table = [part.strip().strip('"') for part in header.group(1).split(".")]
            if keys[: len(table)] == table:
                best = number
            continue
        assignment = re.match(r'^"?([A-Za-z0-9_.-]+)"?\s*=', line)
        if assignment and table + [assignment.group(1)] == keys[: len(table) + 1]:
            return number
    return best


def load_project(path: Path) -> Project:
    """The project file at `path`, checked; a ProjectError names the key and its line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProjectError(f"{path} cannot be read: {exc.strerror or exc}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProjectError(f"{path}: not valid TOML: {exc}") from exc
    try:
        return Project(path, ProjectFile.model_validate(data))
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            location = tuple(p for p in error["loc"] if p not in ("function-after[_one_input(), ConfigSection]",))
            key = ".".join(str(p) for p in location) or "(the file)"
            line = key_line(text, location) if location else None
            message = str(error["msg"]).removeprefix("Value error, ")
            problems.append(f"{key}{f' (line {line})' if line else ''}: {message}")
        raise ProjectError(f"{path}: " + "; ".join(problems)) from None


INIT_TEMPLATE = '''# {filename}: what this dataset is and how each of its configs is built.
# Every `python -m build_split` command run in this folder (or below it) reads this file; a flag given on the
# command line overrides what it says here. Paths are relative to this file's folder.

workspace = "workspace"               # the curation store, Label Studio's data and the releases

[dataset]
name = "{name}"  # the dataset's name (its Hub repo name)
title = "{title}"
# What the dataset is for and who made it (Markdown). Shown at the top of every card, and kept on every push.
# Or keep it in a Markdown file of your own: description_file = "DATASET.md"
description = """
{description}
"""
license = "{license}"                 # the Hub's licence id, an SPDX id in lower case (cc-by-4.0, mit, ...);
# or license = "other" with the terms named and linked:
# license_name = "The XYZ data licence"
# license_link = "https://example.org/terms"
citation = """
{citation}
"""
languages = ["en"]                    # ISO 639 codes of the contexts' languages
# hub_repo = "your-name/{name}"  # where `--push` publishes (HF_TOKEN in the environment)

# One table per release config. `source`: {sources}.
# Inputs: sample = true (the embedded sample), input = "FOLDER_OR_FILE", or from_hub = true.
[configs.{config}]
source = "{source}"
{input_line}
# judge = "heuristic"                 # heuristic (offline), gemini or openai; default: gemini when a key is set
# threshold = 60                      # reject a record scoring below this on any dimension
# workspace = "workspace"             # this config's own workspace, if it needs one
# [configs.{config}.rules]    # the gate's rules (docs/rules.md): turn a noisy flag off, or make one a rejection
# ignore = ["value_not_near_entity"]
# reject = ["scale_dropped"]
# [configs.{config}.options]  # the source's own options, as its flags name them (text_column, ...)
# ocr_server = "cpu"
'''


class InitAnswers(BaseModel):
    """What `init` writes into a new project file (its flags)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="my-dataset", pattern=DATASET_NAME.pattern)
    title: str = Field(default="My structured-output benchmark", min_length=1)
    description: str = "Records pairing a context, a question and a JSON Schema with a curated JSON answer."
    license: str = "cc-by-4.0"
    citation: str = ""
    source: str | None = None  # default: the source of the curator's own files (its option names its config)
    config: str | None = None
    sample: bool = False
    input: Path | None = None


def _toml_string(value: str) -> str:
    """A value for a TOML basic string (the quotes are the template's)."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def init_project(path: Path, answers: InitAnswers, *, force: bool = False) -> Path:
    """Write a commented project file; refuses to overwrite one unless `force`. The result is read back and
    checked, so what `init` writes is always a project every command accepts."""
    if path.exists() and not force:
        raise ProjectError(f"{path} exists: edit it, or pass --force to write a new one over it")
    source_name = answers.source or next(
        (s.name for s in sources() if "config" in s.options_model.model_fields), source_names()[0]
    )
    source = get_source(source_name)
    own_config = source.options_model.model_fields.get("config")  # a source whose option names its config
    config = answers.config or (str(own_config.default) if own_config is not None else source.release_config)
    citation = answers.citation.strip() or (
        f"@misc{{{re.sub(r'[^A-Za-z0-9]', '_', answers.name)},\n"
        f"  title = {{{answers.title}}},\n  year = {{2026}},\n  note = {{Built with the SOB curation toolkit}}\n}}"
    )
    if answers.input is not None:
        input_line = f'input = "{_toml_string(answers.input.as_posix())}"'
    elif answers.sample:
        input_line = "sample = true"
    else:
        input_line = '# input = "my_documents"               # or: sample = true'
    text = INIT_TEMPLATE.format(
        filename=path.name,
        name=answers.name,
        title=_toml_string(answers.title),
        description=answers.description.replace('"""', '\\"\\"\\"'),
        license=_toml_string(answers.license),
        citation=citation.replace('"""', '\\"\\"\\"'),
        sources=", ".join(source_names()),
        config=config,
        source=source_name,
        input_line=input_line,
    )
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    try:
        load_project(tmp)
    except ProjectError as exc:
        tmp.unlink()
        raise ProjectError(str(exc).replace(str(tmp), str(path))) from None
    tmp.replace(path)
    return path
