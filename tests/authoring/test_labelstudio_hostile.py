"""Label Studio robustness without a Label Studio (issue 35): what the toolkit hands a server it starts, a damaged
credentials file, a URL that never answers, an API key on the command line."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from authoring import server
from authoring.labelstudio import client as ls_client
from authoring.labelstudio.client import LabelStudioUnavailable
from authoring.labelstudio.runs import label_studio_for_run
from authoring.server import LabelStudioServer, LabelStudioServerError, load_or_create_credentials
from build_split.cli import main
from tests.ci import missing


def test_label_studio_gets_only_the_environment_it_needs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "HF_TOKEN": "hf_secret_token_value",
        "GEMINI_API_KEY": "gemini-secret",
        "OPENAI_API_KEY": "sk-secret",
        "AWS_SECRET_ACCESS_KEY": "aws-secret",
        "LABEL_STUDIO_API_KEY": "the-toolkits-own-key",
        "LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK": "true",
        "POSTGRE_HOST": "db.example",
        "LC_ALL": "C.UTF-8",
    }.items():
        monkeypatch.setenv(name, value)
    started = LabelStudioServer(tmp_path / "label-studio")
    started.credentials = load_or_create_credentials(started.data_dir)
    env = started.environment()
    for secret in ("HF_TOKEN", "GEMINI_API_KEY", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "LABEL_STUDIO_API_KEY"):
        assert secret not in env
    assert not any("secret" in value and name != "SECRET_KEY" for name, value in env.items())
    assert env["PATH"] and env["LC_ALL"] == "C.UTF-8"
    assert "POSTGRE_HOST" not in env  # the database is what --database says (authoring/database.py), not the shell's
    assert env["LABEL_STUDIO_USER_TOKEN"] == started.credentials.token  # what it does need is there


@pytest.mark.parametrize("content", ['{"username": "curator@sob.local", "passw', "[1, 2]", '{"token": 5}'])
def test_a_damaged_credentials_file_is_one_line_naming_the_file(tmp_path: Path, content: str) -> None:
    path = tmp_path / "credentials.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(LabelStudioServerError) as raised:
        load_or_create_credentials(tmp_path, environ={})
    message = str(raised.value)
    assert str(path) in message and "restore it" in message and "\n" not in message
    assert path.read_text(encoding="utf-8") == content  # left as it was, for the curator to restore


def test_a_damaged_credentials_file_stops_the_cli_with_one_line(tmp_path: Path, capsys) -> None:
    data_dir = tmp_path / "ws" / "label-studio"
    data_dir.mkdir(parents=True)
    (data_dir / "credentials.json").write_text('{"username": "cur', encoding="utf-8")
    code = main(
        ["--source", "hotpotqa", "--sample", "--workspace", str(tmp_path / "ws"), "--start-label-studio"]
        + ["--judge", "heuristic", "--label-studio-port", str(server.free_port())]
    )
    err = capsys.readouterr().err.strip().splitlines()
    if code == 2 and "not installed" in err[-1]:
        missing("label-studio is not installed")  # fails under CI=true; the file is read after the binary is found
    assert code == 2 and str(data_dir / "credentials.json") in err[-1] and "Traceback" not in "".join(err)


@pytest.fixture
def silent_server():
    """A TCP port that takes connections (the kernel's backlog) and never answers a byte."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"


def test_a_label_studio_url_that_never_answers_is_a_quick_one_line_error(silent_server, monkeypatch) -> None:
    monkeypatch.setattr(ls_client, "PROBE_TIMEOUT_S", 1.0)
    started = time.monotonic()
    with pytest.raises(LabelStudioUnavailable) as raised, label_studio_for_run("ws", url=silent_server, api_key="k"):
        pytest.fail("the run went on with a server that never answers")
    assert time.monotonic() - started < 60  # not the 300 s of a request's read limit
    assert silent_server in str(raised.value) and "--label-studio-url" in str(raised.value)
    assert "\n" not in str(raised.value)


def test_the_cli_names_the_url_that_never_answers(silent_server, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(ls_client, "PROBE_TIMEOUT_S", 1.0)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "k" * 20)
    code = main(
        ["--source", "hotpotqa", "--sample", "--workspace", str(tmp_path / "ws"), "--judge", "heuristic"]
        + ["--label-studio-url", silent_server]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1].startswith(f"error: Label Studio at {silent_server} did not answer within 1 s")


def test_an_api_key_on_the_command_line_warns_once_and_is_never_printed(tmp_path: Path, capsys) -> None:
    key = "a-visible-key-0123456789"
    main(["--source", "hotpotqa", "--workspace", str(tmp_path / "ws"), "--status", "--label-studio-api-key", key])
    err = capsys.readouterr().err
    assert err.count("warning: --label-studio-api-key is visible") == 1 and "LABEL_STUDIO_API_KEY" in err
    assert key not in err


def test_no_warning_when_the_key_comes_from_the_environment(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "from-the-environment-0123")
    main(["--source", "hotpotqa", "--workspace", str(tmp_path / "ws"), "--status"])
    assert "--label-studio-api-key is visible" not in capsys.readouterr().err


def test_listen_needs_serve_and_a_host_and_port(tmp_path: Path, capsys) -> None:
    for extra, expected in (
        (["--listen", "0.0.0.0:8765"], "add --serve"),
        (["--serve", "--listen", "8765"], "is not HOST:PORT"),
        (["--serve", "--listen", "host:99999"], "is not HOST:PORT"),
    ):
        code = main(["--source", "hotpotqa", "--workspace", str(tmp_path / "ws"), *extra])
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert code == 2 and err.startswith("error: --listen: ") and expected in err, err


def test_credentials_file_round_trip_still_works(tmp_path: Path) -> None:
    made = load_or_create_credentials(tmp_path, environ={})
    again = load_or_create_credentials(tmp_path, environ={})
    assert made == again and json.loads((tmp_path / "credentials.json").read_text())["token"] == made.token
    assert server._secret_key(tmp_path)


def test_listen_registers_the_address_label_studio_can_reach() -> None:
    from authoring.labelstudio.webhooks import WebhookReceiver
    from build_split.service import webhook_url

    with WebhookReceiver("127.0.0.1", 0, secret="x") as receiver:
        port = receiver.address[1]
        assert webhook_url(receiver, None) == f"http://127.0.0.1:{port}/label-studio"
        assert webhook_url(receiver, ("127.0.0.1", port)) == f"http://127.0.0.1:{port}/label-studio"
        assert webhook_url(receiver, ("0.0.0.0", port)) == f"http://{socket.getfqdn()}:{port}/label-studio"
