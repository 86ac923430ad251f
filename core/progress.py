"""Progress bars for long steps (tqdm on stderr; silent when stderr is not a terminal)."""

from __future__ import annotations

import os

from tqdm import tqdm


def progress(total: int | None, desc: str) -> tqdm:
    disable = None if not os.environ.get("SOB_PROGRESS") else False  # SOB_PROGRESS=1 forces bars on
    return tqdm(total=total, desc=desc, unit="rec", disable=disable, leave=False, dynamic_ncols=True)
