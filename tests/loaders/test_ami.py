"""AMI loader tests, on the real meeting ES2002d (tests/data/ami) and on small hand-made inputs."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from loaders import ami
from loaders.ami import (
    AmiFormatError,
    Utterance,
    estimate_tokens,
    format_timestamp,
    format_transcript,
    iter_kaldi_text,
    load_ami,
    parse_utt_id,
    sample_path,
    window_utterances,
)
from loaders.kaldi import KaldiError, KaldiText

AMI_DATA = Path(__file__).resolve().parents[1] / "data" / "ami"
ES2002D = AMI_DATA / "ES2002d.ihm.jsonl"
SPEAKERS = ["FEE005", "MEE006", "MEE007", "MEE008"]


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    assert ES2002D.is_file(), f"the AMI test meeting is missing: {ES2002D} (see tests/data/README.md)"
    return [json.loads(line) for line in ES2002D.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def transcript() -> str:
    result = load_ami(ES2002D)
    assert not result.problems
    return result.items[0].context


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def write_kaldi(directory: Path, rows: list[dict], segments: bool = True) -> Path:
    """The meeting as Kaldi files: `text` and `segments`, sorted by utterance id as Kaldi keeps them."""
    directory.mkdir(parents=True, exist_ok=True)
    ordered = sorted(rows, key=lambda r: r["audio_id"])
    (directory / "text").write_text("".join(f"{r['audio_id']} {r['text']}\n" for r in ordered), encoding="utf-8")
    if segments:
        lines = [
            f"{r['audio_id']} AMI_{r['meeting_id']}_{r['microphone_id']} {r['begin_time']:.2f} {r['end_time']:.2f}\n"
            for r in ordered
        ]
        (directory / "segments").write_text("".join(lines), encoding="utf-8")
    return directory


# --- the real meeting ---------------------------------------------------------------------------------


def test_meeting_grouped_ordered_and_formatted(rows, transcript):
    result = load_ami(ES2002D)
    assert result.counts == {
        "rows_read": 1305,
        "utterances": 1305,
        "malformed": 0,
        "meetings": 1,
        "items": 1,
        "segments_without_text": 0,
    }
    item = result.items[0]
    assert (item.source, item.source_id, item.question, item.answer) == ("ami", "ES2002d", None, None)
    lines = transcript.split("\n")
    assert len(lines) == 1305
    assert lines[0] == "[0:02] FEE005: OKAY WE ALL ALL SET"
    assert lines[2] == "[0:06] FEE005: WELL THIS IS THE UH FINAL DETAILED DESIGN MEETING"
    assert lines[-1] == "[39:58] FEE005: YEAH YEAH IF THE MEETING'S OVER THEN YEAH I GUESS SO"
    # Two utterances begin at 151.60 s: the tie goes to the speaker id that sorts first.
    at = lines.index("[2:31] FEE005: WHERE ARE WE GONNA HAVE THE SLOGAN")
    assert lines[at + 1] == "[2:31] MEE008: 'KAY GREAT"
    # Overlapping speech interleaves by begin time (815.59 s MEE008, then 815.87 s FEE005).
    at = lines.index("[13:35] MEE008: MAYBE CLOSER TO THREE EVEN OR TWO AND A HALF")
    assert lines[at + 1] == "[13:35] FEE005: ACH THAT IS"
    stamps = [tuple(int(p) for p in line[1 : line.index("]")].split(":")) for line in lines]
    assert stamps == sorted(stamps)
    assert {line.split(": ", 1)[0].split("] ")[1] for line in lines} == set(SPEAKERS)


def test_meeting_metadata(rows):
    item = load_ami(ES2002D).items[0]
    assert item.metadata == {
        "meeting_id": "ES2002d",
        "num_speakers": 4,
        "num_utterances": 1305,
        "duration_s": 2398.45,  # 2.41 s to 2400.86 s
        "speakers": SPEAKERS,
    }


def test_order_does_not_depend_on_input_order(tmp_path, rows, transcript):
    shuffled = rows[:]
    random.Random(7).shuffle(shuffled)
    result = load_ami(write_jsonl(tmp_path / "ami_dev.jsonl", shuffled))
    assert result.items[0].context == transcript
    assert result.items[0].metadata["split"] == "dev"  # from the file name


def test_meetings_are_grouped_and_filtered(tmp_path, rows):
    other = [dict(r, meeting_id="ES2002c", audio_id=r["audio_id"].replace("ES2002d", "ES2002c")) for r in rows[:10]]
    path = write_jsonl(tmp_path / "two.jsonl", other + rows)
    result = load_ami(path)
    assert [i.source_id for i in result.items] == ["ES2002c", "ES2002d"]
    assert [i.metadata["num_utterances"] for i in result.items] == [10, 1305]
    only = load_ami(path, meetings={"ES2002c", "IS1009a"})
    assert [i.source_id for i in only.items] == ["ES2002c"]
    assert only.meetings_not_found == ["IS1009a"]


def test_format_timestamp():
    assert format_timestamp(0) == "0:00"
    assert format_timestamp(2.41) == "0:02"
    assert format_timestamp(59.99) == "0:59"
    assert format_timestamp(61) == "1:01"
    assert format_timestamp(3599.5) == "59:59"
    assert format_timestamp(3600) == "1:00:00"
    assert format_timestamp(3725.9) == "1:02:05"
    with pytest.raises(ValueError):
        format_timestamp(-1)


def test_format_transcript_past_an_hour_and_ties():
    utterances = [
        Utterance("AMI_M_H1_MEE002_0360500_0360900", "M", "MEE002", 360500, 360900, "LATE"),
        Utterance("b", "M", "FEE001", 500, 700, "SECOND"),
        Utterance("a", "M", "FEE001", 500, 600, "FIRST"),
        Utterance("c", "M", "MEE002", 100, 900, "EARLY"),
        Utterance("a0", "M", "MEE002", 500, 550, "THIRD"),  # same time: the speaker decides before the id
    ]
    assert format_transcript(utterances).split("\n") == [
        "[0:01] MEE002: EARLY",
        "[0:05] FEE001: FIRST",
        "[0:05] FEE001: SECOND",
        "[0:05] MEE002: THIRD",
        "[1:00:05] MEE002: LATE",
    ]


# --- Kaldi files -------------------------------------------------------------------------------------


def test_kaldi_text_and_segments_read_back_to_the_same_transcript(tmp_path, rows, transcript):
    folder = write_kaldi(tmp_path / "annotations" / "train", rows)
    for path in (tmp_path / "annotations", folder, folder / "text"):
        result = load_ami(path)
        assert not result.problems, result.malformed
        assert [i.context for i in result.items] == [transcript]
        assert result.items[0].metadata["split"] == "train"
        assert result.items[0].metadata["duration_s"] == 2398.45


def test_kaldi_text_alone(tmp_path, rows, transcript):
    folder = write_kaldi(tmp_path / "kaldi", rows, segments=False)
    result = load_ami(folder / "text")
    assert result.items[0].context == transcript
    assert "split" not in result.items[0].metadata


def test_segments_give_the_times(tmp_path):
    (tmp_path / "text").write_text(
        "AMI_X1_H00_MEE001_0000100_0000200 HELLO\nAMI_X1_H01_FEE002_0000300_0000400 HI THERE\n", encoding="utf-8"
    )
    (tmp_path / "segments").write_text(
        "AMI_X1_H00_MEE001_0000100_0000200 AMI_X1_H00 65.0 66.5\n"
        "AMI_X1_H01_FEE002_0000300_0000400 AMI_X1_H01 3.0 4.0\n"
        "AMI_X1_H02_MEE003_0000500_0000600 AMI_X1_H02 5.0 6.0\n",
        encoding="utf-8",
    )
    result = load_ami(tmp_path)
    assert result.items[0].context == "[0:03] FEE002: HI THERE\n[1:05] MEE001: HELLO"
    assert result.segments_without_text == 1


def test_iter_kaldi_text(tmp_path):
    path = tmp_path / "text"
    path.write_bytes(b"A_B_C_D_1_2  ONE\tTWO  \n\nA_B_C_D_3_4\n\xff\xfe BAD\n")
    entries = list(iter_kaldi_text(path))
    assert entries[:2] == [
        KaldiText(1, "A_B_C_D_1_2", "ONE TWO", "A_B_C_D_1_2  ONE\tTWO  "),
        KaldiText(3, "A_B_C_D_3_4", "", "A_B_C_D_3_4"),
    ]
    assert isinstance(entries[2], KaldiError) and entries[2].line_no == 4


def test_sdm_and_other_utterance_ids():
    ihm = parse_utt_id("AMI_ES2002a_H00_MEE006_0003574_0003611")
    assert (ihm.meeting_id, ihm.microphone, ihm.speaker, ihm.begin_cs, ihm.end_cs) == (
        "ES2002a",
        "H00",
        "MEE006",
        3574,
        3611,
    )
    for utt_id in (
        "AMI_ES2002a_SDM_FEE005_0003574_0003611",
        "AMI_ES2002a_FEE005_SDM_0003574_0003611",
        "AMI_ES2002a_sdm_FEE005_0003574_0003611",
    ):
        parsed = parse_utt_id(utt_id)
        assert (parsed.meeting_id, parsed.speaker, parsed.begin_cs, parsed.end_cs) == ("ES2002a", "FEE005", 3574, 3611)
        assert parsed.microphone.lower() == "sdm"
    assert parse_utt_id("AMI_TS3003a_MTD011UID_0000100_0000200").speaker == "MTD011UID"
    assert parse_utt_id("AMI_TS3003a_SDM1_SPK9_0000100_0000200").speaker == "SPK9"  # no AMI shape: last field
    for bad in ("AMI_ES2002a_0003574_0003611", "AMI_ES2002a_H00_MEE006_00035x4_0003611", "AMI__H00_MEE006_1_2"):
        with pytest.raises(AmiFormatError):
            parse_utt_id(bad)


def test_sdm_text_file(tmp_path, rows, transcript):
    lines = [
        f"{r['audio_id'].replace('_' + r['microphone_id'] + '_', '_SDM_')} {r['text']}\n"
        for r in sorted(rows, key=lambda r: r["audio_id"])
    ]
    (tmp_path / "text").write_text("".join(lines), encoding="utf-8")
    result = load_ami(tmp_path / "text")
    assert not result.problems
    assert result.items[0].context == transcript
    assert result.items[0].metadata["speakers"] == SPEAKERS


# --- malformed input ---------------------------------------------------------------------------------


def test_malformed_kaldi_lines_are_reported_with_line_numbers(tmp_path, rows):
    good = [f"{r['audio_id']} {r['text']}" for r in rows[:5]]
    lines = [
        good[0],
        "NOT_AN_AMI_ID HELLO",  # 2: too few fields
        good[1],
        "AMI_ES2002d_H01_FEE005_00001x0_0000200 HELLO",  # 4: times not digits
        "AMI_ES2002d_H01_FEE005_0009000_0000200 HELLO",  # 5: ends before it begins
        "AMI_ES2002d_H01_FEE005_0009000_0009100",  # 6: no words
        "",  # blank: not a line of data
        good[2],
        good[0],  # 9: duplicate id
        good[3],
        good[4],
    ]
    path = tmp_path / "text"
    path.write_bytes(("\n".join(lines) + "\n").encode() + b"AMI_ES2002d_H01_FEE005_0000001_0000002 \xff\n")
    result = load_ami(path)
    assert [(p.line_no, p.code) for p in result.problems] == [
        (2, "bad_utterance_id"),
        (4, "bad_utterance_id"),
        (5, "bad_times"),
        (6, "empty_text"),
        (9, "duplicate_utterance"),
        (12, "bad_line"),
    ]
    assert all(p.origin == str(path) for p in result.problems)
    line_no, raw, reason = result.malformed[0]
    assert (line_no, raw) == (2, "NOT_AN_AMI_ID HELLO") and reason.startswith("bad_utterance_id:")
    assert result.items[0].metadata["num_utterances"] == 5
    assert result.counts["rows_read"] == 11 and result.counts["malformed"] == 6


def test_malformed_rows_are_reported_with_line_numbers(tmp_path, rows):
    lines = [json.dumps(r) for r in rows[:3]]
    lines.insert(1, "{not json")  # 2
    lines.insert(2, json.dumps({k: v for k, v in rows[5].items() if k != "speaker_id"}))  # 3
    lines.insert(3, json.dumps(dict(rows[6], begin_time="12.5")))  # 4
    lines.insert(4, "[1, 2]")  # 5
    lines.append(json.dumps(dict(rows[7], text="   ")))  # 8
    lines.append(json.dumps(dict(rows[8], end_time=1.0)))  # 9
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = load_ami(path)
    assert [(p.line_no, p.code) for p in result.problems] == [
        (2, "malformed_json"),
        (3, "bad_row"),
        (4, "bad_times"),
        (5, "not_an_object"),
        (8, "empty_text"),
        (9, "bad_times"),
    ]
    assert result.malformed[0][:2] == (2, "{not json")
    assert result.items[0].metadata["num_utterances"] == 3


def test_bad_segments_lines_are_reported(tmp_path):
    (tmp_path / "text").write_text("AMI_X1_H00_MEE001_0000100_0000200 HELLO\n", encoding="utf-8")
    (tmp_path / "segments").write_text("ONLY THREE FIELDS\nU R 5.0 4.0\nU R x 4.0\n", encoding="utf-8")
    result = load_ami(tmp_path)
    assert [(Path(p.origin).name, p.line_no, p.code) for p in result.problems] == [
        ("segments", 1, "bad_segment"),
        ("segments", 2, "bad_segment"),
        ("segments", 3, "bad_segment"),
    ]
    assert result.items[0].context == "[0:01] MEE001: HELLO"


def test_unusable_inputs_raise(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_ami(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(AmiFormatError):
        load_ami(tmp_path / "empty")
    with pytest.raises(ValueError):
        load_ami(tmp_path, hub_config="mdm")
    with pytest.raises(ValueError):
        load_ami(ES2002D, max_context_tokens=0)


# --- windows -----------------------------------------------------------------------------------------


def test_windows_cover_every_utterance_once_without_splitting(transcript):
    budget = 800
    result = load_ami(ES2002D, max_context_tokens=budget)
    items = result.items
    assert len(items) > 5
    assert [i.source_id for i in items] == [f"ES2002d#w{n}" for n in range(1, len(items) + 1)]
    # Concatenated in order, the windows are the whole transcript, line for line.
    assert "\n".join(i.context for i in items) == transcript
    assert sum(i.metadata["num_utterances"] for i in items) == 1305
    for n, item in enumerate(items, start=1):
        meta = item.metadata
        assert (meta["window"], meta["num_windows"], meta["meeting_id"]) == (n, len(items), "ES2002d")
        assert meta["num_utterances"] == len(item.context.split("\n"))
        assert sum(estimate_tokens(line) for line in item.context.split("\n")) <= budget
        assert meta["window_start_s"] <= meta["window_end_s"]
    starts = [i.metadata["window_start_s"] for i in items]
    assert starts == sorted(starts) and starts[0] == 2.41
    assert max(i.metadata["window_end_s"] for i in items) == 2400.86
    # Every window but the last was closed because the next line did not fit.
    lines = transcript.split("\n")
    used = 0
    for item in items[:-1]:
        used += len(item.context.split("\n"))
        size = sum(estimate_tokens(line) for line in item.context.split("\n"))
        assert size + estimate_tokens(lines[used]) > budget


def test_a_meeting_that_fits_is_not_cut():
    item = load_ami(ES2002D, max_context_tokens=1_000_000).items[0]
    assert item.source_id == "ES2002d" and "window" not in item.metadata


def test_window_utterances_with_another_estimator_and_an_oversized_utterance():
    sizes = [1, 1, 40, 1]
    utterances = [
        Utterance(f"u{i}", "M", "MEE001", i * 100, i * 100 + 50, " ".join(["WORD"] * n)) for i, n in enumerate(sizes)
    ]
    windows = window_utterances(utterances, 10, estimate=lambda text: len(text) / 4)
    assert [[u.utt_id for u in w] for w in windows] == [["u0", "u1"], ["u2"], ["u3"]]
    with pytest.raises(ValueError):
        window_utterances(utterances, 0)


# --- parquet and saved datasets (with an audio column never read) -------------------------------------


def _with_audio(rows: list[dict]) -> list[dict]:
    return [dict(r, audio={"bytes": b"\x00not audio", "path": f"{r['audio_id']}.wav"}) for r in rows]


def test_parquet_without_reading_audio(tmp_path, monkeypatch, rows, transcript):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "train-00000-of-00001.parquet"
    pq.write_table(pa.Table.from_pylist(_with_audio(rows)), path)
    seen = []
    real_read_table = pq.read_table

    def read_table(source, *args, columns=None, **kwargs):
        seen.append(columns)
        assert columns is not None and "audio" not in columns
        return real_read_table(source, *args, columns=columns, **kwargs)

    monkeypatch.setattr(pq, "read_table", read_table)
    result = load_ami(path)
    assert seen, "the loader did not read the parquet file through pyarrow.parquet.read_table"
    assert not result.problems
    assert result.items[0].context == transcript
    assert result.items[0].metadata["split"] == "train"


def test_save_to_disk_without_decoding_audio(tmp_path, rows, transcript):
    import datasets

    datasets.disable_progress_bars()
    dataset = datasets.Dataset.from_list(_with_audio(rows)).cast_column("audio", datasets.Audio(sampling_rate=16_000))
    with pytest.raises(Exception):  # noqa: B017 - decoding these bytes fails, so reading `audio` would too
        dataset[0]
    dataset.save_to_disk(str(tmp_path / "single"))
    result = load_ami(tmp_path / "single")
    assert not result.problems
    assert result.items[0].context == transcript

    datasets.DatasetDict(
        {"train": dataset.select(range(100)), "validation": dataset.select(range(100, 1305))}
    ).save_to_disk(str(tmp_path / "dict"))
    result = load_ami(tmp_path / "dict")
    assert not result.problems
    assert result.items[0].context == transcript
    assert result.items[0].metadata["split"] == "dev+train"


# --- the Hub, without the network --------------------------------------------------------------------


def test_hub_reads_only_the_kaldi_text_files(tmp_path, monkeypatch, rows, transcript):
    import huggingface_hub

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    split_of = {r["audio_id"]: ("train" if i < 700 else "dev") for i, r in enumerate(rows)}
    for split in ("train", "dev"):
        write_kaldi(tmp_path / split, [r for r in rows if split_of[r["audio_id"]] == split], segments=False)
    calls = []

    def fake_download(repo_id, filename, *, repo_type=None, **kwargs):
        calls.append((repo_id, repo_type, filename))
        split = filename.split("/")[1]
        return str(tmp_path / split / "text")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake_download)
    result = load_ami(None, hub_config="sdm", splits=("train", "validation"))
    assert calls == [
        ("edinburghcstr/ami", "dataset", "annotations/train/text"),
        ("edinburghcstr/ami", "dataset", "annotations/dev/text"),
    ]
    assert not result.problems
    item = result.items[0]
    assert item.context == transcript
    assert item.metadata["split"] == "dev+train" and item.metadata["hub_config"] == "sdm"


def test_hub_with_a_download_function_and_its_problems(tmp_path):
    (tmp_path / "text").write_text("AMI_X1_H00_MEE001_0000100_0000200 HELLO\nBROKEN\n", encoding="utf-8")
    result = load_ami(splits=["eval"], download=lambda filename: tmp_path / "text")
    assert result.items[0].metadata["split"] == "eval"
    assert [(p.origin, p.line_no) for p in result.problems] == [("hub:edinburghcstr/ami/annotations/eval/text", 2)]
    with pytest.raises(ValueError):
        load_ami(splits=["everything"], download=lambda filename: tmp_path / "text")


def test_default_download_goes_to_huggingface_hub(monkeypatch, tmp_path):
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", lambda **kw: str(tmp_path / kw["filename"]))
    assert ami.hub_download("annotations/dev/text") == tmp_path / "annotations/dev/text"


# --- the embedded sample -----------------------------------------------------------------------------


def test_embedded_sample_loads():
    result = load_ami(sample_path())
    assert not result.problems
    [item] = result.items
    meta = item.metadata
    assert item.source_id == "XX0001a"
    assert meta["num_speakers"] == 4 and 40 <= meta["num_utterances"] <= 60
    assert item.context.split("\n")[0].startswith("[0:01] FXX001: OKAY LET'S START")
    assert sample_path().stat().st_size < 20_000


def test_embedded_authored_records_fit_the_sample():
    from authoring.file_import import import_authored

    item = load_ami(sample_path()).items[0]
    path = sample_path().parent / "authored.jsonl"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    imported = import_authored(path, {item.source_id: item})
    assert not imported.rejections and len(imported.records) == len(lines) == 7

    def strings(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict | list):
            for inner in value.values() if isinstance(value, dict) else value:
                yield from strings(inner)

    good, (undeclared, too_small) = lines[:5], lines[5:]
    for line in good:
        assert len(line["json_schema"]["properties"]) >= 3
        assert all(text in item.context for text in strings(line["ground_truth"]))
    assert set(undeclared["ground_truth"]) - set(undeclared["json_schema"]["properties"]) == {"location"}
    assert len(too_small["json_schema"]["properties"]) < 3
