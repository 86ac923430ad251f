"""Release statistics in the shape of SOB's table, gathered while the data files stream out.

Per split and overall: records, average context tokens, median schema properties, median
required fields, share of medium and hard schemas (from the validation report's complexity;
records without one are left out of those figures, and `with_complexity` says how many had it),
plus source categories (olmOCR `source_category`) and question difficulties where present, the
judge's scores per dimension, and who curated and drafted the records.

Context tokens are counted with the tokenizer of SOB's evaluator, `all-MiniLM-L6-v2`'s, when it
can be loaded offline: first its `tokenizer.json`, shipped with the toolkit (exports/tokenizer/, read with
the `tokenizers` library), then a copy in the local Hugging Face cache (via
`transformers`). Otherwise a stated regex approximation is used, and the card says so.
"""

from __future__ import annotations

import operator
import re
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

TOKENIZER_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
TOKENIZER_FILE = Path(__file__).resolve().parent / "tokenizer" / "all-MiniLM-L6-v2.tokenizer.json"
FALLBACK_TOKENIZER = r"regex word-piece approximation (count of \w+|[^\w\s] matches)"
_WORD_PIECE = re.compile(r"\w+|[^\w\s]")
# Characters `str.split()` splits on but the BERT normalizer deletes (control characters), so
# the words on either side join: a text holding one is counted whole by the real tokenizer.
_JOINERS = "\x0b\x0c\x1c\x1d\x1e\x1f\x85"
_JOINERS_CLASS = "[" + _JOINERS + "]"  # the same, as a regular expression
_CHUNK_CACHE_LIMIT = 2_000_000


@dataclass(frozen=True)
class Tokenizer:
    name: str  # what the card and manifest report
    exact: bool  # True only for the real all-MiniLM-L6-v2 tokenizer
    count: Callable[[Sequence[str]], list[int]]
    # The sum of the counts, when the tokenizer has a faster way to it than counting text by text.
    sum_of_counts: Callable[[Sequence[str]], int] | None = None

    def total(self, texts: Sequence[str]) -> int:
        """Tokens in all of `texts` together (what the release statistics need)."""
        return self.sum_of_counts(texts) if self.sum_of_counts is not None else sum(self.count(texts))


def _regex_count(texts: Sequence[str]) -> list[int]:
    return [len(_WORD_PIECE.findall(text)) for text in texts]


class _ChunkCounts(dict):
    """chunk -> token count; a lookup that misses counts 0 and is noted in `missed`."""

    __slots__ = ("missed",)

    def __missing__(self, key: str) -> int:
        self.missed.append(key)
        return 0


