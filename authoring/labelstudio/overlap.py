"""Two curators per record (`--overlap 2`): each source item is authored independently twice.

Label Studio's own overlap does the distribution: the authoring project takes `maximum_annotations = 2` with
`overlap_cohort_percentage = 100`, so every task is offered until two different annotators have submitted it.
With `--blind-second` the second curator must not see the draft's answer; Label Studio shows a task's predictions
to everyone in a project (`show_collab_predictions` is project-wide), so the second curator works in a project of
their own (`<title> (second curator)`), whose tasks carry the draft's question and schema but never its answer or
evidence: the two curators answer the same question, one of them without the model's answer to lean on. The
main project then takes one annotation per task, the second project one, and an answer there by the curator who
answered the first task is refused (a second curator must be another person).

A pull keeps each curator's answer (`authoring.curator_answers`) instead of making a record of it; once both are
in, they are compared (`scoring.curator_agreement`):

- agreeing answers: the first becomes the record through the ordinary pull (validation, the judge and the
  verdict in the task follow as for one curator), the second is kept beside it as a revision of status `answer`;
- answers that differ (a field of the answer, the question, the schema or the verdict): an adjudication task
  (`authoring.labelstudio.adjudication`) shows both side by side; the adjudicated answer becomes the record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from annotation_ui_config import label_config
from authoring import curator_answers, ls_state
from authoring.curator_answers import Answer
from authoring.labelstudio import adjudication
from authoring.labelstudio.annotations import parse_annotation
from authoring.labelstudio.client import LabelStudioSession, ensure_project
from authoring.labelstudio.feedback import feedback_text, flush_feedback
from authoring.labelstudio.pull import (
    PullResult,
    TaskAnnotations,
    _take_page,
    annotation_stamp,
    annotator_of,
    pull_annotations,
)
from authoring.labelstudio.push import PushResult, push_tasks
from core import revisions
from core.models import SourceItem
from core.store import Store


class Comparison(Protocol):
    """Two answers compared (`scoring.curator_agreement.AnswerComparison`, handed in from above: the numbers are
    scoring's)."""

    value_accuracy: float
    sted: float

    @property
    def agree(self) -> bool: ...

    def differences(self) -> list[str]: ...

    def as_row(self) -> dict[str, Any]: ...


Compare = Callable[[Mapping[str, Any], Mapping[str, Any]], Comparison]

ANSWERED = "answered"  # ls_tasks.status: this task's answer is in, the record waits for the other curator's
TO_ADJUDICATE = "to_adjudicate"  # the two answers differ: an adjudication task waits


def blind_key(source: str) -> str:
    return f"{source}:second"


def blind_project(store: Store, session: LabelStudioSession, source: str) -> ls_state.ProjectRow:
    title = session.settings.project_title.format(source=source) + " (second curator)"
    return ensure_project(
        store,
        session,
        blind_key(source),
        config=label_config(source),
        title=title,
        description=f"The second curator's tasks for {source}: the draft's question and schema, never its answer. "
        "Managed by the SOB curation toolkit.",
        maximum_annotations=1,
    )


def without_answer(drafts: Mapping[str, Any] | None) -> dict[str, Any]:
    """The drafts as the second curator may see them: question and schema, no answer, no evidence."""
    out: dict[str, Any] = {}
    for source_id, draft in (drafts or {}).items():
        if not isinstance(draft, Mapping) and hasattr(draft, "model_dump"):
            draft = draft.model_dump(mode="json")
        out[source_id] = {**draft, "ground_truth": None, "evidence": None}
    return out


# -- collecting answers ----------------------------------------------------------------------------------
def _user_key(annotation: Mapping[str, Any]) -> Any:
    who = annotation.get("completed_by")
    return who.get("id") if isinstance(who, dict) else who


def _live(annotations: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [a for a in annotations or [] if not a.get("was_cancelled")]


def first_two_annotators(annotations: Sequence[Mapping[str, Any]]) -> dict[int, Mapping[str, Any]]:
    """Slot 1 and 2: the latest annotation of each of the first two annotators (in the order they first
    submitted). A third annotator's work is not an answer here (Label Studio's overlap stops at two)."""
    by_user: dict[Any, list[Mapping[str, Any]]] = {}
    for annotation in sorted(_live(annotations), key=lambda a: int(a.get("id") or 0)):
        by_user.setdefault(_user_key(annotation), []).append(annotation)
    latest = [
        max(items, key=lambda a: (str(a.get("updated_at") or ""), int(a.get("id") or 0))) for items in by_user.values()
    ]
    return {slot: annotation for slot, annotation in enumerate(latest[:2], start=1)}


def _latest(annotations: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    live = _live(annotations)
    return max(live, key=lambda a: (str(a.get("updated_at") or ""), int(a.get("id") or 0))) if live else None


def collector(slots: str):  # noqa: ANN201 - a `take` for pull_annotations
    """What a pull does with a page when two curators answer: `pair` (both answers in the main project), `first`
    (the main project, with --blind-second), `second` (the second curator's project)."""

    def take(
        store: Store,
        session: LabelStudioSession,
        source: str,
        project_id: int,
        page: Sequence[TaskAnnotations],
        rows: dict[int, ls_state.TaskRow],
        items: dict[str, SourceItem],
        result: PullResult,
    ) -> None:
        users: dict[int, str] | None = None
        for task in page:
            row = rows.get(task.id)
            if row is None or row.source_id not in items:
                result.counts["foreign_task"] += 1
                continue
            if slots == "pair":
                chosen = first_two_annotators(task.annotations)
            else:
                latest = _latest(task.annotations)
                chosen = {1 if slots == "first" else 2: latest} if latest is not None else {}
            if not chosen:
                result.counts["no_annotation"] += 1
                continue
            users = users if users is not None else session.user_emails()
            changed = False
            for slot, annotation in chosen.items():
                answer = _answer(row, slot, project_id, annotation, items[row.source_id], users)
                if not curator_answers.save_answer(store, source, answer):
                    result.counts["unchanged"] += 1
                    continue
                changed = True
                result.counts["first answer" if slot == 1 else "second answer"] += 1
                if not answer.usable:
                    parsed = parse_annotation(annotation.get("result") or [], items[row.source_id].context)
                    text = feedback_text(parsed.problems, answer.annotation_id, answer.annotator)
                    ls_state.queue_feedback(
                        store, session.base_url, project_id, row.source_id, ls_state.NEEDS_REVISION, text
                    )
                elif slots != "pair" or len(chosen) == 2:
                    _set_status(store, session.base_url, project_id, row.source_id, ANSWERED)
            if slots == "pair" and len(chosen) < 2 and changed:  # said once, not on every poll
                result.counts["awaiting second curator"] += 1

    return take


def _answer(
    row: ls_state.TaskRow,
    slot: int,
    project_id: int,
    annotation: Mapping[str, Any],
    item: SourceItem,
    users: Mapping[int, str],
) -> Answer:
    parsed = parse_annotation(annotation.get("result") or [], item.context)
    content = {
        "question": parsed.question,
        "json_schema": parsed.json_schema,
        "ground_truth": parsed.ground_truth,
        "verdict": parsed.verdict,
        "notes": parsed.notes,
    }
    keep = {k: annotation.get(k) for k in ("id", "result", "completed_by", "updated_at", "lead_time", "was_cancelled")}
    return Answer(
        source_id=row.source_id,
        slot=slot,
        project_id=project_id,
        task_id=row.task_id,
        annotation_id=int(annotation["id"]),
        annotation_updated_at=annotation_stamp(annotation.get("updated_at")),
        annotator=annotator_of(annotation.get("completed_by"), users),
        annotation=keep,
        content=content,
        usable=not parsed.problems,
    )


def _set_status(store: Store, base_url: str, project_id: int, source_id: str, status: str) -> None:
    store.con.execute(
        "UPDATE ls_tasks SET status = ? WHERE base_url = ? AND project_id = ? AND source_id = ?",
        [status, base_url, project_id, source_id],
    )


# -- comparing the two answers ------------------------------------------------------------------------------
def settle(store: Store, session: LabelStudioSession, source: str, result: PullResult, compare: Compare) -> None:
    """Compare every pair whose answers are both in (and changed since last compared): agreeing answers become
    the record, differing ones an adjudication task."""
    items = store.source_items(source)
    main = ensure_project(store, session, source)
    for first, second in curator_answers.unsettled_pairs(store, source):
        item = items.get(first.source_id)
        if item is None:
            continue
        if first.annotator is not None and first.annotator == second.annotator:
            text = (
                f"Not counted (annotation {second.annotation_id} by {second.annotator}): {second.annotator} also wrote "
                "the first answer to this record; the second answer must come from another curator."
            )
            ls_state.queue_feedback(
                store, session.base_url, second.project_id, first.source_id, ls_state.NEEDS_REVISION, text
            )
            result.counts["same curator twice"] += 1
            curator_answers.refuse_answer(store, source, second)
            continue
        comparison = compare(first.content, second.content)
        if comparison.agree:
            rows = ls_state.tasks_by_id(store, session.base_url, main.project_id)
            task = TaskAnnotations(first.task_id, None, None, [first.annotation])
            _take_page(store, session, source, main.project_id, [task], rows, items, result)
            record_id = rows[first.task_id].record_id if first.task_id in rows else None
            if record_id:
                revisions.record_answers(store.con, [adjudication.answer_incoming(second, item, record_id)])
            curator_answers.save_agreement(
                store, source, first, second, comparison.as_row(), curator_answers.AGREED, record_id
            )
            result.counts["agreed"] += 1
            continue
        curator_answers.save_agreement(store, source, first, second, comparison.as_row(), curator_answers.TO_ADJUDICATE)
        where = adjudication.push(store, session, source, item, first, second, comparison)
        text = (
            f"Two curators answered differently ({first.annotator or 'first'}: annotation {first.annotation_id}, "
            f"{second.annotator or 'second'}: annotation {second.annotation_id}) at "
            f"{', '.join(comparison.differences())}. An adjudicator settles it in {where}."
        )
        for answer in (first, second):
            ls_state.queue_feedback(store, session.base_url, answer.project_id, first.source_id, TO_ADJUDICATE, text)
        result.counts["to adjudicate"] += 1
    for project_id in {main.project_id} | _second_project_ids(store, session, source):
        row = ls_state.ProjectRow(session.base_url, source, project_id, "", "", None)
        result.feedback_written += flush_feedback(store, session, source, row)


def _second_project_ids(store: Store, session: LabelStudioSession, source: str) -> set[int]:
    row = ls_state.get_project(store, session.base_url, blind_key(source))
    return {row.project_id} if row is not None and session.settings.blind_second else set()


# -- one sync --------------------------------------------------------------------------------------------
def sync_two_curators(
    store: Store,
    session: LabelStudioSession,
    source: str,
    drafts: Mapping[str, Any] | None,
    main: ls_state.ProjectRow,
    compare: Compare,
) -> tuple[PushResult, PullResult]:
    """Push and pull with two curators per record: the main project (and the second curator's), then compare the
    answers that are both in, then the adjudications."""
    curator_answers.ensure_tables(store)
    blind = session.settings.blind_second
    pushed = push_tasks(store, session, source, drafts, project=main)
    pulled = pull_annotations(
        store,
        session,
        source,
        project=ls_state.get_project(store, session.base_url, source),
        take=collector("first" if blind else "pair"),
    )
    if blind:
        second = blind_project(store, session, source)
        more = push_tasks(store, session, source, without_answer(drafts), project=second)
        pushed.pushed += more.pushed
        pushed.with_draft += more.with_draft
        seconds = pull_annotations(
            store,
            session,
            source,
            project=ls_state.get_project(store, session.base_url, blind_key(source)),
            take=collector("second"),
        )
        pulled.counts.update(seconds.counts)
        pulled.feedback_written += seconds.feedback_written
    settle(store, session, source, pulled, compare)
    adjudicated = adjudication.pull(store, session, source)
    pulled.counts.update(adjudicated.counts)
    pulled.feedback_written += adjudicated.feedback_written
    return pushed, pulled
