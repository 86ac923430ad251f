"""Caches keyed by a schema's hash (canonical, or of its parsed JSON as given): many records share a schema,
and the schema-only work (metaschema checks, compiled validators, structure checks, sizes, complexity) is the
expensive part."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from pydantic_core import to_json

from core.models import content_hash
from core.verdicts import ValidationFailure

V = TypeVar("V")


def schema_key(schema: Any) -> str | None:
    """Canonical SHA-256 of a schema, or None when it cannot be hashed (not JSON, cyclic, too deep):
    callers then compute without caching instead of failing."""
    try:
        return content_hash(schema)
    except (TypeError, ValueError, RecursionError):
        return None


def parsed_schema_key(schema: dict[str, Any]) -> str | None:
    """A cache key for a schema just parsed from JSON text, three times cheaper than `schema_key`: the SHA-256
    of its JSON as written by pydantic's serialiser, keys in their given order. Equal keys still mean equal
    schemas (the same JSON text); a schema with its keys in another order only misses the cache. Only for
    parsed JSON: a tree of JSON values, with no cycles, shared parts, bytes or tuples to hash. None when it
    cannot be written (nested too deep for the serialiser)."""
    try:
        return hashlib.sha256(to_json(schema, inf_nan_mode="constants")).hexdigest()
    except ValueError:
        return None


class BoundedCache(Generic[V]):
    """A small LRU map: bounded so a long batch of one-off schemas cannot grow memory without limit."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._data: OrderedDict[str, V] = OrderedDict()

    def get(self, key: str | None) -> V | None:
        if key is None:
            return None
        value = self._data.get(key)
        if value is not None:
            try:
                self._data.move_to_end(key)
            except KeyError:  # evicted by another thread meanwhile: the value is still good
                pass
        return value

    def put(self, key: str | None, value: V) -> V:
        if key is not None:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)
        return value

    def clear(self) -> None:
        self._data.clear()

    def __len__(self) -> int:
        return len(self._data)


class FailureCache:
    """Failures worked out once per schema key. Every caller gets copies: reports may be edited by their
    owners. Without a key (a schema that cannot be hashed) they are worked out every time."""

    def __init__(self, maxsize: int = 65536) -> None:
        self._cache: BoundedCache[tuple[ValidationFailure, ...]] = BoundedCache(maxsize)

    def failures(self, key: str | None, work_out: Callable[[], Iterable[ValidationFailure]]) -> list[ValidationFailure]:
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache.put(key, tuple(work_out()))
        return [f.model_copy() for f in cached]
