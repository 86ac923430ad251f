"""A source is one module: everything the stages ask of one kind of source material, and the registry that finds it.

A source decides its name, modality and release config, how its items are loaded (from `--input`, from its
embedded sample, from the Hub) with the inputs it could not use, its own CLI options, its Label Studio config,
what its draft and judge prompts add, its card section and release columns, and its sample. The stages ask the
source (`get_source(name)`); nothing outside a source's module branches on a source's name.

The built-in sources live in `loaders/sources/`. Another package adds one by registering an object (an instance
of `Source`) under the entry-point group `sob_curation_toolkit.sources`, for example in its pyproject.toml:

    [project.entry-points."sob_curation_toolkit.sources"]
    invoices = "my_package.invoices:SOURCE"

Source modules are imported when the registry is first asked, so they keep their top-level imports light
(a loader's heavy libraries are imported inside `load`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module, resources
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:  # names in annotations only: core.models asks this registry, so no import back at run time
    from core.loading import LoadResult
    from core.models import SourceItem

ENTRY_POINT_GROUP = "sob_curation_toolkit.sources"
# The built-in sources, in the order lists and reports show them (their registration: the same objects are
# also declared as entry points in pyproject.toml).
BUILTIN_SOURCE_MODULES: tuple[str, ...] = (
    "loaders.sources.hotpotqa",
    "loaders.sources.olmocr",
    "loaders.sources.ami",
    "loaders.sources.documents",
)
Modality = Literal["text", "image", "audio"]
SOURCE_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")  # as core.models.SourceName
CONFIG_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")  # a Hub config name and a folder name


@dataclass(frozen=True)
class SourceCard:
    """What the card says about a source: licence, naming and attribution."""

    name: str
    pretty_name: str
    license: str  # Hugging Face licence id, for the front matter
    license_name: str
    license_url: str
    homepage: str
    task_categories: tuple[str, ...]
    tags: tuple[str, ...]
    description: str  # what the source material is
    attribution: str
    citation: str


@dataclass(frozen=True)
class ReleaseColumn:
    """One of the source's own release columns, taken from `record.metadata.extra[name]`."""

    name: str
    dtype: str  # a pyarrow type alias: "string", "int64", "float64", "bool"
    doc: str  # the card's description of the column


class NoOptions(BaseModel):
    """A source without options of its own."""

    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class LoadRequest:
    """Where a run's items come from, and the source's own options (an instance of its `options_model`)."""

    path: Path | None  # --input, the embedded sample, or None: the source's Hub dataset
    sample: bool
    workspace: Path
    options: BaseModel = field(default_factory=NoOptions)
    limit: int | None = None
    seed: int = 0
    echo: Callable[[str], None] = print


def quote(text: object) -> str:
    """Any input put in a prompt (context, seed question, metadata) as a JSON string, `<` escaped: no newline,
    `SYSTEM:` line or `</context>` inside it can land among the instructions."""
    return json.dumps(str(text), ensure_ascii=False).replace("<", "\\u003c")


class Source(ABC):
    """One kind of source material. Subclass it, set the class attributes and implement `load`.

    Class attributes a subclass sets: `name`, `modality`, `release_config`, `card`, `columns`, `label_config_file`,
    `judge_kind`, `sample_dir`; the others have defaults."""

    name: ClassVar[str]
    modality: ClassVar[Modality]
    release_config: str  # the Hub config (and release folder) of the source's records
    # (split, share in percent), in the order the splits are published
    splits: ClassVar[tuple[tuple[str, int], ...]] = (("train", 100),)
    card: ClassVar[SourceCard]
    card_template: ClassVar[str] = "source.md.j2"  # in data_cards/; the generic one renders `card_section`
    card_section: ClassVar[str] = ""  # Markdown: what this config's contexts and questions are
    card_attribution_extra: ClassVar[str] = ""  # Markdown added after the attribution
    columns: ClassVar[tuple[ReleaseColumn, ...]] = ()
    # (package, file) of the Label Studio authoring config; the controls are those of annotation_ui_config
    label_config_file: ClassVar[tuple[str, str]] = ("annotation_ui_config", "authoring_text.xml")
    judge_kind: ClassVar[str] = "text"  # how the judge and reviewer prompts name the material
    judge_dimensions: ClassVar[dict[str, str]] = {}  # scored besides the rubric's own dimensions
    # (package, name) of the draft template under `<package>/prompts/`; the generic one fills `$kind` and `$context`
    draft_template: ClassVar[tuple[str, str]] = ("authoring", "draft_generic")
    keeps_seed_question: ClassVar[bool] = False  # a draft keeps the item's seed question as written
    page_tasks: ClassVar[bool] = False  # Label Studio shows page images beside an editable transcript
    # every record carries its rendered pages, so `--with-page-images` can put them in the release
    release_page_images: ClassVar[bool] = False
    options_model: ClassVar[type[BaseModel]] = NoOptions
    sample_dir: ClassVar[Path]

    # -- loading ---------------------------------------------------------------------------------
    @abstractmethod
    def load(self, request: LoadRequest) -> LoadResult:
        """Every item of the request, and every input it could not use with a reason."""

    def stream(self, request: LoadRequest) -> tuple[Iterable[SourceItem], LoadResult]:
        """The items to consume once, and the result that holds their problems once they are consumed.
        By default everything is loaded first; a source that can stream overrides it."""
        result = self.load(request)
        return result.items, result

    def sample_input(self) -> Path:
        """What `--sample` loads."""
        return self.sample_dir

    def sample_authored(self) -> Path | None:
        """The curators' records of the sample (imported with `--sample`), if it has some."""
        path = self.sample_dir / "authored.jsonl"
        return path if path.is_file() else None

    # -- the CLI ----------------------------------------------------------------------------------
    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the source's own options (their `dest`s are the fields of `options_model`); none by default."""
        return None

    def configure(self, options: BaseModel) -> None:
        """Called once the run's options are known (a source whose release config is chosen by an option)."""
        return None

    # -- authoring and judging --------------------------------------------------------------------
    def label_config(self) -> str:
        package, name = self.label_config_file
        return resources.files(package).joinpath(name).read_text(encoding="utf-8")

    def draft_variables(self, item: SourceItem) -> dict[str, str]:
        """The values of the draft template's `$names` for one item (quoted with `quote`)."""
        return {"kind": quote(self.judge_kind), "context": quote(item.context)}

    def has_split(self, name: str) -> bool:
        return any(split == name for split, _ in self.splits)

    # -- configs kept apart -------------------------------------------------------------------------
    def partition(self, options: BaseModel) -> str:
        """The name the run's items and records are kept under: the source's own, or `NAME@CONFIG` for a source
        whose option names the release config (its items and records then never mix with another config's)."""
        return self.name

    def for_config(self, config: str) -> Source:
        """This source kept apart under release config `config` (`get_source("NAME@CONFIG")`)."""
        raise ValueError(f"--source {self.name} has no configs of its own: its release config is {self.release_config}")


