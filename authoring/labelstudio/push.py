"""Pushing source items to Label Studio as tasks, with the draft as a prediction; idempotent across crashes."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from authoring import ls_evidence, ls_state, page_tasks
from authoring.flag_resolutions import NONE_OPEN
from authoring.labelstudio.client import (
    LabelStudioSession,
    ensure_project,
    list_project_tasks,
    source_item_key,
    task_key,
    task_meta,
)
from authoring.labelstudio.feedback import TO_AUTHOR
from core.evidence import parse_evidence_map
from core.models import SourceItem
from core.progress import tracked
from core.store import Store

NO_FEEDBACK = "None yet: the toolkit has not sent this task back."


@dataclass
class PushResult:
    project_id: int = 0
    pushed: int = 0
    with_draft: int = 0
    already_pushed: int = 0
    adopted: int = 0  # tasks found in the project that the store did not know (after a crash)
    batches: int = 0


def _flat_metadata(item: SourceItem) -> dict[str, str]:
    meta: dict[str, str] = {"source_id": item.source_id}
    if item.question:
        meta["seed question"] = item.question
    if item.answer is not None:
        meta["seed answer"] = item.answer
    if item.question_difficulty:
        meta["difficulty"] = item.question_difficulty
    for key, value in item.metadata.items():
        if value is None:
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        meta[str(key)] = text if len(text) <= 400 else text[:400] + " ..."
    return meta


def _draft_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2)


def draft_model_version(draft: Mapping[str, Any]) -> str:
    """`model_version` names the draft model and the prompt version, e.g. `gemini-2.5-flash@draft-v3`."""
    if draft.get("model_version"):
        return str(draft["model_version"])
    model = draft.get("model") or "draft"
    prompt = draft.get("prompt_version")
    return f"{model}@{prompt}" if prompt else str(model)


def _as_draft(draft: Any) -> Mapping[str, Any] | None:
    """A draft mapping, from a mapping or a model with model_dump() (authoring.drafts.Draft); no_draft is None."""
    if draft is None:
        return None
    if not isinstance(draft, Mapping) and hasattr(draft, "model_dump"):
        draft = draft.model_dump(mode="json")
    if draft.get("status") == "no_draft" or not any(draft.get(k) for k in ("question", "json_schema")):
        return None
    return draft


def build_task(item: SourceItem, draft: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The import payload of one task: data for the labeling config, meta for reconciling, the draft."""
    from core.models import make_record_id

    key = source_item_key(item.source, item.source_id)
    question = (draft or {}).get("question") or item.question or ""
    model_version = draft_model_version(draft) if draft else ""
    data = {
        "source_item_key": key,
        "record_id": make_record_id(item.source, item.source_id, question) if question else "",
        "source": item.source,
        "source_id": item.source_id,
        "context": item.context,
        "question": question,
        "metadata": _flat_metadata(item),
        "feedback": NO_FEEDBACK,
        "draft_model": model_version,
        "review_flags": NONE_OPEN,
        "evidence_paths": [],
        "state": TO_AUTHOR,  # columns of the Data Manager (feedback.task_columns keeps them current)
        "open_flags": "none",
    }
    # meta is what a reconcile reads back (tasks are listed without their data).
    task: dict[str, Any] = {"data": data, "meta": {"source_item_key": key, "draft_model": model_version}}
    if draft:
        result = []
        for name in ("question", "json_schema", "ground_truth"):
            text = _draft_text(draft.get(name))
            if text:
                result.append({"from_name": name, "to_name": "context", "type": "textarea", "value": {"text": [text]}})
        # The draft's evidence: span labels on the context, the other kinds in the evidence editor.
        evidence, _ = parse_evidence_map(draft.get("evidence") or None)
        data["evidence_paths"] = ls_evidence.label_options(draft.get("ground_truth"), evidence)
        regions, evidence_text = ls_evidence.prefill(item.context, draft.get("ground_truth"), evidence)
        result.extend(regions)
        if evidence_text:
            result.append(
                {"from_name": "evidence", "to_name": "context", "type": "textarea", "value": {"text": [evidence_text]}}
            )
        if result:
            task["predictions"] = [{"model_version": model_version, "result": result}]
    return task


