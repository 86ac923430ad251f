"""Help text for the scoring commands: the description wrapped as usual, the examples printed as written."""

from __future__ import annotations

import argparse


def examples_formatter(examples: str) -> type[argparse.HelpFormatter]:
    """A formatter that prints `examples` (the parser's epilog) line by line, and wraps the rest."""

    class ExamplesFormatter(argparse.HelpFormatter):
        def add_text(self, text: str | None) -> None:
            if text is examples:
                self._add_item(lambda: text, [])
            else:
                super().add_text(text)

    return ExamplesFormatter
