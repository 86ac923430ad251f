"""A source defined outside the toolkit: recipe cards, one JSON object per line ({"id", "title", "text"}).

It uses only the toolkit's public source API (core.sources) and registers itself through the entry point in
../sob_recipes_source-0.1.0.dist-info/entry_points.txt; the toolkit's code is not changed to add it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from core.loading import LoadProblem, LoadResult
from core.models import SourceItem
from core.sources import LoadRequest, ReleaseColumn, Source, SourceCard

HERE = Path(__file__).resolve().parent


class RecipeOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cuisine: str | None = None  # keep only the recipes of this cuisine


class RecipesSource(Source):
    name = "recipes"
    modality = "text"
    release_config = "recipes"
    card = SourceCard(
        name="Test recipes",
        pretty_name="SOB structured outputs: test recipes",
        license="cc0-1.0",
        license_name="CC0 1.0",
        license_url="https://creativecommons.org/publicdomain/zero/1.0/",
        homepage="https://example.org/recipes",
        task_categories=("text-generation",),
        tags=("structured-output", "json-schema", "recipes"),
        description="invented recipe cards",
        attribution="Invented for the toolkit's tests.",
        citation="",
    )
    card_section = "Contexts are recipe cards; `cuisine` names each card's cuisine."
    columns = (ReleaseColumn("cuisine", "string", "the recipe's cuisine"),)
    judge_kind = "recipe card"
    judge_dimensions = {"cookability": "a cook could follow the answer's steps as given"}
    options_model = RecipeOptions
    sample_dir = HERE / "sample"

    def sample_input(self) -> Path:
        return self.sample_dir / "recipes.jsonl"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("test recipes (--source recipes)")
        group.add_argument("--cuisine", help="keep only the recipes of this cuisine")

    def load(self, request: LoadRequest) -> LoadResult:
        options = request.options
        assert isinstance(options, RecipeOptions)
        result = LoadResult()
        path = request.path or self.sample_input()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            result.rows_read += 1
            row = json.loads(line)
            if "text" not in row:
                result.problems.append(LoadProblem(path.name, n, "no_text", "the card has no text", line))
                continue
            if options.cuisine and row.get("cuisine") != options.cuisine:
                continue
            metadata = {"cuisine": row.get("cuisine"), "title": row.get("title")}
            result.items.append(
                SourceItem(source=self.name, source_id=row["id"], context=row["text"], metadata=metadata)
            )
        return result


SOURCE = RecipesSource()
