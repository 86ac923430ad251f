"""The residual-error audit: K seeded random samples of N accepted records, re-checked by reviewers in a
Label Studio review project (one task per sampled record and round: verdict correct/incorrect, and the
corrected answer when incorrect).

`run_audit` does what one run of `python -m build_split --source S --audit N --rounds K --seed X` needs:
the first run draws the samples and pushes the tasks; every later run pulls the verdicts, sends records
found incorrect back to their curator (`needs_revision`, reason `audit_incorrect` with the corrected
answer) and reports the error rate with Wilson 95% intervals (exports/audit.py), which the next release's
card and manifest carry. Rows live in the store's `audit_tasks` table, so nothing is drawn or pushed twice.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from annotation_ui_config import AUDIT_VERDICTS, audit_config
from authoring import ls_state
from authoring.labelstudio.annotations import latest_annotation
from authoring.labelstudio.client import (
    PULL_OMIT,
    LabelStudioError,
    LabelStudioSession,
    ensure_project,
    list_project_tasks,
)
from authoring.labelstudio.feedback import feedback_text, flush_feedback
from authoring.labelstudio.pull import TaskAnnotations, annotation_stamp, annotator_of
from core.models import Reason, Record, RecordState, utcnow
from core.store import StateChange, Store
from exports.audit import audit_verdicts, summarise, summary_lines

STAGE = "audit"
INCORRECT = "audit_incorrect"


def audit_id(source: str, size: int, rounds: int, seed: int) -> str:
    return f"{source}:n{size}:k{rounds}:seed{seed}"


def draw_samples(record_ids: Sequence[str], size: int, rounds: int, seed: int) -> list[list[str]]:
    """K samples of min(N, population) record ids, each without replacement, seeded per round.

    The population is sorted first, so the draw depends only on the ids, the size and the seed.
    """
    population = sorted(set(record_ids))
    take = min(size, len(population))
    return [sorted(random.Random(f"{seed}:{r}").sample(population, take)) for r in range(1, rounds + 1)]


@dataclass
class AuditRun:
    audit_id: str
    project_url: str = ""
    drawn: int = 0
    pushed: int = 0
    verdicts_pulled: int = 0
    sent_back: int = 0
    problems: list[str] = field(default_factory=list)
    summary: dict[str, Any] | None = None
    asked: int = 0  # records asked per round (--audit N)
    smallest_round: int = 0  # records in the audit's smallest round: fewer than asked when too few were accepted

    @property
    def short(self) -> bool:
        return self.smallest_round < self.asked

    def lines(self) -> list[str]:
        head = (
            f"audit:      {self.audit_id} at {self.project_url}: {self.drawn} task(s) drawn, {self.pushed} pushed, "
            f"{self.verdicts_pulled} verdict(s) pulled, {self.sent_back} record(s) sent back to curators"
        )
        lines = [head, *(f"  problem: {p}" for p in self.problems)]
        if self.short:
            lines.append(
                f"  short: each round holds {self.smallest_round} record(s), not the {self.asked} asked: only that "
                "many records are accepted"
            )
        lines.append(
            "  review the tasks in that project (Label Studio); a later run with the same --audit, --rounds and "
            "--seed pulls the verdicts"
        )
        if self.summary is not None:
            lines += [f"  {line}" for line in summary_lines(self.summary)]
        return lines


def run_audit(store: Store, session: LabelStudioSession, source: str, *, size: int, rounds: int, seed: int) -> AuditRun:
    """Draw (first run), push, pull verdicts, send wrong records back, and summarise."""
    run = AuditRun(audit_id(source, size, rounds, seed), asked=size)
    if not _drawn(store, run.audit_id):
        run.drawn = _draw(store, source, run.audit_id, size, rounds, seed)
    run.smallest_round = store.con.execute(
        "SELECT coalesce(min(n), 0) FROM (SELECT count(*) AS n FROM audit_tasks WHERE audit_id = ? GROUP BY round)",
        [run.audit_id],
    ).fetchone()[0]
    project = ensure_project(
        store,
        session,
        f"audit:{source}",
        config=audit_config(),
        title=f"SOB residual-error audit: {source}",
        description=f"Random samples of accepted {source} records, re-checked for the residual error rate. "
        "Managed by the SOB curation toolkit.",
    )
    run.project_url = session.project_url(project.project_id)
    run.pushed = _push(store, session, run.audit_id, project.project_id, rounds)
    run.verdicts_pulled = _pull(store, session, run.audit_id, project.project_id, run.problems)
    run.sent_back = send_back_incorrect(store, session, source, run.audit_id)
    run.summary = summarise(audit_verdicts(store, run.audit_id))
    return run


def _drawn(store: Store, aid: str) -> bool:
    return store.con.execute("SELECT count(*) FROM audit_tasks WHERE audit_id = ?", [aid]).fetchone()[0] > 0


def _draw(store: Store, source: str, aid: str, size: int, rounds: int, seed: int) -> int:
    accepted = store.record_ids(source, [RecordState.ACCEPTED])
    if not accepted:
        raise ValueError(f"no accepted {source} records to audit yet: judge some records first")
    samples = draw_samples(accepted, size, rounds, seed)
    wanted = {rid for sample in samples for rid in sample}
    records = {
        s.record.record_id: s.record
        for s in store.records(source, [RecordState.ACCEPTED])
        if s.record.record_id in wanted
    }
    now = utcnow()
    rows = [
        [aid, source, number, rid, json.dumps(_audited(records[rid]), ensure_ascii=False), now]
        for number, sample in enumerate(samples, 1)
        for rid in sample
    ]
    store.con.executemany(
        "INSERT INTO audit_tasks (audit_id, source, round, record_id, audited, drawn_at) VALUES (?, ?, ?, ?, ?, ?)",
        rows,
    )
    return len(rows)


def _audited(record: Record) -> dict[str, Any]:
    """What the reviewer sees (and what a verdict is about, should the record change later)."""
    evidence = {
        path: e.model_dump(exclude_none=True, exclude_defaults=True, exclude={"start", "end"}) | {"kind": e.kind}
        for path, e in record.output.evidence.items()
    }
    return {
        "source_id": record.metadata.source_id,
        "context": record.input.context,
        "question": record.input.question,
        "json_schema": record.input.json_schema,
        "ground_truth": record.output.ground_truth,
        "evidence": evidence,
    }


def _push(store: Store, session: LabelStudioSession, aid: str, project_id: int, rounds: int) -> int:
    rows = store.con.execute(
        "SELECT round, record_id, audited FROM audit_tasks WHERE audit_id = ? AND task_id IS NULL "
        "ORDER BY round, record_id",
        [aid],
    ).fetchall()
    pushed = 0
    for start in range(0, len(rows), session.settings.batch_size):
        batch = rows[start : start + session.settings.batch_size]
        payload = [_task(aid, number, rid, json.loads(audited), rounds) for number, rid, audited in batch]
        response = session.call(
            f"importing {len(batch)} audit task(s)",
            session.client.projects.import_tasks,
            id=project_id,
            request=payload,
            return_task_ids=True,
            commit_to_project=True,
        )
        task_ids = list(getattr(response, "task_ids", None) or [])
        if len(task_ids) != len(batch):
            raise LabelStudioError(
                f"Label Studio created {len(task_ids)} of {len(batch)} audit tasks; run the command again"
            )
        store.con.executemany(
            "UPDATE audit_tasks SET base_url = ?, project_id = ?, task_id = ? "
            "WHERE audit_id = ? AND round = ? AND record_id = ?",
            [
                [session.base_url, project_id, int(task_id), aid, number, rid]
                for (number, rid, _), task_id in zip(batch, task_ids, strict=True)
            ],
        )
        pushed += len(batch)
    return pushed


def _task(aid: str, number: int, record_id: str, audited: dict[str, Any], rounds: int) -> dict[str, Any]:
    pretty = {k: json.dumps(audited[k], ensure_ascii=False, indent=2) for k in ("json_schema", "ground_truth")}
    data = {
        "context": audited["context"],
        "question": audited["question"],
        "json_schema": pretty["json_schema"],
        "ground_truth": pretty["ground_truth"],
        "evidence": json.dumps(audited["evidence"], ensure_ascii=False, indent=1) if audited["evidence"] else "(none)",
        "round": f"Round {number} of {rounds} (audit {aid}); record {record_id[:12]}, {audited['source_id']}",
        "record_id": record_id,
    }
    return {"data": data, "meta": {"audit_id": aid, "round": number, "record_id": record_id}}


def _pull(store: Store, session: LabelStudioSession, aid: str, project_id: int, problems: list[str]) -> int:
    by_task = {
        int(task_id): (number, rid, ann_id, stamp)
        for task_id, number, rid, ann_id, stamp in store.con.execute(
            "SELECT task_id, round, record_id, annotation_id, annotation_updated_at FROM audit_tasks "
            "WHERE audit_id = ? AND task_id IS NOT NULL",
            [aid],
        ).fetchall()
    }
    users = session.user_emails()
    pulled = 0
    for page in list_project_tasks(session, project_id, fields="all", omit=PULL_OMIT, what="reading audit verdicts"):
        for raw in page:
            task = TaskAnnotations.of(raw)
            known = by_task.get(task.id)
            annotation = latest_annotation(task.annotations)
            if known is None or annotation is None:
                continue
            number, rid, ann_id, stamp = known
            new_stamp = annotation_stamp(annotation.get("updated_at"))
            if ann_id == int(annotation["id"]) and stamp == new_stamp:
                continue
            verdict, corrected, notes, problem = parse_verdict(annotation.get("result") or [])
            if problem:
                problems.append(f"task {task.id} (round {number}, record {rid[:12]}): {problem}")
            if verdict is None:
                continue
            store.con.execute(
                "UPDATE audit_tasks SET verdict = ?, corrected_answer = ?, notes = ?, reviewer = ?, annotation_id = ?, "
                "annotation_updated_at = ?, reviewed_at = ?, sent_back = false "
                "WHERE audit_id = ? AND round = ? AND record_id = ?",
                [
                    verdict,
                    json.dumps(corrected, ensure_ascii=False) if corrected is not None else None,
                    notes or None,
                    annotator_of(annotation.get("completed_by"), users),
                    int(annotation["id"]),
                    new_stamp,
                    utcnow(),
                    aid,
                    number,
                    rid,
                ],
            )
            pulled += 1
    return pulled


def parse_verdict(result: Sequence[dict[str, Any]]) -> tuple[str | None, Any, str, str | None]:
    """(verdict, corrected answer, notes, problem) of one audit annotation."""
    verdict: str | None = None
    texts: dict[str, str] = {}
    for region in result:
        value = region.get("value") or {}
        if region.get("from_name") == "verdict":
            choices = [str(c) for c in value.get("choices") or []]
            verdict = choices[0] if choices else None
        elif region.get("from_name") in ("corrected_answer", "notes"):
            texts[region["from_name"]] = "\n".join(str(t) for t in value.get("text") or []).strip()
    if verdict not in AUDIT_VERDICTS:
        return None, None, "", f"no verdict ({verdict!r}): choose {' or '.join(AUDIT_VERDICTS)}"
    notes = texts.get("notes", "")
    text = texts.get("corrected_answer", "")
    if verdict == "correct" or not text:
        problem = "incorrect without a corrected answer" if verdict == "incorrect" else None
        return verdict, None, notes, problem
    try:
        return verdict, json.loads(text), notes, None
    except json.JSONDecodeError as exc:
        return verdict, text, notes, f"the corrected answer is not valid JSON ({exc.msg}); kept as text"


def send_back_incorrect(store: Store, session: LabelStudioSession | None, source: str, aid: str) -> int:
    """Move accepted records the audit found incorrect to `needs_revision`, with the corrected answer; a
    record authored in Label Studio gets the reason in its task's feedback box."""
    rows = store.con.execute(
        "SELECT round, record_id, corrected_answer, notes, reviewer FROM audit_tasks "
        "WHERE audit_id = ? AND verdict = 'incorrect' AND NOT sent_back ORDER BY round, record_id",
        [aid],
    ).fetchall()
    if not rows:
        return 0
    states = dict(
        store.con.execute(
            "SELECT record_id, state FROM records WHERE record_id IN (SELECT unnest(?))", [[r[1] for r in rows]]
        ).fetchall()
    )
    changes: list[StateChange] = []
    reasons: dict[str, Reason] = {}
    for number, rid, corrected, notes, reviewer in rows:
        if rid in reasons or states.get(rid) != RecordState.ACCEPTED:
            continue  # already sent back (another round, or a curator is on it)
        shown = json.dumps(json.loads(corrected), ensure_ascii=False) if corrected else "(none given)"
        by = f" by {reviewer}" if reviewer else ""
        message = (
            f"the residual-error audit (round {number}{by}) found this record incorrect"
            + (f": {notes}" if notes else "")
            + f". Corrected answer: {shown}"
        )
        reasons[rid] = Reason(stage=STAGE, code=INCORRECT, message=message[:4000])
        changes.append(StateChange(rid, RecordState.NEEDS_REVISION, STAGE, reasons=[reasons[rid]]))
    store.apply(changes)
    store.con.execute("UPDATE audit_tasks SET sent_back = true WHERE audit_id = ? AND verdict = 'incorrect'", [aid])
    if session is not None and reasons:
        feedback_to_curators(store, session, source, reasons)
    return len(changes)


def feedback_to_curators(
    store: Store,
    session: LabelStudioSession,
    source: str,
    reasons: dict[str, Reason],
    by_what: str = "the residual-error audit",
) -> None:
    """Show each record's reason in its Label Studio authoring task (records authored elsewhere have none)."""
    project = ls_state.get_project(store, session.base_url, source)
    if project is None:
        return
    rows = ls_state.tasks_by_id(store, session.base_url, project.project_id)
    for row in rows.values():
        reason = reasons.get(row.record_id or "")
        if reason is None:
            continue
        text = feedback_text([reason], row.annotation_id, None, by_what=by_what)
        ls_state.queue_feedback(
            store, session.base_url, project.project_id, row.source_id, ls_state.NEEDS_REVISION, text
        )
    flush_feedback(store, session, source, project)
