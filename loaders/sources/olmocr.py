"""olmOCR-bench documents (image): single PDF pages, OCR'd with olmocr and gated by each page's own unit tests."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from core.loading import LoadResult
from core.models import SourceItem
from core.sources import LoadRequest, ReleaseColumn, Source, SourceCard, quote
from loaders.ocr_options import add_ocr_arguments

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "samples" / "olmocr"

# What to ask about a page, by olmOCR-bench category (matched on the category or the PDF's folder).
IMAGE_TASKS: list[tuple[str, str, str]] = [
    (
        "math",
        "formula extraction",
        "ask for the page's formulas or equations: each formula transcribed in LaTeX as it appears, with its "
        "label or number and the variables it defines",
    ),
    (
        "table",
        "table lookup",
        "ask for values found by row and column in the page's table(s): the row and column headers used and "
        "the cell values, with units as printed",
    ),
    (
        "multi_column",
        "reading order",
        "ask about content that must be read in the right column order: e.g. the section headings in reading "
        "order, or a passage that continues from one column into the next",
    ),
    (
        "headers_footers",
        "content comprehension",
        "ask about the body text only: the transcript leaves out running headers, footers and page numbers, as "
        "olmOCR does, so ask about facts of the body that a header or footer could be mistaken for (titles, "
        "dates, names, numbers)",
    ),
    (
        "old_scans",
        "content comprehension",
        "ask about what the old document says: who wrote to whom, when, about what, and the key facts stated",
    ),
    (
        "long_tiny_text",
        "content comprehension",
        "ask for specific facts spread through the dense small print: names, numbers and dates with where they appear",
    ),
]
GENERIC_IMAGE_TASK = (
    "document",
    "content comprehension",
    "ask about the page's main facts, entities and their relations",
)


def _category(item: SourceItem) -> str:
    """The olmOCR-bench category of a page: its test file stem (the loader's `bench_category`), else its folder."""
    meta = item.metadata
    return str(meta.get("bench_category") or meta.get("category") or item.source_id.split("/")[0])


def image_task(item: SourceItem) -> tuple[str, str, str]:
    category = str(_category(item) or "").lower()
    name = f"{category} {item.source_id}".lower()
    for key, title, task in IMAGE_TASKS:
        if key in category or key in name:
            return key, title, task
    return GENERIC_IMAGE_TASK


class OlmocrOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    categories: list[str] | None = None
    category_quota: dict[str, int] | None = None  # passing pages per category
    mix: Literal["sob"] | None = None  # a named category quota
    ocr_server: str | None = None  # "cpu", a URL, or None (olmocr starts vLLM on a GPU)
    ocr_markdown: Path | None = None
    ocr_model: str | None = None
    min_ocr_pass_rate: float = Field(default=0.5, ge=0.0, le=1.0)

    @field_validator("category_quota", mode="before")
    @classmethod
    def _quota(cls, value: object) -> object:
        if isinstance(value, str):
            from loaders.olmocr_draw import parse_quota

            return parse_quota(value)
        return value

    @model_validator(mode="after")
    def _one_quota(self) -> OlmocrOptions:
        if self.mix is not None and self.category_quota:
            raise ValueError("give --mix or --category-quota, not both")
        return self

    def quota(self) -> dict[str, int] | None:
        """The category quota of the run: --category-quota, or the --mix preset."""
        if self.mix is not None:
            from loaders.olmocr_draw import mix_quota

            return mix_quota(self.mix)
        return self.category_quota


class OlmocrSource(Source):
    name = "olmocr"
    modality = "image"
    release_config = "image"
    release_page_images = True
    card_template = "image.md.j2"
    card = SourceCard(
        name="olmOCR-bench",
        pretty_name="SOB structured outputs: olmOCR-bench documents (image)",
        license="odc-by",
        license_name="Open Data Commons Attribution License (ODC-By) v1.0",
        license_url="https://opendatacommons.org/licenses/by/1-0/",
        homepage="https://huggingface.co/datasets/allenai/olmOCR-bench",
        task_categories=("image-text-to-text", "text-generation"),
        tags=("structured-output", "json-schema", "json", "documents", "ocr", "pdf", "olmocr-bench"),
        description="single PDF pages of olmOCR-bench (`allenai/olmOCR-bench`, Allen Institute for AI: 1,403 PDFs "
        "with 7,010 unit tests in seven categories); the context is the page's olmOCR transcript as corrected by a "
        "curator against the page image, and `source_pdf` / `source_category` name the page and its category",
        attribution="Document pages and their unit tests come from olmOCR-bench (`allenai/olmOCR-bench`) by the "
        "Allen Institute for AI (Poznanski et al., 2025), released under ODC-By 1.0; transcripts were made with the "
        "olmocr toolkit (Apache-2.0). This derived dataset is released under ODC-By 1.0 as well; attribute both "
        "when you use it. The underlying PDFs may be subject to their own terms; see the olmOCR-bench card.",
        citation="""@article{poznanski2025olmocr,
  title   = {{olmOCR}: Unlocking Trillions of Tokens in {PDFs} with Vision Language Models},
  author  = {Poznanski, Jake and others},
  journal = {arXiv preprint arXiv:2502.18443},
  year    = {2025},
  note    = {olmOCR-bench: https://huggingface.co/datasets/allenai/olmOCR-bench}
}""",
    )
    columns = (
        ReleaseColumn("source_pdf", "string", "the PDF the page comes from"),
        ReleaseColumn("source_category", "string", "olmOCR document category"),
    )
    label_config_file = ("annotation_ui_config", "authoring_olmocr.xml")
    judge_kind = "document page (olmOCR)"
    draft_template = ("authoring", "draft_image")
    page_tasks = True
    options_model = OlmocrOptions
    sample_dir = SAMPLE_DIR

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        ocr = parser.add_argument_group("olmOCR-bench PDFs (--source olmocr)")
        ocr.add_argument(
            "--category",
            action="append",
            dest="categories",
            metavar="NAME",
            help="only this category (e.g. tables, multi_column, Headers/Footers); repeatable",
        )
        ocr.add_argument(
            "--category-quota",
            metavar="NAME=N,...",
            help="pages that pass the OCR gate to keep per category, e.g. headers_footers=67,multi_column=62; "
            "drawn in seeded rounds until each is met or the category runs out (the run says which)",
        )
        ocr.add_argument(
            "--mix",
            choices=["sob"],
            help="a named category quota: 'sob' is SOB's image mix (Headers/Footers 67, Multi-Column 62, "
            "Tables 33, Old Scans 23, Long/Tiny Text 11, ArXiv Math 10, Old Scans Math 3); scaled to --limit N "
            "if given",
        )
        ocr.add_argument("--ocr-markdown", type=Path, metavar="DIR", help="precomputed markdown instead of OCR")
        ocr.add_argument(
            "--min-ocr-pass-rate",
            type=float,
            help="keep PDFs whose OCR passes at least this share of their olmOCR-bench tests (default 0.5)",
        )
        add_ocr_arguments(parser)

    def load(self, request: LoadRequest) -> LoadResult:
        from loaders.olmocr_bench import load_olmocr_bench

        options = request.options
        assert isinstance(options, OlmocrOptions)
        return load_olmocr_bench(
            request.path,
            workspace=request.workspace,
            categories=options.categories,
            markdown_dir=options.ocr_markdown,
            # The embedded sample runs offline anywhere: OCR through the CPU endpoint unless told otherwise.
            ocr_server=options.ocr_server or ("cpu" if request.sample else None),
            min_ocr_pass_rate=options.min_ocr_pass_rate,
            limit=request.limit,
            quota=options.quota(),
            seed=request.seed,
            ocr_model=options.ocr_model,
            echo=request.echo,
        )

    def draft_variables(self, item: SourceItem) -> dict[str, str]:
        _, title, task = image_task(item)  # the toolkit's own text
        category = quote(item.metadata.get("source_category") or _category(item))
        return {"category": category, "task": f"{title}: {task}", "context": quote(item.context)}


SOURCE = OlmocrSource()
