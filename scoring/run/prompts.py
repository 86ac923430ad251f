"""SOB's inference prompt, byte for byte, and the schema each provider is sent (SOB's `sob/common`).

SOB (JigsawStack/sob, MIT) sends every provider the same system prompt and user message; only its
vLLM runner adds a closing line. The schema in the message is the record's own, `json.dumps(schema,
indent=2)`; with structured decoding Gemini gets SOB's sanitised copy and OpenAI its strict copy.
"""

from __future__ import annotations

import copy
import json
from typing import Any

SYSTEM_PROMPT = (
    "Answer the question using only the provided context. "
    "Return a valid JSON object that strictly follows the given JSON schema. "
    "Do not output anything except the JSON object.\n\n"
    "Rules:\n"
    "- No explanations: Do not include reasoning, analysis, or any sentences outside the JSON.\n"
    "- No markdown: Do not wrap the JSON in code blocks or add formatting like ``` or 'json'.\n"
    "- No extra text: Do not add prefixes or suffixes such as 'Answer:' or 'Output:'.\n"
    "- Follow the schema exactly: Use only the keys defined in the schema and ensure correct data types.\n"
    "- Include all required fields: Every field listed as required in the schema must appear in the JSON.\n"
    "- If unknown, return null: If the context does not contain the answer, set the field value to null instead "
    "of guessing."
)

# SOB's vLLM runner writes its own user message: SOB's, plus this closing line.
VLLM_CLOSING = "\n\nReturn ONLY the JSON object.\n\n"

# The schema keywords SOB keeps for Gemini's `response_schema` (sob/common/schema_utils.py).
GEMINI_SCHEMA_KEYS = frozenset(
    {
        "type",
        "properties",
        "items",
        "required",
        "enum",
        "description",
        "nullable",
        "format",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
    }
)


def parse_schema(value: Any) -> Any:
    """SOB's `parse_string`: a schema stored as JSON text is read, any other value kept."""
    return json.loads(value) if isinstance(value, str) else value


def build_user_message(context: str, question: str, schema: Any) -> str:
    """SOB's `build_user_message` for a record with this context, question and (parsed) schema."""
    schema_str = json.dumps(schema, indent=2)
    return f"Context:\n{context}\n\nQuestion: {question}\n\nRespond with JSON matching this schema:\n{schema_str}"


def strict_schema(schema: Any) -> Any:
    """SOB's `normalize_schema_strict` (OpenAI strict mode): every object requires all its keys and
    allows no others; array items likewise. A copy."""
    out = copy.deepcopy(schema)
    stack = [out]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        if node.get("type") == "object" and "properties" in node:
            properties = node["properties"]
            if isinstance(properties, dict):
                node["required"] = list(properties.keys())
                node["additionalProperties"] = False
                stack.extend(properties.values())
        if node.get("type") == "array" and "items" in node:
            stack.append(node["items"])
    return out


def gemini_schema(schema: Any) -> Any:
    """SOB's `sanitize_schema_for_gemini`: only the keys Gemini's `response_schema` takes, types in
    lower case, `required` cut to the properties kept. A copy."""
    return _sanitize(copy.deepcopy(schema), is_properties=False)


def _sanitize(schema: Any, is_properties: bool) -> Any:
    if isinstance(schema, dict):
        if is_properties:  # a `properties` map: its keys are property names, not keywords
            return {key: _sanitize(value, is_properties=False) for key, value in schema.items()}
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key not in GEMINI_SCHEMA_KEYS:
                continue
            if key == "type" and isinstance(value, str):
                out[key] = value.lower()
            else:
                out[key] = _sanitize(value, is_properties=key == "properties")
        required, properties = out.get("required"), out.get("properties")
        if isinstance(required, list) and isinstance(properties, dict):
            out["required"] = [name for name in required if name in properties]
        return out
    if isinstance(schema, list):
        return [_sanitize(item, is_properties=False) for item in schema]
    return schema