def reconcile(store: Store, session: LabelStudioSession, project: ls_state.ProjectRow, source: str) -> int:
    """Adopt tasks that are in the project but not in the store (a crash after an import request)."""
    known = ls_state.pushed_source_ids(store, session.base_url, project.project_id)
    prefix = f"{source}:"
    adopted: list[tuple[str, int, str | None, str | None]] = []
    for page in list_project_tasks(session, project.project_id, what="listing the project's tasks to reconcile"):
        for task in page:
            key = task_key(task)
            if key is None or not key.startswith(prefix):
                continue
            source_id = key[len(prefix) :]
            if source_id not in known:
                known.add(source_id)
                adopted.append((source_id, int(task.id), task_meta(task, "draft_model"), None))
    if adopted:
        ls_state.record_pushed(store, session.base_url, project.project_id, source, adopted)
    ls_state.clear_outbox(store, session.base_url, project.project_id)
    return len(adopted)


def _source_ids_with_records(store: Store, source: str) -> set[str]:
    rows = store.con.execute("SELECT DISTINCT source_id FROM records WHERE source = ?", [source]).fetchall()
    return {row[0] for row in rows}


def push_tasks(
    store: Store,
    session: LabelStudioSession,
    source: str,
    drafts: Mapping[str, Any] | None = None,
    *,
    limit: int | None = None,
    project: ls_state.ProjectRow | None = None,
) -> PushResult:
    """Push source items that await authoring (no task in the project, no record yet) in batches.

    `drafts` maps source_id -> {question, json_schema, ground_truth, model_version (or model and
    prompt_version)}, or to an `authoring.drafts.Draft`; a draft becomes the task's prediction, which
    prefills the editors. Items without a draft (or with a `no_draft` one) get empty editors.
    """
    project = project or ensure_project(store, session, source)
    result = PushResult(project_id=project.project_id)
    base_url, project_id = session.base_url, project.project_id
    server = session.call("reading the project", session.client.projects.get, id=project_id)
    server_tasks = int(getattr(server, "task_number", 0) or 0)
    if ls_state.outbox_size(store, base_url, project_id) or server_tasks != ls_state.count_tasks(
        store, base_url, project_id
    ):
        result.adopted = reconcile(store, session, project, source)
    pushed = ls_state.pushed_source_ids(store, base_url, project_id)
    authored = _source_ids_with_records(store, source)
    items = store.source_items(source)
    waiting = [items[sid] for sid in sorted(items) if sid not in pushed and sid not in authored]
    result.already_pushed = len(pushed & set(items))
    if limit is not None:
        waiting = waiting[:limit]
    drafts = drafts or {}
    batches = range(0, len(waiting), session.settings.batch_size)
    for start in tracked(batches, f"label studio push ({source})", total=len(batches), unit="batch"):
        batch = waiting[start : start + session.settings.batch_size]
        payload = [build_task(item, _as_draft(drafts.get(item.source_id))) for item in batch]
        page_tasks.add_page_data(store, session, source, project_id, batch, payload)  # olmOCR: page image, transcript
        batch_id = uuid.uuid4().hex
        ls_state.queue_push(store, base_url, project_id, source, [item.source_id for item in batch], batch_id)
        response = session.call(
            f"importing {len(batch)} task(s)",
            session.client.projects.import_tasks,
            id=project_id,
            request=payload,
            return_task_ids=True,
            commit_to_project=True,
        )
        task_ids = list(getattr(response, "task_ids", None) or [])
        if len(task_ids) == len(batch):
            rows = [
                (
                    item.source_id,
                    int(task_id),
                    task["data"]["draft_model"] or None,
                    task["data"]["question"] or None,
                )
                for item, task_id, task in zip(batch, task_ids, payload, strict=True)
            ]
            ls_state.record_pushed(store, base_url, project_id, source, rows, batch_id=batch_id)
        else:  # an asynchronous import (Enterprise) or a partial answer: ask the project what arrived
            reconcile(store, session, project, source)
        result.batches += 1
        result.pushed += len(batch)
        result.with_draft += sum(1 for task in payload if task["data"]["draft_model"])
    return result
