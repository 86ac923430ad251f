"""Repeated drafts from the draft model (a local fake Gemini over HTTP) become ambiguity flags."""

from __future__ import annotations

import json
from itertools import count

import pytest

from authoring.drafts import Draft, save_drafts
from core.models import SourceItem
from core.store import Store
from scoring.cli import main
from scoring.flags import load_flags, load_samples
from tests.llm.fakes import FakeGemini

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


@pytest.fixture
def fake_gemini(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "test-key-not-real")
    server = FakeGemini()
    yield server
    server.close()


def reply(city: str) -> str:
    return json.dumps(
        {"question": "Which city?", "json_schema": json.dumps(SCHEMA), "ground_truth": json.dumps({"city": city})}
    )


def test_sampled_drafts_flag_the_ambiguous_item(fake_gemini, tmp_path, capsys):
    workspace = tmp_path / "ws"
    with Store.open(workspace) as store:
        store.upsert_source_items(
            [
                SourceItem(source="hotpotqa", source_id="clear", context="Clear: the city is Paris."),
                SourceItem(source="hotpotqa", source_id="vague", context="Vague: many cities are named."),
                SourceItem(source="hotpotqa", source_id="undrafted", context="No draft yet."),
            ]
        )
        save_drafts(
            store.con,
            [
                Draft(
                    source="hotpotqa",
                    source_id=sid,
                    status="drafted",
                    question="Which city?",
                    json_schema=SCHEMA,
                    ground_truth={"city": "Paris"},
                    model="m",
                    prompt_version="v",
                )
                for sid in ("clear", "vague")
            ],
        )
    vague_answers = count()

    def answer(req) -> str:
        if "Vague" in req.user:
            return reply(["Paris", "Rome", "Oslo"][next(vague_answers) % 3])
        return reply("Paris")

    fake_gemini.answer = answer
    argv = ["--ambiguity", "--workspace", str(workspace), "--source", "hotpotqa", "--sample-drafts", "3"]
    argv += ["--llm-base-url", fake_gemini.url, "--json"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)["ambiguity"]
    assert result["samples_drawn"] == 6 and result["samples_failed"] == {}
    assert set(result["flagged"]) == {"vague"} and result["scored"] == 2
    assert len(fake_gemini.requests) == 6
    temperatures = {r.body["generationConfig"]["temperature"] for r in fake_gemini.requests}
    assert temperatures == {0.7}
    with Store.open(workspace) as store:
        assert set(load_flags(store.con, "ambiguous", "hotpotqa")) == {"vague"}
        assert {sid: len(v) for sid, v in load_samples(store.con, "hotpotqa").items()} == {"clear": 3, "vague": 3}
    # Again: every sample comes from the cache, no request is made
    assert main(argv) == 0
    assert len(fake_gemini.requests) == 6


@pytest.mark.parametrize(
    ("extra", "message"),
    [(["--sample-drafts", "1"], "N >= 2"), (["--sample-drafts", "3", "--temperature", "0"], "above 0")],
)
def test_sampling_options_are_checked(tmp_path, capsys, extra, message):
    with pytest.raises(SystemExit):
        main(["--ambiguity", "--workspace", str(tmp_path / "ws"), "--source", "hotpotqa", *extra])
    assert message in capsys.readouterr().err
