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
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import queue
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import jsonschema

from annotation_ui_config import TEXT_CONTROLS, VERDICT_CONTROL, VERDICTS, label_config
from authoring import ls_evidence, ls_state, page_tasks
from authoring.flag_resolutions import NONE_OPEN, flags_text, resolve
from core import revisions
from core.derived import read_record
from core.evidence import Evidence, parse_evidence_map
from core.models import Provenance, Reason, Record, RecordState, SourceItem, utcnow
from core.progress import tracked
from core.review import ReviewInfo, review_subject, subject_hash
from core.store import StateChange, Store
from validation import characters
from validation.boundary import InputRejected, parse_json_text
from validation.limits import MAX_STRING_CHARS

STAGE = "authoring"  # reasons for editors that do not parse or validate
CURATOR_STAGE = "curator"  # reasons the curator gave (reject, needs discussion)
NO_FEEDBACK = "None yet: the toolkit has not sent this task back."
DEFAULT_BATCH_SIZE = 500
DEFAULT_PAGE_SIZE = 500
# Tasks updated this long before the last checkpoint are listed again (clock skew, late commits).
CHECKPOINT_OVERLAP = timedelta(minutes=5)
# Task fields a pull does not need: the context is in the store, drafts and predictions are ours.
PULL_OMIT = (
    "data,predictions,drafts,annotations_results,predictions_results,annotators,comment_authors,updated_by,"
    "file_upload,storage_filename,annotations_ids,predictions_model_versions,avg_lead_time,draft_exists,"
    "predictions_score,completed_at,comment_count,unresolved_comment_count,last_comment_updated_at"
)
LIST_OMIT = PULL_OMIT + ",annotations"

T = TypeVar("T")


class LabelStudioError(RuntimeError):
    """Label Studio refused a request, or is misconfigured; the message says what to do."""

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class LabelStudioUnavailable(LabelStudioError):
    """Label Studio did not answer (not running, killed, network)."""


def source_item_key(source: str, source_id: str) -> str:
    return f"{source}:{source_id}"


# -- connection --------------------------------------------------------------------------------
@dataclass(frozen=True)
class LabelStudioSettings:
    url: str
    api_key: str
    batch_size: int = DEFAULT_BATCH_SIZE
    page_size: int = DEFAULT_PAGE_SIZE
    timeout_s: float = 300.0
    project_title: str = "SOB authoring: {source}"
    local_files_root: str | None = None  # the server's LOCAL_FILES_DOCUMENT_ROOT (page images; see page_tasks)

    @classmethod
    def from_env(
        cls, url: str | None = None, api_key: str | None = None, environ: Mapping[str, str] | None = None
    ) -> LabelStudioSettings | None:
        """Flags win over LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY; None when neither is set."""
        env = os.environ if environ is None else environ
        url = url or env.get("LABEL_STUDIO_URL") or None
        api_key = api_key or env.get("LABEL_STUDIO_API_KEY") or None
        if url is None and api_key is None:
            return None
        if url is None or api_key is None:
            missing = "LABEL_STUDIO_URL (or --label-studio-url)" if url is None else "LABEL_STUDIO_API_KEY"
            raise LabelStudioError(
                f"Label Studio is half configured: {missing} is not set. Set both, or neither to skip Label Studio."
            )
        title = env.get("LABEL_STUDIO_PROJECT_TITLE") or cls.project_title  # e.g. a team's own naming
        return cls(url=url.rstrip("/"), api_key=api_key, project_title=title)


