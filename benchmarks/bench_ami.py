"""Benchmark the AMI loader on a Kaldi `text` file the size of the ihm train split.

Writes 108,502 synthetic utterances over 130 meetings (4 speakers each, invented words) into a
temporary folder, then builds every meeting's transcript with `load_ami` and prints the seconds it
took and the peak memory (RSS) of the process. Targets: under 5 s and under 500 MB.

    .venv/bin/python benchmarks/bench_ami.py [--utterances N] [--meetings N] [--max-context-tokens N]
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loaders.ami import load_ami  # noqa: E402

IHM_TRAIN_UTTERANCES = 108_502
MEETINGS = 130
TARGET_SECONDS = 5.0
TARGET_MB = 500.0
SYLLABLES = ["KA", "LO", "MI", "TER", "RON", "SA", "VEL", "DU", "PEN", "GRI", "TO", "NAS"]


def write_text_file(path: Path, utterances: int, meetings: int, seed: int = 0) -> None:
    """A Kaldi `text` file: `AMI_<meeting>_<mic>_<speaker>_<begin cs>_<end cs> WORDS`, sorted by id."""
    rng = random.Random(seed)
    vocabulary = ["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3))) for _ in range(5000)] + [
        "YEAH",
        "UM",
        "OKAY",
        "THE",
        "AND",
        "SO",
        "I",
        "THINK",
        "WE",
        "IT",
    ] * 50
    lines = []
    per_meeting, extra = divmod(utterances, meetings)
    for m in range(meetings):
        meeting = f"SY{1000 + m // 4}{'abcd'[m % 4]}"
        speakers = [(f"H0{k}", f"{'MF'[k % 2]}EE{100 + 4 * m + k:03d}") for k in range(4)]
        clock = rng.randint(100, 500)
        for _ in range(per_meeting + (1 if m < extra else 0)):
            mic, speaker = rng.choice(speakers)
            words = rng.choices(vocabulary, k=max(1, int(rng.expovariate(1 / 9))))
            begin = clock
            end = begin + 30 + 30 * len(words)
            clock = begin + rng.randint(20, 30 * len(words) + 60)  # speakers overlap now and then
            lines.append(f"AMI_{meeting}_{mic}_{speaker}_{begin:07d}_{end:07d} {' '.join(words)}\n")
    lines.sort()
    path.write_text("".join(lines), encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--utterances", type=int, default=IHM_TRAIN_UTTERANCES)
    parser.add_argument("--meetings", type=int, default=MEETINGS)
    parser.add_argument("--max-context-tokens", type=int, default=None)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench_ami_") as tmp:
        text = Path(tmp) / "train" / "text"
        text.parent.mkdir()
        started = time.perf_counter()
        write_text_file(text, args.utterances, args.meetings)
        written = time.perf_counter() - started
        size_mb = text.stat().st_size / 1e6
        rss_before = psutil.Process().memory_info().rss / 2**20

        started = time.perf_counter()
        result = load_ami(text, max_context_tokens=args.max_context_tokens)
        seconds = time.perf_counter() - started

    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux
    chars = sum(len(item.context) for item in result.items)
    print(
        f"input:       {args.utterances:,} utterances, {args.meetings} meetings, {size_mb:.1f} MB "
        f"(written in {written:.2f} s)"
    )
    print(
        f"loaded:      {result.utterances:,} utterances -> {len(result.items)} items, "
        f"{chars / 1e6:.1f} M characters of transcript, {len(result.problems)} problems"
    )
    print(f"time:        {seconds:.2f} s (target < {TARGET_SECONDS:.0f} s)")
    print(
        f"memory:      peak RSS {peak_mb:.0f} MB (target < {TARGET_MB:.0f} MB); RSS before loading {rss_before:.0f} MB"
    )
    ok = seconds < TARGET_SECONDS and peak_mb < TARGET_MB and not result.problems
    print("result:      " + ("within targets" if ok else "OUTSIDE TARGETS"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
