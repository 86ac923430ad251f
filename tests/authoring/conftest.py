"""One real Label Studio server per database backend for the whole test session (its first start runs the
migrations): SQLite in its data dir, and PostgreSQL (a real server the tests start, tests/postgres.py).

Every test that uses the server runs on SQLite; a module that sets `LABEL_STUDIO_BACKENDS = ("sqlite",
"postgresql")` runs on PostgreSQL too (the server's core: push, pull, feedback, `--serve`, revisions, two
curators, a team of curators). Each backend's server is started once (pytest groups the tests by backend).

In CI (CI=true) a missing label-studio, label-studio-sdk, chromium or PostgreSQL fails the tests; elsewhere
they are skipped with a message that says how to install them.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from authoring.server import (
    STARTUP_TIMEOUT_S,
    LabelStudioServer,
    LabelStudioServerError,
    find_label_studio_bin,
    free_port,
)
from tests.ci import missing

BACKENDS_ATTRIBUTE = "LABEL_STUDIO_BACKENDS"
DEFAULT_BACKENDS = ("sqlite",)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests that use the server run once per backend their module lists (SQLite alone by default; "sqlite",
    "postgresql", and either with "-workers": two gunicorn processes)."""
    if "label_studio_backend" in metafunc.fixturenames:
        backends = getattr(metafunc.module, BACKENDS_ATTRIBUTE, DEFAULT_BACKENDS)
        metafunc.parametrize("label_studio_backend", backends, indirect=True, scope="session")


@pytest.fixture(scope="session")
def label_studio_backend(request: pytest.FixtureRequest) -> str:
    return request.param


REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"


@pytest.fixture(scope="session")
def label_studio_server(
    tmp_path_factory: pytest.TempPathFactory, label_studio_backend: str
) -> Iterator[LabelStudioServer]:
    try:
        find_label_studio_bin()
    except LabelStudioServerError as exc:
        missing(str(exc))
    try:
        import label_studio_sdk  # noqa: F401
    except ImportError:
        missing("label-studio-sdk is not installed: pip install -e '.[labelstudio]'")
    # It serves local files (page images) from anywhere under the test session's temp folder.
    root = tmp_path_factory.getbasetemp()
    with contextlib.ExitStack() as stack:
        database = None
        if label_studio_backend.startswith("postgresql"):
            from tests.postgres import PostgresServer, PostgresUnavailable

            try:
                postgres = stack.enter_context(PostgresServer())
            except PostgresUnavailable as exc:
                missing(str(exc))
            database = postgres.create_database("label_studio")
        data_dir = tmp_path_factory.mktemp(f"label-studio-{label_studio_backend}")
        # The first start runs the migrations: a minute on 2 idle cores, several on a loaded machine. The start
        # waits for /health; the limit only ends a hung start (SOB_LABEL_STUDIO_STARTUP_S changes it).
        timeout = float(os.environ.get("SOB_LABEL_STUDIO_STARTUP_S") or 3 * STARTUP_TIMEOUT_S)
        # "<database>-workers": served by gunicorn's worker processes (--label-studio-workers), a team host's way.
        workers = 2 if label_studio_backend.endswith("-workers") else 1
        server = LabelStudioServer(
            data_dir, port=free_port(), files_root=root, database=database, startup_timeout_s=timeout, workers=workers
        )
        server.start()
        stack.callback(server.stop)  # before PostgreSQL stops: callbacks run last in, first out
        yield server


@pytest.fixture
def ls_settings(label_studio_server: LabelStudioServer):
    """Settings for a project of this test's own (a unique title per test)."""
    from authoring.labelstudio import LabelStudioSettings

    return LabelStudioSettings(
        url=label_studio_server.url,
        api_key=label_studio_server.api_key,
        project_title=f"test {uuid.uuid4().hex[:8]}: {{source}}",
        local_files_root=str(label_studio_server.files_root),
    )


@pytest.fixture
def ls_session(ls_settings):
    from authoring.labelstudio import LabelStudioSession

    return LabelStudioSession(ls_settings)


@pytest.fixture
def store(tmp_path: Path):
    from core.store import Store

    with Store.open(tmp_path / "workspace") as opened:
        yield opened


@pytest.fixture(scope="session")
def two_curators(label_studio_server: LabelStudioServer) -> tuple[tuple[int, str], tuple[int, str]]:
    """Two curators' accounts, created through Label Studio's API (the server's own user is the adjudicator):
    (user id, email) each. Annotations are made on their behalf with `completed_by`."""
    from label_studio_sdk import LabelStudio

    client = LabelStudio(base_url=label_studio_server.url, api_key=label_studio_server.api_key)
    made = []
    for name in ("ada", "bo"):
        email = f"{name}-{uuid.uuid4().hex[:6]}@curators.test"
        user = client.users.create(username=email, email=email, password=uuid.uuid4().hex)
        made.append((int(user.id), email))
    return made[0], made[1]
