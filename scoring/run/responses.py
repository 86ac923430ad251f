"""SOB's response lines and files (`sob/common/serialization.py`), and the checkpoint of a run.

A line is `{metadata, input, output, eval_info}`: `metadata` has the record id, its difficulty
(question difficulty, else schema complexity, else "unknown"), the model id, then every other
column of the release row; `input` the context, question and the schema the model was held to;
`output` the candidate response and the ground truth. The file is
`<root>/<modality dir>/response_<model>[_image|_audio].jsonl` with SOB's folder names
(`text_responses`, `images_responses`, `audio_responses`) and `/` in a model id written `_`.

Each finished record is appended to `<file>.partial` at once (and flushed), so a run killed half
way keeps what it paid for: only what the release cannot give back (the record id, the candidate
response and the token counts), since writing the whole line per call cost the calls CPU. The final
file, built from the release in its order, replaces the partial one when every record has its answer.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scoring.run.prompts import parse_schema
from scoring.sob import Modality

MODALITY_DIR: dict[str, str] = {"text": "text_responses", "image": "images_responses", "audio": "audio_responses"}

# Release columns that have their own place in the line (SOB's KNOWN_FIELDS), and the two it resolves.
KNOWN_FIELDS = frozenset(
    {
        "context",
        "question",
        "json_schema",
        "ground_truth",
        "validated_output",
        "candidate_response",
        "input_context_length",
        "difficulty_weight",
    }
)
_RESERVED = KNOWN_FIELDS | {"record_id", "question_difficulty"}
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def extract_json(text: str) -> Any:
    """SOB's `extract_json`: the text as JSON, else its first `{` to last `}` as JSON, else the text."""
    try:
        return json.loads(text)
    except Exception:
        pass
    match = _OBJECT.search(text)
    if match:
        try:
            return json.loads(match.group())
        except Exception:
            pass
    return text


def loads_or_text(text: str) -> Any:
    """What SOB's OpenAI and OpenRouter runners keep: the reply as JSON, else the reply as text."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def eval_line(
    row: dict[str, Any],
    candidate: Any,
    *,
    model_id: str,
    schema: Any,
    input_tokens: int,
    output_tokens: int,
    avg_time: float,
) -> dict[str, Any]:
    """SOB's `build_eval_record` for one release row and the model's candidate response."""
    difficulty = row.get("question_difficulty") or row.get("schema_complexity") or "unknown"
    metadata: dict[str, Any] = {"record_id": row.get("record_id"), "difficulty": difficulty, "model_id": model_id}
    metadata.update({key: value for key, value in row.items() if key not in _RESERVED})
    truth = row.get("ground_truth")
    return {
        "metadata": metadata,
        "input": {"context": row.get("context", ""), "question": row.get("question", ""), "json_schema": schema},
        "output": {"candidate_response": candidate, "ground_truth": parse_schema(truth) if truth is not None else None},
        "eval_info": {"input_tokens": input_tokens, "output_tokens": output_tokens, "avg_time_per_record": avg_time},
    }


def response_path(root: Path, model_id: str, modality: Modality) -> Path:
    """SOB's `resolve_output_path` under `root` instead of `data/`."""
    slug = model_id.replace("/", "_")
    suffix = "" if modality == "text" else f"_{modality}"
    return root / MODALITY_DIR[modality] / f"response_{slug}{suffix}.jsonl"


def partial_path(final: Path) -> Path:
    return final.with_name(final.name + ".partial")


def _json_objects(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of a lines file; a line cut short by a kill (the last of a killed run) is skipped."""
    if not path.exists():
        return
    with path.open(encoding="utf-8") as handle:
        for text in handle:
            try:
                line = json.loads(text)
            except json.JSONDecodeError:
                continue
            if isinstance(line, dict):
                yield line


def read_finished(path: Path) -> dict[str, dict[str, Any]]:
    """record id -> line, from a final file of whole SOB lines."""
    done: dict[str, dict[str, Any]] = {}
    for line in _json_objects(path):
        record_id = (line.get("metadata") or {}).get("record_id")
        if record_id is not None:
            done[str(record_id)] = line
    return done


@dataclass(frozen=True)
class Answered:
    """What the checkpoint keeps of a finished record: the rest of its line comes from the release."""

    candidate: Any
    input_tokens: int
    output_tokens: int

    def to_json(self, record_id: str) -> str:
        fields = {"record_id": record_id, "candidate_response": self.candidate}
        return json.dumps(fields | {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens})

    @classmethod
    def of_line(cls, line: dict[str, Any]) -> Answered:
        """From a whole SOB line (a final file, or a partial one an earlier version wrote)."""
        info = line.get("eval_info") or {}
        candidate = (line.get("output") or {}).get("candidate_response")
        return cls(candidate, int(info.get("input_tokens") or 0), int(info.get("output_tokens") or 0))


def read_answered(path: Path) -> dict[str, Answered]:
    """record id -> what was answered, from a partial file (its own lines, or whole SOB lines an earlier version
    wrote)."""
    found: dict[str, Answered] = {}
    for line in _json_objects(path):
        if "metadata" in line:
            record_id = (line.get("metadata") or {}).get("record_id")
            if record_id is not None:
                found[str(record_id)] = Answered.of_line(line)
        elif line.get("record_id") is not None and "candidate_response" in line:
            tokens = int(line.get("input_tokens") or 0), int(line.get("output_tokens") or 0)
            found[str(line["record_id"])] = Answered(line["candidate_response"], *tokens)
    return found


class Checkpoint:
    """Appends what each finished record was answered to the partial file and flushes it (a kill loses no paid
    answer)."""

    def __init__(self, final: Path) -> None:
        self.final = final
        self.partial = partial_path(final)
        final.parent.mkdir(parents=True, exist_ok=True)
        self._handle = self.partial.open("a", encoding="utf-8")

    def append(self, record_id: str, answered: Answered) -> None:
        self._handle.write(answered.to_json(record_id) + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()

    def finish(self, lines: list[dict[str, Any]]) -> None:
        """Write the whole file in the given order and drop the partial one."""
        self.close()
        temporary = self.final.with_name(self.final.name + ".tmp")
        with temporary.open("w", encoding="utf-8") as handle:
            for line in lines:
                handle.write(json.dumps(line) + "\n")
        os.replace(temporary, self.final)
        self.partial.unlink(missing_ok=True)
