"""What a project says about its dataset (build_split/project.py reads it from the project file): the title,
description, licence, citation and languages a card shows instead of the source's own defaults."""

from __future__ import annotations

import dataclasses
import re

from pydantic import BaseModel, ConfigDict, Field, HttpUrl, field_validator, model_validator

from core.sources import SourceCard

# A licence id as the Hub's `license` field takes it (SPDX ids in lower case, e.g. cc-by-4.0, mit, apache-2.0)
LICENSE_ID = re.compile(r"^[a-z0-9][a-z0-9.+-]{0,63}$")
LANGUAGE = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")  # ISO 639-1/3, optionally with a region
# The card's own text between these markers is the curator's: every push keeps it as written.
CURATOR_START = "<!-- curator-text: start (edit freely: every release and push keeps this section) -->"
CURATOR_END = "<!-- curator-text: end -->"


class DatasetDescription(BaseModel):
    """The dataset as its curator describes it; every field but the title and licence may be left out."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1, max_length=200)
    description: str = ""  # Markdown: what the dataset is for, who made it
    license: str  # the Hub's licence id (an SPDX id in lower case), or "other" with license_name and license_link
    license_name: str | None = None
    license_link: HttpUrl | None = None
    citation: str = ""  # BibTeX
    languages: list[str] = Field(default_factory=lambda: ["en"], min_length=1)
    hub_repo: str | None = Field(default=None, pattern=r"^[\w.-]+/[\w.-]+$")  # owner/name on the Hub

    @field_validator("license")
    @classmethod
    def _license_id(cls, value: str) -> str:
        if not LICENSE_ID.match(value):
            raise ValueError(
                f"{value!r} is not a licence id: use the Hub's id (an SPDX id in lower case, e.g. cc-by-4.0, mit), "
                "or other with license_name and license_link"
            )
        return value

    @field_validator("languages")
    @classmethod
    def _language_codes(cls, value: list[str]) -> list[str]:
        wrong = [code for code in value if not LANGUAGE.match(code)]
        if wrong:
            raise ValueError(f"{', '.join(map(repr, wrong))}: use ISO 639 codes (en, de, fr, ...)")
        return value

    @field_validator("citation")
    @classmethod
    def _bibtex(cls, value: str) -> str:
        if value.strip() and not value.lstrip().startswith("@"):
            raise ValueError("a BibTeX entry starts with @ (for example @misc{key, title = {...}, year = {2026}})")
        return value.strip()

    @model_validator(mode="after")
    def _other_is_named(self) -> DatasetDescription:
        if self.license == "other" and not (self.license_name and self.license_link):
            raise ValueError("license = other needs license_name and license_link (where the terms are written)")
        return self

    def source_card(self, info: SourceCard) -> SourceCard:
        """The source's card facts with the project's title, licence and citation in their place."""
        return dataclasses.replace(
            info,
            pretty_name=self.title,
            license=self.license,
            license_name=self.license_name or self.license,
            license_url=str(self.license_link) if self.license_link else "",  # the card shows no empty link
            citation=self.citation,
        )

    def front_matter(self) -> dict[str, object]:
        """The Hub metadata keys the project decides."""
        meta: dict[str, object] = {"license": self.license, "language": list(self.languages), "pretty_name": self.title}
        if self.license_name:
            meta["license_name"] = self.license_name
        if self.license_link:
            meta["license_link"] = str(self.license_link)
        return meta


def curator_section(text: str) -> str:
    """The curator's own text, between the markers every push keeps."""
    return f"{CURATOR_START}\n\n{text.strip()}\n\n{CURATOR_END}"


def find_curator_section(card: str) -> str | None:
    """The marked curator section of a card (markers included), or None."""
    start = card.find(CURATOR_START)
    end = card.find(CURATOR_END, start + 1) if start >= 0 else -1
    return card[start : end + len(CURATOR_END)] if start >= 0 and end >= 0 else None
