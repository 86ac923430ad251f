"""Secrets never reach the store or the terminal: every configured secret is masked in any text.

The secrets are the provider keys and tokens read from the environment (`SECRET_ENV`) plus any
given on the command line (`register_secret`). `redact(text)` replaces each with `[REDACTED]`;
`redact_data` does the same inside JSON-like data. The store calls them before it writes reasons,
events, import rejections, drafts and LLM cache entries; the CLI before it prints.
"""

from __future__ import annotations

import base64
import os
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
    "LABEL_STUDIO_DATABASE_PASSWORD",  # a team's Label Studio on PostgreSQL (authoring/database.py)
    "PGPASSWORD",
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


RUN = 8  # a key's characters in a row: any run of 2 * RUN - 1 or more is masked wherever it stands
HEX_RUN = 12  # the same for its hex form (eight hex digits are too common in ordinary text)
# Separators someone (or a server's error page) may put between a key's characters are skipped, and so are
# the two characters where base64 and its URL-safe form differ.
_SEPARATORS = frozenset(" \t\n\r\f\v._:-+/")
_SQUEEZE = str.maketrans("", "", "".join(_SEPARATORS))


class _Matcher:
    """Masks any long run of a secret's characters, or of its base64 or hex forms, in a text whose
    separators are skipped, in any case: the key without its last character, upper-cased, spaced out,
    split by dashes or base64-encoded in a header is masked like the key itself.

    Each form is cut into blocks of RUN characters; any run of 2 * RUN - 1 characters holds a whole block,
    so finding the blocks (plain substring searches, fast) finds every long run; the run found is then
    grown in both directions as far as it follows the form."""

    def __init__(self, secrets: tuple[str, ...]) -> None:
        self._forms: list[str] = []
        self._blocks: list[tuple[str, int, int]] = []  # (block, form index, where the block starts in it)
        for secret in secrets:
            for form, size in _forms(secret):
                squeezed = form.translate(_SQUEEZE).lower()
                if not squeezed:
                    continue
                self._forms.append(squeezed)
                size = min(size, len(squeezed))
                starts = range(0, len(squeezed) - size + 1, size)
                self._blocks += [(squeezed[at : at + size], len(self._forms) - 1, at) for at in starts]

    def sub(self, text: str) -> str:
        squeezed = text.translate(_SQUEEZE)
        lowered = squeezed.lower()
        if len(lowered) != len(squeezed):  # a character whose lower case is longer: compare as written
            lowered = squeezed
        found = [block for block in self._blocks if block[0] in lowered]
        if not found:  # the common case, and a fast one
            return text
        kept = [i for i, char in enumerate(text) if char not in _SEPARATORS]  # squeezed -> text positions
        spans = sorted(span for block in found for span in self._runs(lowered, block))
        merged: list[list[int]] = []
        for start, end in spans:
            start, end = kept[start], kept[end - 1] + 1
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        out, at = [], 0
        for start, end in merged:
            out += [text[at:start], MASK]
            at = end
        out.append(text[at:])
        return "".join(out)

    def _runs(self, lowered: str, block: tuple[str, int, int]) -> list[tuple[int, int]]:
        """Every place the block stands in `lowered`, grown along its form: (start, end) in `lowered`."""
        text, form_index, offset = block
        form = self._forms[form_index]
        runs = []
        at = lowered.find(text)
        while at >= 0:
            start, end, left, right = at, at + len(text), offset, offset + len(text)
            while start > 0 and left > 0 and lowered[start - 1] == form[left - 1]:
                start, left = start - 1, left - 1
            while end < len(lowered) and right < len(form) and lowered[end] == form[right]:
                end, right = end + 1, right + 1
            runs.append((start, end))
            at = lowered.find(text, at + 1)
        return runs


def _forms(secret: str) -> list[tuple[str, int]]:
    """(text, run length) for the key and its encodings: hex, and base64 (standard and URL-safe) at each
    of the three alignments a key can have inside a longer encoded text, without the edge characters that
    depend on its neighbours."""
    data = secret.encode("utf-8")
    forms = [(secret, RUN), (data.hex(), HEX_RUN)]
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data).decode("ascii")
        core = encoded[(offset * 4 + 2) // 3 + (1 if offset else 0) : -4]
        forms.append((core, RUN))  # the URL-safe form squeezes to the same text
    return [(form, length) for form, length in forms if form]


@lru_cache(maxsize=16)
def _pattern(secrets: tuple[str, ...]) -> _Matcher | None:
    return _Matcher(secrets) if secrets else None


def redact(text: str | None, secrets: tuple[str, ...] | None = None) -> str | None:
    """`text` with every configured secret (and any long run of it, see `_Matcher`) replaced by
    `[REDACTED]` (None stays None).

    `secrets`: a `configured_secrets()` read once for many texts (reading the environment costs
    more than the masking itself).
    """
    if not text:
        return text
    secrets = configured_secrets() if secrets is None else secrets
    pattern = _pattern(secrets)
    return pattern.sub(text) if pattern is not None else text


def redact_data(value: Any) -> Any:
    """The same masking inside dicts, lists and strings (keys included)."""
    pattern = _pattern(configured_secrets())
    if pattern is None:
        return value
    return _walk(value, pattern)


def _walk(value: Any, pattern: _Matcher) -> Any:
    if isinstance(value, str):
        return pattern.sub(value)
    if isinstance(value, dict):
        return {_walk(k, pattern): _walk(v, pattern) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_walk(v, pattern) for v in value]
    return value