class LabelStudioSession:
    """A `label_studio_sdk.LabelStudio` client plus error translation."""

    def __init__(self, settings: LabelStudioSettings) -> None:
        try:
            from label_studio_sdk import LabelStudio
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise LabelStudioError(
                "the label-studio-sdk package is not installed: pip install 'sob-curation-toolkit[labelstudio]'"
            ) from exc
        self.settings = settings
        self.base_url = settings.url.rstrip("/")
        self.client = LabelStudio(base_url=self.base_url, api_key=settings.api_key, timeout=settings.timeout_s)
        self._users: dict[int, str] | None = None
        # Projects this session has already checked (and fixed) on the server: a long-lived session (`--serve`)
        # reads each once, not once per cycle and stage.
        self.ensured: dict[tuple[str, str, str, int], ls_state.ProjectRow] = {}

    def call(self, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run one SDK call; turn transport and API errors into errors a curator can act on."""
        import httpx
        from label_studio_sdk.core.api_error import ApiError

        try:
            return fn(*args, **kwargs)
        except httpx.TransportError as exc:
            raise LabelStudioUnavailable(
                f"Label Studio at {self.base_url} did not answer while {what} ({type(exc).__name__}: {exc}). "
                "Check that it is running (or pass --start-label-studio) and run the command again: "
                "what was already stored is kept and nothing is pushed twice."
            ) from exc
        except ApiError as exc:
            if exc.status_code in (401, 403):
                raise LabelStudioError(
                    f"Label Studio at {self.base_url} refused the API key while {what} (HTTP {exc.status_code}). "
                    "Check LABEL_STUDIO_API_KEY: a personal access token, or a legacy token with legacy tokens "
                    "enabled in the organization.",
                    exc.status_code,
                ) from exc
            raise LabelStudioError(
                f"Label Studio at {self.base_url} answered HTTP {exc.status_code} while {what}: {exc.body}",
                exc.status_code,
            ) from exc

    def user_emails(self) -> dict[int, str]:
        if self._users is None:
            users = self.call("listing users", self.client.users.list)
            self._users = {u.id: (u.email or u.username or str(u.id)) for u in users if u.id is not None}
        return self._users

    def project_url(self, project_id: int) -> str:
        return f"{self.base_url}/projects/{project_id}/data"


# -- projects ----------------------------------------------------------------------------------
def _project_titled(session: LabelStudioSession, title: str) -> Any | None:
    page, size = 1, 100
    while True:
        pager = session.call("listing projects", session.client.projects.list, page=page, page_size=size, title=title)
        items = list(pager.items or [])
        found = next((p for p in items if p.title == title), None)
        if found is not None or len(items) < size:
            return found
        page += 1


def ensure_project(
    store: Store,
    session: LabelStudioSession,
    source: str,
    *,
    config: str | None = None,
    title: str | None = None,
    description: str | None = None,
) -> ls_state.ProjectRow:
    """Reuse the source's project (by stored id, then by title) or create it; keep its config current.

    `source` is the key the store remembers the project by; the audit passes its own key, config and title.
    """
    config = config or label_config(source)
    config_hash = hashlib.sha256(config.encode("utf-8")).hexdigest()
    title = title or session.settings.project_title.format(source=source)
    client = session.client
    known = ls_state.get_project(store, session.base_url, source)
    if known is not None and (source, config_hash, title, known.project_id) in session.ensured:
        return known
    project = None
    if known is not None:
        try:
            project = session.call("reading the project", client.projects.get, id=known.project_id)
        except LabelStudioError as exc:
            if exc.status_code != 404:  # a deleted project is created again below
                raise
    if project is None:
        project = _project_titled(session, title)
    if project is None:
        project = session.call(
            f"creating project {title!r}",
            client.projects.create,
            title=title,
            label_config=config,
            description=description
            or f"Structured-output benchmark records from {source}: one task per source item. "
            "Managed by the SOB curation toolkit; edit the labeling config in annotation_ui_config/.",
            show_collab_predictions=True,
            maximum_annotations=1,
        )
    elif (project.label_config or "").strip() != config.strip():
        session.call("updating the labeling config", client.projects.update, id=project.id, label_config=config)
    ls_state.save_project(store, session.base_url, source, int(project.id), title, config_hash)
    row = ls_state.get_project(store, session.base_url, source)
    assert row is not None
    session.ensured[(source, config_hash, title, row.project_id)] = row
    return row


# -- push --------------------------------------------------------------------------------------
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


def list_project_tasks(
    session: LabelStudioSession,
    project_id: int,
    *,
    fields: str | None = None,
    omit: str = LIST_OMIT,
    query: dict[str, Any] | None = None,
    what: str = "listing tasks",
) -> Iterator[list[Any]]:
    """Pages of a project's tasks (data manager list), without the heavy fields."""
    page, seen = 1, 0
    page_size = session.settings.page_size
    while True:
        kwargs: dict[str, Any] = {"project": project_id, "page": page, "page_size": page_size}
        if fields:
            kwargs["fields"] = fields
        if query:
            kwargs["query"] = json.dumps(query)
        pager = session.call(
            f"{what} (page {page})",
            session.client.tasks.list,
            request_options={"additional_query_parameters": {"omit": omit}},
            **kwargs,
        )
        items = list(pager.items or [])
        total = getattr(pager.response, "total", None)
        if items:
            yield items
        seen += len(items)
        if not items or len(items) < page_size or (total is not None and seen >= total):
            return
        page += 1


def prefetched(pages: Iterator[T], ahead: int = 1) -> Iterator[T]:
    """Iterate `pages` in a worker thread, `ahead` items in advance; errors surface in the caller."""
    done = object()
    slots: queue.Queue[Any] = queue.Queue(maxsize=ahead)
    stop = threading.Event()

    def work() -> None:
        try:
            for page in pages:
                if stop.is_set():
                    return
                slots.put(("page", page))
            slots.put(("end", done))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            slots.put(("error", exc))

    worker = threading.Thread(target=work, name="label-studio-prefetch", daemon=True)
    worker.start()
    try:
        while True:
            kind, value = slots.get()
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value
    finally:
        stop.set()
        while worker.is_alive():  # let a blocked put() finish so the thread can end
            try:
                slots.get(timeout=0.1)
            except queue.Empty:
                pass
        worker.join()


def _task_meta(task: Any, name: str) -> str | None:
    meta = task.get("meta") if isinstance(task, dict) else getattr(task, "meta", None)
    value = meta.get(name) if isinstance(meta, dict) else None
    return value if isinstance(value, str) and value else None


def _task_key(task: Any) -> str | None:
    return _task_meta(task, "source_item_key")


def reconcile(store: Store, session: LabelStudioSession, project: ls_state.ProjectRow, source: str) -> int:
    """Adopt tasks that are in the project but not in the store (a crash after an import request)."""
    known = ls_state.pushed_source_ids(store, session.base_url, project.project_id)
    prefix = f"{source}:"
    adopted: list[tuple[str, int, str | None, str | None]] = []
    for page in list_project_tasks(session, project.project_id, what="listing the project's tasks to reconcile"):
        for task in page:
            key = _task_key(task)
            if key is None or not key.startswith(prefix):
                continue
            source_id = key[len(prefix) :]
            if source_id not in known:
                known.add(source_id)
                adopted.append((source_id, int(task.id), _task_meta(task, "draft_model"), None))
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


# -- parsing annotations -----------------------------------------------------------------------
@dataclass
class ParsedAnnotation:
    """The editors and the verdict of one annotation, and what is wrong with them."""

    question: str
    json_schema: dict[str, Any] | None
    ground_truth: dict[str, Any] | None
    verdict: str | None
    notes: str
    problems: list[Reason] = field(default_factory=list)
    evidence: dict[str, Evidence] = field(default_factory=dict)  # by JSON path: span labels + evidence editor
    flag_resolutions: str = ""  # the curator's answer to the reviewer's flags (authoring.flag_resolutions)


def _texts(result: Iterable[Mapping[str, Any]]) -> tuple[dict[str, str], list[str]]:
    texts: dict[str, list[str]] = {}
    choices: list[str] = []
    for region in result or []:
        name = region.get("from_name")
        value = region.get("value") or {}
        if name in TEXT_CONTROLS:
            texts.setdefault(name, []).extend(str(t) for t in value.get("text") or [])
        elif name == VERDICT_CONTROL:
            choices.extend(str(c) for c in value.get("choices") or [])
    return {name: "\n".join(parts).strip() for name, parts in texts.items()}, choices


def _parse_json_editor(name: str, text: str, problems: list[Reason]) -> dict[str, Any] | None:
    path = f"$.{name}"
    if not text:
        problems.append(Reason(stage=STAGE, code=f"missing_{name}", message=f"{name} is empty", path=path))
        return None
    try:
        value = parse_json_text(text)  # the input limits, before anything is stored
    except InputRejected as exc:
        message = f"{name} is {exc}" if exc.code == "malformed_json" else f"{name}: {exc}"
        problems.append(Reason(stage=STAGE, code=exc.code, message=message, path=path))
        return None
    if not isinstance(value, dict):
        problems.append(
            Reason(
                stage=STAGE,
                code="not_an_object",
                message=f"{name} must be a JSON object, got {type(value).__name__}",
                path=path,
            )
        )
        return None
    return value


def parse_annotation(result: Iterable[Mapping[str, Any]], context: str = "") -> ParsedAnnotation:
    """Read the editors (question, json_schema, ground_truth, evidence, notes, flag resolutions), the evidence
    spans marked on `context` and the verdict of one annotation.

    JSON that does not parse, a schema that is not a JSON Schema, an answer that does not validate
    against the schema and evidence that cannot be read are problems: the record goes back to the curator
    with them.
    """
    result = list(result or [])
    texts, choices = _texts(result)
    problems: list[Reason] = []
    evidence, evidence_problems = ls_evidence.parse_evidence(result, texts.get("evidence", ""), context)
    problems += evidence_problems
    question = texts.get("question", "")
    if not question:
        problems.append(Reason(stage=STAGE, code="missing_question", message="question is empty", path="$.question"))
    elif len(question) > MAX_STRING_CHARS:  # the input limit on any one value, before anything is stored
        message = f"question has {len(question):,} characters (at most {MAX_STRING_CHARS:,})"
        problems.append(Reason(stage=STAGE, code="value_too_long", message=message, path="$.question"))
        question = question[:MAX_STRING_CHARS]
    schema = _parse_json_editor("json_schema", texts.get("json_schema", ""), problems)
    answer = _parse_json_editor("ground_truth", texts.get("ground_truth", ""), problems)
    question, answer = characters.normalised(question), characters.normalised(answer)  # one normalisation (NFC)
    problems += [
        Reason(stage=STAGE, code=code, message=f"ground_truth{where[1:]}: {message}", path=f"$.ground_truth{where[1:]}")
        for where, code, message in characters.value_problems(answer or {})
    ]
    if schema is not None and answer is not None:
        # The full schema checks are the validation stage's; this catches what a curator can fix at once.
        # (A metaschema check per record costs milliseconds; an unusable schema fails here anyway.)
        try:
            validator_cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
            errors = sorted(validator_cls(schema).iter_errors(answer), key=lambda e: list(e.absolute_path))
        except Exception as exc:  # noqa: BLE001 - any failure here means the schema is unusable
            problems.append(
                Reason(
                    stage=STAGE,
                    code="invalid_json_schema",
                    message=f"json_schema cannot be used to validate: {type(exc).__name__}: {exc}".strip(),
                    path="$.json_schema",
                )
            )
        else:
            for error in errors[:5]:
                where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
                problems.append(
                    Reason(
                        stage=STAGE,
                        code="ground_truth_invalid",
                        message=f"ground_truth{where} does not validate against the schema: {error.message}",
                        path=f"$.ground_truth{where}",
                    )
                )
    verdict = choices[0] if choices else None
    if verdict is None:
        problems.append(
            Reason(
                stage=STAGE,
                code="missing_verdict",
                message=f"no verdict: choose one of {', '.join(VERDICTS)}",
                path="$.verdict",
            )
        )
    elif verdict not in VERDICTS:
        problems.append(
            Reason(
                stage=STAGE,
                code="unknown_verdict",
                message=f"verdict {verdict!r} is not one of {', '.join(VERDICTS)}",
                path="$.verdict",
            )
        )
    return ParsedAnnotation(
        question=question,
        json_schema=schema,
        ground_truth=answer,
        verdict=verdict,
        notes=texts.get("notes", ""),
        problems=problems,
        evidence=evidence,
        flag_resolutions=texts.get("flag_resolutions", ""),
    )


def latest_annotation(annotations: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The latest submitted (non-cancelled) annotation: newest `updated_at`, then highest id."""
    live = [a for a in annotations or [] if not a.get("was_cancelled")]
    if not live:
        return None
    return max(live, key=lambda a: (str(a.get("updated_at") or ""), int(a.get("id") or 0)))


def feedback_text(
    reasons: Sequence[Reason],
    annotation_id: int | None,
    annotator: str | None,
    doubts: Sequence[Mapping[str, Any]] = (),
    *,
    by_what: str = "the toolkit",
) -> str:
    """The feedback box: what to fix (with the JSON path), then the grounding check's doubts, if any."""
    when = utcnow().strftime("%Y-%m-%d %H:%M UTC")
    by = f" by {annotator}" if annotator else ""
    head = f"Sent back by {by_what} on {when} (annotation {annotation_id}{by}). Fix these and submit again:"
    lines = [head, *(f"- {_where(r.path)}{r.message}" for r in reasons)]
    if doubts:
        lines.append("Doubts of the grounding check (fix the value or its evidence where they are right):")
        lines += [f"- {_where(str(d.get('path', '$')))}{d.get('message', '')} ({d.get('code', '')})" for d in doubts]
    return "\n".join(lines)


def _where(path: str) -> str:
    return f"{path}: " if path and path != "$" else ""


def grounding_doubts(validation: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    """The soft doubts of a stored validation report (ungrounded_value, value_not_near_entity, ...)."""
    grounding = (validation or {}).get("grounding") or {}
    return list(grounding.get("issues") or [])


# -- pull --------------------------------------------------------------------------------------
@dataclass
class PullResult:
    project_id: int = 0
    tasks_seen: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    feedback_written: int = 0


def _parse_time(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


def _current_states(store: Store, record_ids: Sequence[str]) -> dict[str, str]:
    if not record_ids:
        return {}
    rows = store.con.execute(
        "SELECT record_id, state FROM records WHERE record_id IN (SELECT unnest(?))", [list(record_ids)]
    ).fetchall()
    return dict(rows)


def pull_annotations(
    store: Store,
    session: LabelStudioSession,
    source: str,
    *,
    project: ls_state.ProjectRow | None = None,
) -> PullResult:
    """Turn new annotations into records; send the ones that do not parse back to the curator.

    Each page of tasks is stored before the next is read; the checkpoint moves only when every page was
    read, and an annotation already taken is recognised by (id, updated_at). A server that dies mid-pull
    raises LabelStudioUnavailable, and the next run picks up what is left.
    """
    project = project or ensure_project(store, session, source)
    result = PullResult(project_id=project.project_id)
    base_url, project_id = session.base_url, project.project_id
    items = store.source_items(source)
    rows = ls_state.tasks_by_id(store, base_url, project_id)
    checkpoint = _parse_time(project.pull_checkpoint)
    newest: datetime | None = checkpoint
    pages = _annotated_pages(session, project_id, checkpoint)
    for page in tracked(pages, f"label studio pull ({source})", unit="page"):
        result.tasks_seen += len(page)
        for task in page:
            if task.updated_at is not None and (newest is None or task.updated_at > newest):
                newest = task.updated_at
        _take_page(store, session, source, project_id, page, rows, items, result)
    flush_feedback(store, session, source, project, result)
    if newest is not None and newest != checkpoint:
        ls_state.set_pull_checkpoint(store, base_url, source, newest.isoformat())
    return result


@dataclass(frozen=True)
class TaskAnnotations:
    """What a pull reads of one task, whichever endpoint it came from."""

    id: int
    meta: dict[str, Any] | None
    updated_at: datetime | None
    annotations: list[dict[str, Any]]

    @classmethod
    def of(cls, task: Any) -> TaskAnnotations:
        get = task.get if isinstance(task, dict) else lambda name, default=None: getattr(task, name, default)
        meta = get("meta")
        return cls(
            id=int(get("id")),
            meta=meta if isinstance(meta, dict) else None,
            updated_at=_parse_time(get("updated_at")),
            annotations=list(get("annotations") or []),
        )


def pull_tasks(store: Store, session: LabelStudioSession, source: str, task_ids: Sequence[int]) -> PullResult:
    """Pull the annotations of these tasks only (the ones a webhook named): a request per task instead of a
    listing of every task updated lately. The checkpoint does not move: the next full pull still covers them."""
    project = ensure_project(store, session, source)
    result = PullResult(project_id=project.project_id)
    page = []
    for task_id in dict.fromkeys(task_ids):
        task = session.call(f"reading task {task_id}", session.client.tasks.get, id=task_id)
        page.append(TaskAnnotations.of(task if isinstance(task, dict) else task.model_dump(mode="json")))
    result.tasks_seen = len(page)
    rows = ls_state.tasks_by_id(store, session.base_url, project.project_id)
    _take_page(store, session, source, project.project_id, page, rows, store.source_items(source), result)
    flush_feedback(store, session, source, project, result)
    return result


def _annotated_pages(
    session: LabelStudioSession, project_id: int, checkpoint: datetime | None
) -> Iterator[list[TaskAnnotations]]:
    """Pages of tasks with their annotations.

    The first pull of a project takes every annotated task in one export request (the cheapest way for
    the server); later pulls page through the tasks updated since the checkpoint, the server building
    the next page while this process stores the current one.
    """
    size = session.settings.page_size
    if checkpoint is None:
        exported = _export_annotated(session, project_id)
        if exported is not None:
            tasks = [TaskAnnotations.of(task) for task in exported]
            for start in range(0, len(tasks), size):
                yield tasks[start : start + size]
            return
    query = None
    if checkpoint is not None:
        since = (checkpoint - CHECKPOINT_OVERLAP).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        updated = {"filter": "filter:tasks:updated_at", "operator": "greater", "type": "Datetime", "value": since}
        query = {"filters": {"conjunction": "and", "items": [updated]}}
    # Tasks without annotations come back too: a filter on them costs the server more than it saves.
    pages = list_project_tasks(
        session, project_id, fields="all", omit=PULL_OMIT, query=query, what="reading annotations"
    )
    for page in prefetched(pages):
        yield [TaskAnnotations.of(task) for task in page]


def _export_annotated(session: LabelStudioSession, project_id: int) -> list[dict[str, Any]] | None:
    """Every annotated task of the project (JSON export), or None where the server has no such export."""

    def download() -> bytes:
        chunks = session.client.projects.exports.download_sync(
            id=project_id, export_type="JSON", download_all_tasks=False, download_resources=False
        )
        return b"".join(chunks)

    try:
        body = session.call("exporting annotations", download)
    except LabelStudioError as exc:
        if exc.status_code == 404:  # Enterprise: the synchronous export is gone; page through tasks instead
            return None
        raise
    tasks = json.loads(body)
    if not isinstance(tasks, list):
        raise LabelStudioError(f"Label Studio's export of project {project_id} is not a list of tasks")
    return tasks


def _annotator(completed_by: Any, users: Mapping[int, str]) -> str | None:
    if isinstance(completed_by, dict):  # some exports expand the user
        return completed_by.get("email") or users.get(completed_by.get("id")) or None
    if completed_by is None:
        return None
    return users.get(completed_by) or str(completed_by)


def _stamp(value: Any) -> str:
    """One spelling per annotation time, whichever endpoint reported it."""
    parsed = _parse_time(value)
    return parsed.isoformat() if parsed is not None else str(value or "")


def _take_page(
    store: Store,
    session: LabelStudioSession,
    source: str,
    project_id: int,
    page: Sequence[TaskAnnotations],
    rows: dict[int, ls_state.TaskRow],
    items: dict[str, SourceItem],
    result: PullResult,
) -> None:
    base_url = session.base_url
    prefix = f"{source}:"
    adopted: list[tuple[str, int, str | None, str | None]] = []
    taken: list[tuple[ls_state.TaskRow, Mapping[str, Any], ParsedAnnotation]] = []
    for task in page:
        row = rows.get(task.id)
        if row is None:  # pushed by a run that crashed before storing the task id
            key = _task_key(task)
            if key is None or not key.startswith(prefix) or key[len(prefix) :] not in items:
                result.counts["foreign_task"] += 1
                continue
            draft_model = (task.meta or {}).get("draft_model") or None
            row = ls_state.TaskRow(source, key[len(prefix) :], task.id, draft_model=draft_model)
            rows[row.task_id] = row
            adopted.append((row.source_id, row.task_id, draft_model, None))
        annotation = latest_annotation(task.annotations)
        if annotation is None:
            result.counts["no_annotation"] += 1
            continue
        stamp = _stamp(annotation.get("updated_at"))
        if row.annotation_id == int(annotation["id"]) and row.annotation_updated_at == stamp:
            result.counts["unchanged"] += 1
            continue
        if row.source_id not in items:
            result.counts["unknown_source_item"] += 1
            continue
        context = items[row.source_id].context
        taken.append((row, annotation, parse_annotation(annotation.get("result") or [], context)))
    if adopted:
        ls_state.record_pushed(store, base_url, project_id, source, adopted)
    if not taken:
        return
    users = session.user_emails()
    to_upsert: dict[RecordState, list[Record]] = {}
    changes: list[StateChange] = []
    outcomes: list[ls_state.Outcome] = []
    reaccept: list[str] = []
    superseded: list[tuple[str, str, int]] = []
    previous = _records_by_id(store, [row.record_id for row, _, _ in taken if row.record_id])
    built: dict[str, Record] = {}
    origins: dict[str, revisions.Origin] = {}  # record id -> the annotation it comes from (its revision)
    for row, annotation, parsed in taken:
        item = items[row.source_id]
        # olmOCR: the curator's corrected transcript becomes the context (evidence spans follow it)
        item, parsed.evidence, context_correction = page_tasks.apply_transcript(
            item, annotation.get("result") or [], parsed.evidence, parsed.problems
        )
        for outcome in page_tasks.correction_outcomes(context_correction):  # reported in the run's pull line
            result.counts[outcome] += 1
        annotator = _annotator(annotation.get("completed_by"), users)
        question = parsed.question or row.pushed_question or item.question or f"(no question yet for {item.source_id})"
        record = Record.build(
            item,
            question,
            parsed.json_schema or {},
            parsed.ground_truth or {},
            Provenance(
                annotator=annotator,
                authored_via=f"label_studio:{project_id}",
                authored_at=_parse_time(annotation.get("updated_at")) or utcnow(),
                draft_model=row.draft_model,
                time_spent_s=annotation.get("lead_time"),
                context_correction=context_correction,
            ),
            evidence=parsed.evidence,
        )
        record = _carry_review(record, previous.get(row.record_id or ""), parsed, annotator)
        rid = record.record_id
        built[rid] = record
        origins[rid] = revisions.Origin(
            f"label_studio:{project_id}:{row.task_id}",
            {"annotation_id": int(annotation["id"]), "annotation_updated_at": _stamp(annotation.get("updated_at"))},
            _parse_time(annotation.get("updated_at")),
        )
        feedback = None
        if parsed.verdict == "reject":
            message = parsed.notes or "rejected by the curator (no note given)"
            reason = Reason(stage=CURATOR_STAGE, code="curator_reject", message=message)
            to_upsert.setdefault(RecordState.REJECTED, []).append(record)
            changes.append(StateChange(rid, RecordState.REJECTED, CURATOR_STAGE, reasons=[reason]))
            status = ls_state.REJECTED
        elif parsed.problems:
            to_upsert.setdefault(RecordState.NEEDS_REVISION, []).append(record)
            changes.append(StateChange(rid, RecordState.NEEDS_REVISION, STAGE, reasons=parsed.problems))
            feedback = feedback_text(parsed.problems, int(annotation["id"]), annotator)
            status = ls_state.NEEDS_REVISION
        elif parsed.verdict == "needs_discussion":
            message = parsed.notes or "the curator asked for a discussion (no note given)"
            reason = Reason(stage=CURATOR_STAGE, code="needs_discussion", message=message)
            to_upsert.setdefault(RecordState.NEEDS_REVISION, []).append(record)
            changes.append(StateChange(rid, RecordState.NEEDS_REVISION, CURATOR_STAGE, reasons=[reason]))
            status = ls_state.NEEDS_DISCUSSION
        else:
            to_upsert.setdefault(RecordState.AUTHORED, []).append(record)
            reaccept.append(rid)
            status = ls_state.AUTHORED
            earlier = previous.get(row.record_id or "")
            if earlier is not None and earlier.provenance.review and earlier.provenance.review.open_flags:
                # The flags box is cleared and the curator told what happens next.
                feedback = (
                    f"The flags are resolved (annotation {annotation['id']}): the record goes on to "
                    "validation and the judge."
                )
        if row.record_id and row.record_id != rid:
            superseded.append((row.record_id, rid, row.task_id))
        outcomes.append(
            ls_state.Outcome(
                row.source_id, status, rid, int(annotation["id"]), _stamp(annotation["updated_at"]), feedback
            )
        )
        result.counts[status] += 1
    screened = _screen_revisions(store, to_upsert, origins, outcomes, result)
    held = {d.incoming.record.record_id for d in screened.decisions if d.verdict in ("conflict", "stale")}
    reaccept = [rid for rid in reaccept if rid not in held]
    for state, records in to_upsert.items():
        store.upsert_records(records, state, stage="label_studio", kind="authored")
    revisions.record(store.con, screened)
    # A resubmission with unchanged content leaves the stored record as it was: move it on explicitly.
    states = _current_states(store, reaccept + [old for old, _, _ in superseded])
    for rid in reaccept:
        if states.get(rid) in (RecordState.NEEDS_REVISION, RecordState.NEEDS_REVIEW, RecordState.REJECTED):
            # With the record: the curator's flag resolutions live in its provenance.
            changes.append(StateChange(rid, RecordState.AUTHORED, "label_studio", record=built[rid]))
    for old, new, task_id in superseded:
        if old in states and states[old] != RecordState.REJECTED:
            reason = Reason(
                stage=CURATOR_STAGE,
                code="superseded",
                message=f"task {task_id} was annotated again with another question; record {new[:12]} replaces it",
            )
            changes.append(StateChange(old, RecordState.REJECTED, CURATOR_STAGE, reasons=[reason]))
            result.counts["superseded"] += 1
    store.apply(changes)
    ls_state.save_outcomes(store, base_url, project_id, outcomes)
    for (row, _, _), outcome in zip(taken, outcomes, strict=True):
        row.status, row.record_id = outcome.status, outcome.record_id
        row.annotation_id, row.annotation_updated_at = outcome.annotation_id, outcome.annotation_updated_at


def _screen_revisions(
    store: Store,
    to_upsert: dict[RecordState, list[Record]],
    origins: Mapping[str, revisions.Origin],
    outcomes: list[ls_state.Outcome],
    result: PullResult,
) -> revisions.Screened:
    """Accepted annotations that would replace another origin's newer revision are not applied (core/revisions.py):
    taken out of `to_upsert`, and their tasks go back to the curator saying so (a new submission then replaces it)."""
    authored = to_upsert.get(RecordState.AUTHORED, [])
    screened = revisions.screen(
        store.con, [revisions.Incoming(r, origins[r.record_id], r.provenance.annotator) for r in authored]
    )
    held = {d.incoming.record.record_id: d for d in screened.decisions if d.verdict in ("conflict", "stale")}
    if not held:
        return screened
    to_upsert[RecordState.AUTHORED] = [r for r in authored if r.record_id not in held]
    for index, outcome in enumerate(outcomes):
        decision = held.get(outcome.record_id or "")
        if decision is None:
            continue
        current = revisions.describe_origin(decision.current_origin or "unknown", {})
        feedback = (
            f"Not applied (annotation {outcome.annotation_id}): record {outcome.record_id[:12]} was changed since "  # type: ignore[index]
            f"by {current} (revision {decision.current_rev}). Check the answer against it and submit again to "
            "replace it, or settle it with --overwrite."
        )
        outcomes[index] = dataclasses.replace(outcome, status=ls_state.NEEDS_REVISION, feedback=feedback)
        result.counts[ls_state.AUTHORED] -= 1
        result.counts["conflict"] += 1
    return screened


def _records_by_id(store: Store, record_ids: Sequence[str]) -> dict[str, Record]:
    if not record_ids:
        return {}
    rows = store.con.execute(
        "SELECT record_id, record, derived FROM records WHERE record_id IN (SELECT unnest(?))", [list(record_ids)]
    ).fetchall()
    return {rid: read_record(text, derived) for rid, text, derived in rows}


def _subject_hash(record: Record) -> str:
    out = record.output
    return subject_hash(review_subject(record.input.question, record.input.json_schema, out.ground_truth, out.evidence))


def _carry_review(record: Record, previous: Record | None, parsed: ParsedAnnotation, annotator: str | None) -> Record:
    """Keep the reviewer's flags on the new version of a record; an accept must resolve every open flag
    (its problems join the annotation's, so the record goes back to the curator with them)."""
    review: ReviewInfo | None = previous.provenance.review if previous is not None else None
    if review is None:
        return record
    if review.open_flags and parsed.verdict == "accept":
        changed = _subject_hash(record) != _subject_hash(previous)  # type: ignore[arg-type]
        review, problems = resolve(review, parsed.flag_resolutions, changed=changed, annotator=annotator)
        parsed.problems.extend(problems)
    return record.model_copy(update={"provenance": record.provenance.model_copy(update={"review": review})})


def flush_feedback(
    store: Store,
    session: LabelStudioSession,
    source: str,
    project: ls_state.ProjectRow,
    result: PullResult | None = None,
) -> int:
    """Write queued feedback into the tasks' data (the field the labeling config shows above the editors)."""
    written = 0
    for source_id, task_id, text in ls_state.pending_feedback(store, session.base_url, project.project_id):
        task = session.call(f"reading task {task_id}", session.client.tasks.get, id=task_id)
        data = dict(task.data or {})
        data["feedback"] = text
        record = _task_record(store, session.base_url, project.project_id, source_id)
        if record is not None:  # the reviewer's open flags, and a label per JSON path of the current answer
            data["review_flags"] = flags_text(record.provenance.review)
            data["evidence_paths"] = ls_evidence.label_options(record.output.ground_truth, record.output.evidence)
        session.call(f"writing feedback into task {task_id}", session.client.tasks.update, id=task_id, data=data)
        ls_state.feedback_written(store, session.base_url, project.project_id, source_id, text)
        written += 1
    if result is not None:
        result.feedback_written += written
    return written


def bounce_validation_failures(
    store: Store, session: LabelStudioSession, source: str, *, project: ls_state.ProjectRow | None = None
) -> int:
    """Send records authored in Label Studio that the validation stage rejected back to their curator.

    Run it after the validation stage: the record moves to needs_revision with the validation reasons,
    and the reasons are written into its task's feedback field.
    """
    project = project or ensure_project(store, session, source)
    rows = ls_state.tasks_by_id(store, session.base_url, project.project_id)
    by_record = {row.record_id: row for row in rows.values() if row.record_id and row.status == ls_state.AUTHORED}
    if not by_record:
        return 0
    changes: list[StateChange] = []
    queued: list[tuple[ls_state.TaskRow, str]] = []
    for stored in store.records(source, [RecordState.REJECTED]):
        row = by_record.get(stored.record.record_id)
        if row is None or not any(r.stage == "validation" for r in stored.reasons):
            continue
        changes.append(StateChange(stored.record.record_id, RecordState.NEEDS_REVISION, STAGE, reasons=stored.reasons))
        doubts = grounding_doubts(stored.validation)
        annotator = stored.record.provenance.annotator
        queued.append((row, feedback_text(stored.reasons, row.annotation_id, annotator, doubts)))
    store.apply(changes)
    for row, text in queued:
        ls_state.queue_feedback(
            store, session.base_url, project.project_id, row.source_id, ls_state.NEEDS_REVISION, text
        )
    flush_feedback(store, session, source, project)
    return len(changes)


def bounce_review_flags(
    store: Store, session: LabelStudioSession, source: str, *, project: ls_state.ProjectRow | None = None
) -> int:
    """Send records authored in Label Studio that the reviewer pass flagged back to their curator.

    Run it after the review stage (which moved them to needs_revision): the flags go into the task's
    "Reviewer flags" box, the feedback says what to do, and the grounding doubts are listed below it.
    """
    return _bounce_flags(store, session, source, RecordState.NEEDS_REVISION, "review", "the reviewer pass", project)


def bounce_gate_flags(
    store: Store, session: LabelStudioSession, source: str, *, project: ls_state.ProjectRow | None = None
) -> int:
    """Show the curator the flags of records authored in Label Studio that the gate holds in `needs_review`.

    Run it after the judge stage: the flags go above the editors exactly as the reviewer's do, and the
    curator resolves each (`R1 fixed` or `R1 dismissed: why`); the record then goes through validation and
    the judge again."""
    by_what = "the toolkit's checks, which could not settle these doubts"
    return _bounce_flags(store, session, source, RecordState.NEEDS_REVIEW, "gate", by_what, project)


def _bounce_flags(
    store: Store,
    session: LabelStudioSession,
    source: str,
    state: RecordState,
    stage: str,
    by_what: str,
    project: ls_state.ProjectRow | None,
) -> int:
    project = project or ensure_project(store, session, source)
    rows = ls_state.tasks_by_id(store, session.base_url, project.project_id)
    by_record = {row.record_id: row for row in rows.values() if row.record_id and row.status == ls_state.AUTHORED}
    if not by_record:
        return 0
    bounced = 0
    for stored in store.records(source, [state]):
        row = by_record.get(stored.record.record_id)
        if row is None or not any(r.stage == stage for r in stored.reasons):
            continue
        text = feedback_text(
            stored.reasons,
            row.annotation_id,
            stored.record.provenance.annotator,
            grounding_doubts(stored.validation),
            by_what=by_what,
        )
        ls_state.queue_feedback(
            store, session.base_url, project.project_id, row.source_id, ls_state.NEEDS_REVISION, text
        )
        bounced += 1
    flush_feedback(store, session, source, project)
    return bounced


def verdict_text(state: str, reasons_json: str | None, judge_json: str | None, annotation_id: int | None) -> str:
    """What the curator reads above the editors once the toolkit has checked their annotation."""
    judge = json.loads(judge_json) if judge_json else {}
    scores = ", ".join(f"{name} {value}" for name, value in (judge.get("scores") or {}).items())
    by = f"{judge.get('judge') or 'the checks'}" + (f"; {scores}" if scores else "")
    head = f"Verdict on annotation {annotation_id}"
    if state == RecordState.ACCEPTED:
        return f"{head}: accepted ({by}). Nothing more to do here."
    lines = [f"{head}: rejected ({by}):"]
    for reason in json.loads(reasons_json) if reasons_json else []:
        where = f" {reason['path']}" if reason.get("path") else ""
        lines.append(f"[{reason.get('stage')}/{reason.get('code')}]{where} {reason.get('message')}")
    lines.append("Change the answer and submit again to have it checked again.")
    return "\n".join(lines)


def write_verdicts(store: Store, session: LabelStudioSession, source: str) -> int:
    """Write each checked annotation's verdict (accepted, or rejected with its reasons and JSON paths) into its
    task, once per verdict: the curator sees it without anyone re-running anything. Records sent back
    (needs_revision) already got their errors from the bounce."""
    project = ls_state.get_project(store, session.base_url, source)
    if project is None:
        return 0
    rows = ls_state.tasks_by_id(store, session.base_url, project.project_id)
    by_record = {row.record_id: row for row in rows.values() if row.record_id and row.status == ls_state.AUTHORED}
    if not by_record:
        return 0
    checked = store.con.execute(
        "SELECT record_id, state, reasons, judge FROM records WHERE record_id = ANY(?) AND state = ANY(?)",
        [list(by_record), [str(RecordState.ACCEPTED), str(RecordState.REJECTED)]],
    ).fetchall()
    written = 0
    for record_id, state, reasons, judge in checked:
        row = by_record[record_id]
        text = verdict_text(state, reasons, judge, row.annotation_id)
        if text == row.feedback:
            continue
        ls_state.queue_feedback(store, session.base_url, project.project_id, row.source_id, row.status, text)
        written += 1
    if written:
        flush_feedback(store, session, source, project)
    return written


def _task_record(store: Store, base_url: str, project_id: int, source_id: str) -> Record | None:
    row = store.con.execute(
        "SELECT r.record, r.derived FROM ls_tasks t JOIN records r ON r.record_id = t.record_id "
        "WHERE t.base_url = ? AND t.project_id = ? AND t.source_id = ?",
        [base_url, project_id, source_id],
    ).fetchone()
    return read_record(*row) if row else None


# -- one call per run, and what the curator is told --------------------------------------------
@dataclass
class SyncResult:
    project_id: int
    url: str
    push: PushResult
    pull: PullResult


def sync(
    store: Store,
    session: LabelStudioSession,
    source: str,
    drafts: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    task_ids: Sequence[int] | None = None,
) -> SyncResult:
    """Push new candidates, then pull finished annotations: what one run of the pipeline does. With `task_ids`
    (a webhook named them): pull those tasks only, push nothing."""
    project = ensure_project(store, session, source)
    if task_ids:
        pulled = pull_tasks(store, session, source, task_ids)
        return SyncResult(project.project_id, session.project_url(project.project_id), PushResult(), pulled)
    pushed = push_tasks(store, session, source, drafts, project=project)
    pulled = pull_annotations(store, session, source, project=ls_state.get_project(store, session.base_url, source))
    return SyncResult(project.project_id, session.project_url(project.project_id), pushed, pulled)


def awaiting_curators(store: Store, source: str, base_url: str | None = None) -> dict[str, int]:
    """Tasks that wait for a curator, by why: awaiting (new), needs_revision (sent back), needs_discussion."""
    counts = ls_state.status_counts(store, source, base_url)
    return {status: counts.get(status, 0) for status in ls_state.OPEN_STATUSES}


def awaiting_line(store: Store, session: LabelStudioSession, source: str, *, served: bool = True) -> str:
    """What waits for curators, and where. `served=False`: the toolkit's own server stops with this run, so no
    URL is given (it would lead nowhere), but how to serve the curators."""
    project = ls_state.get_project(store, session.base_url, source)
    counts = awaiting_curators(store, source, session.base_url)
    total = sum(counts.values())
    detail = (
        f"({counts['awaiting']} new, {counts['needs_revision']} sent back, {counts['needs_discussion']} to discuss)"
    )
    if not served:
        return (
            f"Label Studio: stopped with this run; {total} task(s) await curators {detail}. "
            "Serve them with --start-label-studio --keep-label-studio"
        )
    where = session.project_url(project.project_id) if project else session.base_url
    return f"Label Studio: {where} - {total} task(s) await curators {detail}"


@contextmanager
def label_studio_for_run(
    workspace: Path | str,
    *,
    url: str | None = None,
    api_key: str | None = None,
    start: bool = False,
    port: int | None = None,
    keep_running: bool = False,
    echo: Callable[[str], None] = print,
) -> Iterator[LabelStudioSession | None]:
    """The Label Studio a run talks to: started in the workspace (`--start-label-studio`), given by
    flags or LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY, or None when there is none.

    A started server is stopped when the block ends; with `keep_running` it serves the curators until
    Ctrl-C first.
    """
    if not start:
        settings = LabelStudioSettings.from_env(url, api_key)
        yield LabelStudioSession(settings) if settings is not None else None
        return
    from authoring.server import DEFAULT_PORT, LabelStudioServer

    server = LabelStudioServer.for_workspace(workspace, port=port or DEFAULT_PORT)
    echo(f"starting Label Studio in {server.data_dir} (the first start takes about a minute) ...")
    server.start()
    if server.orphan_stopped is not None:
        echo(
            f"stopped a Label Studio that a killed run left running (process group {server.orphan_stopped.pid}, "
            f"port {server.orphan_stopped.port})"
        )
    try:
        assert server.credentials is not None
        echo(
            f"Label Studio is up at {server.url}: log in as {server.credentials.username}, "
            f"password in {server.data_dir / 'credentials.json'}"
        )
        settings = LabelStudioSettings(url=server.url, api_key=server.api_key, local_files_root=str(server.files_root))
        yield LabelStudioSession(settings)
        if keep_running:
            echo(f"Label Studio keeps running at {server.url} for the curators; Ctrl-C stops it.")
            server.serve_until_interrupted()
    finally:
        server.stop()
