# my_recipes/__init__.py
import argparse
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from core.loading import LoadProblem, LoadResult
from core.models import SourceItem
from core.sources import LoadRequest, ReleaseColumn, Source, SourceCard


class RecipeOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cuisine: str | None = None  # the field names are the CLI options' dest names


class RecipesSource(Source):
    name = "recipes"  # --source recipes
    modality = "text"  # text, image or audio: how scoring treats the release
    release_config = "recipes"  # the Hub config and the release folder
    card = SourceCard(
        name="My recipes",
        pretty_name="Recipes",
        license="cc0-1.0",
        license_name="CC0 1.0",
        license_url="https://creativecommons.org/publicdomain/zero/1.0/",
        homepage="https://example.org",
        task_categories=("text-generation",),
        tags=("structured-output", "recipes"),
        description="recipe cards",
        attribution="...",
        citation="",
    )
    card_section = "Contexts are recipe cards; `cuisine` names each card's cuisine."
    columns = (ReleaseColumn("cuisine", "string", "the recipe's cuisine"),)  # from item.metadata
    judge_kind = "recipe card"  # how the judge and reviewer prompts name the material
    judge_dimensions = {"cookability": "a cook could follow the answer's steps as given"}
    options_model = RecipeOptions
    sample_dir = Path(__file__).parent / "sample"  # --sample: sample_input() and sample/authored.jsonl

    def sample_input(self) -> Path:
        return self.sample_dir / "recipes.jsonl"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument_group("recipes (--source recipes)").add_argument("--cuisine", help="only this cuisine")

    def load(self, request: LoadRequest) -> LoadResult:
        result = LoadResult()
        for n, line in enumerate(request.path.read_text(encoding="utf-8").splitlines(), start=1):
            result.rows_read += 1
            row = json.loads(line)
            if "text" not in row:  # never drop an input silently: say why
                result.problems.append(LoadProblem(request.path.name, n, "no_text", "the card has no text", line))
                continue
            result.items.append(
                SourceItem(
                    source=self.name, source_id=row["id"], context=row["text"], metadata={"cuisine": row.get("cuisine")}
                )
            )
        return result


SOURCE = RecipesSource()
