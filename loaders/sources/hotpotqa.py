"""HotpotQA (text): multi-hop questions over Wikipedia paragraphs, with a seed question and answer."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from core.loading import LoadResult
from core.models import SourceItem
from core.sources import LoadRequest, ReleaseColumn, Source, SourceCard, quote

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "samples" / "hotpotqa"


class HotpotQAOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    context: Literal["all", "supporting"] = "all"


class HotpotQASource(Source):
    name = "hotpotqa"
    modality = "text"
    release_config = "default"
    splits = (("train", 80), ("validation", 10), ("test", 10))
    card_template = "default.md.j2"
    card = SourceCard(
        name="HotpotQA",
        pretty_name="SOB structured outputs: HotpotQA (text)",
        license="cc-by-sa-4.0",
        license_name="Creative Commons Attribution-ShareAlike 4.0 International (CC BY-SA 4.0)",
        license_url="https://creativecommons.org/licenses/by-sa/4.0/",
        homepage="https://hotpotqa.github.io/",
        task_categories=("question-answering", "text-generation"),
        tags=("structured-output", "json-schema", "json", "multi-hop", "wikipedia"),
        description="multi-hop questions over English Wikipedia paragraphs; each context holds the "
        "question's supporting and distractor paragraphs",
        attribution="Contexts, seed questions and the `answer`, `type` and `level` columns come from "
        "HotpotQA (Yang et al., 2018), built from English Wikipedia; both are licensed under CC BY-SA 4.0. "
        "This derived dataset is shared under the same licence (ShareAlike): keep the attribution and "
        "licence when you redistribute or adapt it.",
        citation="""@inproceedings{yang2018hotpotqa,
  title     = {{HotpotQA}: A Dataset for Diverse, Explainable Multi-hop Question Answering},
  author    = {Yang, Zhilin and Qi, Peng and Zhang, Saizheng and Bengio, Yoshua and Cohen, William W.
               and Salakhutdinov, Ruslan and Manning, Christopher D.},
  booktitle = {Proceedings of EMNLP},
  year      = {2018}
}""",
    )
    columns = (
        ReleaseColumn("answer", "string", "HotpotQA's original short answer"),
        ReleaseColumn("type", "string", "HotpotQA question type (bridge / comparison)"),
        ReleaseColumn("level", "string", "HotpotQA difficulty level"),
    )
    label_config_file = ("annotation_ui_config", "authoring_hotpotqa.xml")
    judge_kind = "text (HotpotQA)"
    draft_template = ("authoring", "draft_text")
    keeps_seed_question = True
    options_model = HotpotQAOptions
    sample_dir = SAMPLE_DIR

    def sample_input(self) -> Path:
        return SAMPLE_DIR / "sample.json"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("HotpotQA (--source hotpotqa)")
        group.add_argument(
            "--context",
            choices=["all", "supporting"],
            default=None,
            help="HotpotQA: all ten paragraphs (default) or only those in supporting_facts",
        )

    def load(self, request: LoadRequest) -> LoadResult:
        from loaders.hotpotqa import load_hotpotqa

        options = request.options
        assert isinstance(options, HotpotQAOptions)
        return load_hotpotqa(request.path, context_mode=options.context, limit=request.limit, seed=request.seed)

    def stream(self, request: LoadRequest) -> tuple[Iterable[SourceItem], LoadResult]:
        """Without `--limit` the items stream (never all in memory); a `--limit` draw loads them all first."""
        if request.limit is not None:
            return super().stream(request)
        from loaders.hotpotqa import iter_hotpotqa

        options = request.options
        assert isinstance(options, HotpotQAOptions)
        result = LoadResult()
        return iter_hotpotqa(request.path, result, context_mode=options.context), result

    def draft_variables(self, item: SourceItem) -> dict[str, str]:
        meta = item.metadata
        return {
            "qa_type": quote(meta.get("type", "unknown")),
            "level": quote(meta.get("level", item.question_difficulty or "unknown")),
            "question": quote(item.question) if item.question else "(none: write one)",
            "answer": quote(item.answer) if item.answer else "(none)",
            "context": quote(item.context),
        }


SOURCE = HotpotQASource()
