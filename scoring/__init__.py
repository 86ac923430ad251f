"""Scoring: SOB's seven metrics, ExtractBench field presets, STED and consistency, curation numbers.

`python -m scoring --release DIR --predictions FILE` scores model predictions on a release; the
same functions measure curation (draft-to-final agreement, suspect records, ambiguity flags).
"""
