"""Whether a process, or a process group, still runs: one answer for every part that watches another process."""

from __future__ import annotations

import os


def process_alive(pid: int) -> bool:
    """Signal 0 asks the kernel without touching the process; a process of another user still exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
