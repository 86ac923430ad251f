"""Label Studio in several worker processes, as its Docker image runs it (a WSGI server in front of Django), for a
team's host: `--start-label-studio --label-studio-workers N`.

`label-studio start` serves every request from one Python process (Django's development server), so on a team's
server the curators' requests queue behind each other: measured with 10 curators on 2 cores and SQLite, a verdict took
p95 8.2 s to reach its task with one process, 3.1-5.9 s with two (docs/benchmarks.md). Here `label-studio init` first
applies the migrations and creates the toolkit's user (then exits), and gunicorn (pure Python, installed in Label
Studio's own virtualenv beside `label-studio`) then serves Label Studio's WSGI application from N processes.
"""

from __future__ import annotations

from pathlib import Path

THREADS_PER_WORKER = 8  # requests one worker process handles at once (most wait on the database)
REQUEST_TIMEOUT_S = 300  # a worker silent this long is restarted; a large export must fit in it
# Idle kept-alive connections live longer than a client keeps them (httpx: 5 s), so the server never closes one
# under a request (gunicorn's default of 2 s did, and the request was reset: authoring/labelstudio/transport.py).
KEEP_ALIVE_S = 15
INSTALL_HINT = "bash scripts/install_label_studio.sh adds it to Label Studio's own virtualenv (.venv-labelstudio)"


class WorkersUnavailable(RuntimeError):
    """gunicorn or Label Studio's package is not where worker processes need them."""


def gunicorn_beside(label_studio_bin: Path) -> Path:
    """The gunicorn of Label Studio's own virtualenv (it must import Label Studio's packages)."""
    candidate = label_studio_bin.parent / "gunicorn"
    if not candidate.is_file():
        raise WorkersUnavailable(f"--label-studio-workers needs gunicorn beside {label_studio_bin}: {INSTALL_HINT}")
    return candidate


def package_dir(label_studio_bin: Path) -> Path:
    """Label Studio's package folder: its modules import each other as top-level packages (`core`, `tasks`)."""
    found = sorted((label_studio_bin.parent.parent / "lib").glob("python3*/site-packages/label_studio/core/wsgi.py"))
    if not found:
        raise WorkersUnavailable(f"no label_studio package found in the virtualenv of {label_studio_bin}")
    return found[-1].parent.parent


def init_command(label_studio_bin: Path, data_dir: Path, username: str) -> list[str]:
    """Migrations and the toolkit's user (password and token from the environment), then exit."""
    return [
        str(label_studio_bin),
        "init",
        "--quiet",
        "--data-dir",
        str(data_dir),
        f"--username={username}",
        "--enable-legacy-api-token",
    ]


def serve_command(label_studio_bin: Path, host: str, port: int, workers: int) -> list[str]:
    return [
        str(gunicorn_beside(label_studio_bin)),
        "core.wsgi:application",
        "--chdir",
        str(package_dir(label_studio_bin)),
        "--bind",
        f"{host}:{port}",
        "--workers",
        str(workers),
        "--threads",
        str(THREADS_PER_WORKER),
        "--timeout",
        str(REQUEST_TIMEOUT_S),
        "--graceful-timeout",
        "5",
        "--keep-alive",
        str(KEEP_ALIVE_S),
    ]


SETTINGS_MODULE = "core.settings.label_studio"  # what `label-studio start` sets for Django
