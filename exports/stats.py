"""Release statistics in the shape of SOB's table, gathered while the data files stream out.

Per split and overall: records, average context tokens, median schema properties, median
required fields, share of medium and hard schemas (from the validation report's complexity;
records without one are left out of those figures, and `with_complexity` says how many had it),
plus source categories (olmOCR `source_category`) and question difficulties where present.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

TOKENIZER_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
FALLBACK_TOKENIZER = r"regex word-piece approximation (count of \w+|[^\w\s] matches)"
_WORD_PIECE = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class Tokenizer:
    name: str  # what the card and manifest report
    exact: bool  # True only for the real all-MiniLM-L6-v2 tokenizer
    count: Callable[[Sequence[str]], list[int]]


def _regex_count(texts: Sequence[str]) -> list[int]:
    return [len(_WORD_PIECE.findall(text)) for text in texts]


@lru_cache(maxsize=1)
def get_tokenizer() -> Tokenizer:
    """The all-MiniLM-L6-v2 tokenizer if it loads from the local cache, else the regex fallback.

    Never touches the network (`local_files_only=True`).
    """
    try:
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(TOKENIZER_MODEL, local_files_only=True)
    except (ImportError, OSError, ValueError):
        return Tokenizer(FALLBACK_TOKENIZER, False, _regex_count)
    tok.model_max_length = 10**9  # counting only: no truncation, no length warnings

    def _hf_count(texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        encoded = tok(list(texts), add_special_tokens=False, truncation=False)["input_ids"]
        return [len(ids) for ids in encoded]

    return Tokenizer(f"{TOKENIZER_MODEL} (Hugging Face tokenizer, no special tokens)", True, _hf_count)


def count_tokens(texts: Sequence[str]) -> list[int]:
    """Token count per text, with `get_tokenizer()` (see `tokenizer_name()` for which one)."""
    return get_tokenizer().count(texts)


def tokenizer_name() -> str:
    return get_tokenizer().name


@dataclass
class _SplitFigures:
    records: int = 0
    context_tokens: int = 0
    properties: list[int] = field(default_factory=list)
    required: list[int] = field(default_factory=list)
    levels: Counter[str] = field(default_factory=Counter)

    def add(self, tokens: int, complexity: dict[str, Any] | None) -> None:
        self.records += 1
        self.context_tokens += tokens
        if complexity:
            self.properties.append(int(complexity.get("properties", 0)))
            self.required.append(int(complexity.get("required", 0)))
            self.levels[str(complexity.get("level", "easy"))] += 1

    def merge(self, other: _SplitFigures) -> None:
        self.records += other.records
        self.context_tokens += other.context_tokens
        self.properties += other.properties
        self.required += other.required
        self.levels.update(other.levels)

    def summary(self) -> dict[str, Any]:
        n_complex = len(self.properties)
        return {
            "records": self.records,
            "avg_context_tokens": round(self.context_tokens / self.records, 1) if self.records else None,
            "median_schema_properties": statistics.median(self.properties) if n_complex else None,
            "median_required_fields": statistics.median(self.required) if n_complex else None,
            "share_medium": round(self.levels["medium"] / n_complex, 4) if n_complex else None,
            "share_hard": round(self.levels["hard"] / n_complex, 4) if n_complex else None,
            "with_complexity": n_complex,
        }


class StatsCollector:
    """Feed records with `add`, then `result()`. Token counting is batched."""

    def __init__(self, splits: Sequence[str], batch_size: int = 1000) -> None:
        self.splits = list(splits)
        self.batch_size = batch_size
        self.tokenizer = get_tokenizer()
        self._figures = {split: _SplitFigures() for split in self.splits}
        self._pending: list[tuple[str, str, dict[str, Any] | None]] = []
        self.categories: Counter[str] = Counter()
        self.difficulties: Counter[str] = Counter()

    def add(
        self,
        split: str,
        context: str,
        complexity: dict[str, Any] | None,
        category: str | None = None,
        difficulty: str | None = None,
    ) -> None:
        if split not in self._figures:
            raise ValueError(f"unknown split {split!r}; expected one of {self.splits}")
        self._pending.append((split, context, complexity))
        if category:
            self.categories[category] += 1
        if difficulty:
            self.difficulties[difficulty] += 1
        if len(self._pending) >= self.batch_size:
            self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        counts = self.tokenizer.count([context for _, context, _ in self._pending])
        for (split, _, complexity), tokens in zip(self._pending, counts, strict=True):
            self._figures[split].add(tokens, complexity)
        self._pending.clear()

    def result(self) -> dict[str, Any]:
        self._flush()
        overall = _SplitFigures()
        for figures in self._figures.values():
            overall.merge(figures)
        return {
            "tokenizer": self.tokenizer.name,
            "tokenizer_exact": self.tokenizer.exact,
            "overall": overall.summary(),
            "splits": {split: figures.summary() for split, figures in self._figures.items()},
            "source_categories": dict(sorted(self.categories.items(), key=lambda kv: (-kv[1], kv[0]))),
            "question_difficulty": dict(sorted(self.difficulties.items(), key=lambda kv: (-kv[1], kv[0]))),
        }
