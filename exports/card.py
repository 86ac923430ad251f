"""The dataset card (README.md): a `huggingface_hub.DatasetCard` whose front matter `DatasetCardData` writes and
whose Markdown text is rendered from data_cards/*.md.j2."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from importlib import resources
from typing import Any

import jinja2

from core.sources import SourceCard, get_source, is_source, source_names
from exports import page_images as page_images_mod
from exports.changelog import CARD_ID_LIMIT, CHANGE_KINDS
from exports.columns import arrow_schema
from exports.dataset_description import DatasetDescription, curator_section
from exports.features import features_yaml
from exports.plots import PLOT_FILES
from validation.characters import visible


class _SourceCards(Mapping[str, SourceCard]):
    """Source name -> what its card says (licence, naming, attribution), as each source declares it."""

    def __getitem__(self, source: str) -> SourceCard:
        if not is_source(source):
            raise KeyError(source)
        return get_source(source).card

    def __iter__(self) -> Iterator[str]:
        return iter(source_names())

    def __len__(self) -> int:
        return len(source_names())


SOURCE_CARDS: Mapping[str, SourceCard] = _SourceCards()

COLUMN_DOCS: dict[str, str] = {
    "record_id": "SHA-256 of source, source id and question; stable across edits",
    "context": "the text the question is asked about",
    "question": "the instruction / question to answer in JSON",
    "json_schema": "JSON Schema the answer must follow (JSON string)",
    "ground_truth": "curated reference answer, valid against `json_schema` (JSON string)",
    "validated_output": "the ground truth as checked by the validation stage; null if not recorded (JSON string)",
    "question_difficulty": "difficulty of the question, from the source where it has one",
    "schema_complexity": "easy / medium / hard, from the schema's size and depth",
    "source_id": "id of the item in the source dataset",
    "annotator": "curator who wrote or approved the ground truth",
    "draft_model": "model that drafted the answer the curator edited, if any",
    "judge": "judge that scored the record",
    "judge_scores": "judge score per dimension, 0-100 (JSON string)",
    "grounded_fraction": "share of the answer's leaf values found in the context",
}


def size_category(n: int) -> str:
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < bound:
            return label
    return "1M<n<10M"


class CardError(ValueError):
    """A card the Hub or `datasets` would not read as written."""


def dataset_info(
    source: str, config: str, listed: list[str], data_files: dict[str, dict[str, Any]], page_images: bool = False
) -> dict[str, Any]:
    """The config's `dataset_info`, with the Hub's meaning of every size: a split's `num_bytes` is its rows'
    Arrow size, `dataset_size` their sum, `download_size` the size of the Parquet files to download."""
    by_split = {file["split"]: file for file in data_files.values()}
    splits = [
        {"name": split, "num_bytes": int(by_split[split]["num_bytes"]), "num_examples": int(by_split[split]["rows"])}
        for split in listed
    ]
    return {
        "config_name": config,
        "features": features_yaml(source, page_images),
        "splits": splits,
        "download_size": sum(int(by_split[split]["bytes"]) for split in listed),
        "dataset_size": sum(s["num_bytes"] for s in splits),
    }


def front_matter(
    source: str,
    config: str,
    splits: list[str],
    counts: dict[str, int],
    data_files: dict[str, dict[str, Any]] | None = None,
    page_images: bool = False,
    description: DatasetDescription | None = None,
) -> dict[str, Any]:
    """Hub metadata (the project's title, licence and languages where it has a `description`). Empty splits are
    left out of `configs`: `datasets` cannot load a split with no
    rows, and one such split makes the whole config unloadable (huggingface/datasets#8401).

    With `data_files` (the manifest's: name -> split, rows, bytes, num_bytes, sha256), each split names its
    content-addressed file and `dataset_info` declares the features and sizes."""
    info = SOURCE_CARDS[source]
    listed = [split for split in splits if counts.get(split, 0) > 0]
    if data_files is None:
        paths = {split: f"data/{split}-*.parquet" for split in listed}
    else:
        paths = {file["split"]: name for name, file in sorted(data_files.items())}
    entry: dict[str, Any] = {
        "config_name": config,
        "data_files": [{"split": split, "path": paths[split]} for split in listed],
    }
    meta = {
        "license": info.license,
        "language": ["en"],
        "pretty_name": info.pretty_name,
        "task_categories": list(info.task_categories),
        "tags": list(info.tags),
        "size_categories": [size_category(sum(counts.values()))],
        "configs": [entry],
    }
    if description is not None:
        meta |= description.front_matter()
    if data_files is not None:
        meta["dataset_info"] = dataset_info(source, config, listed, data_files, page_images)
    return meta


# How `DatasetCard.from_template` lays a card out: huggingface_hub writes the YAML front matter (`card_data`);
# the Markdown text is inserted as it is (a value, never parsed as a template).
CARD_LAYOUT = "---\n{{ card_data }}\n---\n\n{{ text }}"


def dataset_card(meta: dict[str, Any], text: str) -> Any:
    """The `huggingface_hub.DatasetCard` of front matter `meta` (through `DatasetCardData`) and Markdown `text`,
    checked with `validate_card`; `str(card)` is the README."""
    from huggingface_hub import DatasetCard, DatasetCardData

    card = DatasetCard.from_template(DatasetCardData(**meta), template_str=CARD_LAYOUT, text=text.lstrip("\n"))
    validate_card(str(card))
    return card


def validate_card(text: str) -> Any:
    """The card parsed by `huggingface_hub.DatasetCard`, with its `configs` and `dataset_info` read the way
    `datasets` reads them; raises `CardError` on anything either would reject or misread."""
    import yaml
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    try:
        card = DatasetCard(text)
        configs = MetadataConfigs.from_dataset_card_data(card.data)
        infos = DatasetInfosDict.from_dataset_card_data(card.data)
    except (ValueError, TypeError, KeyError, yaml.YAMLError) as exc:
        raise CardError(f"the dataset card does not parse as the Hub and `datasets` read it: {exc}") from exc
    for name, info in infos.items():
        if name not in configs:
            raise CardError(f"the card's dataset_info names config {name!r}, which its `configs` do not list")
        if info.features is None:
            raise CardError(f"the card's dataset_info of config {name!r} declares no features")
        listed = {entry["split"] for entry in configs[name].get("data_files", [])}
        if set(info.splits or {}) != listed:
            raise CardError(
                f"config {name!r}: dataset_info splits {sorted(info.splits or {})} differ from its data files "
                f"{sorted(listed)}"
            )
    return card


def _fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _code(value: Any) -> str:
    """A value from input data (a curator's name, a model, a record id) as one inline code span that nothing
    in it can leave: no Markdown or HTML inside it is rendered, a `|` cannot end its table cell and a line
    break cannot end its line. Invisible characters are shown escaped (validation/characters.py)."""
    text = visible(str(value)).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fenced(text: str, language: str = "") -> str:
    """A code block that nothing in `text` can close (its fence is longer than any run of backticks inside)."""
    fence = "`" * max(3, max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def _environment() -> jinja2.Environment:
    folder = resources.files("data_cards")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        autoescape=False,  # Markdown, not HTML
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fmt"] = _fmt
    env.filters["pct"] = _pct
    env.filters["code"] = _code
    env.filters["fenced"] = _fenced
    return env


def render_card(
    *,
    source: str,
    config: str,
    version: str,
    parent: str | None,
    splits: list[str],
    stats: dict[str, Any],
    funnel: dict[str, Any],
    judge_name: str,
    judge_version: str,
    threshold: int | float,
    toolkit_version: str,
    rubric_version: str | None = None,
    changelog: dict[str, Any] | None = None,
    review: dict[str, Any] | None = None,
    flags: dict[str, Any] | None = None,
    calibration: dict[str, Any] | None = None,
    plots: dict[str, str] | None = None,
    plots_skipped_reason: str | None = None,
    data_files: dict[str, dict[str, Any]] | None = None,
    page_images: bool = False,
    description: DatasetDescription | None = None,
    curator_text: str | None = None,
    example: dict[str, Any] | None = None,
) -> str:
    """README.md text for a release: its Markdown from `data_cards/<config>.md.j2`, its front matter written by
    `huggingface_hub` (`dataset_card`).

    `flags` (exports/flags.py) counts the flags raised, fixed and dismissed and the records still in
    `needs_review`; `calibration` (judge/calibrate.py's card summary) is what the judge measured on a labelled set.
    `plots` maps a plot key (see `exports.plots.PLOT_FILES`) to its path relative to the card;
    `data_files` (the manifest's `files`) puts the data file names, features and sizes into the metadata.
    `description` (the project file's) gives the title, licence, citation and languages; `curator_text` is the
    marked curator section (kept from the previous card, else made from the description); `example` is one
    released row, shown as a model sees it. The card is checked with `validate_card` before it is returned."""
    info = SOURCE_CARDS[source]
    if description is not None:
        info = description.source_card(info)
        if curator_text is None and description.description.strip():
            curator_text = curator_section(description.description)
    counts = {split: stats["splits"][split]["records"] for split in splits}
    meta = front_matter(source, config, splits, counts, data_files, page_images, description)
    source_spec = get_source(source)
    docs = COLUMN_DOCS | {column.name: column.doc for column in source_spec.columns}
    columns = [(f.name, str(f.type), docs.get(f.name, "")) for f in arrow_schema(source)]
    if page_images:
        columns.append((page_images_mod.COLUMN, "list of Image", page_images_mod.DOC))
    template = _environment().get_template(source_spec.card_template)
    text = template.render(
        info=info,
        card_section=source_spec.card_section,
        card_attribution_extra=source_spec.card_attribution_extra,
        source=source,
        config=config,
        version=version,
        parent=parent,
        splits=splits,
        empty_splits=[split for split in splits if counts[split] == 0],
        stats=stats,
        funnel=funnel,
        columns=columns,
        judge_name=judge_name,
        judge_version=judge_version,
        threshold=threshold,
        toolkit_version=toolkit_version,
        rubric_version=rubric_version,
        review=review,
        flags=flags,
        calibration=calibration,
        changelog=changelog,
        change_kinds=CHANGE_KINDS,
        id_limit=CARD_ID_LIMIT,
        plots=[(PLOT_FILES[key][1], path) for key, path in (plots or {}).items()],
        plots_skipped_reason=plots_skipped_reason,
        curator_text=curator_text,
        hub_repo=description.hub_repo if description is not None else None,
        example=example_prompt(example) if example else None,
    )
    return str(dataset_card(meta, text))


EXAMPLE_CONTEXT_CHARS = 1200  # an example's context is cut here on the card (the row holds all of it)


def example_prompt(row: dict[str, Any]) -> dict[str, str]:
    """One released row as a model sees it (context, question, schema) and the answer it should give."""

    def pretty(value: Any) -> str:
        try:
            return json.dumps(json.loads(value) if isinstance(value, str) else value, indent=2, ensure_ascii=False)
        except ValueError:
            return str(value)

    context = str(row.get("context") or "")
    cut = len(context) > EXAMPLE_CONTEXT_CHARS
    return {
        "record_id": str(row.get("record_id", "")),
        "context": context[:EXAMPLE_CONTEXT_CHARS] + (" [...]" if cut else ""),
        "question": str(row.get("question") or ""),
        "json_schema": pretty(row.get("json_schema")),
        "ground_truth": pretty(row.get("ground_truth")),
    }
