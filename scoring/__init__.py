"""Scoring: SOB's evaluator (by default exactly), ExtractBench field presets, STED and consistency,
curation numbers.

`python -m scoring --responses FILE_OR_DIR --output-root OUT` scores SOB response files and writes
SOB's evaluation files; `python -m scoring --release DIR --predictions FILE` scores model predictions
on a release; the same functions measure curation (draft-to-final agreement, suspect records,
ambiguity flags). `python -m scoring.run` runs a model on a release as SOB's `sob.run` does (scoring/run/),
and `python -m scoring.leaderboard` ranks the scored models as SOB's leaderboard script (scoring/leaderboard/).
"""
