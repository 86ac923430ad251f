"""Human authoring in Label Studio: projects, tasks with draft predictions, and the annotation pull.

One project per source. A task is one source item (a record's question is not known before the curator
writes it, so the record id is computed on pull from the curator's final question). Pushing is
idempotent: every task carries `source_item_key` (in its data and its meta), the store maps
(server, project, source item) -> task id, and an outbox covers a crash between the import request and
the store update. Pulling takes the latest non-cancelled annotation per task, turns its editors into a
record (or a curator rejection), and sends broken JSON back to the curator: the errors are written into
the task's `feedback` field, which the labeling config shows above the editors.

Typical use (what `python -m build_split` does when Label Studio is configured):

    settings = LabelStudioSettings.from_env()          # LABEL_STUDIO_URL, LABEL_STUDIO_API_KEY
    session = LabelStudioSession(settings)
    push_tasks(store, session, "hotpotqa", drafts)     # new candidates, in batches, with predictions
    pull_annotations(store, session, "hotpotqa")       # finished annotations -> records
    ... validation ...
    bounce_validation_failures(store, session, "hotpotqa")
    print(awaiting_line(store, session, "hotpotqa"))

The package, one job per module:

- `client`: settings, the SDK session and its errors, task listing, the source's project;
- `push`: source items become tasks, with the draft as a prediction;
- `annotations`: one annotation's editors, evidence spans and verdict, and their problems;
- `pull`: annotations become records (or go back to the curator);
- `feedback`: what the curator is told in the task (sent back, verdicts);
- `runs`: one call per run (`sync`, `label_studio_for_run`) and what waits for curators.

The names below are the public ones, re-exported here for the many callers that use them.
"""

from authoring.labelstudio.annotations import ParsedAnnotation, latest_annotation, parse_annotation
from authoring.labelstudio.client import (
    PULL_OMIT,
    LabelStudioError,
    LabelStudioSession,
    LabelStudioSettings,
    LabelStudioUnavailable,
    ensure_project,
    list_project_tasks,
    source_item_key,
)
from authoring.labelstudio.feedback import (
    bounce_gate_flags,
    bounce_review_flags,
    bounce_validation_failures,
    feedback_text,
    flush_feedback,
    write_verdicts,
)
from authoring.labelstudio.pull import PullResult, TaskAnnotations, pull_annotations, pull_tasks
from authoring.labelstudio.push import PushResult, build_task, draft_model_version, push_tasks
from authoring.labelstudio.runs import SyncResult, awaiting_curators, awaiting_line, label_studio_for_run, sync

__all__ = [
    "PULL_OMIT",
    "LabelStudioError",
    "LabelStudioSession",
    "LabelStudioSettings",
    "LabelStudioUnavailable",
    "ParsedAnnotation",
    "PullResult",
    "PushResult",
    "SyncResult",
    "TaskAnnotations",
    "awaiting_curators",
    "awaiting_line",
    "bounce_gate_flags",
    "bounce_review_flags",
    "bounce_validation_failures",
    "build_task",
    "draft_model_version",
    "ensure_project",
    "feedback_text",
    "flush_feedback",
    "label_studio_for_run",
    "latest_annotation",
    "list_project_tasks",
    "parse_annotation",
    "pull_annotations",
    "pull_tasks",
    "push_tasks",
    "source_item_key",
    "sync",
    "write_verdicts",
]
