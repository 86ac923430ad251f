"""`python -m scoring.leaderboard`: SOB's leaderboard from a folder of evaluation summaries.

build.py: the rows, as SOB's `scripts/build_leaderboard.py` computes them; render.py: the Markdown
table and the plot; cli.py: the command (and the push beside a release, exports/hub_files.py).
"""
