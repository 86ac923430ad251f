"""A team on one Label Studio: curators sign up through the organization's invite link, each with their own
token, and submit at once through the API against a running `--serve` (the toolkit's own account). Every
submission gets its verdict in its task, and the store holds exactly one applied revision per annotation:
none lost, none twice. The 10-curator, minutes-long version is benchmarks/bench_team_labelstudio.py."""

from __future__ import annotations

import secrets
import signal
import uuid
from pathlib import Path

import pytest

from authoring.labelstudio import accounts
from authoring.labelstudio.client import LabelStudioError
from benchmarks.team_curators import Service, reconcile, run_curators, team_items
from build_split.sources import sample_authored
from core.models import RecordState
from core.store import Store

LABEL_STUDIO_BACKENDS = ("sqlite", "postgresql", "postgresql-workers")  # a team host: PostgreSQL, N processes

SAMPLE = sample_authored("hotpotqa")
SAMPLE_ITEMS = SAMPLE.parent / "sample.json"


def test_curators_sign_up_with_their_own_tokens_and_bad_sign_ups_are_refused(ls_session) -> None:
    invite = accounts.invite_url(ls_session)
    assert invite.startswith(ls_session.base_url + "/user/signup/?token=")
    email = f"ada-{uuid.uuid4().hex[:6]}@team.test"
    ada = accounts.sign_up(invite, email, secrets.token_urlsafe(12))
    assert ada.token and ada.token != ls_session.settings.api_key and ada.token not in repr(ada)
    from label_studio_sdk import LabelStudio

    me = LabelStudio(base_url=ls_session.base_url, api_key=ada.token).users.whoami()
    assert (me.id, me.email) == (ada.user_id, email)  # the token is Ada's own
    assert ada.user_id in {u.id for u in ls_session.client.users.list()}  # and she is in the admin's organization
    with pytest.raises(LabelStudioError, match="did not sign up"):
        accounts.sign_up(invite, email, secrets.token_urlsafe(12))  # the email is taken
    with pytest.raises(LabelStudioError, match="did not sign up"):
        accounts.sign_up(invite.split("token=")[0] + "token=forged", "eve@team.test", secrets.token_urlsafe(12))


def test_three_curators_at_once_every_submission_applied_once_with_its_verdict(
    tmp_path: Path, label_studio_server, ls_session
) -> None:
    invite = accounts.invite_url(ls_session)
    team = [
        accounts.sign_up(invite, f"{name}-{uuid.uuid4().hex[:6]}@team.test", secrets.token_urlsafe(12))
        for name in ("ada", "bo", "cy")
    ]
    ws = tmp_path / "ws"
    answers = team_items(SAMPLE_ITEMS, SAMPLE, 3, tmp_path / "items.json")
    title = f"team {uuid.uuid4().hex[:8]}: {{source}}"
    service = Service(ws, tmp_path / "items.json", label_studio_server.url, label_studio_server.api_key, title)
    try:
        service.wait_until_serving()
        tasks = service.tasks()
        assert set(tasks) == set(answers)
        run = run_curators(label_studio_server.url, team, tasks, answers, submissions_each=3, verdict_timeout_s=90)
    finally:
        code, output = service.stop()
    assert code == 128 + signal.SIGTERM, output
    assert not run.errors and not run.unanswered, (run.errors, run.unanswered, output)
    assert len(run.submitted) == 9 and len(run.latencies_s) == 9
    # Each annotation is its curator's own (made with their token), not the toolkit's account's.
    by_email = {a.email: a.user_id for a in team}
    for email, task_id, annotation_id in run.submitted:
        annotation = ls_session.client.annotations.get(id=annotation_id)
        assert annotation.completed_by == by_email[email] and annotation.task == task_id

    reconciled = reconcile(ws, ls_session.client, run)
    assert reconciled.ok, reconciled
    assert reconciled.annotations == reconciled.revisions == 9
    with Store.open(ws) as store:
        records = list(store.records("hotpotqa"))
    assert len(records) == 3 and all(r.state == RecordState.ACCEPTED for r in records), [r.reasons for r in records]
    # the last version of each record is the one applied: its schema names the third submission (number 2)
    assert {r.record.input.json_schema["description"] for r in records} == {"Submission 2 of this record"}


def test_two_curators_with_their_own_tokens_overlap_with_a_blind_second(tmp_path: Path, ls_settings) -> None:
    """`--overlap 2 --blind-second` on a shared server: each curator submits as themselves (their own token, no
    `completed_by` made up by the toolkit's account), and the agreement knows who answered."""
    from dataclasses import replace

    from label_studio_sdk import LabelStudio

    from authoring import ls_state
    from authoring.labelstudio import LabelStudioSession
    from authoring.labelstudio.overlap import blind_key
    from authoring.labelstudio.runs import sync
    from benchmarks.team_curators import annotation_result
    from loaders.hotpotqa import load_hotpotqa
    from scoring.curator_agreement import compare_answers

    session = LabelStudioSession(replace(ls_settings, overlap=2, blind_second=True))
    invite = accounts.invite_url(session)
    ada, bo = (
        accounts.sign_up(invite, f"{name}-{uuid.uuid4().hex[:6]}@team.test", secrets.token_urlsafe(12))
        for name in ("ada", "bo")
    )
    line = team_items(SAMPLE_ITEMS, SAMPLE, 1, tmp_path / "items.json")
    ((source_id, answer),) = line.items()
    with Store.open(tmp_path / "ws") as store:
        store.upsert_source_items(load_hotpotqa(tmp_path / "items.json").items)
        sync(store, session, "hotpotqa", {}, compare=compare_answers)
        main = ls_state.get_project(store, session.base_url, "hotpotqa")
        blind = ls_state.get_project(store, session.base_url, blind_key("hotpotqa"))
        main_task = next(iter(ls_state.tasks_by_id(store, session.base_url, main.project_id)))
        blind_task = next(iter(ls_state.tasks_by_id(store, session.base_url, blind.project_id)))
    for curator, task_id in ((ada, main_task), (bo, blind_task)):
        LabelStudio(base_url=session.base_url, api_key=curator.token).annotations.create(
            id=task_id, result=annotation_result(answer, 0)
        )
    with Store.open(tmp_path / "ws") as store:
        counts = sync(store, session, "hotpotqa", {}, compare=compare_answers).pull.counts
        assert counts["agreed"] == 1, counts
        (stored,) = list(store.records("hotpotqa"))
        assert stored.record.metadata.source_id == source_id
        assert stored.record.provenance.annotator == ada.email  # the first curator's answer, by her own account
        authors = [row[0] for row in store.con.execute("SELECT author FROM revisions ORDER BY rev_no").fetchall()]
    assert authors == [ada.email, bo.email]
