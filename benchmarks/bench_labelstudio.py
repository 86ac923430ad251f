"""Push 5,000 tasks with predictions and pull 5,000 annotations; compare with one API request per task.
Then the feedback latency of `--serve`: from a curator's submission to the verdict in its task.

    .venv/bin/python benchmarks/bench_labelstudio.py [--tasks 5000] [--baseline-tasks 500] [--feedback 500]

Starts its own Label Studio (scripts/install_label_studio.sh installs it) in a temporary data dir, or
uses LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY when both are set. The batched path is the toolkit's own
(`push_tasks`, `pull_annotations`, store writes included). The baseline sends one request per task
(import one task; read one task's annotations), measured on --baseline-tasks tasks in the same run; its
store writes are batched at the end, so it is charged for the requests only.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from authoring import labelstudio as ls  # noqa: E402
from authoring import ls_state  # noqa: E402
from authoring.server import LabelStudioServer, free_port  # noqa: E402
from core.models import Record, RecordState, SourceItem  # noqa: E402
from core.store import Store  # noqa: E402

SCHEMA = {
    "type": "object",
    "properties": {
        "bridge_entity": {"type": "string", "description": "the entity that links the two paragraphs"},
        "director": {"type": "string", "description": "who directed the observatory"},
        "university": {"type": "string", "description": "where the director studied"},
    },
    "required": ["bridge_entity", "director", "university"],
}
ANSWER = {"bridge_entity": "Marrow Creek Observatory", "director": "Ingrid Solvang", "university": "University of Oslo"}
PARAGRAPH = (
    "Marrow Creek Observatory is an astronomical observatory near the town of Elsford, founded in 1931. "
    "Its main instrument is a 1.2 metre reflecting telescope built by the Halvorsen Optical Works. "
    "The observatory was directed by Ingrid Solvang from 1958 to 1977. "
)


def make_items(n: int, prefix: str) -> list[SourceItem]:
    return [
        SourceItem(
            source="hotpotqa",
            source_id=f"{prefix}-{i:05d}",
            context=f"Paragraph set {i}.\n" + PARAGRAPH * 6,  # about 2 KB, like a HotpotQA context
            question=f"Which university did the director study at ({i})?",
            answer="University of Oslo",
            metadata={"type": "bridge", "level": "medium", "supporting_facts": [["Marrow Creek Observatory", 2]]},
        )
        for i in range(n)
    ]


def drafts_for(items: list[SourceItem]) -> dict[str, dict]:
    return {
        item.source_id: {
            "question": item.question,
            "json_schema": SCHEMA,
            "ground_truth": ANSWER,
            "model_version": "gemini-2.5-flash@draft-v1",
        }
        for item in items
    }


def annotation_result(i: int) -> list[dict]:
    def text(name: str, value: str) -> dict:
        return {"from_name": name, "to_name": "context", "type": "textarea", "value": {"text": [value]}}

    return [
        text("question", f"Where did the 1958-1977 director study ({i})?"),
        text("json_schema", json.dumps(SCHEMA, indent=2)),
        text("ground_truth", json.dumps(ANSWER, indent=2)),
        {"from_name": "verdict", "to_name": "context", "type": "choices", "value": {"choices": ["accept"]}},
    ]


def session_for(url: str, key: str, title: str) -> ls.LabelStudioSession:
    return ls.LabelStudioSession(ls.LabelStudioSettings(url=url, api_key=key, project_title=title))


def rate(n: int, seconds: float) -> float:
    return n / seconds if seconds > 0 else float("inf")


def bench_push(url: str, key: str, workdir: Path, n: int, baseline_n: int) -> tuple[float, float]:
    items = make_items(n, "push")
    with Store.open(workdir / "push") as store:
        store.upsert_source_items(items)
        session = session_for(url, key, "bench push: {source}")
        ls.ensure_project(store, session, "hotpotqa")
        start = time.perf_counter()
        result = ls.push_tasks(store, session, "hotpotqa", drafts_for(items))
        batched = time.perf_counter() - start
        assert result.pushed == n and result.with_draft == n, result
    base_items = make_items(baseline_n, "push-baseline")
    with Store.open(workdir / "push-baseline") as store:
        store.upsert_source_items(base_items)
        session = session_for(url, key, "bench push baseline: {source}")
        project = ls.ensure_project(store, session, "hotpotqa")
        drafts = drafts_for(base_items)
        rows = []
        start = time.perf_counter()
        for item in base_items:  # one request per task
            response = session.client.projects.import_tasks(
                id=project.project_id, request=[ls.build_task(item, drafts[item.source_id])], return_task_ids=True
            )
            rows.append((item.source_id, int(response.task_ids[0]), "gemini-2.5-flash@draft-v1", item.question))
        ls_state.record_pushed(store, session.base_url, project.project_id, "hotpotqa", rows)
        baseline = time.perf_counter() - start
    return rate(n, batched), rate(baseline_n, baseline)


def annotated_project(url: str, key: str, store: Store, items: list[SourceItem], title: str) -> ls.LabelStudioSession:
    """Setup (not timed): tasks that curators have annotated, known to the store as pushed."""
    session = session_for(url, key, title)
    project = ls.ensure_project(store, session, "hotpotqa")
    for start in range(0, len(items), 500):
        batch = items[start : start + 500]
        payload = []
        for i, item in enumerate(batch, start=start):
            task = ls.build_task(item)
            task["annotations"] = [{"result": annotation_result(i), "lead_time": 30.0 + i % 90}]
            payload.append(task)
        response = session.client.projects.import_tasks(id=project.project_id, request=payload, return_task_ids=True)
        rows = [(item.source_id, int(tid), None, None) for item, tid in zip(batch, response.task_ids, strict=True)]
        ls_state.record_pushed(store, session.base_url, project.project_id, "hotpotqa", rows)
    return session


def bench_pull(url: str, key: str, workdir: Path, n: int, baseline_n: int) -> tuple[float, float]:
    items = make_items(n, "pull")
    with Store.open(workdir / "pull") as store:
        store.upsert_source_items(items)
        session = annotated_project(url, key, store, items, "bench pull: {source}")
        start = time.perf_counter()
        result = ls.pull_annotations(store, session, "hotpotqa")
        batched = time.perf_counter() - start
        assert result.counts["authored"] == n, result.counts
    base_items = make_items(baseline_n, "pull-baseline")
    with Store.open(workdir / "pull-baseline") as store:
        store.upsert_source_items(base_items)
        session = annotated_project(url, key, store, base_items, "bench pull baseline: {source}")
        project = ls_state.get_project(store, session.base_url, "hotpotqa")
        rows = ls_state.tasks_by_id(store, session.base_url, project.project_id)
        by_id = {item.source_id: item for item in base_items}
        records = []
        start = time.perf_counter()
        for task_id, row in rows.items():  # one request per task
            annotations = session.client.annotations.list(id=task_id)
            latest = ls.latest_annotation([a.model_dump(mode="json") for a in annotations])
            parsed = ls.parse_annotation(latest["result"])
            records.append(Record.build(by_id[row.source_id], parsed.question, parsed.json_schema, parsed.ground_truth))
        store.upsert_records(records, RecordState.AUTHORED, "label_studio")
        baseline = time.perf_counter() - start
    return rate(n, batched), rate(len(rows), baseline)


def bench_feedback(url: str, key: str, workdir: Path, n: int) -> list[float]:
    """Seconds from each of `n` submissions (one at a time, through the API as a curator's browser does) to the
    verdict in its task, with `python -m build_split --serve` running (webhooks on 127.0.0.1)."""
    import os
    import subprocess
    import uuid

    workspace = workdir / "serve"
    items = make_items(n, "feedback")
    with Store.open(workspace) as store:
        store.upsert_source_items(items)
    title = f"bench feedback {uuid.uuid4().hex[:6]}: {{source}}"
    env = {**os.environ, "LABEL_STUDIO_URL": url, "LABEL_STUDIO_API_KEY": key, "LABEL_STUDIO_PROJECT_TITLE": title}
    env.update({"PYTHONUNBUFFERED": "1", "SOB_WORKERS": "0"})
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        env.pop(name, None)
    command = [sys.executable, "-m", "build_split", "--source", "hotpotqa", "--workspace", str(workspace)]
    service = subprocess.Popen(
        [*command, "--judge", "heuristic", "--serve", "--poll-seconds", "600"],
        cwd=Path(__file__).resolve().parent.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    latencies: list[float] = []
    try:
        while not (line := service.stdout.readline() if service.stdout else "").startswith("serving:"):
            if not line:
                raise RuntimeError("the service ended before serving")
        print(line.strip())
        with Store.open(workspace) as store:
            project = ls_state.get_project(store, url.rstrip("/"), "hotpotqa")
            tasks = sorted(ls_state.tasks_by_id(store, url.rstrip("/"), project.project_id))
        session = session_for(url, key, title)
        for i, task_id in enumerate(tasks[:n]):
            start = time.perf_counter()
            made = session.client.annotations.create(id=task_id, result=annotation_result(i))
            mark = f"annotation {made.id}"
            while mark not in ((session.client.tasks.get(id=task_id).data or {}).get("feedback") or ""):
                if time.perf_counter() - start > 60:
                    raise RuntimeError(f"no verdict for task {task_id} within 60 s")
                time.sleep(0.05)
            latencies.append(time.perf_counter() - start)
    finally:
        service.terminate()
        service.wait(timeout=60)
    return latencies


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    import os

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=5000)
    parser.add_argument("--baseline-tasks", type=int, default=500)
    parser.add_argument("--feedback", type=int, default=500, help="submissions timed to their verdict (0: skip)")
    args = parser.parse_args(argv)
    latencies: list[float] = []
    with tempfile.TemporaryDirectory(prefix="sob-bench-ls-") as tmp:
        workdir = Path(tmp)
        server = None
        url, key = os.environ.get("LABEL_STUDIO_URL"), os.environ.get("LABEL_STUDIO_API_KEY")
        if not (url and key):
            server = LabelStudioServer(workdir / "label-studio", port=free_port())
            started = time.perf_counter()
            server.start()
            print(f"started Label Studio at {server.url} in {time.perf_counter() - started:.0f}s")
            url, key = server.url, server.api_key
        try:
            push, push_base = bench_push(url, key, workdir, args.tasks, args.baseline_tasks)
            pull, pull_base = bench_pull(url, key, workdir, args.tasks, args.baseline_tasks)
            if args.feedback:
                latencies = bench_feedback(url, key, workdir, args.feedback)
        finally:
            if server is not None:
                server.stop()
    print(
        f"{'':6} {'batched tasks/s':>16} {'1 request/task':>15} {'speed-up':>9}   "
        f"(n={args.tasks}, baseline n={args.baseline_tasks})"
    )
    for name, fast, slow in (("push", push, push_base), ("pull", pull, pull_base)):
        print(f"{name:6} {fast:16.1f} {slow:15.1f} {fast / slow:8.1f}x")
    ok = push / push_base >= 20 and pull / pull_base >= 20
    print("target (>= 20x for push and for pull):", "met" if ok else "NOT met")
    if latencies:
        p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
        print(
            f"feedback latency (submission -> verdict in the task, --serve, n={len(latencies)}): "
            f"p50 {p50:.2f} s, p95 {p95:.2f} s, max {max(latencies):.2f} s"
        )
        print("target (p95 < 2 s):", "met" if p95 < 2 else "NOT met")
        ok = ok and p95 < 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
