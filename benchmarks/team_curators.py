"""A team of simulated curators on one Label Studio, against a running `--serve`: shared by
benchmarks/bench_team_labelstudio.py (10 curators, minutes) and tests/authoring/test_team_labelstudio.py (3
curators, a few submissions each).

Each curator is a Label Studio user with their own token (authoring/labelstudio/accounts.py) and tasks of their
own. They submit through the API as that user, wait until the toolkit's verdict on that very annotation is in
the task ("Verdict on annotation N", or "Sent back ... (annotation N"), and submit the next version (each one
different: the schema's description names the submission). At the end the store's revisions are compared with
Label Studio's annotations: every submission applied once, none lost, none twice.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import httpx

from authoring import ls_state
from authoring.labelstudio.accounts import CuratorAccount
from core.store import Store

REPO = Path(__file__).resolve().parent.parent
# How often a waiting curator looks at their task. Reading a task is one of Label Studio's dearest requests (about
# 50 ms of its CPU on SQLite): ten curators reading five times a second kept its server busy and made the toolkit's
# own requests wait in its queue. The latency is measured on Label Studio's clock (the annotation's `created_at` to
# the task's `updated_at` when the verdict is there), so this interval does not add to it.
POLL_S = 1.0
# A curator looks for the verdict with a listing of their one task that carries no annotations ("task_only"): all
# the look needs is the task's data and `updated_at`. A full read of a task with 45 annotations costs Label Studio
# 250 ms against 68 ms for this listing (idle, SQLite). In the benchmark (a look at once, then every 5 s) each
# submission was followed by two full reads: about half a second of Label Studio's CPU per submission, most of a
# core of the two at 1.6 submissions a second. That is a load of the measuring, not of the team: a person opens
# their task once.
LOOK_FIELDS = "task_only"


def team_items(sample_items: Path, authored: Path, copies: int, into: Path) -> dict[str, dict]:
    """`copies` HotpotQA items (the sample's, repeated under new ids) written as an --input file, with the
    sample's authored answer for each: source id -> authored line."""
    items = json.loads(sample_items.read_text(encoding="utf-8"))
    lines = {}
    for text in authored.read_text(encoding="utf-8").splitlines():
        try:  # the sample has hostile lines on purpose (a broken JSON one among them): those are not answers
            line = json.loads(text)
        except ValueError:
            continue
        if isinstance(line, dict) and isinstance(line.get("source_id"), str) and "ground_truth" in line:
            lines.setdefault(line["source_id"], line)
    items = [item for item in items if item["_id"] in lines]
    made, answers = [], {}
    for n in range(copies):
        item = copy.deepcopy(items[n % len(items)])
        original = item["_id"]
        item["_id"] = f"{original}-t{n:03d}" if copies > len(items) else original
        made.append(item)
        answers[item["_id"]] = dict(lines[original], source_id=item["_id"])
    into.write_text(json.dumps(made), encoding="utf-8")
    return answers


def annotation_result(line: dict, submission: int) -> list[dict]:
    """The curator's answer; the schema's description names the submission, so each version is a new revision."""
    schema = dict(line["json_schema"], description=f"Submission {submission} of this record")

    def text(name: str, value: str) -> dict:
        return {"from_name": name, "to_name": "context", "type": "textarea", "value": {"text": [value]}}

    return [
        text("question", line["question"]),
        text("json_schema", json.dumps(schema)),
        text("ground_truth", json.dumps(line["ground_truth"])),
        {"from_name": "verdict", "to_name": "context", "type": "choices", "value": {"choices": ["accept"]}},
    ]


def answered(feedback: str, annotation_id: int) -> bool:
    """The toolkit's word on this annotation: its verdict, or the errors it was sent back with."""
    return feedback.startswith(f"Verdict on annotation {annotation_id}:") or f"(annotation {annotation_id}" in feedback


@dataclass
class TeamRun:
    submitted: list[tuple[str, int, int]] = field(default_factory=list)  # (curator, task id, annotation id)
    latencies_s: list[float] = field(default_factory=list)
    unanswered: list[int] = field(default_factory=list)  # annotations whose verdict never came
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def p95(self) -> float:
        ordered = sorted(self.latencies_s)
        return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("nan")


def server_latency(annotation: object, task: Mapping[str, object]) -> float | None:
    """Seconds from the annotation's creation to the task's last update (the verdict written into it), both on
    Label Studio's clock; None when either time is missing."""
    created, updated = _moment(getattr(annotation, "created_at", None)), _moment(task.get("updated_at"))
    if created is None or updated is None:
        return None
    return max((updated - created).total_seconds(), 0.0)


def _moment(value: object) -> datetime | None:
    """The SDK gives an annotation's time as a datetime and a task's as ISO text."""
    if isinstance(value, datetime):
        return value
    return datetime.fromisoformat(value) if isinstance(value, str) and value else None


def look_at_task(http: httpx.Client, project_id: int, task_id: int) -> dict:
    """The task's data and `updated_at`, as its curator sees them, without its annotations (LOOK_FIELDS)."""
    query = {"filters": {"conjunction": "and", "items": [_id_is(task_id)]}}
    answer = http.get("/api/tasks/", params={"project": project_id, "fields": LOOK_FIELDS, "query": json.dumps(query)})
    answer.raise_for_status()
    body = answer.json()
    listed = body.get("tasks", []) if isinstance(body, dict) else body
    found = [task for task in listed if task.get("id") == task_id]
    if not found:
        raise LookupError(f"task {task_id} is not in project {project_id}")
    return found[0]


def _id_is(task_id: int) -> dict:
    return {"filter": "filter:tasks:id", "operator": "equal", "type": "Number", "value": task_id}


def run_curators(
    base_url: str,
    accounts: Sequence[CuratorAccount],
    tasks: dict[str, int],
    answers: dict[str, dict],
    *,
    duration_s: float | None = None,
    submissions_each: int | None = None,
    verdict_timeout_s: float = 120.0,
    poll_s: float = POLL_S,
) -> TeamRun:
    """Every curator submits on their own tasks (tasks dealt round-robin) until the duration is over or they made
    `submissions_each`; each waits for the verdict on one submission before the next."""
    from label_studio_sdk import LabelStudio

    run = TeamRun()
    source_ids = sorted(tasks)
    deadline = time.monotonic() + duration_s if duration_s else None

    def curator(index: int, account: CuratorAccount) -> None:
        client = LabelStudio(base_url=base_url, api_key=account.token, timeout=120)
        with httpx.Client(base_url=base_url, headers={"Authorization": f"Token {account.token}"}, timeout=120) as http:
            mine = source_ids[index :: len(accounts)]
            n = 0
            while (submissions_each is None or n < submissions_each) and (
                deadline is None or time.monotonic() < deadline
            ):
                source_id = mine[n % len(mine)]
                task_id = tasks[source_id]
                try:
                    made = client.annotations.create(id=task_id, result=annotation_result(answers[source_id], n))
                    sent = time.monotonic()
                    with run.lock:
                        run.submitted.append((account.email, task_id, int(made.id)))
                    while time.monotonic() - sent < verdict_timeout_s:
                        task = look_at_task(http, int(made.project or 0), task_id)
                        feedback = str((task.get("data") or {}).get("feedback") or "")
                        if answered(feedback, int(made.id)):
                            with run.lock:
                                run.latencies_s.append(server_latency(made, task) or time.monotonic() - sent)
                            break
                        time.sleep(poll_s)
                    else:
                        with run.lock:
                            run.unanswered.append(int(made.id))
                except Exception as exc:  # noqa: BLE001 - counted and reported, the others go on
                    with run.lock:
                        run.errors.append(f"{account.email}: {type(exc).__name__}: {exc}")
                    return
                n += 1

    threads = [threading.Thread(target=curator, args=(i, a), name=f"curator-{i}") for i, a in enumerate(accounts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return run


@dataclass
class Reconciliation:
    annotations: int  # in Label Studio, on the project
    revisions: int  # in the store, from Label Studio annotations
    lost: list[int]  # submitted annotations with no revision
    twice: list[int]  # annotations applied as more than one revision
    strangers: list[int]  # revisions naming an annotation nobody submitted
    kept_as: dict[int, str] = field(default_factory=dict)  # a "lost" annotation stored as a revision of another status

    @property
    def ok(self) -> bool:
        return not (self.lost or self.twice or self.strangers) and self.annotations == self.revisions


def reconcile(workspace: Path, admin_client: object, run: TeamRun) -> Reconciliation:
    """The store's revisions against Label Studio's annotations on the curators' tasks."""
    task_ids = sorted({task for _, task, _ in run.submitted})
    in_label_studio = [int(a.id) for task in task_ids for a in admin_client.annotations.list(id=task)]  # type: ignore[attr-defined]
    with Store.open(workspace) as store:
        rows = store.con.execute(
            "SELECT origin_detail FROM revisions WHERE origin LIKE 'label_studio:%' AND status = 'applied'"
        ).fetchall()
        others = store.con.execute(
            "SELECT origin_detail, status FROM revisions WHERE origin LIKE 'label_studio:%' AND status <> 'applied'"
        ).fetchall()
    applied = Counter(int(json.loads(detail)["annotation_id"]) for (detail,) in rows if detail)
    kept_as = {int(json.loads(detail)["annotation_id"]): status for detail, status in others if detail}
    submitted = {annotation for _, _, annotation in run.submitted}
    return Reconciliation(
        annotations=len(in_label_studio),
        revisions=sum(applied.values()),
        lost=sorted(submitted - set(applied)),
        twice=sorted(a for a, n in applied.items() if n > 1),
        strangers=sorted(set(applied) - submitted),
        kept_as={a: kept_as[a] for a in submitted - set(applied) if a in kept_as},
    )


class Service:
    """`python -m build_split --serve` in a child process, against a Label Studio given by URL and token."""

    def __init__(
        self,
        workspace: Path,
        input_file: Path,
        url: str,
        api_key: str,
        title: str,
        poll_s: float = 120,
        log: Path | None = None,
    ):
        env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "LABEL_STUDIO_URL": url,
            "LABEL_STUDIO_API_KEY": api_key,
            "LABEL_STUDIO_PROJECT_TITLE": title,
            "SOB_WORKERS": "0",
        }
        for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY"):
            env.pop(name, None)
        command = [sys.executable, "-m", "build_split", "--source", "hotpotqa", "--workspace", str(workspace)]
        command += ["--judge", "heuristic", "--input", str(input_file), "--serve", "--poll-seconds", str(poll_s)]
        self.workspace = workspace
        self.url = url
        self.process = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.lines: list[str] = []
        self.log = log.open("a", encoding="utf-8") if log is not None else None  # what it prints, as it prints it
        self.drains: list[threading.Thread] = []

    def wait_until_serving(self) -> None:
        while not any(line.startswith("serving:") for line in self.lines):
            line = self.process.stdout.readline()  # type: ignore[union-attr]
            if not line:
                raise RuntimeError(f"the service ended: {''.join(self.lines)}{self.process.stderr.read()}")  # type: ignore[union-attr]
            self.lines.append(line)
        # From now on its output is read as it comes: a full pipe would stop the service mid-cycle.
        self.drains = [
            threading.Thread(target=self._drain, args=(stream,), daemon=True)
            for stream in (self.process.stdout, self.process.stderr)
        ]
        for drain in self.drains:
            drain.start()

    def _drain(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self.lines.append(line)
            if self.log is not None:
                self.log.write(f"{time.time():.3f} {line}")
                self.log.flush()

    def tasks(self) -> dict[str, int]:
        """Source id -> task id (the store is free between cycles)."""
        with Store.open(self.workspace) as store:
            project = ls_state.get_project(store, self.url, "hotpotqa")
            assert project is not None
            return {t.source_id: t.task_id for t in ls_state.tasks_by_id(store, self.url, project.project_id).values()}

    def stop(self) -> tuple[int, str]:
        """SIGTERM, and the exit code with everything the service printed."""
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=120)
        for drain in self.drains:  # they end with the closed pipes
            drain.join(timeout=30)
        return code, "".join(self.lines)