@cache
def _registry() -> dict[str, Source]:
    found: dict[str, Source] = {}
    for module in BUILTIN_SOURCE_MODULES:
        source = import_module(module).SOURCE
        found[source.name] = source
    for entry in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        if entry.name in found:
            continue  # a built-in, registered in pyproject.toml as well
        try:
            source = entry.load()
        except Exception as exc:  # a broken plugin must not stop the built-in sources: say so and go on
            print(f"warning: source {entry.name!r} ({entry.value}) cannot be loaded: {exc}", file=sys.stderr)
            continue
        if not isinstance(source, Source) or source.name != entry.name or not SOURCE_NAME.fullmatch(entry.name):
            print(
                f"warning: entry point {entry.name!r} = {entry.value} is not a core.sources.Source named "
                f"{entry.name!r} (a name of lower-case letters, digits and '_'); left out",
                file=sys.stderr,
            )
            continue
        found[source.name] = source
    return found


def source_names() -> tuple[str, ...]:
    """Every registered source: the built-ins first, then those of other packages by name."""
    return tuple(_registry())


CONFIG_SEPARATOR = "@"  # `documents@invoices`: the documents of release config `invoices`, kept apart
_config_sources: dict[str, Source] = {}


def get_source(name: str) -> Source:
    """A registered source by name, or `NAME@CONFIG`: that source kept apart under release config CONFIG."""
    base, separator, config = name.partition(CONFIG_SEPARATOR)
    try:
        source = _registry()[base]
    except KeyError:
        raise ValueError(f"unknown source {name!r}; known: {', '.join(source_names())}") from None
    if not separator:
        return source
    if name not in _config_sources:  # the same object every time: a worker process builds its own the same way
        _config_sources[name] = source.for_config(check_config_name(config))
    return _config_sources[name]


def source_family(name: str) -> str:
    """The registered source of a name (`documents` of `documents@invoices`): what a release's manifest names."""
    return name.partition(CONFIG_SEPARATOR)[0]


def is_source(name: str) -> bool:
    """A name `get_source` answers (a registered source, or one of its configs)."""
    try:
        get_source(name)
    except ValueError:
        return False
    return True


def sources() -> tuple[Source, ...]:
    return tuple(_registry().values())


def source_for_config(config: str) -> Source | None:
    """The source whose records a release config holds (None for a config no source has)."""
    kept_apart = tuple(_config_sources.values())
    return next((s for s in (*kept_apart, *sources()) if s.release_config == config), None)


def release_config_of(source: str) -> str:
    return get_source(source).release_config


def source_order(name: str) -> tuple[int, str]:
    """Sort key: registry order, unknown names last."""
    names = source_names()
    return (names.index(name) if name in names else len(names), name)


def reload_registry() -> None:
    """Forget the registry (tests that install a source package, or change `sys.path`, then ask again)."""
    _registry.cache_clear()
    _config_sources.clear()


def check_config_name(config: str) -> str:
    if not isinstance(config, str) or not CONFIG_NAME.fullmatch(config):  # fullmatch: `$` would allow "x\n"
        raise ValueError(
            f"{config!r} is not a usable config name: letters, digits, '_', '-' and '.', starting with a letter "
            "or digit, at most 64 characters"
        )
    return config
