"""Adjudication: a record two curators answered differently goes to a task that shows both answers side by side
(read-only, the differing fields marked) above the usual editors, prefilled with the first answer. The adjudicated
annotation becomes the record through the ordinary pull (validation, the judge, the verdict in the task), with the
adjudicator as its annotator; both curators' answers are kept before it as revisions of status `answer`, so
`--history RECORD_ID` shows all three.

One adjudication project per source (`<title> (adjudication)`, config `annotation_ui_config/adjudication.xml`).
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

from annotation_ui_config import EVIDENCE_SPAN_CONTROL, adjudication_config
from authoring import curator_answers, ls_evidence, ls_state
from authoring.curator_answers import Answer
from authoring.flag_resolutions import NONE_OPEN
from authoring.labelstudio.annotations import latest_annotation, parse_annotation
from authoring.labelstudio.client import LabelStudioSession, ensure_project, source_item_key
from authoring.labelstudio.pull import (
    PullResult,
    TaskAnnotations,
    _take_page,
    annotation_stamp,
    annotator_of,
    pull_annotations,
)
from core import revisions
from core.models import Provenance, Record, SourceItem, make_record_id
from core.store import Store

# The editors the adjudicator starts from: the first answer's text and evidence, without its verdict or notes.
PREFILLED = ("question", "json_schema", "ground_truth", "evidence", EVIDENCE_SPAN_CONTROL)


def key(source: str) -> str:
    return f"{source}:adjudication"


def project(store: Store, session: LabelStudioSession, source: str) -> ls_state.ProjectRow:
    return ensure_project(
        store,
        session,
        key(source),
        config=adjudication_config(),
        title=session.settings.project_title.format(source=source) + " (adjudication)",
        description=f"Records of {source} that two curators answered differently: both answers side by side, "
        "the adjudicated one becomes the ground truth. Managed by the SOB curation toolkit.",
        maximum_annotations=1,
    )


def answer_incoming(answer: Answer, item: SourceItem, record_id: str) -> revisions.Incoming:
    """A curator's answer as a revision of record `record_id` (status `answer`: kept, never applied)."""
    parsed = parse_annotation(answer.annotation.get("result") or [], item.context)
    record = Record.build(
        item,
        parsed.question or "(no question)",
        parsed.json_schema or {},
        parsed.ground_truth or {},
        Provenance(annotator=answer.annotator, authored_via=f"label_studio:{answer.project_id}"),
        evidence=parsed.evidence,
    ).model_copy(update={"record_id": record_id})
    detail = {
        "annotation_id": answer.annotation_id,
        "annotation_updated_at": answer.annotation_updated_at,
        "curator": "first" if answer.slot == 1 else "second",
    }
    origin = revisions.Origin(f"label_studio:{answer.project_id}:{answer.task_id}", detail, None)
    return revisions.Incoming(record, origin, answer.annotator)


# -- the task ---------------------------------------------------------------------------------------------
def _leaves(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """(path, value) of every leaf, for display (`a.b[0]`)."""
    if isinstance(value, dict) and value:
        return [leaf for k, v in value.items() for leaf in _leaves(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list) and value:
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, f"{path}[{i}]")]
    return [(path or "$", value)]


def _line(label: str, value: str, differs: bool) -> str:
    mark = ' class="differs"' if differs else ""
    return f"<div{mark}><b>{html.escape(label)}</b>: {html.escape(value)}</div>"


def answer_html(answer: Answer, differing: set[str]) -> str:
    """One answer, read-only: who, verdict, question, each leaf of the answer (`path: value`), the schema; what
    differs from the other answer is marked (class `differs`). Every value is escaped."""
    content = answer.content
    parts = [
        _line("curator", f"{answer.annotator or 'unknown'} (annotation {answer.annotation_id})", False),
        _line("verdict", str(content.get("verdict") or ""), "$.verdict" in differing),
        _line("question", str(content.get("question") or ""), "$.question" in differing),
    ]
    truth = content.get("ground_truth")
    for path, value in _leaves(truth if truth is not None else {}):
        where = "$.ground_truth" if path == "$" else f"$.ground_truth.{path}"
        parts.append(_line(path, json.dumps(value, ensure_ascii=False), where in differing))
    if content.get("notes"):
        parts.append(_line("notes", str(content["notes"]), False))
    schema = json.dumps(content.get("json_schema"), ensure_ascii=False, indent=1)
    mark = ' class="differs"' if "$.json_schema" in differing else ""
    parts.append(f"<div{mark}><b>json_schema</b><pre>{html.escape(schema)}</pre></div>")
    return "\n".join(parts)


def differences_text(comparison: Any) -> str:
    return (
        f"They differ at: {', '.join(comparison.differences())} (value accuracy between them "
        f"{100 * comparison.value_accuracy:.0f}%, STED {comparison.sted:.2f}). Check both against the context, write "
        "the right answer in the editors (prefilled with the first answer), choose a verdict and submit."
    )


