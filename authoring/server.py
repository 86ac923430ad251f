"""A local Label Studio server when there is none: `--start-label-studio`.

The server runs as a child process with its data dir in the workspace (`<workspace>/label-studio`), a
fixed user and API token created on first start (kept in `credentials.json` there, mode 0600; the
LABEL_STUDIO_USERNAME / LABEL_STUDIO_PASSWORD / LABEL_STUDIO_USER_TOKEN variables override them),
legacy API tokens enabled, sign-up without an invite link disabled, and the version check, Sentry error
reporting and usage analytics turned off. Its database is SQLite in the data dir, or PostgreSQL
(`--database postgresql://USER@HOST:PORT/NAME` or LABEL_STUDIO_DATABASE_URL; authoring/database.py).
It serves page images as local files from `<workspace>/media`
(LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED / LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT).
`start()` waits for `/health` and checks that the server
took the port it asked for (Label Studio silently moves to the next free port otherwise); `stop()`
interrupts it like Ctrl-C and waits, then terminates it.

Label Studio's pins clash with the toolkit's, so it lives in its own virtualenv
(`scripts/install_label_studio.sh`); the executable is found through LABEL_STUDIO_BIN, then PATH, then
`.venv-labelstudio/bin/label-studio` beside this checkout.

    python -m authoring.server --workspace workspace     # run one for curators until Ctrl-C
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from authoring import loopback_webhooks, server_guard, server_workers
from authoring.database import DatabaseError, PostgresDatabase, database_from
from core.stop_signals import Terminated, stop_on_signals

REPO = Path(__file__).resolve().parent.parent
DEFAULT_PORT = 8080
DEFAULT_USERNAME = "curator@sob.local"
INSTALL_COMMAND = "bash scripts/install_label_studio.sh"
POSTGRE_ENV = ("POSTGRE_NAME", "POSTGRE_USER", "POSTGRE_PASSWORD", "POSTGRE_HOST", "POSTGRE_PORT")
STARTUP_TIMEOUT_S = 300.0  # the first start runs the migrations: about a minute on 2 cores


class LabelStudioServerError(RuntimeError):
    """The server could not be found, started or reached; the message says what to do."""


def find_label_studio_bin(explicit: str | os.PathLike[str] | None = None) -> Path:
    """LABEL_STUDIO_BIN (or `explicit`), then `label-studio` on PATH, then the repo's own virtualenv."""
    candidates: list[str | os.PathLike[str] | None] = [
        explicit,
        os.environ.get("LABEL_STUDIO_BIN"),
        shutil.which("label-studio"),
        REPO / ".venv-labelstudio" / "bin" / "label-studio",
    ]
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return Path(candidate)
    raise LabelStudioServerError(
        "Label Studio is not installed (no label-studio in LABEL_STUDIO_BIN, on PATH or in .venv-labelstudio/bin): "
        f"install it with `{INSTALL_COMMAND}` (its own virtualenv, .venv-labelstudio), or set LABEL_STUDIO_BIN"
    )


