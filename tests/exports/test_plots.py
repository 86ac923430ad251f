"""The card's plots draw the store's numbers: the judge scores of every judged record (accepted and rejected apart),
the funnel from loaded items to released records with its main rejection reasons, the flags and how they were
resolved. Checked on the numbers each plot function returns, against the store read another way, not on pixels."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from core.models import Reason, RecordState, SourceItem
from core.review import ReviewFlag, ReviewInfo
from core.store import StateChange
from core.verdicts import JudgeVerdict
from exports import plot_data, plots
from exports.flags import flag_counts
from exports.release import write_release
from tests.ci import missing
from tests.exports.conftest import JUDGE


@pytest.fixture(autouse=True)
def _matplotlib() -> None:
    if not plots.plots_available():
        missing("matplotlib is not installed (pip install -e '.[test]')")


SOURCE = "hotpotqa"


@pytest.fixture
def curated(store, factory):
    """5 accepted (faithfulness 90, schema 70-74), 3 rejected by the judge with their scores, 2 rejected by
    validation (never judged), 1 held in needs_review with flags, 2 source items never authored, 4 LLM drafts."""
    factory.add_records(store, SOURCE, range(5), rejected=range(5, 7))  # 5, 6: rejected without a verdict
    low = {i: factory.make_record(SOURCE, i) for i in (20, 21, 22)}
    held = factory.make_record(SOURCE, 30)
    held.provenance.review = ReviewInfo(
        reviewer="gemini:test",
        version="1",
        reviewed_at=datetime(2026, 1, 1, tzinfo=UTC),
        subject_hash="x",
        flags=[
            ReviewFlag(id="R1", code="ungrounded_value", reason="not in the context", status="fixed"),
            ReviewFlag(id="R2", code="ungrounded_value", reason="not in the context", status="open"),
            ReviewFlag(id="R3", code="ambiguous_question", reason="two answers", status="dismissed", note="one"),
        ],
    )
    store.upsert_source_items(
        [
            SourceItem(source=SOURCE, source_id=r.metadata.source_id, context=r.input.context)
            for r in [*low.values(), held]
        ]
        + [SourceItem(source=SOURCE, source_id=f"unused-{i}", context="never authored") for i in range(2)]
    )
    store.upsert_records([*low.values(), held], RecordState.AUTHORED, "import")
    verdicts = {i: {"faithfulness": 40 + i, "schema": 55 + i} for i in low}
    store.apply(
        [
            StateChange(
                record.record_id,
                RecordState.REJECTED,
                "judge",
                validation=factory.validation_report(i),
                judge=JudgeVerdict(judge="heuristic", version="rubric-1", scores=verdicts[i]).model_dump(),
                reasons=[Reason(stage="judge", code="low_faithfulness", message="below the threshold")],
            )
            for i, record in low.items()
        ]
        + [
            StateChange(
                held.record_id,
                RecordState.NEEDS_REVIEW,
                "gate",
                validation=factory.validation_report(30),
                judge=JudgeVerdict(judge="heuristic", version="rubric-1", scores={"faithfulness": 65}).model_dump(),
                reasons=[Reason(stage="gate", code="ungrounded_value", message="flag open")],
            )
        ]
    )
    for i in range(4):
        store.con.execute(
            "INSERT INTO drafts VALUES (?, ?, 'drafted', NULL, '{}', 'draft-llm', 'v1', now())", [SOURCE, f"d{i}"]
        )
    return store


def scores_from_records(store) -> dict[str, dict[str, list[float]]]:
    """The same numbers read through the Record models, not plot_data's query."""
    groups: dict[str, dict[str, list[float]]] = {}
    for stored in store.records(SOURCE, list(RecordState)):
        for name, value in ((stored.judge or {}).get("scores") or {}).items():
            group = "accepted" if stored.state == RecordState.ACCEPTED else "rejected"
            groups.setdefault(name, {"accepted": [], "rejected": []})[group].append(float(value))
    return groups


