"""AMI meetings (audio): transcripts of recorded meetings with several speakers."""

from __future__ import annotations

import argparse
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from core.loading import LoadResult
from core.models import SourceItem
from core.sources import LoadRequest, ReleaseColumn, Source, SourceCard, quote

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "samples" / "ami"


class AmiOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_context_tokens: int | None = Field(default=None, ge=100)


class AmiSource(Source):
    name = "ami"
    modality = "audio"
    release_config = "audio"
    card_template = "audio.md.j2"
    card = SourceCard(
        name="AMI Meeting Corpus",
        pretty_name="SOB structured outputs: AMI meetings (audio)",
        license="cc-by-4.0",
        license_name="Creative Commons Attribution 4.0 International (CC BY 4.0)",
        license_url="https://creativecommons.org/licenses/by/4.0/",
        homepage="https://groups.inf.ed.ac.uk/ami/corpus/",
        task_categories=("text-generation", "question-answering"),
        tags=("structured-output", "json-schema", "json", "meetings", "audio", "transcripts"),
        description="recorded meetings from the AMI Meeting Corpus; the context is a meeting transcript and "
        "`meeting_id` / `num_speakers` identify the meeting",
        attribution="Meeting recordings and transcripts come from the AMI Meeting Corpus (Carletta et al., "
        "2005), licensed under CC BY 4.0. This derived dataset is released under CC BY 4.0; credit the AMI "
        "Meeting Corpus when you use it.",
        citation="""@inproceedings{carletta2005ami,
  title     = {The {AMI} Meeting Corpus: A Pre-announcement},
  author    = {Carletta, Jean and others},
  booktitle = {Machine Learning for Multimodal Interaction (MLMI)},
  year      = {2005}
}""",
    )
    columns = (
        ReleaseColumn("meeting_id", "string", "AMI meeting id"),
        ReleaseColumn("num_speakers", "int64", "speakers in the meeting"),
    )
    label_config_file = ("annotation_ui_config", "authoring_ami.xml")
    judge_kind = "meeting transcript (AMI)"
    judge_dimensions = {"multi_turn": "answering needs more than one utterance of the meeting"}
    draft_template = ("authoring", "draft_audio")
    options_model = AmiOptions
    sample_dir = SAMPLE_DIR

    def sample_input(self) -> Path:
        return SAMPLE_DIR / "sample.ihm.jsonl"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("AMI meetings (--source ami)")
        group.add_argument("--max-context-tokens", type=int, help="AMI: cut meetings into windows of about N tokens")

    def load(self, request: LoadRequest) -> LoadResult:
        from loaders.ami import load_ami

        options = request.options
        assert isinstance(options, AmiOptions)
        return load_ami(request.path, max_context_tokens=options.max_context_tokens)

    def draft_variables(self, item: SourceItem) -> dict[str, str]:
        meta = item.metadata
        speakers = meta.get("num_speakers") or len(meta.get("speakers", [])) or "several"
        return {
            "meeting": quote(meta.get("meeting_id", item.source_id)),
            "speakers": quote(speakers),
            "context": quote(item.context),
        }


SOURCE = AmiSource()