def port_in_use(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str
    token: str


def load_or_create_credentials(data_dir: Path, environ: Mapping[str, str] | None = None) -> Credentials:
    """The fixed user of this data dir: made once, then reused (environment variables win)."""
    env = os.environ if environ is None else environ
    path = data_dir / "credentials.json"
    stored = _stored_credentials(path)
    creds = Credentials(
        username=env.get("LABEL_STUDIO_USERNAME") or stored.get("username") or DEFAULT_USERNAME,
        password=env.get("LABEL_STUDIO_PASSWORD") or stored.get("password") or secrets.token_urlsafe(12),
        token=env.get("LABEL_STUDIO_USER_TOKEN") or stored.get("token") or secrets.token_hex(20),
    )
    if len(creds.token) <= 5:
        raise LabelStudioServerError("LABEL_STUDIO_USER_TOKEN must be longer than 5 characters")
    data_dir.mkdir(parents=True, exist_ok=True)
    payload = {"username": creds.username, "password": creds.password, "token": creds.token}
    if stored.get("secret_key"):
        payload["secret_key"] = stored["secret_key"]
    else:
        payload["secret_key"] = secrets.token_urlsafe(40)
    if payload != stored:
        path.write_text(json.dumps(payload, indent=2), encoding="utf-8")
        path.chmod(0o600)
    return creds


def _stored_credentials(path: Path) -> dict[str, str]:
    """What credentials.json holds ({} when there is none); a damaged file is named, never rewritten."""
    if not path.is_file():
        return {}
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        reason = getattr(exc, "strerror", None) or "not valid JSON (truncated?)"
        stored = None
    else:
        reason = "not a JSON object of strings"
    if not isinstance(stored, dict) or not all(isinstance(v, str) for v in stored.values()):
        raise LabelStudioServerError(
            f"{path} is {reason}: restore it from a backup (it holds the server's user, password, API token and "
            "secret key), or move it aside and set LABEL_STUDIO_USERNAME, LABEL_STUDIO_PASSWORD and "
            "LABEL_STUDIO_USER_TOKEN to the server's user"
        )
    return stored


def _secret_key(data_dir: Path) -> str:
    return _stored_credentials(data_dir / "credentials.json")["secret_key"]


# What a Label Studio child inherits from the toolkit's environment: the basics of a process, and its own settings
# (LABEL_STUDIO_*, the PostgreSQL ones). Never the toolkit's keys and tokens (HF_TOKEN, GEMINI_API_KEY, ...).
INHERITED = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
)
INHERITED_PREFIXES = ("LC_", "LABEL_STUDIO_", "POSTGRE_", "DJANGO_DB")
NOT_INHERITED = ("LABEL_STUDIO_API_KEY", "LABEL_STUDIO_URL", "LABEL_STUDIO_PROJECT_TITLE")  # the toolkit's side


def inherited_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    env = os.environ if environ is None else environ
    return {
        name: value
        for name, value in env.items()
        if (name in INHERITED or name.startswith(INHERITED_PREFIXES)) and name not in NOT_INHERITED
    }


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    server_guard.die_with_parent()  # SIGKILL of the toolkit takes the server down too


