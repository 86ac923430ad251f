"""`--database` and LABEL_STUDIO_DATABASE_URL: what Label Studio is given, and bad URLs refused in one line
(a password on the command line among them). No server: the real PostgreSQL runs in the Label Studio tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from authoring.database import DatabaseError, database_from, parse_database_url
from authoring.server import LabelStudioServer, load_or_create_credentials

REPO = Path(__file__).resolve().parents[2]


def test_a_url_becomes_label_studios_own_variables_with_the_password_from_the_environment() -> None:
    env = {"LABEL_STUDIO_DATABASE_PASSWORD": "s3cret-pw-1", "PGPASSWORD": "other-pw-22"}
    database = database_from("postgresql://ls@db.team.org:5433/label_studio", env)
    assert database is not None
    assert database.environment() == {
        "DJANGO_DB": "default",
        "POSTGRE_NAME": "label_studio",
        "POSTGRE_USER": "ls",
        "POSTGRE_PASSWORD": "s3cret-pw-1",
        "POSTGRE_HOST": "db.team.org",
        "POSTGRE_PORT": "5433",
    }
    assert "s3cret" not in repr(database) and database.url == "postgresql://ls@db.team.org:5433/label_studio"
    # the whole URL may sit in the environment, password and all; the default port is PostgreSQL's
    from_env = database_from(None, {"LABEL_STUDIO_DATABASE_URL": "postgres://ls:p%40ss-word@127.0.0.1/ls"})
    assert from_env is not None and (from_env.password, from_env.port) == ("p@ss-word", 5432)
    assert database_from(None, {}) is None  # SQLite


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://ls:hunter22@127.0.0.1/ls", "must not carry the password"),
        ("mysql://ls@127.0.0.1/ls", "takes a PostgreSQL URL"),
        ("postgresql://ls@127.0.0.1/", "names no database"),
        ("postgresql://127.0.0.1/ls", "names no user"),
        ("postgresql://ls@127.0.0.1:99999/ls", "bad port"),
    ],
)
def test_bad_urls_are_refused_with_what_to_write(url: str, message: str) -> None:
    with pytest.raises(DatabaseError, match=message):
        parse_database_url(url, from_argv=True)


def test_the_server_gets_postgresql_or_sqlite_whatever_the_callers_shell_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DJANGO_DB", "default")  # a stray setting in the curator's shell
    monkeypatch.setenv("POSTGRE_HOST", "elsewhere")
    sqlite = LabelStudioServer(tmp_path / "a")
    sqlite.credentials = load_or_create_credentials(sqlite.data_dir, {})
    assert not {"DJANGO_DB", "POSTGRE_HOST"} & set(sqlite.environment())
    database = parse_database_url("postgresql://ls@127.0.0.1:5544/ls", password="pw-of-ls-db")
    pg = LabelStudioServer(tmp_path / "b", database=database)
    pg.credentials = load_or_create_credentials(pg.data_dir, {})
    env = pg.environment()
    assert (env["DJANGO_DB"], env["POSTGRE_HOST"], env["POSTGRE_PORT"]) == ("default", "127.0.0.1", "5544")
    assert not [part for part in pg.command() if "pw-of-ls-db" in part]  # never on the command line


def test_the_cli_refuses_a_password_in_database_and_database_without_a_server_it_starts(tmp_path: Path) -> None:
    base = [sys.executable, "-m", "build_split", "--source", "hotpotqa", "--workspace", str(tmp_path / "ws")]
    for extra, message in (
        (["--start-label-studio", "--database", "postgresql://ls:topsecret1@127.0.0.1/ls"], "must not carry"),
        (["--database", "postgresql://ls@127.0.0.1/ls"], "add --start-label-studio"),
    ):
        done = subprocess.run(base + extra + ["--status"], cwd=REPO, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        (line,) = [line for line in done.stderr.splitlines() if line.startswith("error:")]
        assert line.startswith("error: --database: ") and message in line and "topsecret1" not in done.stderr
