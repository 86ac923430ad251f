"""A curator's own documents (text): text and Markdown files, JSONL/parquet rows with a text column, and PDFs.

`python -m build_split --source documents --input FOLDER_OR_FILE [--config NAME]`: one item per text file, per
row and per PDF (OCR'd by the olmocr pipeline, as the olmOCR-bench source, with the page images beside the
transcript in Label Studio). `--config NAME` names the release config (default `documents`).
"""

from __future__ import annotations

import argparse
import copy
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.loading import LoadResult
from core.models import SourceItem
from core.sources import (
    CONFIG_SEPARATOR,
    LoadRequest,
    ReleaseColumn,
    Source,
    SourceCard,
    check_config_name,
    quote,
    sources,
)
from loaders.documents import DEFAULT_MAX_PDF_PAGES
from loaders.ocr_options import add_ocr_arguments

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "samples" / "documents"
DEFAULT_CONFIG = "documents"


class DocumentsOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    config: str = DEFAULT_CONFIG  # the release config (and release folder) of these documents
    text_column: str = Field(default="text", min_length=1)  # JSONL / parquet: the column holding the text
    id_column: str = Field(default="id", min_length=1)  # JSONL / parquet: the row's id, where there is one
    max_pdf_pages: int = Field(default=DEFAULT_MAX_PDF_PAGES, ge=1)  # a longer PDF is a rejection, never OCR'd
    ocr_server: str | None = None  # "cpu", a URL, or None (olmocr starts vLLM on a GPU)
    ocr_model: str | None = None

    @field_validator("config")
    @classmethod
    def _own_config(cls, value: str) -> str:
        check_config_name(value)
        taken = {s.release_config: s.name for s in sources() if not isinstance(s, DocumentsSource)}
        if value in taken:
            raise ValueError(f"{value!r} is the release config of --source {taken[value]}: choose another name")
        return value


class DocumentsSource(Source):
    name = "documents"
    modality = "text"
    card = SourceCard(
        name="the curator's own documents",
        pretty_name="SOB structured outputs: own documents",
        license="other",
        license_name="the licence of the documents, as their owner set it (name it in the project file)",
        license_url="",
        homepage="",
        task_categories=("text-generation", "question-answering"),
        tags=("structured-output", "json-schema", "json", "documents"),
        description="documents supplied by the curator (text and Markdown files, rows of a table, and PDFs "
        "transcribed with olmocr and corrected against the page images); `file` names each record's document",
        attribution="The documents belong to whoever supplied them; the licence above is the one the curator "
        "states for them in the project file (sob-project.toml).",
        citation="",
    )
    card_section = (
        "This config holds the curator's own documents: each context is one text file, one row of a table, or "
        "the OCR transcript of one PDF (olmocr) as corrected by a curator against its page images. `file` names "
        "the document and `file_type` its kind."
    )
    columns = (
        ReleaseColumn("file", "string", "the document the record was written about (its path under --input)"),
        ReleaseColumn("file_type", "string", "the document's kind: txt, md, jsonl, parquet or pdf"),
    )
    label_config_file = ("annotation_ui_config", "authoring_documents.xml")
    judge_kind = "document (the curator's own)"
    draft_template = ("authoring", "draft_document")
    page_tasks = True  # PDFs: page images beside the editable transcript
    options_model = DocumentsOptions
    sample_dir = SAMPLE_DIR

    def __init__(self) -> None:
        self.release_config = DEFAULT_CONFIG

    def sample_input(self) -> Path:
        return SAMPLE_DIR / "documents"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("your own documents (--source documents)")
        group.add_argument(
            "--config",
            metavar="NAME",
            help=f"the release config (and release folder) of the documents (default {DEFAULT_CONFIG})",
        )
        group.add_argument(
            "--text-column", metavar="NAME", help="JSONL / parquet input: the column holding the text (default text)"
        )
        group.add_argument(
            "--id-column",
            metavar="NAME",
            help="JSONL / parquet input: the column holding a row's id, where there is one (default id)",
        )
        group.add_argument(
            "--max-pdf-pages",
            type=int,
            metavar="N",
            help=f"a PDF with more pages is rejected before any OCR (default {DEFAULT_MAX_PDF_PAGES})",
        )
        add_ocr_arguments(parser)

    def configure(self, options: BaseModel) -> None:
        assert isinstance(options, DocumentsOptions)
        if self.name == DocumentsSource.name:  # a config kept apart keeps its own
            self.release_config = options.config

    def partition(self, options: BaseModel) -> str:
        """The default config's documents are `documents`; another config's are `documents@CONFIG`, so a
        config's release never holds another config's items or records (the sample's among them)."""
        assert isinstance(options, DocumentsOptions)
        if self.name != DocumentsSource.name or options.config == DEFAULT_CONFIG:
            return self.name
        return f"{self.name}{CONFIG_SEPARATOR}{options.config}"

    def for_config(self, config: str) -> DocumentsSource:
        kept_apart = copy.copy(self)
        kept_apart.name = f"{DocumentsSource.name}{CONFIG_SEPARATOR}{config}"  # type: ignore[misc]
        kept_apart.release_config = config
        return kept_apart

    def load(self, request: LoadRequest) -> LoadResult:
        from loaders.documents import load_documents

        options = request.options
        assert isinstance(options, DocumentsOptions)
        if request.path is None:
            raise ValueError("--source documents reads your files: pass --input FOLDER_OR_FILE (or --sample)")
        result = load_documents(
            request.path,
            workspace=request.workspace,
            text_column=options.text_column,
            id_column=options.id_column,
            max_pdf_pages=options.max_pdf_pages,
            # The embedded sample runs offline anywhere: OCR through the CPU endpoint unless told otherwise.
            ocr_server=options.ocr_server or ("cpu" if request.sample else None),
            ocr_model=options.ocr_model,
            echo=request.echo,
        )
        if request.limit is not None:
            result.items = result.items[: request.limit]
        if self.name != DocumentsSource.name:  # a config kept apart: its items are its own
            result.items = [item.model_copy(update={"source": self.name}) for item in result.items]
        return result

    def draft_variables(self, item: SourceItem) -> dict[str, str]:
        meta = item.metadata
        return {
            "file": quote(meta.get("file", item.source_id)),
            "file_type": quote(meta.get("file_type", "text")),
            "context": quote(item.context),
        }


SOURCE = DocumentsSource()