class LabelStudioServer:
    """A Label Studio child process. Use as a context manager, or call start() and stop()."""

    def __init__(
        self,
        data_dir: Path | str,
        *,
        port: int = DEFAULT_PORT,
        host: str = "127.0.0.1",
        binary: str | os.PathLike[str] | None = None,
        startup_timeout_s: float = STARTUP_TIMEOUT_S,
        files_root: Path | str | None = None,
        database: PostgresDatabase | None = None,
        workers: int = 1,
    ) -> None:
        self.database = database  # None: SQLite in the data dir
        self.workers = workers  # >1: gunicorn with this many processes (authoring/server_workers.py)
        self.data_dir = Path(data_dir).resolve()
        # What it may serve as local files (page images): `<workspace>/media` for a workspace's server.
        self.files_root = Path(files_root).resolve() if files_root else self.data_dir.parent / "media"
        self.host = host
        self.port = port
        self.binary = binary
        self.startup_timeout_s = startup_timeout_s
        self.log_path = self.data_dir / "server.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.credentials: Credentials | None = None
        # A server a killed run left behind in this data dir, stopped by start() (callers say so).
        self.orphan_stopped: server_guard.ServerRecord | None = None

    @classmethod
    def for_workspace(cls, workspace: Path | str, **kwargs: object) -> LabelStudioServer:
        return cls(Path(workspace) / "label-studio", **kwargs)  # type: ignore[arg-type]

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_key(self) -> str:
        if self.credentials is None:
            raise LabelStudioServerError("the server has not been started")
        return self.credentials.token

    def environment(self) -> dict[str, str]:
        """The child's environment: everything that makes a quiet, private, local server, and nothing of the
        toolkit's secrets."""
        assert self.credentials is not None
        env = inherited_environment()
        env.update(
            {
                "LABEL_STUDIO_BASE_DATA_DIR": str(self.data_dir),
                "LABEL_STUDIO_USERNAME": self.credentials.username,
                "LABEL_STUDIO_PASSWORD": self.credentials.password,
                "LABEL_STUDIO_USER_TOKEN": self.credentials.token,
                "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true",
                "LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK": "true",
                "LABEL_STUDIO_LATEST_VERSION_CHECK": "false",
                "LABEL_STUDIO_COLLECT_ANALYTICS": "false",
                "LABEL_STUDIO_SENTRY_DSN": "",
                "LABEL_STUDIO_FRONTEND_SENTRY_DSN": "",
                "LABEL_STUDIO_FEATURE_FLAGS_OFFLINE": "true",
                "SECRET_KEY": _secret_key(self.data_dir),
                # Page images are served as local files from this folder only, and only under a
                # local-files storage of the project (authoring.page_tasks creates it).
                "LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED": "true",
                "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT": str(self.files_root),
                "PYTHONUNBUFFERED": "1",
            }
        )
        # The database: PostgreSQL when given; otherwise SQLite, whatever DJANGO_DB the caller's shell has.
        for name in ("DJANGO_DB", *POSTGRE_ENV):
            env.pop(name, None)
        if self.database is not None:
            env.update(self.database.environment())
        env.update(loopback_webhooks.environment())  # `--serve`'s receiver on 127.0.0.1, nothing else nearby
        # A stray DJANGO_SETTINGS_MODULE or PORT from the caller would change what starts.
        for name in ("DJANGO_SETTINGS_MODULE", "PORT", "LABEL_STUDIO_PORT", "HOST", "LABEL_STUDIO_HOST"):
            env.pop(name, None)
        return env

    def command(self) -> list[str]:
        assert self.credentials is not None
        if self.workers > 1:
            try:
                return server_workers.serve_command(
                    find_label_studio_bin(self.binary), self.host, self.port, self.workers
                )
            except server_workers.WorkersUnavailable as exc:
                raise LabelStudioServerError(str(exc)) from exc
        return [
            str(find_label_studio_bin(self.binary)),
            "start",
            "--no-browser",
            "--internal-host",
            self.host,
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
            # `--name=value`: a name may start with "-", which argparse takes for an option. The password and
            # token travel in the environment only (LABEL_STUDIO_PASSWORD, _USER_TOKEN): a command line is
            # visible to every user of the machine (`ps`).
            f"--username={self.credentials.username}",
            "--enable-legacy-api-token",
        ]

    def start(self) -> LabelStudioServer:
        if self.process is not None:
            return self
        find_label_studio_bin(self.binary)  # fail before touching anything
        try:
            self.orphan_stopped = server_guard.stop_orphan(self.data_dir)
        except server_guard.ServerInUse as exc:
            raise LabelStudioServerError(str(exc)) from exc
        if port_in_use(self.host, self.port):
            raise LabelStudioServerError(
                f"port {self.port} on {self.host} is already in use (Label Studio would silently move to another "
                "port): stop what uses it, or pick another port with --label-studio-port N"
            )
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.data_dir.chmod(0o700)  # its database holds the API token: for this user only
        self.files_root.mkdir(parents=True, exist_ok=True)
        self.credentials = load_or_create_credentials(self.data_dir)
        command = self.command()
        env = self.environment()
        if self.workers > 1:
            self._initialise(env)
            env["DJANGO_SETTINGS_MODULE"] = server_workers.SETTINGS_MODULE
        log = self.log_path.open("ab")
        try:
            self.process = subprocess.Popen(
                command,
                **self._child(env, log),
                start_new_session=True,  # its own process group: stop() reaches Django's children too
                preexec_fn=_default_sigint,  # a caller started with `&` ignores Ctrl-C; the server must not
            )
        finally:
            log.close()
        server_guard.ServerRecord(pid=self.process.pid, port=self.port, owner_pid=os.getpid()).write(self.data_dir)
        try:
            self._wait_until_up()
        except BaseException:
            self.stop()
            raise
        return self

    def _child(self, env: dict[str, str], log: IO[bytes]) -> dict[str, Any]:
        """How a Label Studio process is started: in its data dir, output to its log, files for this user only."""
        return {
            "cwd": self.data_dir,
            "env": env,
            "stdin": subprocess.DEVNULL,
            "stdout": log,
            "stderr": subprocess.STDOUT,
            "umask": 0o077,  # the database and media it creates are readable by this user only
        }

    def _initialise(self, env: dict[str, str]) -> None:
        """Before worker processes serve it: the migrations and the toolkit's user, as `label-studio start` does."""
        assert self.credentials is not None
        command = server_workers.init_command(
            find_label_studio_bin(self.binary), self.data_dir, self.credentials.username
        )
        with self.log_path.open("ab") as log:
            try:
                done = subprocess.run(command, **self._child(env, log), timeout=self.startup_timeout_s, check=False)
            except subprocess.TimeoutExpired as exc:
                raise LabelStudioServerError(
                    f"Label Studio's migrations did not finish within {self.startup_timeout_s:.0f}s; "
                    f"log {self.log_path}:\n{self._log_tail()}"
                ) from exc
        if done.returncode != 0:
            raise LabelStudioServerError(
                f"Label Studio's migrations failed (exit code {done.returncode}); log {self.log_path}:\n"
                f"{self._log_tail()}"
            )

    def _log_tail(self, lines: int = 25) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def _wait_until_up(self) -> None:
        assert self.process is not None
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise LabelStudioServerError(
                    f"Label Studio exited with code {self.process.returncode} while starting; "
                    f"log {self.log_path}:\n{self._log_tail()}"
                )
            if self._healthy():
                announced = self._announced_port_since(offset)
                if announced is not None and announced != self.port:
                    raise LabelStudioServerError(
                        f"Label Studio started on port {announced} instead of {self.port}; stopped it. "
                        "Free the port or choose another one."
                    )
                return
            time.sleep(0.5)
        raise LabelStudioServerError(
            f"Label Studio did not answer {self.url}/health within {self.startup_timeout_s:.0f}s; "
            f"log {self.log_path}:\n{self._log_tail()}"
        )

    def _announced_port_since(self, offset: int) -> int | None:
        try:
            with self.log_path.open("rb") as handle:
                handle.seek(offset)
                text = handle.read().decode("utf-8", errors="replace")
        except OSError:
            return None
        ports = re.findall(r"Starting development server at https?://[^:/\s]+:(\d+)/", text)
        return int(ports[-1]) if ports else None

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/health", timeout=2) as response:  # noqa: S310 - loopback
                return response.status == 200 and b"UP" in response.read()
        except (urllib.error.URLError, OSError, ValueError):
            return False

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def serve_until_interrupted(self) -> None:
        """Block while the server runs (curators keep working meanwhile). Ctrl-C reaches the caller as
        KeyboardInterrupt: its `finally` stops the server, and the run ends as stopped by SIGINT."""
        while self.running:
            time.sleep(1)

    def stop(self, timeout_s: float = 10.0) -> None:
        """Interrupt (like Ctrl-C), wait, then terminate and finally kill the server's process group."""
        process = self.process
        if process is None:
            return
        try:
            for sig, wait in ((signal.SIGINT, timeout_s), (signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
                if process.poll() is not None:
                    break
                try:
                    os.killpg(process.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    process.wait(timeout=wait)
                except subprocess.TimeoutExpired:
                    continue
            # What the leader left in its group (Django's workers) goes with it.
            server_guard.stop_group(process.pid, timeout_s=5.0)
        finally:
            self.process = None
            server_guard.forget(self.data_dir)

    def kill(self) -> None:
        """Kill the server at once (tests use it to simulate a crash)."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None
        server_guard.forget(self.data_dir)

    def __enter__(self) -> LabelStudioServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m authoring.server",
        description="Run a local Label Studio for curators, with its data in the workspace, until Ctrl-C.",
    )
    parser.add_argument("--workspace", type=Path, default=Path("workspace"), help="workspace folder")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    parser.add_argument(
        "--database",
        metavar="URL",
        help="PostgreSQL for Label Studio's data, postgresql://USER@HOST:PORT/NAME (else LABEL_STUDIO_DATABASE_URL; "
        "the password from LABEL_STUDIO_DATABASE_PASSWORD or PGPASSWORD); default: SQLite in its data dir",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="serve Label Studio from N processes (gunicorn, as its Docker image runs it): a team's host on "
        "PostgreSQL; default 1, its development server",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        database = database_from(args.database)
        if args.workers < 1:
            raise LabelStudioServerError(f"--workers must be at least 1, not {args.workers}")
        server = LabelStudioServer.for_workspace(
            args.workspace, port=args.port, host=args.host, database=database, workers=args.workers
        )
        server.start()
    except (LabelStudioServerError, DatabaseError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    assert server.credentials is not None
    processes = f", {args.workers} processes" if args.workers > 1 else ""
    print(f"Label Studio is up at {server.url}" + (f" on {database.url}" if database else "") + processes)
    print(f"  log in as {server.credentials.username}; password and API token in {server.data_dir}/credentials.json")
    print(f"  for the toolkit: export LABEL_STUDIO_URL={server.url} LABEL_STUDIO_API_KEY=<token from that file>")
    print("Press Ctrl-C to stop it.")
    try:
        # Ctrl-C, SIGTERM or SIGHUP is how this command is meant to end: the server is stopped, exit 0.
        with contextlib.suppress(Terminated, KeyboardInterrupt), stop_on_signals():
            server.serve_until_interrupted()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
