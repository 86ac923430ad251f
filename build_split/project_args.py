"""The command line over the project file: what a command does not say, the project's config says."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from build_split.project import Project, ProjectError, find_project, load_project
from core.sources import get_source
from exports.dataset_description import DatasetDescription
from judge.rubric import DEFAULT_THRESHOLD


@dataclass
class ProjectSettings:
    """What the project adds to a run: its config's source options and the dataset's description."""

    source_options: dict[str, Any] = field(default_factory=dict)
    description: DatasetDescription | None = None
    project: Project | None = None


def with_project(args: argparse.Namespace) -> ProjectSettings:
    """Fill the flags the command left out from the project file's config (found from the current folder up, or
    `--project`), in place; a flag given always wins. Without a project file the defaults are the toolkit's."""
    path = args.project if args.project is not None else find_project(Path.cwd())
    if args.project is not None and not args.project.is_file():
        raise ProjectError(f"--project {args.project}: no such file (python -m build_split init writes one)")
    project = load_project(path) if path is not None else None
    settings = ProjectSettings(project=project)
    picked = project.pick(args.source, getattr(args, "config", None)) if project is not None else None
    if project is not None:
        settings.description = project.description()
    if args.source is None and picked is None:
        where = f"{project.path} lists none of it" if project is not None else "no project file names one"
        raise ProjectError(f"--source is needed: {where} (python -m build_split init writes a project file)")
    if picked is not None:
        assert project is not None
        name, entry = picked
        args.source = args.source or entry.source
        if args.workspace is None:
            args.workspace = project.resolve(entry.workspace or project.content.workspace)
        if args.judge is None:
            args.judge = entry.judge
        args.judge_model = args.judge_model or entry.judge_model
        if args.threshold is None:
            args.threshold = entry.threshold
        if not (args.sample or args.input is not None or args.from_hub):  # the command's own items win
            args.sample, args.input, args.from_hub = entry.sample, project.resolve(entry.input), entry.from_hub
        if args.select is None and not args.ignore and not args.reject:  # the command's own rule set wins
            args.select, args.ignore, args.reject = entry.rules.select, entry.rules.ignore, entry.rules.reject
        settings.source_options = dict(entry.options)
        if "config" in get_source(entry.source).options_model.model_fields:
            settings.source_options.setdefault("config", name)
        # the command's own source options win over the project's
        given = {key for key, value in vars(args).items() if value not in (None, False)}
        settings.source_options = {k: v for k, v in settings.source_options.items() if k not in given}
    elif project is not None and args.workspace is None:
        args.workspace = project.resolve(project.content.workspace)
    if args.workspace is None:
        args.workspace = Path("workspace")
    if args.threshold is None:
        args.threshold = DEFAULT_THRESHOLD
    return settings
