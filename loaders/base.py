"""What every loader returns (defined in core/loading.py, so the source protocol in core can name it)."""

from __future__ import annotations

from core.loading import LoadProblem, LoadResult

__all__ = ["LoadProblem", "LoadResult"]
