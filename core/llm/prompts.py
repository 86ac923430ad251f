"""Versioned prompt templates kept as text files beside the code that uses them.

A template file starts with a `version: N` line, then a blank line, then the text. Placeholders
are `$name` (string.Template), so JSON braces in a template need no escaping. Changing a template
means bumping its version: the version is part of every cache key built from it.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    version: str
    text: str

    @property
    def id(self) -> str:
        return f"{self.name}@{self.version}"

    def render(self, **values: str) -> str:
        return string.Template(self.text).substitute(values)


@cache
def load_template(package: str, name: str) -> PromptTemplate:
    raw = resources.files(package).joinpath("prompts", f"{name}.txt").read_text(encoding="utf-8")
    first, _, rest = raw.partition("\n")
    if not first.startswith("version:"):
        raise ValueError(f"prompt template {package}/prompts/{name}.txt must start with a 'version: N' line")
    return PromptTemplate(name=name, version=first.removeprefix("version:").strip(), text=rest.lstrip("\n"))
