"""How many olmOCR-bench pages to keep per category, and in which seeded order to try them.

A target counts pages that *passed* the OCR gate, not PDFs tried: the loader OCRs PDFs in rounds,
each category in its own seeded order, until every category has met its target or has no PDF left.

- `--category-quota headers_footers=67,multi_column=62`: a target per category; a category that
  runs out stays short (the run says which), the others are not topped up.
- `--mix sob`: SOB's own mix (209 pages: Headers/Footers 67, Multi-Column 62, Tables 33, Old Scans
  23, Long/Tiny Text 11, ArXiv Math 10, Old Scans Math 3). With `--limit N` a mix is scaled to N.
- `--limit N` alone: N passing pages, shared among the categories in proportion to their size; what
  a category that runs out cannot give is drawn from the others.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

# SOB's published image mix, by olmOCR-bench test file stem.
SOB_MIX: dict[str, int] = {
    "headers_footers": 67,
    "multi_column": 62,
    "table_tests": 33,
    "old_scans": 23,
    "long_tiny_text": 11,
    "arxiv_math": 10,
    "old_scans_math": 3,
}
MIXES: dict[str, dict[str, int]] = {"sob": SOB_MIX}
MIN_PASS_RATE_ESTIMATE = 0.2  # a category that passed little so far is still tried in batches this large


def parse_quota(text: str) -> dict[str, int]:
    """`name=N,name=N` -> {name: N}; names are matched to categories later (any spelling)."""
    quota: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, sep, count = part.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"--category-quota expects name=N pairs separated by commas, got {part!r}")
        try:
            n = int(count)
        except ValueError:
            raise ValueError(f"--category-quota: {name}={count.strip()!r} is not a whole number") from None
        if n < 0:
            raise ValueError(f"--category-quota: {name}={n} cannot be negative")
        if name in quota:
            raise ValueError(f"--category-quota names {name!r} twice")
        quota[name] = n
    if not quota or sum(quota.values()) == 0:
        raise ValueError("--category-quota asks for no pages at all")
    return quota


def mix_quota(name: str) -> dict[str, int]:
    try:
        return dict(MIXES[name.lower()])
    except KeyError:
        raise ValueError(f"unknown --mix {name!r}; known: {', '.join(MIXES)}") from None


def largest_remainder(weights: Mapping[str, float], total: int) -> dict[str, int]:
    """Share `total` in proportion to `weights` (whole numbers that sum to `total`; ties by name)."""
    weight_sum = sum(weights.values())
    if weight_sum <= 0 or total <= 0:
        return {name: 0 for name in weights}
    exact = {name: total * w / weight_sum for name, w in weights.items()}
    shares = {name: math.floor(x) for name, x in exact.items()}
    for name in sorted(exact, key=lambda n: (-(exact[n] - shares[n]), n))[: total - sum(shares.values())]:
        shares[name] += 1
    return shares


def seeded_order(keys: Sequence[str], seed: int) -> list[str]:
    """The same seed always gives the same order; adding a PDF does not reorder the others."""
    return sorted(keys, key=lambda k: hashlib.sha256(f"{seed}:{k}".encode()).hexdigest())


@dataclass
class CategoryDraw:
    name: str  # test file stem
    label: str  # SOB's name, for messages
    order: list[str]  # PDF keys in the seeded order
    target: int | None  # passing pages wanted; None = every PDF
    tried: int = 0  # PDFs taken from `order` so far
    passed: list[str] = field(default_factory=list)

    @property
    def need(self) -> int:
        if self.target is None:
            return len(self.order) - self.tried
        return max(0, self.target - len(self.passed))

    @property
    def left(self) -> int:
        return len(self.order) - self.tried

    def next_batch(self) -> list[str]:
        """The next PDFs to OCR: as many as should pass, given what passed so far."""
        if self.need == 0 or self.left == 0:
            return []
        if self.target is None:
            size = self.left
        else:
            rate = len(self.passed) / self.tried if self.tried else 1.0
            size = math.ceil(self.need / max(rate, MIN_PASS_RATE_ESTIMATE))
        batch = self.order[self.tried : self.tried + size]
        self.tried += len(batch)
        return batch

    def summary(self) -> str:
        if self.target is None:
            return f"{self.label}: {len(self.passed)} of {self.tried} PDFs passed"
        line = f"{self.label}: {len(self.passed)}/{self.target} ({self.tried} of {len(self.order)} PDFs tried)"
        if len(self.passed) < self.target:
            line += f" - ran out, {self.target - len(self.passed)} short"
        return line


@dataclass
class DrawPlan:
    categories: dict[str, CategoryDraw]
    top_up: bool  # move what a category that ran out cannot give to the others (--limit alone)

    def next_round(self) -> list[str]:
        if self.top_up:
            self._move_unmet_need()
        return [key for draw in self.categories.values() for key in draw.next_batch()]

    def _move_unmet_need(self) -> None:
        short = sum(d.need for d in self.categories.values() if d.left == 0 and d.target is not None)
        open_ = {n: d for n, d in self.categories.items() if d.left > 0 and d.target is not None}
        if not short or not open_:
            return
        for name, extra in largest_remainder({n: d.left for n, d in open_.items()}, short).items():
            open_[name].target = (open_[name].target or 0) + extra
        for draw in self.categories.values():
            if draw.left == 0 and draw.target is not None:
                draw.target = len(draw.passed)

    def record_pass(self, category: str, key: str) -> bool:
        """Count a passing page; False when its category already has what it needs (an extra)."""
        draw = self.categories[category]
        if draw.target is not None and len(draw.passed) >= draw.target:
            return False
        draw.passed.append(key)
        return True

    def summaries(self) -> list[str]:
        return [d.summary() for d in self.categories.values() if d.target != 0 or d.tried]

    def ran_out(self) -> list[str]:
        return [d.label for d in self.categories.values() if d.target is not None and len(d.passed) < d.target]


def make_plan(
    keys_by_category: Mapping[str, Sequence[str]],
    labels: Mapping[str, str],
    *,
    seed: int,
    limit: int | None,
    quota: Mapping[str, int] | None,
) -> DrawPlan:
    """Targets per category (test file stem) from a quota (scaled to `limit` if given) or `limit` alone."""
    if quota is not None:
        targets: dict[str, int | None] = dict(largest_remainder(quota, limit) if limit is not None else quota)
        top_up = False
    elif limit is not None:
        targets = dict(largest_remainder({n: len(k) for n, k in keys_by_category.items()}, limit))
        top_up = True
    else:
        targets = {name: None for name in keys_by_category}
        top_up = False
    # A quota for a category this input has no PDF of is kept: it shows up as run out.
    categories = {
        name: CategoryDraw(name, labels.get(name, name), seeded_order(keys_by_category.get(name, []), seed), target)
        for name, target in targets.items()
        if target is None or target > 0 or top_up  # with top_up, a 0 target may grow
    }
    return DrawPlan(categories, top_up)
