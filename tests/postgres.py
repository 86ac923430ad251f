"""A real PostgreSQL server for the tests: initdb into a fresh folder, pg_ctl start on a free loopback port.

The binaries are Debian's (`postgresql` package: /usr/lib/postgresql/<version>/bin), or PG_BIN, or PATH.
PostgreSQL refuses to run as root: as root the server runs as the `postgres` user (or `nobody`) through
`runuser`, in a folder under /tmp that user owns (pytest's own temp folders are root's alone). The superuser
has a random password (scram-sha-256 over TCP); the tests reach it on 127.0.0.1 like Label Studio does.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path

from authoring.database import PostgresDatabase
from authoring.server import free_port

INSTALL_HINT = "install PostgreSQL's server: apt-get install postgresql (scripts/install_system_deps.sh does)"
SUPERUSER = "sob"


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries, or no user to run them as."""


def find_pg_bin() -> Path:
    """The folder of initdb and pg_ctl: PG_BIN, then PATH, then Debian's newest /usr/lib/postgresql/*/bin."""
    candidates = [os.environ.get("PG_BIN")]
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(str(Path(on_path).resolve().parent))
    versions = [p for p in Path("/usr/lib/postgresql").glob("*/bin") if p.parent.name.isdigit()]
    candidates += [str(p) for p in sorted(versions, key=lambda p: int(p.parent.name), reverse=True)]
    for candidate in candidates:
        if candidate and (Path(candidate) / "initdb").is_file() and (Path(candidate) / "pg_ctl").is_file():
            return Path(candidate)
    raise PostgresUnavailable(f"no PostgreSQL server binaries (initdb, pg_ctl): {INSTALL_HINT}")


def _run_as() -> str | None:
    """The user to run the server as: None when we are not root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise PostgresUnavailable("running as root, and there is no postgres or nobody user to run PostgreSQL as")


class PostgresServer:
    """One throwaway cluster: `start()`, `create_database(name)`, `stop()` (which deletes it)."""

    def __init__(self) -> None:
        self.bin = find_pg_bin()
        self.user = _run_as()
        self.password = secrets.token_hex(16)
        self.port = free_port()
        self.root: Path | None = None

    def _command(self, *argv: str) -> list[str]:
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        return [*prefix, *argv]

    def _run(self, *argv: str) -> None:
        done = subprocess.run(self._command(*argv), cwd="/", capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise PostgresUnavailable(f"{Path(argv[0]).name} failed ({done.returncode}): {done.stderr.strip()}")

    @property
    def data(self) -> Path:
        assert self.root is not None
        return self.root / "data"

    def start(self) -> PostgresServer:
        self.root = Path(tempfile.mkdtemp(prefix="sob-postgres-"))
        pwfile = self.root / "pw"
        pwfile.write_text(self.password + "\n", encoding="utf-8")
        pwfile.chmod(0o600)
        if self.user:
            uid = pwd.getpwnam(self.user).pw_uid
            for path in (self.root, pwfile):
                os.chown(path, uid, -1)
        self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", SUPERUSER, "--pwfile", str(pwfile),
            "-A", "scram-sha-256", "-E", "UTF8", "--no-sync",
        )  # fmt: skip
        pwfile.unlink()
        # fsync off: a throwaway cluster; Label Studio's migrations run several times faster.
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = str(self.root / "log")
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", log, "-o", options, "-w", "start")
        return self

    def create_database(self, name: str) -> PostgresDatabase:
        env = {**os.environ, "PGPASSWORD": self.password}
        createdb = [str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", SUPERUSER, name]
        done = subprocess.run(createdb, env=env, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise PostgresUnavailable(f"createdb {name} failed: {done.stderr.strip()}")
        return PostgresDatabase(name=name, user=SUPERUSER, host="127.0.0.1", port=self.port, password=self.password)

    def stop(self) -> None:
        if self.root is None:
            return
        try:
            subprocess.run(
                self._command(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"),
                cwd="/", capture_output=True, timeout=60,
            )  # fmt: skip
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
