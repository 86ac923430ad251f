"""A team of curators at once on one Label Studio, against a running `--serve`: N curators (default 10), each a
Label Studio user signed up through the invite link with their own token, submit through the API for a while
(default 10 minutes); each waits for the toolkit's verdict on one submission before the next.

    .venv/bin/python benchmarks/bench_team_labelstudio.py [--curators 10] [--minutes 10] [--database postgresql]
        [--workers 2] [--tasks-each 2] [--service-log FILE]

Prints: submissions, none lost or applied twice (the store's revisions against Label Studio's annotations), every
verdict back in its task, and the feedback latency (submission to verdict in the task: median, p95, max; the
target is p95 < 3 s on 2 cores). Starts its own Label Studio in a temporary data dir, on SQLite or on a
PostgreSQL server it starts itself (`--database postgresql`: Debian's postgresql package, as the tests do),
served by one process or by `--workers N` (gunicorn); or uses the one LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY
name.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from authoring.labelstudio import accounts  # noqa: E402
from authoring.labelstudio.client import LabelStudioSession, LabelStudioSettings  # noqa: E402
from authoring.server import LabelStudioServer, free_port  # noqa: E402
from benchmarks.team_curators import Service, reconcile, run_curators, team_items  # noqa: E402
from build_split.sources import sample_authored  # noqa: E402

P95_TARGET_S = 3.0
CYCLE_LINE = re.compile(r"\(([\d.]+) s, (\d+) request\(s\) to Label Studio\)")  # --serve's line per cycle


@dataclass(frozen=True)
class RunningServer:
    url: str
    api_key: str


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--curators", type=int, default=10, help="simulated curators (default 10)")
    parser.add_argument("--minutes", type=float, default=10.0, help="how long they submit (default 10)")
    parser.add_argument("--tasks-each", type=int, default=2, help="tasks of each curator's own (default 2)")
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite", help="Label Studio's")
    parser.add_argument(
        "--look-every",
        type=float,
        default=5.0,
        help="seconds between a waiting curator's looks at their task (default 5; the latency is taken on Label "
        "Studio's clock, so this only sets the load the waiting adds)",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="the started Label Studio's processes (default 1: development server)"
    )
    parser.add_argument(
        "--service-log", type=Path, help="also write what --serve prints into this file, each line timestamped"
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="sob-bench-team-") as tmp, contextlib.ExitStack() as stack:
        tmp_path = Path(tmp)
        database = None
        if args.database == "postgresql":
            from tests.postgres import PostgresServer

            database = stack.enter_context(PostgresServer()).create_database("label_studio")
        server: LabelStudioServer | RunningServer
        if os.environ.get("LABEL_STUDIO_URL") and os.environ.get("LABEL_STUDIO_API_KEY"):
            # A Label Studio already running (a team host's, deployed as its users deploy it): used as it is.
            server = RunningServer(os.environ["LABEL_STUDIO_URL"].rstrip("/"), os.environ["LABEL_STUDIO_API_KEY"])
            print(f"using the Label Studio at {server.url}", flush=True)
        else:
            server = LabelStudioServer(
                tmp_path / "label-studio",
                port=free_port(),
                database=database,
                startup_timeout_s=1200,
                workers=args.workers,
            )
            print(
                f"starting Label Studio on {args.database}, {args.workers} process(es) (migrations: a minute or "
                "more) ...",
                flush=True,
            )
            started = time.monotonic()
            stack.enter_context(server)
            print(f"  up in {time.monotonic() - started:.0f} s")
        admin = LabelStudioSession(LabelStudioSettings(url=server.url, api_key=server.api_key))
        invite = accounts.invite_url(admin)
        team = [
            accounts.sign_up(invite, f"curator{i:02d}-{uuid.uuid4().hex[:6]}@team.test", uuid.uuid4().hex)
            for i in range(args.curators)
        ]
        print(f"{len(team)} curators signed up through the invite link, each with their own token")
        sample = sample_authored("hotpotqa")
        items = tmp_path / "items.json"
        answers = team_items(sample.parent / "sample.json", sample, args.curators * args.tasks_each, items)
        service = Service(
            tmp_path / "ws", items, server.url, server.api_key, "team bench: {source}", log=args.service_log
        )
        try:
            service.wait_until_serving()
            tasks = service.tasks()
            print(f"--serve is up with {len(tasks)} tasks; the curators submit for {args.minutes:g} min", flush=True)
            # a curator waits for each verdict (up to 10 minutes): when they stop, the service has caught up
            run = run_curators(
                server.url,
                team,
                tasks,
                answers,
                duration_s=args.minutes * 60,
                verdict_timeout_s=600,
                poll_s=args.look_every,
            )
        finally:
            code, output = service.stop()
        reconciled = reconcile(tmp_path / "ws", admin.client, run)

    latencies = sorted(run.latencies_s)
    print(f"submissions: {len(run.submitted)} by {args.curators} curators in {args.minutes:g} min ({args.database})")
    print(f"verdicts back in their tasks: {len(latencies)}/{len(run.submitted)}; unanswered: {len(run.unanswered)}")
    print(
        f"Label Studio annotations: {reconciled.annotations}; store revisions from them: {reconciled.revisions}; "
        f"lost: {len(reconciled.lost)}; applied twice: {len(reconciled.twice)}; unknown: {len(reconciled.strangers)}"
    )
    if latencies:
        print(
            f"feedback latency: median {statistics.median(latencies):.2f} s, p95 {run.p95():.2f} s, "
            f"max {latencies[-1]:.2f} s (target p95 < {P95_TARGET_S:g} s)"
        )
    cycles = [m.groups() for m in map(CYCLE_LINE.search, output.splitlines()) if m]
    if cycles and run.submitted:
        requests = sum(int(n) for _, n in cycles)
        took = sorted(float(t) for t, _ in cycles)
        print(
            f"--serve: {len(cycles)} cycles (median {statistics.median(took):.2f} s, max {took[-1]:.2f} s), "
            f"{requests} requests to Label Studio ({requests / len(run.submitted):.1f} per submission)"
        )
    if reconciled.kept_as:
        statuses = Counter(reconciled.kept_as.values())
        print(f"not applied but kept in the store as: {dict(statuses)} (annotations {sorted(reconciled.kept_as)})")
    for error in run.errors:
        print(f"error: {error}")
    ok = reconciled.ok and not run.unanswered and not run.errors and code == 143
    if not ok:
        print(f"service exit code {code}; its output:\n{output[-3000:]}")
    return 0 if ok and run.p95() < P95_TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
