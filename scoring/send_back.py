"""Suspect ground truths go back to their curators: an accepted record that several reference models
agree against is moved to `needs_revision` with the models' consensus as the reason, and, when a Label
Studio is configured (LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY), the reason is shown in its authoring task."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from core.models import Reason, RecordState
from core.store import StateChange, Store
from scoring.suspects import Suspect

STAGE = "scoring"
CODE = "suspect_ground_truth"


def reason_for(suspect: Suspect) -> Reason:
    consensus = json.dumps(suspect.consensus, ensure_ascii=False)
    where = ", ".join(suspect.differing_paths[:8]) or "$"
    message = (
        f"{len(suspect.models)} reference models ({', '.join(suspect.models[:5])}) agree with each other and not with "
        f"the ground truth (value accuracy {suspect.value_accuracy:.2f}, STED {suspect.sted:.2f}) at {where}. "
        f"Their answer: {consensus}"
    )
    return Reason(
        stage=STAGE,
        code=CODE,
        message=message[:4000],
        path=suspect.differing_paths[0] if suspect.differing_paths else "$",
    )


def send_back_suspects(workspace: Path | str, source: str, suspects: Sequence[Suspect]) -> int:
    """Move the accepted suspects of `source` to `needs_revision`; returns how many moved."""
    from authoring.audit import feedback_to_curators
    from authoring.labelstudio.runs import label_studio_for_run

    with Store.open(workspace) as store:
        ids = [s.record_id for s in suspects]
        states = dict(
            store.con.execute(
                "SELECT record_id, state FROM records WHERE record_id IN (SELECT unnest(?))", [ids]
            ).fetchall()
        )
        reasons = {s.record_id: reason_for(s) for s in suspects if states.get(s.record_id) == RecordState.ACCEPTED}
        store.apply([StateChange(rid, RecordState.NEEDS_REVISION, STAGE, reasons=[r]) for rid, r in reasons.items()])
        if reasons:
            with label_studio_for_run(workspace) as session:
                if session is not None:
                    feedback_to_curators(store, session, source, reasons, by_what="the suspect search")
    return len(reasons)


def ambiguity_text(detail: dict) -> str:
    return (
        f"Repeated drafts of this item disagree (STED consistency {detail['consistency']:.2f} over "
        f"{detail['pairs']} pairs): its question may have more than one right answer. Make the question precise "
        "enough that it has exactly one."
    )


def show_ambiguity_flags(store: Store, session: object, source: str, flags: dict[str, dict]) -> int:
    """Write each flagged source item's ambiguity note into its Label Studio task (the feedback box above the
    editors), keeping the task's state; returns how many tasks got it."""
    from authoring import ls_state
    from authoring.labelstudio.client import LabelStudioSession
    from authoring.labelstudio.feedback import flush_feedback

    assert isinstance(session, LabelStudioSession)
    project = ls_state.get_project(store, session.base_url, source)
    if project is None:
        return 0
    shown = 0
    for row in ls_state.tasks_by_id(store, session.base_url, project.project_id).values():
        detail = flags.get(row.source_id)
        if detail is not None:
            ls_state.queue_feedback(
                store, session.base_url, project.project_id, row.source_id, row.status, ambiguity_text(detail)
            )
            shown += 1
    flush_feedback(store, session, source, project)
    return shown
