"""Progress bars for long steps, in one style: tqdm on stderr, silent when stderr is not a terminal, off with
`--quiet` (`set_output(quiet=True)`); `SOB_PROGRESS=1` forces them on (benchmarks, screenshots).

`set_output` also keeps third-party loggers (httpx's `HTTP Request` lines, olmocr, huggingface_hub, ...) at
warnings unless `verbose`, so a run shows its own progress and summary lines only.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterable, Iterator
from typing import TypeVar

from tqdm import tqdm

T = TypeVar("T")
THIRD_PARTY_LOGGERS = ("httpx", "httpcore", "olmocr", "huggingface_hub", "datasets", "urllib3", "filelock", "PIL")

_quiet = False


def set_output(*, quiet: bool = False, verbose: bool = False) -> None:
    """Bars off when `quiet`; third-party loggers at INFO only when `verbose` (else WARNING)."""
    global _quiet
    _quiet = quiet
    for name in THIRD_PARTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO if verbose else logging.WARNING)
    if quiet:  # the bars `datasets` and `huggingface_hub` draw themselves (download, upload, Arrow writing)
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
        with contextlib.suppress(ImportError):  # datasets is a dependency; a trimmed install may lack it
            import datasets

            datasets.disable_progress_bars()


def _disabled() -> bool | None:
    if _quiet:
        return True
    return None if not os.environ.get("SOB_PROGRESS") else False  # None: tqdm's own "not a terminal" check


def progress(total: int | None, desc: str, unit: str = "rec") -> tqdm:
    return tqdm(total=total, desc=desc, unit=unit, disable=_disabled(), leave=False, dynamic_ncols=True)


def tracked(items: Iterable[T], desc: str, total: int | None = None, unit: str = "rec") -> Iterator[T]:
    """`items`, counted on a bar as they are consumed (a stream of unknown length shows a running count)."""
    with progress(total, desc, unit) as bar:
        for item in items:
            yield item
            bar.update(1)
