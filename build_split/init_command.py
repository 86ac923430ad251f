"""`python -m build_split init`: write a commented project file (sob-project.toml) for a new dataset."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pydantic import ValidationError

from build_split import exit_codes
from build_split.project import PROJECT_FILENAME, InitAnswers, ProjectError, init_project
from core.sources import source_names


def build_init_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m build_split init",
        description=f"Write a commented project file ({PROJECT_FILENAME}): the dataset's name, title, description, "
        "licence, citation and languages, and one config with its source and inputs. Every later command run in "
        "its folder reads it. Edit it afterwards; the comments say what each key does.",
    )
    parser.add_argument("--project", type=Path, default=Path(PROJECT_FILENAME), help="where to write it")
    parser.add_argument("--name", help="the dataset's name, its Hub repo name (default my-dataset)")
    parser.add_argument("--title", help="the dataset's title, shown on its card")
    parser.add_argument("--description", help="what the dataset is (Markdown; edit it in the file later)")
    parser.add_argument("--license", help="the Hub's licence id, an SPDX id in lower case (default cc-by-4.0)")
    parser.add_argument("--citation", help="a BibTeX entry (default: an @misc entry made from the title)")
    parser.add_argument(
        "--source",
        choices=source_names(),
        help="the first config's source (default: the one for your own files, documents)",
    )
    parser.add_argument("--config", help="the first config's name (default: the source's release config)")
    items = parser.add_mutually_exclusive_group()
    items.add_argument("--sample", action="store_true", help="the first config loads the embedded sample")
    items.add_argument("--input", type=Path, help="the first config loads these files (a file or a folder)")
    parser.add_argument("--force", action="store_true", help="write over an existing project file")
    return parser


def init_main(argv: list[str]) -> int:
    args = build_init_parser().parse_args(argv)
    given = {
        key: value
        for key in ("name", "title", "description", "license", "citation", "source", "config", "sample", "input")
        if (value := getattr(args, key)) not in (None, False)
    }
    try:
        path = init_project(args.project, InitAnswers(**given), force=args.force)
    except ValidationError as exc:
        for error in exc.errors():
            where = "-".join(str(p) for p in error["loc"])
            print(f"error: --{where}: {str(error['msg']).removeprefix('Value error, ')}", file=sys.stderr)
        return exit_codes.USAGE
    except (ProjectError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exit_codes.USAGE
    print(f"wrote {path}: edit it (the comments say what each key does); commands run in its folder read it")
    return exit_codes.OK