class ChunkCounter:
    """Exact token counts from a BERT `tokenizers.Tokenizer`, several times faster than encoding.

    The BERT normalizer works character by character and its pre-tokenizer splits on whitespace,
    so a text's count is the sum of the counts of its whitespace-separated chunks. Chunks repeat
    a lot across contexts, so each distinct chunk is counted once and cached: new chunks are
    joined by spaces into a few long strings, encoded by the real tokenizer, and each token is
    credited to the chunk its start offset falls in. Texts holding a character that `str.split()`
    and the normalizer treat differently (`_JOINERS`) are encoded whole.
    """

    def __init__(self, tokenizer: Any, pieces: int = 8) -> None:
        self.tokenizer = tokenizer
        self.pieces = pieces
        self.cache = _ChunkCounts()
        self.cache.missed = []

    def _encode(self, texts: list[str]) -> list[int]:
        return [len(e.ids) for e in self.tokenizer.encode_batch_fast(texts, add_special_tokens=False)]

    def _count_chunks(self, chunks: list[str]) -> None:
        import numpy as np

        step = max(1, -(-len(chunks) // self.pieces))
        groups = [chunks[k : k + step] for k in range(0, len(chunks), step)]
        encodings = self.tokenizer.encode_batch([" ".join(g) for g in groups], add_special_tokens=False)
        for group, encoding in zip(groups, encodings, strict=True):
            lengths = np.fromiter(map(len, group), dtype=np.int64, count=len(group))
            starts = np.cumsum(lengths + 1) - (lengths + 1)  # where each chunk begins in the joined string
            offsets = encoding.offsets
            token_starts = np.fromiter((start for start, _ in offsets), dtype=np.int64, count=len(offsets))
            owner = np.searchsorted(starts, token_starts, side="right") - 1
            dict.update(self.cache, zip(group, np.bincount(owner, minlength=len(group)).tolist(), strict=True))

    def __call__(self, texts: Sequence[str]) -> list[int]:
        if len(self.cache) > _CHUNK_CACHE_LIMIT:
            self.cache.clear()
        cache = self.cache
        get = cache.__getitem__
        counts = [0] * len(texts)
        whole: list[int] = []
        to_fix: list[tuple[int, list[str]]] = []
        for i, text in enumerate(texts):
            if any(c in text for c in _JOINERS):
                whole.append(i)
                continue
            cache.missed = []
            counts[i] = sum(map(get, text.split()))
            if cache.missed:
                to_fix.append((i, cache.missed))
        cache.missed = []
        if to_fix:
            self._count_chunks(list({chunk for _, missed in to_fix for chunk in missed}))
            for i, missed in to_fix:
                counts[i] += sum(map(get, missed))
        if whole:
            for i, n in zip(whole, self._encode([texts[i] for i in whole]), strict=True):
                counts[i] = n
        return counts

    def total(self, texts: Sequence[str]) -> int:
        """The sum of `self(texts)`, several times faster and mostly without the GIL (a release runs it on a
        background thread): Arrow splits the texts at whitespace (as `str.split()` does) and tallies the
        chunks in C++, so Python only looks up each distinct chunk once."""
        if len(self.cache) > _CHUNK_CACHE_LIMIT:
            self.cache.clear()
        if not texts:
            return 0
        array = pa.array(texts, pa.large_string())
        whole = pc.match_substring_regex(array, _JOINERS_CLASS)
        split = pc.utf8_split_whitespace(array.filter(pc.invert(whole))).flatten()
        tally = pc.value_counts(split.filter(pc.not_equal(split, "")))  # "" between two whitespace characters
        chunks, occurrences = tally.field("values").to_pylist(), tally.field("counts").to_pylist()
        cache = self.cache
        new = [chunk for chunk in chunks if chunk not in cache]
        if new:
            self._count_chunks(new)
        tokens = sum(map(operator.mul, map(cache.__getitem__, chunks), occurrences))
        whole_texts = array.filter(whole).to_pylist()
        return tokens + (sum(self._encode(whole_texts)) if whole_texts else 0)


def _packaged_tokenizer() -> Tokenizer | None:
    """all-MiniLM-L6-v2's tokenizer.json, shipped with the toolkit (exports/tokenizer/PROVENANCE.md), offline."""
    try:
        from tokenizers import Tokenizer as HFTokenizer
    except ImportError:
        return None
    try:
        tok = HFTokenizer.from_file(str(TOKENIZER_FILE))
    except Exception:  # tokenizers raises a bare Exception for a missing or malformed file
        return None
    if tok.get_vocab_size() != 30522:  # not the BERT uncased vocabulary all-MiniLM-L6-v2 uses
        return None
    tok.no_truncation()
    tok.no_padding()
    counter = ChunkCounter(tok)
    return Tokenizer(
        f"{TOKENIZER_MODEL} (Hugging Face tokenizer, the toolkit's copy of its tokenizer.json; no special tokens)",
        True,
        counter,
        counter.total,
    )


def _cached_transformers_tokenizer() -> Tokenizer | None:
    """The tokenizer from the local Hugging Face cache, through transformers (never the network)."""
    try:
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(TOKENIZER_MODEL, local_files_only=True)
    except (ImportError, OSError, ValueError):
        return None
    tok.model_max_length = 10**9  # counting only: no truncation, no length warnings

    def _hf_count(texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        encoded = tok(list(texts), add_special_tokens=False, truncation=False)["input_ids"]
        return [len(ids) for ids in encoded]

    return Tokenizer(
        f"{TOKENIZER_MODEL} (Hugging Face tokenizer, from the local cache; no special tokens)", True, _hf_count
    )


@lru_cache(maxsize=1)
def get_tokenizer() -> Tokenizer:
    """all-MiniLM-L6-v2's tokenizer if it loads offline (package, then cache), else the regex fallback."""
    return (
        _packaged_tokenizer() or _cached_transformers_tokenizer() or Tokenizer(FALLBACK_TOKENIZER, False, _regex_count)
    )


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
            "schema_levels": {level: self.levels[level] for level in ("easy", "medium", "hard") if self.levels[level]},
        }


def _by_count(counter: Counter[str]) -> dict[str, int]:
    return dict(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


def _score_summary(values: list[float]) -> dict[str, Any]:
    ordered = sorted(values)
    return {
        "records": len(ordered),
        "mean": round(statistics.fmean(ordered), 1),
        "median": statistics.median(ordered),
        "min": ordered[0],
        "p10": ordered[(len(ordered) - 1) // 10],
    }


class StatsCollector:
    """Feed records with `add`, then `result()` (and `distributions()` for the plots).

    Token counting is batched; with `submit` (an executor's), each batch is counted there, beside the caller's
    own work (the tokenizer releases the GIL while it encodes)."""

    def __init__(
        self,
        splits: Sequence[str],
        batch_size: int = 1000,
        submit: Callable[[Callable[[Sequence[str]], int], Sequence[str]], Future[int]] | None = None,
    ) -> None:
        self.splits = list(splits)
        self.batch_size = batch_size
        self.tokenizer = get_tokenizer()
        self.submit = submit
        self._figures = {split: _SplitFigures() for split in self.splits}
        self._pending: list[tuple[str, str, dict[str, Any] | None]] = []
        self._token_jobs: list[tuple[str, Future[int]]] = []
        self.categories: Counter[str] = Counter()
        self.difficulties: Counter[str] = Counter()
        self.scores: dict[str, list[float]] = {}
        self.annotators: Counter[str] = Counter()
        self.draft_models: Counter[str] = Counter()
        self.judges: Counter[str] = Counter()

    def add(
        self,
        split: str,
        context: str,
        complexity: dict[str, Any] | None,
        category: str | None = None,
        difficulty: str | None = None,
        *,
        scores: dict[str, Any] | None = None,
        annotator: str | None = None,
        draft_model: str | None = None,
        judge: str | None = None,
    ) -> None:
        if split not in self._figures:
            raise ValueError(f"unknown split {split!r}; expected one of {self.splits}")
        self._pending.append((split, context, complexity))
        if category:
            self.categories[category] += 1
        if difficulty:
            self.difficulties[difficulty] += 1
        for dimension, score in (scores or {}).items():
            if isinstance(score, int | float) and not isinstance(score, bool):
                self.scores.setdefault(dimension, []).append(score)
        self.annotators[annotator or "(none)"] += 1
        self.draft_models[draft_model or "(none: written by the curator)"] += 1
        if judge:
            self.judges[judge] += 1
        if len(self._pending) >= self.batch_size:
            self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        # Only each split's sum of tokens is reported, so each split's contexts are counted together.
        contexts: dict[str, list[str]] = {}
        for split, context, complexity in self._pending:
            self._figures[split].add(0, complexity)
            contexts.setdefault(split, []).append(context)
        for split, texts in contexts.items():
            if self.submit is None:
                self._figures[split].context_tokens += self.tokenizer.total(texts)
            else:
                self._token_jobs.append((split, self.submit(self.tokenizer.total, texts)))
        self._pending.clear()

    def _collect(self) -> None:
        self._flush()
        for split, job in self._token_jobs:
            self._figures[split].context_tokens += job.result()
        self._token_jobs.clear()

    def result(self) -> dict[str, Any]:
        self._collect()
        overall = _SplitFigures()
        for figures in self._figures.values():
            overall.merge(figures)
        return {
            "tokenizer": self.tokenizer.name,
            "tokenizer_exact": self.tokenizer.exact,
            "overall": overall.summary(),
            "splits": {split: figures.summary() for split, figures in self._figures.items()},
            "source_categories": _by_count(self.categories),
            "question_difficulty": _by_count(self.difficulties),
            "judge_scores": {dim: _score_summary(values) for dim, values in sorted(self.scores.items())},
            "annotators": _by_count(self.annotators),
            "draft_models": _by_count(self.draft_models),
            "judges": _by_count(self.judges),
        }

    def distributions(self) -> dict[str, Any]:
        """Raw figures for the plots: schema levels and property counts per split, scores per dimension."""
        self._collect()
        return {
            "levels": {split: dict(f.levels) for split, f in self._figures.items()},
            "properties": {split: list(f.properties) for split, f in self._figures.items()},
            "scores": {dim: list(values) for dim, values in sorted(self.scores.items())},
        }