def build_task(item: SourceItem, first: Answer, second: Answer, comparison: Any) -> dict[str, Any]:
    differing = set(comparison.differences())
    parsed = parse_annotation(first.annotation.get("result") or [], item.context)
    data = {
        "source_item_key": source_item_key(item.source, item.source_id),
        "source": item.source,
        "source_id": item.source_id,
        "context": item.context,
        "question": first.content.get("question") or "",
        "metadata": {
            "source_id": item.source_id,
            "first curator": first.annotator or "",
            "second curator": second.annotator or "",
        },
        "differences": differences_text(comparison),
        "first_answer": answer_html(first, differing),
        "second_answer": answer_html(second, differing),
        "feedback": "None yet: the toolkit has not sent this task back.",
        "review_flags": NONE_OPEN,
        "evidence_paths": ls_evidence.label_options(parsed.ground_truth, parsed.evidence),
    }
    result = [dict(region) for region in first.annotation.get("result") or [] if region.get("from_name") in PREFILLED]
    task: dict[str, Any] = {"data": data, "meta": {"source_item_key": data["source_item_key"]}}
    if result:
        task["predictions"] = [{"model_version": f"first curator ({first.annotator or 'unknown'})", "result": result}]
    return task


def push(
    store: Store,
    session: LabelStudioSession,
    source: str,
    item: SourceItem,
    first: Answer,
    second: Answer,
    comparison: Any,
) -> str:
    """Make (or bring up to date) the item's adjudication task; returns where it is, for the curators' feedback."""
    adjudication = project(store, session, source)
    task = build_task(item, first, second, comparison)
    known = next(
        (
            r
            for r in ls_state.tasks_by_id(store, session.base_url, adjudication.project_id).values()
            if r.source_id == item.source_id
        ),
        None,
    )
    if known is not None:  # new answers since: the same task shows them, and waits for the adjudicator again
        session.write_task_data(known.task_id, task["data"], "updating adjudication task")
        ls_state.queue_feedback(
            store,
            session.base_url,
            adjudication.project_id,
            item.source_id,
            ls_state.AWAITING,
            "The curators' answers changed since the last adjudication: check them again and submit.",
        )
        task_id = known.task_id
    else:
        response = session.call(
            "importing an adjudication task",
            session.client.projects.import_tasks,
            id=adjudication.project_id,
            request=[task],
            return_task_ids=True,
            commit_to_project=True,
        )
        task_id = int(list(getattr(response, "task_ids", None) or [])[0])
        ls_state.record_pushed(
            store,
            session.base_url,
            adjudication.project_id,
            source,
            [(item.source_id, task_id, None, task["data"]["question"])],
        )
    return f"adjudication task {task_id} ({session.project_url(adjudication.project_id)})"


# -- the pull ---------------------------------------------------------------------------------------------
def pull(store: Store, session: LabelStudioSession, source: str) -> PullResult:
    """Adjudicated annotations become records (the ordinary pull), after both curators' answers as revisions."""
    known = ls_state.get_project(store, session.base_url, key(source))
    if known is None:
        return PullResult()
    result = pull_annotations(store, session, source, project=known, take=_take_adjudications)
    result.counts = type(result.counts)({f"adjudication {k}": v for k, v in result.counts.items()})
    return result


def _take_adjudications(
    store: Store,
    session: LabelStudioSession,
    source: str,
    project_id: int,
    page: Sequence[TaskAnnotations],
    rows: dict[int, ls_state.TaskRow],
    items: dict[str, SourceItem],
    result: PullResult,
) -> None:
    pairs = curator_answers.answers(store, source)
    adjudicators: dict[int, str | None] = {}
    users: Mapping[int, str] | None = None
    for task in page:
        row = rows.get(task.id)
        annotation = latest_annotation(task.annotations)
        if row is None or annotation is None or row.source_id not in items:
            continue
        if row.annotation_id == int(annotation["id"]) and row.annotation_updated_at == annotation_stamp(
            annotation.get("updated_at")
        ):
            continue
        item = items[row.source_id]
        parsed = parse_annotation(annotation.get("result") or [], item.context)
        if not parsed.question:
            continue  # the ordinary pull sends it back
        record_id = make_record_id(item.source, item.source_id, parsed.question)
        slots = pairs.get(row.source_id, {})
        revisions.record_answers(store.con, [answer_incoming(slots[s], item, record_id) for s in (1, 2) if s in slots])
        users = users if users is not None else session.user_emails()
        adjudicators[task.id] = annotator_of(annotation.get("completed_by"), users)
    _take_page(store, session, source, project_id, page, rows, items, result)
    for task_id, adjudicator in adjudicators.items():
        row = rows[task_id]
        if row.record_id and row.status in (ls_state.AUTHORED, ls_state.REJECTED):
            curator_answers.mark_adjudicated(store, source, row.source_id, row.record_id, adjudicator)
