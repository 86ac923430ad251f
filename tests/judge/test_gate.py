"""The gate's three outcomes through build_split as a curator runs it: a flagged record waits in needs_review
with its flags, a dismissal with a note moves it on and the same flag is not raised again, a release leaves a
held record out (and refuses an accepted one with an open flag), a threshold re-apply keeps flags open, and an
edited line of the authored file is checked again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from authoring.flag_resolutions import resolve
from build_split.cli import main
from build_split.sources import sample_authored
from core.models import Reason, Record, RecordState, SourceItem, utcnow
from core.review import ReviewFlag, ReviewInfo
from core.store import StateChange, Store
from core.verdicts import GateFlag, JudgeVerdict
from exports.release import ReleaseError, write_release
from judge.stage import reconcile_verdicts

HELD = "sob-sample-0007"  # the sample's comparison whose answer picks the option the seed answer did not


def run(ws: Path, *extra: str) -> int:
    return main(["--source", "hotpotqa", "--workspace", str(ws), "--judge", "heuristic", *extra])


def held(store: Store):
    """The sample record the gate holds for its seed answer (the sample also has a record of names the context
    never states, held too)."""
    [stored] = [s for s in store.records("hotpotqa", [RecordState.NEEDS_REVIEW]) if s.record.metadata.source_id == HELD]
    return stored


def test_a_dismissed_flag_moves_the_record_on_and_is_not_raised_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    assert run(ws, "--sample") == 0
    with Store.open(ws) as store:
        stored = held(store)
        assert stored.record.metadata.source_id == HELD
        review = stored.record.provenance.review
        [flag] = review.flags
        assert (flag.id, flag.code, flag.status, flag.raised_by) == (
            "R1",
            "seed_answer_mismatch",
            "open",
            "gate:heuristic",
        )
        assert review.reviewer == "gate:heuristic" and review.version.startswith("heuristic-")
        assert [(r.stage, r.code, r.message) for r in stored.reasons] == [("gate", flag.code, f"R1: {flag.reason}")]
        assert stored.judge["flags"][0]["code"] == "seed_answer_mismatch"  # the verdict keeps what it raised

        # The curator dismisses the flag with a note (what Label Studio's pull does with "R1 dismissed: ...").
        resolved, problems = resolve(
            review, "R1 dismissed: the canal is longer; the seed answer is right", changed=False, annotator="cur"
        )
        assert problems == []
        record = stored.record.model_copy(
            update={"provenance": stored.record.provenance.model_copy(update={"review": resolved})}
        )
        store.apply([StateChange(record.record_id, RecordState.AUTHORED, "label_studio", record=record)])
    capsys.readouterr()

    assert run(ws) == 0  # validated and judged again
    assert "judged:     accepted 1" in capsys.readouterr().out
    with Store.open(ws) as store:
        [stored] = [s for s in store.records("hotpotqa") if s.record.record_id == record.record_id]
        assert stored.state == RecordState.ACCEPTED and stored.reasons == []
        [flag] = stored.record.provenance.review.flags  # not raised again: still the one, dismissed
        assert (flag.id, flag.status, flag.resolved_by) == ("R1", "dismissed", "cur")
        assert flag.note.startswith("the canal is longer")
        assert stored.judge["flags"][0]["code"] == "seed_answer_mismatch"  # the judge still doubts; a person decided
    assert run(ws, "--release", "0.1.0", "--allow-unreviewed") == 0
    card = (ws / "releases" / "default" / "0.1.0" / "README.md").read_text(encoding="utf-8")
    # sob-sample-0001's names the context never states still wait for their curator
    assert "| `seed_answer_mismatch` | 1 | 0 | 1 | 0 |" in card and "**1** record(s) wait" in card


def test_a_release_refuses_an_accepted_record_with_an_open_flag(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    assert run(ws, "--sample") == 0
    with Store.open(ws) as store:
        stored = held(store)
        # Moved to accepted behind the gate's back (by hand, or a bug): its flag is still open.
        store.apply([StateChange(stored.record.record_id, RecordState.ACCEPTED, "test")])
        with pytest.raises(ReleaseError, match=r"1 accepted hotpotqa record\(s\) still carry an open flag"):
            write_release(
                store, "hotpotqa", "0.1.0", ws, judge_name="heuristic", judge_version="x", threshold=60,
                toolkit_version="t",
            )  # fmt: skip
    assert not (ws / "releases" / "default" / "0.1.0").exists()


def _record(source_id: str = "g1") -> Record:
    item = SourceItem(source="hotpotqa", source_id=source_id, context="Ann wrote it in 1990.", question="Who?")
    schema = {"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]}
    return Record.build(item, "Who wrote it?", schema, {"who": "Ann"})


def test_a_threshold_re_apply_never_accepts_past_an_open_flag(tmp_path: Path) -> None:
    with Store.open(tmp_path / "ws") as store:
        record = _record()
        store.upsert_records([record], RecordState.AUTHORED, "import")
        verdict = JudgeVerdict(
            judge="heuristic",
            version="h",
            scores={"accuracy": 50, "grounding": 90},
            threshold=60,
            flags=[GateFlag(code="value_not_near_entity", path="$.who", reason="far from its entity")],
        )
        low = Reason(stage="judge", code="low_accuracy", message="accuracy scored 50 < 60")
        store.apply(
            [
                StateChange(
                    record.record_id,
                    RecordState.REJECTED,
                    "judge",
                    reasons=[low],
                    judge=verdict.model_dump(mode="json"),
                )
            ]
        )
        # A lower threshold: the scores pass now, but the verdict's flag is open: held, not accepted.
        assert reconcile_verdicts(store, "hotpotqa", "heuristic", 40)["now_needs_review"] == 1
        [stored] = list(store.records("hotpotqa"))
        assert stored.state == RecordState.NEEDS_REVIEW
        assert [(r.stage, r.code, r.path) for r in stored.reasons] == [("gate", "value_not_near_entity", "$.who")]
        assert stored.record.provenance.review.open_flags[0].reason == "far from its entity"
        # Another threshold that still passes keeps it held; one it fails rejects it.
        assert reconcile_verdicts(store, "hotpotqa", "heuristic", 45)["threshold_reapplied"] == 1
        assert next(store.records("hotpotqa")).state == RecordState.NEEDS_REVIEW
        reconcile_verdicts(store, "hotpotqa", "heuristic", 70)
        stored = next(store.records("hotpotqa"))
        assert stored.state == RecordState.REJECTED and stored.reasons[0].code == "low_accuracy"


def test_a_dismissed_flag_stays_dismissed_when_the_judge_raises_it_again(tmp_path: Path) -> None:
    from judge.gate import decide

    record = _record()
    dismissed = ReviewFlag(
        id="R1", code="ungrounded_value", path="$.who", reason="r", status="dismissed", note="it is there"
    )
    record.provenance.review = ReviewInfo(
        reviewer="gate:heuristic", version="h", reviewed_at=utcnow(), subject_hash="x", flags=[dismissed]
    )
    flags = [
        GateFlag(code="ungrounded_value", path="$.who", reason="again"),
        GateFlag(code="ungrounded_value", path="$.who", reason="twice in one verdict"),
        GateFlag(code="lazy_answer", path="$", reason="new doubt"),
    ]
    verdict = JudgeVerdict(judge="heuristic", version="h", scores={"accuracy": 90}, flags=flags)
    decision = decide(record, verdict)
    assert decision.outcome == "needs_review"
    assert [(f.id, f.code, f.status) for f in decision.review.flags] == [
        ("R1", "ungrounded_value", "dismissed"),
        ("R2", "lazy_answer", "open"),
    ]
    assert [r.message for r in decision.reasons] == ["R2: new doubt"]
    verdict.flags = flags[:1]
    assert decide(record, verdict).outcome == "passed"


def test_an_edited_line_of_the_authored_file_is_checked_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, authored = tmp_path / "ws", tmp_path / "authored.jsonl"
    lines = sample_authored("hotpotqa").read_text(encoding="utf-8").splitlines()
    authored.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert run(ws, "--sample") == 0
    assert run(ws, "--authored", str(authored)) == 0
    with Store.open(ws) as store:
        assert held(store).record.metadata.source_id == HELD
    capsys.readouterr()
    # The curator reads the flag and edits the line: the answer now picks the option the seed answer names.
    for number, line in enumerate(lines):
        if HELD in line:
            row = json.loads(line)
            answer_key = next(k for k, v in row["ground_truth"].items() if isinstance(v, str) and "rannock" in v)
            row["ground_truth"][answer_key] = "Hollin Canal"
            lines[number] = json.dumps(row)
    authored.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # The copy is another file than the sample that brought the line (another origin): --overwrite takes it.
    assert run(ws, "--authored", str(authored), "--overwrite") == 0
    out = capsys.readouterr().out
    assert "authored:   changed 1" in out
    with Store.open(ws) as store:
        states = store.state_counts("hotpotqa")
        [edited] = [s for s in store.records("hotpotqa") if s.record.metadata.source_id == HELD]
    assert states.get("needs_review") == 1  # only the other held sample record
    assert edited.state != RecordState.NEEDS_REVIEW and not any(
        r.code == "seed_answer_mismatch" for r in edited.reasons
    )
