"""Which files of `--input` the documents source reads, how it opens them, and how it names what it makes.

Only regular files inside `--input` are read. The folder is walked without recursion, at most
`MAX_FOLDER_DEPTH` folders down, entry by entry without following links (`lstat`); names starting with a dot
below `--input` are skipped (the folders above it do not count). A link is read only when it leads to a
regular file inside `--input` (under the link's own name); a link leading outside, a link to a folder (its
files are read where they are, and a loop cannot run for ever), a broken link, a FIFO, a socket or a device
is a rejection with its reason. Files are opened with `O_NOFOLLOW | O_NONBLOCK` and checked again once open,
so a file swapped for a link or a FIFO in between is refused too, and a FIFO can never block the run.

A source id is the path under `--input` with `%` and `#` written `%25` and `%23`: `#` only ever separates a
file from a row id, so a file named `rows.jsonl#memo.txt` and the row `memo.txt` of `rows.jsonl` differ.
Every text, name and metadata value an item carries is masked for known secrets (core/redaction.py).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from core.loading import LoadProblem, LoadResult
from core.models import SourceItem
from core.redaction import redact, redact_data

MAX_FOLDER_DEPTH = 32  # folders below --input; deeper ones are a rejection, never a RecursionError
MAX_RAW = 2000  # characters of a rejected row kept with its problem
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True)
class FoundFile:
    name: str  # the path under --input as it is (POSIX separators)
    path: Path  # what to open: the file, or the file inside --input a link leads to

    @property
    def key(self) -> str:
        return source_key(self.name)

    @property
    def suffix(self) -> str:
        return Path(self.name).suffix.lower()


def source_key(name: str) -> str:
    """The source id of a file: its path under --input, `%` and `#` escaped (`#` separates a row id)."""
    return name.replace("%", "%25").replace("#", "%23")


def reject(result: LoadResult, origin: str, n: int, code: str, message: str, raw: str = "", unit: str = "file"):
    result.problems.append(LoadProblem(origin, n, code, message, raw[:MAX_RAW], unit))


def document_item(source_id: str, context: str, metadata: dict[str, Any]) -> SourceItem:
    """A documents item, with every known secret masked in its id, text and metadata."""
    return SourceItem(
        source="documents",
        source_id=redact(source_id) or source_id,
        context=redact(context) or context,
        metadata=redact_data(metadata),
    )


def open_regular(path: Path) -> BinaryIO:
    """`path` open for reading in binary, if it is a regular file (never a link, a FIFO or a device)."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(f"not a regular file but {_kind(mode)}")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def find_files(path: Path, result: LoadResult) -> list[FoundFile]:
    """The regular files to read under `path` (a folder, or one file), sorted by name; every other entry
    below it that is not hidden is a rejection in `result` with its reason."""
    try:
        mode = os.stat(path).st_mode  # --input itself may be a link: the curator named it
    except FileNotFoundError:
        raise FileNotFoundError(f"{path} does not exist") from None
    if stat.S_ISREG(mode):
        return [FoundFile(path.name, Path(os.path.realpath(path)))]
    if not stat.S_ISDIR(mode):
        raise FileNotFoundError(f"{path} is {_kind(mode)}, neither a file nor a folder")
    root = Path(os.path.realpath(path))
    found: list[FoundFile] = []
    stack: list[tuple[Path, str, int]] = [(path, "", 0)]  # (folder, its path under --input + "/", depth)
    while stack:
        folder, prefix, depth = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as exc:
            if not prefix:
                raise
            name = prefix.rstrip("/")
            reject(result, name, 0, "unreadable_folder", f"{name} cannot be read: {exc.strerror or exc}")
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            name = prefix + entry.name
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError as exc:
                reject(result, name, 1, "unreadable_file", f"{name} cannot be read: {exc.strerror or exc}")
                continue
            if stat.S_ISLNK(mode):
                target = _link_target(Path(entry.path), name, root, result)
                if target is not None:
                    found.append(FoundFile(name, target))
            elif stat.S_ISDIR(mode):
                if depth + 1 > MAX_FOLDER_DEPTH:
                    message = f"{name} is more than {MAX_FOLDER_DEPTH} levels of folders below --input: not read"
                    reject(result, name, 0, "folder_too_deep", message)
                else:
                    stack.append((Path(entry.path), name + "/", depth + 1))
            elif stat.S_ISREG(mode):
                found.append(FoundFile(name, Path(entry.path)))
            else:
                reject(result, name, 1, "special_file", f"{name} is {_kind(mode)}, not a regular file: not read")
    if not found and not result.problems:
        reject(result, str(path), 0, "empty_input", f"{path} holds no files: nothing to load")
    return sorted(found, key=lambda file: file.name)


def _link_target(link: Path, name: str, root: Path, result: LoadResult) -> Path | None:
    """Where a link inside --input leads, if it is a regular file inside --input; else a rejection."""
    shown = repr(os.readlink(link))
    try:
        mode = os.stat(link).st_mode
    except OSError as exc:
        reject(result, name, 1, "broken_link", f"{name} is a link to {shown}, which cannot be opened: {exc.strerror}")
        return None
    target = Path(os.path.realpath(link))
    if not target.is_relative_to(root):
        message = f"{name} is a link leading outside --input (to {shown}): only files inside --input are read"
        reject(result, name, 1, "link_outside_input", message)
        return None
    if stat.S_ISDIR(mode):
        message = f"{name} is a link to the folder {shown} inside --input: its files are read there, not twice"
        reject(result, name, 0, "linked_folder", message)
        return None
    if not stat.S_ISREG(mode):
        reject(result, name, 1, "special_file", f"{name} is a link to {_kind(mode)}, not a regular file: not read")
        return None
    return target


def _kind(mode: int) -> str:
    kinds = [
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a folder"),
    ]
    return next((kind for test, kind in kinds if test(mode)), "not a regular file")
