"""Hostile inputs and faults of issue 35 around releases and pushes, run through the real CLI like the rest of
tests/hostile_cases.py (which appends `RELEASE_CASES` to its `CASES`; import that module, not this one, first).

A kill is played in-process by raising `Killed` (a BaseException nothing in the toolkit catches) from the point
it names, and a full disk by `os.sendfile` failing with ENOSPC, as it does when the disk fills: both then run
through the toolkit's own code exactly as they would in a real run.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

from tests.hostile_cases import Case, Outcome, cli, error_line

PUSH = ("--source", "hotpotqa", "--allow-unreviewed")


class Killed(BaseException):
    """Plays `kill -9` at a chosen point: nothing after it runs (no `except Exception` stops it)."""


def push(workspace: Path, target: Path, version: str = "0.1.0") -> tuple[int, str, str]:
    return cli(*PUSH, "--workspace", workspace, "--release", version, "--push", target)


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")} if folder.exists() else set()


def push_into_own_release(workspace: Path, scratch: Path) -> Outcome:
    """`--push` naming the release folder itself: it used to write there and break the release's seal."""
    release = workspace / "releases" / "default" / "0.1.0"
    before = files_under(release)
    code, _, err = push(workspace, release)
    if files_under(release) != before:
        return Outcome(code, "(the push wrote into the release folder)")
    verify = cli(*PUSH, "--workspace", workspace, "--release", "0.1.0")  # rewriting checks the seal
    return Outcome(code, error_line(err), next_run=verify[0])


def push_through_a_symlink(workspace: Path, scratch: Path) -> Outcome:
    """A push target whose `data` folder is a symbolic link to a folder outside it."""
    outside, target = scratch / "outside", scratch / "mirror"
    outside.mkdir()
    (outside / "precious.txt").write_text("kept")
    target.mkdir()
    (target / "data").symlink_to(outside, target_is_directory=True)
    code, _, err = push(workspace, target)
    if files_under(outside) != {"precious.txt"} or (outside / "precious.txt").read_text() != "kept":
        return Outcome(code, f"(the push wrote outside its target: {sorted(files_under(outside))})")
    return Outcome(code, error_line(err))


@contextlib.contextmanager
def killed_when_copying(name: str) -> Iterator[None]:
    """`kill -9` as the push starts copying the file `name` (its temporary file left behind half written)."""
    import shutil

    real_copyfile = shutil.copyfile

    def copy_or_die(src: str | Path, dst: str | Path, **kwargs: object) -> object:
        if Path(src).name == name:
            Path(dst).write_bytes(b"half a file")
            raise Killed
        return real_copyfile(src, dst)

    with mock.patch("exports.hub.shutil.copyfile", copy_or_die):
        yield


def push_after_a_kill(workspace: Path, scratch: Path) -> Outcome:
    """A push killed before its last file (the card), after its data and manifest.json; then the next version's
    push into the same folder must carry on (it used to be refused for ever: "holds 2 file(s) the toolkit did not
    write")."""
    target = scratch / "mirror"
    code, _, err = cli(*PUSH, "--workspace", workspace, "--release", "0.2.0")
    if code != 0:
        return Outcome(code, error_line(err))
    with killed_when_copying("README.md"):  # the release's card, copied last
        try:
            push(workspace, target)
        except Killed:
            pass
        else:
            return Outcome(1, "(the push was not killed)")
    code, out, err = push(workspace, target, "0.2.0")
    if code != 0:
        return Outcome(code, error_line(err))
    leftovers = sorted(p.name for p in target.rglob(".*") if p.is_file())
    if leftovers:
        return Outcome(1, f"(left in the folder: {', '.join(leftovers)})")
    published = [line for line in out.splitlines() if line.startswith("published")]
    again = push(workspace, target, "0.2.0")[0]
    return Outcome(code, f"[push] {published[0]}" if published else "(no published line)", again)


def push_on_a_full_disk(workspace: Path, scratch: Path) -> Outcome:
    """The disk fills while the push copies a data file (ENOSPC from the kernel's copy, as shutil meets it)."""

    def disk_full(*args: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with mock.patch("shutil._USE_CP_SENDFILE", True), mock.patch("os.sendfile", disk_full):
        code, _, err = push(workspace, scratch / "mirror")
    message = re.sub(r"-[0-9a-f]{8,}\.parquet", "-<sha256>.parquet", error_line(err))
    return Outcome(code, message)


def push_target_file(name: str, text: str) -> Callable[[Path, Path], Outcome]:
    """A push into a folder the toolkit pushed to before, after `name` there was replaced by `text`."""

    def run(workspace: Path, scratch: Path) -> Outcome:
        target = scratch / "mirror"
        code, _, err = push(workspace, target)
        if code != 0:
            return Outcome(code, error_line(err))
        (target / name).write_text(text, encoding="utf-8")
        code, _, err = push(workspace, target)
        return Outcome(code, error_line(err))

    return run


def release_version(version: str) -> Callable[[Path, Path], Outcome]:
    def run(workspace: Path, scratch: Path) -> Outcome:
        code, _, err = cli(*PUSH, "--workspace", workspace, "--release", version)
        made = sorted(p.name for p in (workspace / "releases" / "default").iterdir() if p.name != "0.1.0")
        return Outcome(code, error_line(err) if not made else f"(release folders made: {made})")

    return run


def config_named(name: str) -> Callable[[Path, Path], Outcome]:
    def run(workspace: Path, scratch: Path) -> Outcome:
        before = files_under(workspace / "releases")
        code, _, err = cli(
            "--source", "documents", "--sample", "--workspace", workspace, "--config", name, "--release", "0.1.0",
            "--allow-unreviewed",
        )  # fmt: skip
        made = files_under(workspace / "releases") - before
        return Outcome(code, error_line(err) if not made else f"(written: {sorted(made)[:3]})")

    return run


RELEASE_CASES: list[Case] = [
    Case("--push into the release folder itself", push_into_own_release, 2, "where releases live"),
    Case("--push into a folder whose `data` is a symbolic link", push_through_a_symlink, 2, "symbolic link"),
    Case("--push of 0.2.0 after a push killed (`kill -9`) midway", push_after_a_kill, 0, "published default 0.2.0"),
    Case("--push when the disk fills", push_on_a_full_disk, 2, "cannot write <tmp>/scratch/mirror/data/default/"),
    Case("--push into a folder whose tags.json is a list", push_target_file("tags.json", "[1, 2]"), 2, "tags.json"),
    Case(
        "--push into a folder whose README.md front matter does not parse",
        push_target_file("README.md", "---\nlicense: [unclosed\n---\nmy notes\n"),
        2,
        "mirror/README.md has front matter that does not parse",
    ),
    Case("--release with an Arabic-Indic digit (`1١.0.0`)", release_version("1\u0661.0.0"), 2, "invalid release"),
    Case("--config holding a line break", config_named("evil\n"), 2, "not a usable config name"),
]
