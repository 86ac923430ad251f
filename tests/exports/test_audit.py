"""The residual-error audit's figures: Wilson intervals, seeded draws, and a simulated review with a known
planted error rate whose estimate lands within its interval about 95% of the time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from authoring.audit import _draw, audit_id, draw_samples, send_back_incorrect
from core.models import Record, RecordState, SourceItem
from core.store import StateChange, Store
from exports.audit import audit_summary, card_section, summarise, wilson_interval

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


def test_wilson_interval_matches_the_closed_form() -> None:
    low, high = wilson_interval(3, 100)
    assert low == pytest.approx(0.01025, abs=2e-4) and high == pytest.approx(0.0845, abs=2e-4)
    assert wilson_interval(0, 100)[0] == 0.0 and wilson_interval(0, 100)[1] == pytest.approx(0.037, abs=1e-3)
    assert wilson_interval(5, 5)[1] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="n >= 1"):
        wilson_interval(0, 0)
    with pytest.raises(ValueError):
        wilson_interval(7, 5)


def test_draws_are_seeded_per_round_without_replacement() -> None:
    ids = [f"r{i:04d}" for i in range(1000)]
    first = draw_samples(ids, 100, 5, seed=7)
    assert first == draw_samples(list(reversed(ids)), 100, 5, seed=7)  # order of the population does not matter
    assert all(len(set(sample)) == 100 for sample in first) and len(first) == 5
    assert first[0] != first[1] and first != draw_samples(ids, 100, 5, seed=8)
    assert draw_samples(ids[:30], 100, 2, seed=1)[0] == sorted(ids[:30])  # a small population is audited whole


def planted(n: int, rate: float) -> tuple[list[str], set[str]]:
    ids = [f"rec{i:05d}" for i in range(n)]
    wrong = set(ids[:: round(1 / rate)])  # every 33rd or so: a known share of wrong records
    return ids, wrong


def test_simulated_reviews_cover_the_planted_error_rate_about_95_percent_of_the_time(capsys) -> None:
    ids, wrong = planted(3000, 0.03)
    true_rate = len(wrong) / len(ids)
    seeds = range(400)
    pooled_hits = round_hits = rounds_seen = 0
    for seed in seeds:
        samples = draw_samples(ids, 100, 5, seed)
        summary = summarise({r: [rid in wrong for rid in sample] for r, sample in enumerate(samples, 1)})
        low, high = summary["pooled"]["ci95"]
        pooled_hits += low <= true_rate <= high
        for part in summary["rounds"]:
            rounds_seen += 1
            round_hits += part["ci95"][0] <= true_rate <= part["ci95"][1]
    pooled, per_round = pooled_hits / len(seeds), round_hits / rounds_seen
    print(f"planted rate {true_rate:.4f}: pooled coverage {pooled:.3f} over {len(seeds)} audits, "
          f"per-round coverage {per_round:.3f} over {rounds_seen} rounds")  # fmt: skip
    assert 0.92 <= pooled <= 0.99
    assert 0.90 <= per_round <= 0.995


def accepted_store(path: Path, n: int) -> Store:
    store = Store.open(path)
    records = []
    for i in range(n):
        item = SourceItem(source="hotpotqa", source_id=f"s{i:04d}", context=f"The answer is A{i}.")
        records.append(Record.build(item, f"What is answer {i}?", SCHEMA, {"answer": f"A{i}"}))
    store.upsert_records(records, RecordState.AUTHORED, "import")
    store.apply([StateChange(r.record_id, RecordState.ACCEPTED, "judge") for r in records])
    return store


def test_a_simulated_review_of_the_store_lands_within_its_interval_and_sends_wrong_records_back(
    tmp_path: Path,
) -> None:
    with accepted_store(tmp_path / "ws", 1500) as store:
        ids = store.record_ids("hotpotqa", [RecordState.ACCEPTED])
        wrong = set(ids[::25])  # 4% planted
        aid = audit_id("hotpotqa", 100, 5, 3)
        assert _draw(store, "hotpotqa", aid, 100, 5, 3) == 500
        assert audit_summary(store, "hotpotqa") is None  # nothing reviewed yet
        rows = store.con.execute("SELECT round, record_id FROM audit_tasks WHERE audit_id = ?", [aid]).fetchall()
        for number, rid in rows:  # the simulated reviewers know the planted truth
            verdict = "incorrect" if rid in wrong else "correct"
            corrected = json.dumps({"answer": "fixed"}) if rid in wrong else None
            store.con.execute(
                "UPDATE audit_tasks SET verdict = ?, corrected_answer = ? "
                "WHERE audit_id = ? AND round = ? AND record_id = ?",
                [verdict, corrected, aid, number, rid],
            )
        summary = audit_summary(store, "hotpotqa")
        assert summary is not None and summary["complete"] and summary["audit_id"] == aid
        low, high = summary["pooled"]["ci95"]
        assert low <= len(wrong) / len(ids) <= high
        assert summary["pooled"]["reviewed"] == 500 and len(summary["rounds"]) == 5
        card = card_section(summary)
        assert "## Residual-error audit" in card and "SOB estimated about 3%" in card and "95% CI" in card

        found = {rid for _, rid in rows if rid in wrong}
        assert send_back_incorrect(store, None, "hotpotqa", aid) == len(found)
        sent_back = {s.record.record_id: s for s in store.records("hotpotqa", [RecordState.NEEDS_REVISION])}
        assert set(sent_back) == found
        for stored in sent_back.values():
            assert stored.reasons[0].code == "audit_incorrect" and '"answer": "fixed"' in stored.reasons[0].message
        assert store.count_in_state("hotpotqa", RecordState.NEEDS_REVISION) == len(found)
        assert send_back_incorrect(store, None, "hotpotqa", aid) == 0  # never twice


def test_drawing_with_nothing_accepted_says_what_to_do(tmp_path: Path) -> None:
    with Store.open(tmp_path / "ws") as store, pytest.raises(ValueError, match="no accepted hotpotqa records"):
        _draw(store, "hotpotqa", "a", 10, 1, 0)


def test_the_next_release_card_and_manifest_carry_the_audit_beside_sob(store, workspace, factory, judge_kwargs) -> None:
    from exports.release import write_release

    factory.add_records(store, "hotpotqa", range(40))
    ids = store.record_ids("hotpotqa", [RecordState.ACCEPTED])
    first = write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    card = (first.path / "README.md").read_text(encoding="utf-8")
    assert "No residual-error audit has been reviewed" in card and "SOB estimated about 3%" in card
    assert json.loads((first.path / "manifest.json").read_text())["residual_error_audit"] is None

    aid = audit_id("hotpotqa", 10, 2, 0)
    _draw(store, "hotpotqa", aid, 10, 2, 0)
    (wrong,) = store.con.execute(
        "SELECT record_id FROM audit_tasks WHERE audit_id = ? ORDER BY round, record_id LIMIT 1", [aid]
    ).fetchone()
    store.con.execute(
        "UPDATE audit_tasks SET verdict = CASE WHEN record_id = ? THEN 'incorrect' ELSE 'correct' END "
        "WHERE audit_id = ?",
        [wrong, aid],
    )
    incorrect = store.con.execute(
        "SELECT count(*) FROM audit_tasks WHERE audit_id = ? AND verdict = 'incorrect'", [aid]
    ).fetchone()[0]
    send_back_incorrect(store, None, "hotpotqa", aid)
    second = write_release(store, "hotpotqa", "1.1.0", workspace, **judge_kwargs)
    manifest = json.loads((second.path / "manifest.json").read_text())
    audit = manifest["residual_error_audit"]
    assert audit["audit_id"] == aid and audit["pooled"]["reviewed"] == 20 and audit["pooled"]["incorrect"] == incorrect
    assert audit["sob_reference"]["error_rate"] == 0.03 and audit["method"].startswith("Wilson")
    card = (second.path / "README.md").read_text(encoding="utf-8")
    assert f"audit `{aid}`" in card and "Our residual error rate" in card and "SOB estimated about 3%" in card
    assert incorrect >= 1 and sum(manifest["splits"].values()) == 39  # the wrong record left the release
    assert wrong in ids


def test_the_cli_audit_needs_label_studio_and_says_how(tmp_path: Path, capsys) -> None:
    from build_split.cli import main

    ws = str(tmp_path / "ws")
    args = ["--source", "hotpotqa", "--sample", "--workspace", ws, "--judge", "heuristic", "--no-review"]
    assert main([*args, "--audit", "5", "--rounds", "2", "--allow-unreviewed"]) == 2
    err = capsys.readouterr().err
    assert "--audit needs Label Studio" in err and "--start-label-studio" in err
    assert main([*args, "--audit", "0"]) == 2
    assert "--audit" in capsys.readouterr().err
