"""Secrets never reach the store or the terminal: every configured secret is masked in any text.

The secrets are the provider keys and tokens read from the environment (`SECRET_ENV`) plus any
given on the command line (`register_secret`). `redact(text)` replaces each with `[REDACTED]`;
`redact_data` does the same inside JSON-like data. The store calls them before it writes reasons,
events, import rejections, drafts and LLM cache entries; the CLI before it prints.
"""

from __future__ import annotations

import os
import re
import threading
from functools import lru_cache
from typing import Any

SECRET_ENV = (
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENAI_API_KEY",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "LABEL_STUDIO_API_KEY",
)
MASK = "[REDACTED]"
MIN_SECRET_LENGTH = 6  # shorter values ("1", "none") would mask ordinary words, and guard nothing

_registered: set[str] = set()
_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """A secret given some other way than the environment (e.g. `--label-studio-api-key`)."""
    if value and len(value.strip()) >= MIN_SECRET_LENGTH:
        with _lock:
            _registered.add(value.strip())


def forget_registered_secrets() -> None:
    """For tests: drop the secrets registered by earlier runs in this process."""
    with _lock:
        _registered.clear()


def configured_secrets() -> tuple[str, ...]:
    with _lock:
        registered = frozenset(_registered)
    return _secrets(tuple(os.environ.get(name, "") for name in SECRET_ENV), registered)


@lru_cache(maxsize=16)
def _secrets(env_values: tuple[str, ...], registered: frozenset[str]) -> tuple[str, ...]:
    values = {v.strip() for v in env_values} | registered
    # Longest first, so a secret that contains another is masked whole.
    return tuple(sorted((v for v in values if len(v) >= MIN_SECRET_LENGTH), key=lambda v: (-len(v), v)))


@lru_cache(maxsize=16)
def _pattern(secrets: tuple[str, ...]) -> re.Pattern[str] | None:
    if not secrets:
        return None
    return re.compile("|".join(re.escape(s) for s in secrets))


def redact(text: str | None, secrets: tuple[str, ...] | None = None) -> str | None:
    """`text` with every configured secret replaced by `[REDACTED]` (None stays None).

    `secrets`: a `configured_secrets()` read once for many texts (reading the environment costs
    more than the masking itself).
    """
    if not text:
        return text
    secrets = configured_secrets() if secrets is None else secrets
    if not any(secret in text for secret in secrets):  # the common case, and a fast one
        return text
    pattern = _pattern(secrets)
    return pattern.sub(MASK, text) if pattern is not None else text


def redact_data(value: Any) -> Any:
    """The same masking inside dicts, lists and strings (keys included)."""
    pattern = _pattern(configured_secrets())
    if pattern is None:
        return value
    return _walk(value, pattern)


def _walk(value: Any, pattern: re.Pattern[str]) -> Any:
    if isinstance(value, str):
        return pattern.sub(MASK, value)
    if isinstance(value, dict):
        return {_walk(k, pattern): _walk(v, pattern) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_walk(v, pattern) for v in value]
    return value
