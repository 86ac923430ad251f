"""`python -m scoring.run`: a model answers every record of a release, as SOB's `python -m sob.run` asks it.

prompts.py: SOB's system prompt, user message and per-provider schemas; backends.py: each provider
asked as SOB asks it; responses.py: SOB's response lines and file layout, and the checkpoint;
runner.py: the run through the toolkit's LLM client; cli.py: the command.
"""
