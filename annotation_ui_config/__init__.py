"""Label Studio labeling configs (XML) that curators work in, one file per purpose.

The files are package data; code loads them with `label_config(source)` and never pastes XML inline.
"""

from __future__ import annotations

from importlib import resources

from core.sources import get_source

# The control names are a contract: curators' scripts and the exports rely on them.
TEXT_CONTROLS: tuple[str, ...] = ("question", "json_schema", "ground_truth", "evidence", "notes", "flag_resolutions")
EVIDENCE_SPAN_CONTROL = "evidence_span"  # Labels on the context; a label is a JSON path of the answer
VERDICT_CONTROL = "verdict"
VERDICTS: tuple[str, ...] = ("accept", "reject", "needs_discussion")


AUDIT_CONFIG = "audit.xml"  # the residual-error audit: one task per sampled accepted record
AUDIT_VERDICTS: tuple[str, ...] = ("correct", "incorrect")


def audit_config() -> str:
    """The labeling config (XML text) of the residual-error audit projects."""
    return resources.files(__name__).joinpath(AUDIT_CONFIG).read_text(encoding="utf-8")


ADJUDICATION_CONFIG = "adjudication.xml"  # two curators' answers side by side, an editor for the adjudicated one


def adjudication_config() -> str:
    """The labeling config (XML text) of the adjudication projects (records two curators answered differently)."""
    return resources.files(__name__).joinpath(ADJUDICATION_CONFIG).read_text(encoding="utf-8")


def label_config(source: str) -> str:
    """The authoring labeling config (XML text) for a source: one per source (its module names the file), with
    the same controls and different house rules and context styling."""
    return get_source(source).label_config()
