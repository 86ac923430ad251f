"""Label Studio's database: SQLite in its data dir (the default), or a PostgreSQL server for a team's host.

Label Studio reads its PostgreSQL connection from the environment (DJANGO_DB=default and POSTGRE_NAME,
POSTGRE_USER, POSTGRE_PASSWORD, POSTGRE_HOST, POSTGRE_PORT: its documented production setting). The toolkit
takes one URL, `postgresql://USER@HOST:PORT/NAME`, from `--database` or LABEL_STUDIO_DATABASE_URL, and the
password from LABEL_STUDIO_DATABASE_PASSWORD or PGPASSWORD (or inside LABEL_STUDIO_DATABASE_URL): a password
on a command line is visible to every user of the machine (`ps`), so `--database` refuses one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field

from core.redaction import register_secret

DATABASE_URL_ENV = "LABEL_STUDIO_DATABASE_URL"
PASSWORD_ENVS = ("LABEL_STUDIO_DATABASE_PASSWORD", "PGPASSWORD")
SCHEMES = ("postgresql", "postgres")
DEFAULT_PG_PORT = 5432


class DatabaseError(ValueError):
    """A database URL Label Studio cannot use; the message says what to write instead."""


class PostgresDatabase(BaseModel):
    """Where Label Studio keeps its data on PostgreSQL (the password is never printed)."""

    model_config = ConfigDict(frozen=True)

    name: str
    user: str
    host: str = "127.0.0.1"
    port: int = Field(default=DEFAULT_PG_PORT, ge=1, le=65535)
    password: str | None = Field(default=None, repr=False)

    @property
    def url(self) -> str:
        """The URL without its password: safe for logs and messages."""
        return f"postgresql://{self.user}@{self.host}:{self.port}/{self.name}"

    def environment(self) -> dict[str, str]:
        """What Label Studio's settings read (label_studio/core/settings/base.py: DJANGO_DB, POSTGRE_*)."""
        env = {
            "DJANGO_DB": "default",
            "POSTGRE_NAME": self.name,
            "POSTGRE_USER": self.user,
            "POSTGRE_HOST": self.host,
            "POSTGRE_PORT": str(self.port),
        }
        env["POSTGRE_PASSWORD"] = self.password or ""
        return env


def parse_database_url(url: str, *, password: str | None = None, from_argv: bool = False) -> PostgresDatabase:
    """`postgresql://USER[:PASSWORD]@HOST[:PORT]/NAME` -> the connection. `from_argv`: the URL came from the
    command line, where a password would be visible to everyone (refused, with where to put it instead)."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise DatabaseError(
            f"--database takes a PostgreSQL URL, postgresql://USER@HOST:PORT/NAME, not {parts.scheme or url!r} "
            "(without --database Label Studio keeps SQLite in its data dir)"
        )
    if parts.password is not None and from_argv:
        raise DatabaseError(
            "--database must not carry the password (a command line is visible to every user): give "
            f"postgresql://USER@HOST:PORT/NAME and set {PASSWORD_ENVS[0]} (or PGPASSWORD), or put the whole URL in "
            f"{DATABASE_URL_ENV}"
        )
    name = unquote(parts.path.lstrip("/"))
    if not name or "/" in name:
        raise DatabaseError(f"the database URL names no database: postgresql://USER@HOST:PORT/NAME, got {url!r}")
    if not parts.username:
        raise DatabaseError(f"the database URL names no user: postgresql://USER@HOST:PORT/NAME, got {url!r}")
    try:
        port = parts.port or DEFAULT_PG_PORT
    except ValueError as exc:
        raise DatabaseError(f"the database URL has a bad port: {exc}") from None
    secret = unquote(parts.password) if parts.password is not None else password
    register_secret(secret)  # masked wherever the toolkit prints or stores text
    return PostgresDatabase(
        name=name, user=unquote(parts.username), host=parts.hostname or "127.0.0.1", port=port, password=secret
    )


def database_from(flag: str | None, environ: Mapping[str, str] | None = None) -> PostgresDatabase | None:
    """The flag's URL, else LABEL_STUDIO_DATABASE_URL; None for SQLite. The password comes from the environment."""
    env = os.environ if environ is None else environ
    password = next((env[name] for name in PASSWORD_ENVS if env.get(name)), None)
    if flag:
        return parse_database_url(flag, password=password, from_argv=True)
    if env.get(DATABASE_URL_ENV):
        return parse_database_url(env[DATABASE_URL_ENV], password=password)
    return None
