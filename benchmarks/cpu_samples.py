"""Where a loop spends its CPU, by function: a sampling profiler for the benchmarks.

A tracing profiler (cProfile, or pyinstrument's call hook) pays a cost on every call and return. On the gate's
code, made of many small calls, that doubled the time of a pass (measured: 587 us per record plain, 1,213 us under
pyinstrument) and charged the extra to whichever functions call most. Here the process's CPU timer (`SIGPROF`)
interrupts the loop every `interval` seconds of CPU and the signal handler notes every function on the stack:
no cost per call, a few microseconds per sample. Python runs the handler at its next safe point, so a long call
into C (a regular expression over a whole text) is charged to the Python function that made it, as it should be.
Main thread only, on a platform with `setitimer` (Linux, macOS).
"""

from __future__ import annotations

import signal
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

Function = tuple[str, str]  # (file, qualified name), as a rule's catalogue entry names it


class CpuSamples:
    def __init__(self, interval: float = 0.0005) -> None:
        self.interval = interval
        # The set of functions on the stack at each sample, counted: a function called twice up one stack (recursion)
        # is charged once for the sample.
        self.stacks: Counter[frozenset[Function]] = Counter()

    @property
    def count(self) -> int:
        return sum(self.stacks.values())

    def share(self, functions: set[Function]) -> float:
        """The share of the samples taken while any of `functions` was running (or waiting on a call it made)."""
        total = self.count
        hit = sum(n for stack, n in self.stacks.items() if not stack.isdisjoint(functions))
        return hit / total if total else 0.0

    def _sample(self, _signum: int, frame: FrameType | None) -> None:
        seen = set()
        while frame is not None:
            code = frame.f_code
            seen.add((code.co_filename, code.co_qualname))
            frame = frame.f_back
        self.stacks[frozenset(seen)] += 1

    @contextmanager
    def recording(self) -> Iterator[CpuSamples]:
        previous = signal.signal(signal.SIGPROF, self._sample)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)
        try:
            yield self
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0, 0)
            signal.signal(signal.SIGPROF, previous)