def test_judge_scores_of_every_judged_record_accepted_and_rejected_apart(curated, tmp_path):
    data = plot_data.judge_scores(curated, SOURCE)
    expected = scores_from_records(curated)
    assert {k: {g: sorted(v) for g, v in d.items()} for k, d in data.items()} == {
        k: {g: sorted(v) for g, v in d.items()} for k, d in expected.items()
    }
    assert sorted(data["faithfulness"]["rejected"]) == [60.0, 61.0, 62.0, 65.0]  # below and near the line
    assert data["faithfulness"]["accepted"] == [90.0] * 5

    drawn = plots.plot_judge_scores(data, 60, tmp_path / "scores.png", "t")
    assert drawn["faithfulness"]["accepted"][90 // plots.SCORE_BIN] == 5
    assert drawn["faithfulness"]["rejected"][60 // plots.SCORE_BIN] == 3  # 60, 61, 62
    assert drawn["faithfulness"]["rejected"][65 // plots.SCORE_BIN] == 1  # the record held in needs_review
    assert sum(drawn["schema"]["rejected"]) == 3 and sum(drawn["schema"]["accepted"]) == 5
    assert plots.score_bins([0, 4.9, 5, 99.5, 100]) == [2, 1] + [0] * 17 + [2]
    assert (tmp_path / "scores.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_funnel_counts_each_step_from_the_store_with_its_main_reasons(curated, tmp_path):
    steps = plot_data.funnel(curated, SOURCE, released=5)
    counts = {step.name: step.count for step in steps}
    states = curated.state_counts(SOURCE)
    assert list(counts) == ["loaded", "drafted", "authored", "validated", "judged", "released"]
    assert counts["loaded"] == curated.count_source_items(SOURCE) == 13
    assert counts["drafted"] == 4
    assert counts["authored"] == sum(states.values()) == 11
    assert counts["validated"] == 9  # 5 accepted, 3 judged out, 1 held: the two validation rejects never passed
    assert counts["judged"] == 9 and counts["released"] == 5
    lost = {step.name: step.lost for step in steps}
    assert lost["validated"] == [("gate: ungrounded_value", 1), ("validation: ground_truth_invalid", 1)]
    assert lost["released"] == [("judge: low_faithfulness", 3), ("judge: faithfulness_below_threshold", 1)]
    reasons = {(f"{stage}: {code}", n) for stage, code, n in curated.reason_counts(SOURCE)}
    assert {r for step in steps for r in step.lost} <= reasons

    drawn = plots.plot_funnel(steps, tmp_path / "funnel.png", "t")
    assert drawn["steps"] == counts and drawn["lost"] == lost


def test_flags_by_code_and_how_they_were_resolved(curated, tmp_path):
    data = plot_data.flag_resolutions(flag_counts(curated, SOURCE))
    assert data == {
        "ungrounded_value": {"fixed": 1, "dismissed": 0, "open": 1},
        "ambiguous_question": {"fixed": 0, "dismissed": 1, "open": 0},
    }
    drawn = plots.plot_flags(data, tmp_path / "flags.png", "t")
    assert drawn == data
    assert plots.plot_flags({}, tmp_path / "none.png", "t") == {}  # an empty plot says "no flags raised"


def test_a_release_shows_the_four_plots_in_its_card(curated, workspace):
    curated.apply(
        [StateChange(curated.record_ids(SOURCE, [RecordState.NEEDS_REVIEW])[0], RecordState.REJECTED, "curator")]
    )  # no accepted record may carry an open flag: this one leaves
    result = write_release(curated, SOURCE, "1.0.0", workspace, **JUDGE)
    card = (result.path / "README.md").read_text(encoding="utf-8")
    assets = json.loads((result.path / "manifest.json").read_text())["assets"]
    for key, (name, alt) in plots.PLOT_FILES.items():
        assert f"![{alt}](plots/{name})" in card, key
        assert f"plots/{name}" in assets
