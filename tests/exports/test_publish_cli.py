"""`python -m build_split ... --release VERSION --push TARGET [--private] [--dry-run]`."""

from __future__ import annotations

import json

import datasets
import huggingface_hub
import pytest
from huggingface_hub.utils import disable_progress_bars

from build_split.cli import build_parser, main
from tests.exports.hub_fake import FakeHub

datasets.disable_progress_bars()


def tree(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_write_and_push_to_a_folder_then_publish_the_existing_release(tmp_path, capsys):
    ws, mirror = str(tmp_path / "ws"), tmp_path / "preview"
    assert (
        main(
            [
                "--source",
                "ami",
                "--sample",
                "--workspace",
                ws,
                "--release",
                "0.1.0",
                "--allow-unreviewed",
                "--push",
                str(mirror),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "release:" in out and f"published audio 0.1.0 to local folder {mirror}" in out
    assert json.loads((mirror / "tags.json").read_text())["tags"]["audio-v0.1.0"]["version"] == "0.1.0"
    rows = datasets.load_dataset(str(mirror), "audio", split="train", cache_dir=str(tmp_path / "cache"))
    assert rows.num_rows == 5 and rows.column_names[9:11] == ["meeting_id", "num_speakers"]
    before = tree(mirror)

    # Publishing an existing release: no stage runs, and a second time nothing changes.
    assert (
        main(["--source", "ami", "--workspace", ws, "--release", "0.1.0", "--allow-unreviewed", "--push", str(mirror)])
        == 0
    )
    out = capsys.readouterr().out
    assert "(existing; published as it is)" in out and "nothing to do" in out
    assert tree(mirror) == before

    # A version not written yet: the run writes it (from the store), then publishes it.
    assert (
        main(["--source", "ami", "--workspace", ws, "--release", "0.2.0", "--allow-unreviewed", "--push", str(mirror)])
        == 0
    )
    manifest = json.loads((mirror / "meta" / "audio" / "manifest.json").read_text())
    assert manifest["version"] == "0.2.0" and manifest["parent_version"] == "0.1.0"
    assert manifest["changelog"]["totals"] == {"added": 0, "removed": 0, "changed": 0, "unchanged": 5}
    assert set(json.loads((mirror / "tags.json").read_text())["tags"]) == {"audio-v0.1.0", "audio-v0.2.0"}


def test_push_to_the_hub_from_the_cli(tmp_path, monkeypatch, capsys):
    hub = FakeHub()
    hub.start()
    try:
        monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
        monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)
        monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", hub.endpoint)
        monkeypatch.setenv("HF_TOKEN", hub.token)
        disable_progress_bars()
        ws = str(tmp_path / "ws")
        args = ["--source", "hotpotqa", "--sample", "--workspace", ws, "--release", "0.1.0", "--allow-unreviewed"]
        assert main([*args, "--push", "curators/sob", "--private", "--dry-run"]) == 0
        out = capsys.readouterr().out
        assert "dry run: would publish default 0.1.0" in out and "create the repo (private)" in out
        assert hub.repos == {}
        assert (
            main(
                [
                    "--source",
                    "hotpotqa",
                    "--workspace",
                    ws,
                    "--release",
                    "0.1.0",
                    "--allow-unreviewed",
                    "--push",
                    "curators/sob",
                ]
            )
            == 0
        )
        out = capsys.readouterr().out
        assert "published default 0.1.0 to Hugging Face dataset repo curators/sob" in out
        assert hub.repo("curators/sob").tags["v0.1.0"][0] == hub.repo("curators/sob").head.oid
        assert hub.token not in out
    finally:
        hub.stop()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--dry-run"], "--dry-run: only applies with --push"),
        (["--private"], "--private: only applies with --push"),
        (["--push", "owner/name"], "--push: needs --release VERSION"),
        (["--release", "0.1.0", "--allow-unreviewed", "--push", " "], "--push"),
    ],
)
def test_publishing_flags_are_checked(tmp_path, capsys, extra, message):
    assert main(["--source", "hotpotqa", "--workspace", str(tmp_path / "ws"), *extra]) == 2
    assert message in capsys.readouterr().err


def test_help_states_the_target_rule(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "OWNER/NAME (exactly one '/', not starting with '.', '/' or '~') is a Hugging Face dataset repo" in text
    assert "--diff V1 V2" in text and "--dry-run" in text and "HF_TOKEN" in text


def test_a_hub_that_cannot_be_reached_exits_with_the_network_code(tmp_path, monkeypatch, capsys):
    import socket

    from build_split.exit_codes import NETWORK

    host, lookups = "hub.sob-test.invalid", []
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(name, *args, **kwargs):  # a DNS failure, counted: one lookup, no retries
        if name == host:
            lookups.append(name)
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real_getaddrinfo(name, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", f"https://{host}")
    monkeypatch.setenv("HF_TOKEN", "hf_unused_token_for_the_test")
    ws = str(tmp_path / "ws")
    args = ["--source", "hotpotqa", "--sample", "--workspace", ws, "--release", "0.1.0", "--allow-unreviewed"]
    assert main([*args, "--push", "curators/sob"]) == NETWORK != 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and f"Hub at {host} could not be reached" in errors[0], err
    assert lookups == [host] and "hf_unused_token_for_the_test" not in err
    assert (tmp_path / "ws" / "releases" / "default" / "0.1.0" / "manifest.json").is_file()  # the release stays
