"""Publish a local release to a Hugging Face dataset repo, in the layout of the public SOB release.

One repo holds one config per source: `default` (text: train, validation, test), `image` and
`audio` (train). Each config owns its own folders, so publishing one never touches another's
files:

    README.md                                   one card for the repo (YAML `configs` and `dataset_info`
                                                for every config, one section per config)
    data/<config>/<split>-<sha256 prefix>.parquet  content-addressed: a new release never reuses a name
    meta/<config>/manifest.json                 the release's manifest (changelog, hashes, ...)
    meta/<config>/card.md                       the release's own card (README.md of the release folder)
    meta/<config>/plots/*.png                   the release's plots, shown in the card

The README is a `huggingface_hub.DatasetCard` made from the configs' releases in the repo (each one's
manifest and card): their `configs` and `dataset_info` entries, a table, and each card's text as a section.
The existing README is read as a `DatasetCard`: entries of configs the toolkit did not publish and keys a
curator added to the front matter are kept. A release is one commit, tagged `v<version>` for the `default`
config and `<config>-v<version>` for the others (each config has its own versions).

Publishing is idempotent: files whose content the repo already has (SHA-256 for LFS files, git
blob id otherwise, computed by `huggingface_hub`) are not uploaded; with nothing to change and the tag
in place, nothing is done. `huggingface_hub` hashes, uploads and commits; it retries the uploads itself
(`http_backoff`: HTTP 408/429/5xx and dropped connections, with backoff) and, by design, not the commit.
There is no retry loop on top: a Hub that cannot be reached (DNS, refused connection, timeout) or that
answers with a transient error raises `HubUnavailableError` at once (the CLI gives it its own exit code).
Publishing again is safe: it re-reads the repo, and the commit names its parent, so a commit that landed
before its answer was lost is not made twice (the next run only tags it).

A local folder as the target gets exactly the files the repo would get, plus `tags.json` in
place of the Hub's tags (`"target": "folder"`: a folder has no commits, so a tag names its release's
manifest instead of a commit id), so a curator can look (and `datasets.load_dataset(folder, "image")`)
before publishing. The Hub token comes from `HF_TOKEN` (or the `hf auth login` store) and is
never printed or written anywhere.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal

from core.progress import tracked
from core.sources import check_config_name
from core.sources import sources as registered_sources
from exports.card import SOURCE_CARDS, dataset_card, size_category
from exports.dataset_description import find_curator_section
from exports.manifest import file_sha256
from exports.release import ReleaseError, verify_release
from exports.versions import parse_version

DATA_PREFIX = "data"
META_PREFIX = "meta"
README = "README.md"
TAGS_FILE = "tags.json"
JOURNAL_FILE = ".sob-push-journal.json"  # a folder push in progress (hidden: not a file of the repo)
_TEMP_NAME = re.compile(r"\..+\.[0-9a-f]{8}\.tmp")  # _atomic_write's temporary files
REPO_TYPE = "dataset"
CARD_FILE = "card.md"  # meta/<config>/card.md: the config's release card, from which its README section is made
# owner/name: exactly one slash, Hub-legal characters, not starting with '.', '/' or '~'.
_REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}")
_FENCE = re.compile(r"^\s*(```|~~~)")
_RELATIVE_LINK = re.compile(r"\]\((?!https?://|mailto:|#|/)([^)\s]+)\)")
TARGET_HELP = (
    "OWNER/NAME (exactly one '/', not starting with '.', '/' or '~') is a Hugging Face dataset repo; anything "
    "else is a local folder that gets exactly the repo's files plus tags.json (write ./OWNER/NAME for a folder "
    "with one '/')"
)


class PublishError(RuntimeError):
    """A release could not be published; the message says what to do."""


class HubUnavailableError(PublishError):
    """The Hub could not be reached, or kept failing past the retries: a network failure, not a usage error."""


# --- targets ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    kind: Literal["hub", "folder"]
    repo_id: str | None = None
    folder: Path | None = None

    def __str__(self) -> str:
        return f"Hugging Face dataset repo {self.repo_id}" if self.kind == "hub" else f"local folder {self.folder}"


def parse_target(value: str) -> Target:
    """`owner/name` is a Hub repo id; a value starting with '.', '/' or '~', or with no or several
    slashes, is a local folder (see `TARGET_HELP`)."""
    text = (value or "").strip()
    if not text:
        raise ValueError("--push needs a Hub repo id (owner/name) or a local folder")
    if text.startswith("hf://datasets/"):
        text = text.removeprefix("hf://datasets/")
        if not is_repo_id(text):
            raise ValueError(f"{value!r} is not a Hub dataset repo id (hf://datasets/owner/name)")
        return Target("hub", repo_id=text)
    if not text.startswith((".", "/", "~")) and "\\" not in text and is_repo_id(text):
        return Target("hub", repo_id=text)
    return Target("folder", folder=Path(text).expanduser())


def is_repo_id(text: str) -> bool:
    return bool(_REPO_ID.fullmatch(text)) and ".." not in text and "--" not in text


def tag_name(config: str, version: str) -> str:
    """`v1.2.0` for the text config, `image-v1.2.0` / `audio-v1.2.0` for the others."""
    return f"v{version}" if config == "default" else f"{config}-v{version}"


# --- the repo layout of one release ------------------------------------------------------------


@dataclass
class LocalFile:
    """A file the repo should hold: from a release folder (`path`) or generated (`data`)."""

    path_in_repo: str
    path: Path | None = None
    data: bytes | None = None
    _sha256: str | None = None

    @property
    def size(self) -> int:
        return len(self.data) if self.data is not None else self.path.stat().st_size  # type: ignore[union-attr]

    def read(self) -> bytes:
        return self.data if self.data is not None else self.path.read_bytes()  # type: ignore[union-attr]

    @property
    def sha256(self) -> str:
        """SHA-256 of the content, as the Hub keys LFS files (the manifest's when known, else `huggingface_hub`'s)."""
        if self._sha256 is None:
            from huggingface_hub.utils.sha import sha_fileobj

            with self.open() as fileobj:
                self._sha256 = sha_fileobj(fileobj).hex()
        return self._sha256

    def open(self) -> BinaryIO:
        return io.BytesIO(self.data) if self.data is not None else self.path.open("rb")  # type: ignore[union-attr]

    @property
    def source(self) -> bytes | str:
        return self.data if self.data is not None else str(self.path)


def config_prefixes(config: str) -> tuple[str, str]:
    """The folders a config owns in the repo."""
    return f"{DATA_PREFIX}/{config}/", f"{META_PREFIX}/{config}/"


def release_files(release: Path, manifest: dict[str, Any]) -> list[LocalFile]:
    """The repo files of a release's config, README aside (data, plots, manifest and the release's card)."""
    config = manifest["config"]
    data_dir, meta_dir = config_prefixes(config)
    files = []
    for name, info in sorted((manifest.get("files") or {}).items()):
        files.append(LocalFile(data_dir + Path(name).name, path=release / name, _sha256=info.get("sha256")))
    assets = manifest.get("assets")
    if assets is None:  # manifests before format 2 do not list the plots
        assets = {str(p.relative_to(release)): {} for p in sorted((release / "plots").glob("*.png"))}
    for name, info in sorted(assets.items()):
        files.append(LocalFile(meta_dir + name, path=release / name, _sha256=info.get("sha256")))
    files.append(LocalFile(meta_dir + "manifest.json", path=release / "manifest.json"))
    files.append(LocalFile(meta_dir + CARD_FILE, path=release / README))
    return files


def config_entry(config: str, manifest: dict[str, Any]) -> dict[str, Any]:
    """The config's entry in the README's YAML `configs`: each split's one data file by its content-addressed
    name (splits without rows are left out: `datasets` cannot load them)."""
    listed = [split for split, n in manifest["splits"].items() if n > 0]
    file_of = {info["split"]: Path(name).name for name, info in (manifest.get("files") or {}).items()}
    data_dir = config_prefixes(config)[0]
    return {
        "config_name": config,
        "data_files": [
            {"split": split, "path": data_dir + file_of[split] if split in file_of else f"{data_dir}{split}-*.parquet"}
            for split in listed
        ],
    }


@dataclass(frozen=True)
class ConfigRelease:
    """A config's release as the README shows it: its manifest and its own card (README.md of the release)."""

    manifest: dict[str, Any]
    card: str

    @classmethod
    def of(cls, release: Path, manifest: dict[str, Any]) -> ConfigRelease:
        return cls(manifest, (release / README).read_text(encoding="utf-8"))

    @property
    def config(self) -> str:
        return self.manifest["config"]

    def dataset_card(self) -> Any:
        from huggingface_hub import DatasetCard

        try:
            return DatasetCard(self.card)
        except ValueError as exc:
            raise PublishError(
                f"the card of {self.config} {self.manifest.get('version')} does not parse: {exc}"
            ) from exc

    def dataset_info(self) -> dict[str, Any] | None:
        """The `dataset_info` of the release's own card (features and sizes), None for a card without one."""
        info = self.dataset_card().data.to_dict().get("dataset_info")
        return {**info, "config_name": self.config} if isinstance(info, dict) else None

    def section(self) -> str:
        """The config's README section: the release card's text, headings demoted, links to the release's files
        pointed at `meta/<config>/`."""
        body = self.dataset_card().text.strip("\n")
        if (own := find_curator_section(body)) is not None:  # shown once, at the top of the README
            body = body.replace(own, "").replace("\n\n\n\n", "\n\n")
        body = demote_headings(body)
        return _RELATIVE_LINK.sub(lambda m: f"]({META_PREFIX}/{self.config}/{m.group(1)})", body)

    def summary(self) -> dict[str, Any]:
        """The config's row of the README's table."""
        source = self.manifest["source"]
        return {
            "config": self.config,
            "source": source,
            "version": self.manifest["version"],
            "records": self.manifest["num_records"],
            "splits": self.manifest["splits"],
            "license": self.dataset.get("license")
            or (SOURCE_CARDS[source].license if source in SOURCE_CARDS else None),
            "title": self.dataset.get("title"),
            "languages": self.dataset.get("languages"),
        }

    @property
    def dataset(self) -> dict[str, Any]:
        """The project file's description of the dataset, as the release's manifest keeps it ({} without one)."""
        return self.manifest.get("dataset") or {}


def release_dataset_info(release: Path) -> dict[str, Any] | None:
    """The `dataset_info` of a release folder's card."""
    return ConfigRelease.of(release, json.loads((release / "manifest.json").read_text(encoding="utf-8"))).dataset_info()


# --- the README: one card for all configs ------------------------------------------------------


def demote_headings(markdown: str) -> str:
    """One more `#` on every heading outside code fences (a release card becomes a README section)."""
    out, fenced = [], False
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,5} ", line):
            line = "#" + line
        out.append(line)
    return "\n".join(out)


def _config_key(name: str) -> tuple[int, str]:
    """Configs in the registry's order of their sources (SOB's default, image, audio first), others after."""
    order = [source.release_config for source in registered_sources()]
    return (order.index(name) if name in order else len(order), name)


def _union(lists: list[list[str]]) -> list[str]:
    seen: list[str] = []
    for items in lists:
        for item in items:
            if item not in seen:
                seen.append(item)
    return seen


def _header(metas: list[dict[str, Any]], curator_text: str | None) -> str:
    titles = _union([[m["title"]] for m in metas if m.get("title")])
    lines = [
        f"# {titles[0] if len(titles) == 1 else 'SOB structured outputs'}",
        "",
        *([curator_text, ""] if curator_text else []),
        "Structured-output benchmark records built with the SOB method: each gives a model a context, a question "
        "and a JSON Schema, with a curated ground truth that follows the schema. One config per source; every "
        "config's section below is its dataset card (how the records were built, statistics, plots, changes, "
        "licence).",
        "",
        "| Config | Source | Version | Records | Licence | Load it |",
        "|---|---|---|---:|---|---|",
    ]
    for meta in metas:
        config, source = meta["config"], meta.get("source", "")
        info = SOURCE_CARDS.get(source)
        splits = [s for s, n in (meta.get("splits") or {}).items() if n]
        split = "test" if "test" in splits else (splits[0] if splits else "train")
        name_arg = "" if config == "default" else f', "{config}"'
        lines.append(
            f"| `{config}` | {info.name if info else source} | {meta.get('version', '?')} | "
            f"{meta.get('records', 0):,} | {meta.get('license', '?')} | "
            f'`load_dataset(repo{name_arg}, split="{split}")` |'
        )
    lines += [
        "",
        "Each config is versioned on its own: tag `v<version>` marks a release of `default`, `image-v<version>` "
        "and `audio-v<version>` those of the other configs. `meta/<config>/manifest.json` lists each release's "
        "files, hashes and changelog, `meta/<config>/card.md` its own dataset card.",
    ]
    return "\n".join(lines)


def _dataset_infos(old: Any) -> list[dict[str, Any]]:
    """The README's `dataset_info` as a list of per-config entries (the Hub also accepts one mapping)."""
    if isinstance(old, dict):
        return [{"config_name": "default", **old}]
    return [info for info in old or [] if isinstance(info, dict)]


def readme_front_matter(readme: str | None, where: str) -> dict[str, Any]:
    """The YAML front matter of a repo's README as `huggingface_hub.DatasetCard` reads it; a README whose front
    matter does not parse is a `PublishError` naming it (`where`), in one line."""
    import yaml
    from huggingface_hub import DatasetCard

    if not readme:
        return {}
    try:
        front = DatasetCard(readme).data.to_dict()
    except (ValueError, TypeError, AttributeError, yaml.YAMLError) as exc:
        raise PublishError(f"{where} has front matter that does not parse ({_one_line(exc)}); fix it first") from exc
    return front


def build_readme(existing: str | None, releases: dict[str, ConfigRelease]) -> str:
    """The repo README for the configs' current `releases`: YAML `configs` and `dataset_info` from each
    release's card, a table of the configs, then one section per config (its release card's text).

    The existing README is read as a `huggingface_hub.DatasetCard`: from its `.data`, the entries of configs
    the toolkit did not publish and every key a curator added by hand are kept. Its text is the toolkit's
    and is written anew. The result is checked as the Hub and `datasets` read it."""
    old = readme_front_matter(existing, "the repo's README.md")
    order = sorted(releases, key=_config_key)
    ours = set(order)
    configs = [c for c in old.get("configs") or [] if isinstance(c, dict) and c.get("config_name") not in ours]
    configs += [config_entry(name, releases[name].manifest) for name in order]
    infos = [i for i in _dataset_infos(old.get("dataset_info")) if i.get("config_name", "default") not in ours]
    infos += [info for name in order if (info := releases[name].dataset_info()) is not None]
    metas = [releases[name].summary() for name in order]
    sources = [SOURCE_CARDS[m["source"]] for m in metas if m["source"] in SOURCE_CARDS]
    licences = _union([[m["license"]] for m in metas if m.get("license")])
    titles = _union([[m["title"]] for m in metas if m.get("title")])
    languages = _union([list(m["languages"]) for m in metas if m.get("languages")])
    front: dict[str, Any] = {
        "license": licences[0] if len(licences) == 1 else licences,
        "language": languages or old.get("language") or ["en"],
        "pretty_name": titles[0]
        if len(titles) == 1
        else "SOB structured outputs: " + ", ".join(i.pretty_name.split(": ", 1)[-1] for i in sources),
        "task_categories": _union([list(i.task_categories) for i in sources]),
        "tags": _union([list(i.tags) for i in sources]),
        "size_categories": [size_category(sum(int(m["records"]) for m in metas))],
        "configs": sorted(configs, key=lambda c: _config_key(str(c.get("config_name")))),
    }
    if infos:
        front["dataset_info"] = sorted(infos, key=lambda i: _config_key(str(i.get("config_name"))))
    for key, value in old.items():  # keep what a curator added by hand
        front.setdefault(key, value)
    for key in ("license_name", "license_link"):  # an `other` licence names its terms
        values = _union([[str(releases[n].dataset[key])] for n in order if releases[n].dataset.get(key)])
        if len(values) == 1:
            front[key] = values[0]
    # The curator's own text: as the repo's README has it (edited there, it is kept), else from the releases' cards.
    curator_text = find_curator_section(existing or "") or next(
        (own for name in order if (own := find_curator_section(releases[name].card)) is not None), None
    )
    text = "\n\n".join([_header(metas, curator_text), *(releases[name].section() for name in order)]) + "\n"
    try:
        return str(dataset_card(front, text))
    except ValueError as exc:
        raise PublishError(f"the merged README.md of the repo would not be a valid dataset card: {exc}") from exc


# --- repo state, plans and results -----------------------------------------------------------


@dataclass(frozen=True)
class RemoteFile:
    path: str
    size: int
    sha256: str | None  # LFS files (and every file of a folder target)
    git_oid: str | None  # the Hub's blob id of non-LFS files

    def same_as(self, local: LocalFile) -> bool:
        if self.size != local.size:
            return False
        if self.sha256 is not None:
            return self.sha256 == local.sha256
        from huggingface_hub.utils.sha import git_hash  # the Hub's blob id of a non-LFS file

        return self.git_oid is not None and self.git_oid == git_hash(local.read())


@dataclass
class RepoState:
    exists: bool
    head: str | None = None
    files: dict[str, RemoteFile] = field(default_factory=dict)
    tags: dict[str, str | None] = field(default_factory=dict)  # tag -> Hub commit (None in a folder: no commits)
    readme: str | None = None
    private: bool | None = None
    releases: dict[str, ConfigRelease] = field(default_factory=dict)  # config -> its release in the repo


def repo_releases(paths: set[str], read: Callable[[str], bytes]) -> dict[str, ConfigRelease]:
    """The configs' releases a repo holds (`meta/<config>/manifest.json` and `card.md`), read with `read`.
    A config whose files are missing or broken is not the toolkit's to rewrite: its YAML entries are kept."""
    found = {}
    for path in sorted(paths):
        parts = path.split("/")
        if len(parts) != 3 or parts[0] != META_PREFIX or parts[2] != "manifest.json":
            continue
        card = f"{META_PREFIX}/{parts[1]}/{CARD_FILE}"
        if card not in paths:
            continue
        try:
            manifest = json.loads(read(path))
            release = ConfigRelease(manifest, read(card).decode("utf-8"))
            if release.config == parts[1]:
                found[parts[1]] = release
        except (ValueError, KeyError, TypeError):
            continue
    return found


@dataclass
class PublishPlan:
    target: Target
    config: str
    source: str
    version: str
    tag: str
    base: str | None  # commit the plan was made against
    create_repo: bool
    adds: list[LocalFile]
    deletes: list[str]
    unchanged: list[str]
    tag_exists: bool
    tag_commit: str | None  # the Hub commit the tag already points to
    commit_message: str
    commit_description: str

    @property
    def changes(self) -> bool:
        return bool(self.adds or self.deletes)

    def describe(self, private: bool = False) -> str:
        lines = [f"publish {self.config} {self.version} ({self.source}) to {self.target}"]
        if self.create_repo:
            what = "repo" if self.target.kind == "hub" else "folder"
            visibility = " (private)" if private and self.target.kind == "hub" else ""
            lines.append(f"  create the {what}{visibility}")
        if self.changes:
            base = f" on {self.base[:12]}" if self.base else ""
            what = "one commit" if self.target.kind == "hub" else "write the files"
            lines.append(f"  {what}{base}: {self.commit_message}")
            for line in self.commit_description.splitlines():
                lines.append(f"    | {line}")
            for file in self.adds:
                lines.append(f"    add     {file.path_in_repo} ({file.size:,} bytes, sha256 {file.sha256[:16]})")
            for path in self.deletes:
                lines.append(f"    delete  {path}")
            lines.append(f"    {len(self.unchanged)} file(s) already there, unchanged")
        else:
            lines.append(f"  no commit: the {self.target.kind} already holds these {len(self.unchanged)} file(s)")
        if self.tag_exists:
            where = f" (commit {self.tag_commit[:12]})" if self.tag_commit else " (in tags.json)"
            lines.append(f"  tag {self.tag}: already there{where}")
        elif self.target.kind == "folder":
            lines.append(f"  tag {self.tag} in tags.json")
        else:
            lines.append(f"  tag {self.tag} on {'the new commit' if self.changes else 'the current head'}")
        return "\n".join(lines)


@dataclass(frozen=True)
class PublishResult:
    target: str
    config: str
    version: str
    tag: str
    status: Literal["published", "tagged", "unchanged", "dry-run"]
    commit: str | None
    added: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    unchanged: int = 0


def _remote_version(state: RepoState, config: str) -> str | None:
    release = state.releases.get(config)
    version = release.manifest.get("version") if release else None
    return version if isinstance(version, str) else None


def _commit_text(manifest: dict[str, Any]) -> tuple[str, str]:
    config, version, source = manifest["config"], manifest["version"], manifest["source"]
    name = SOURCE_CARDS[source].name if source in SOURCE_CARDS else source
    message = f"Release {config} {version} ({name}, {manifest['num_records']:,} records)"
    lines = [f"Parent release: {manifest.get('parent_version') or 'none (first release)'}"]
    log = manifest.get("changelog")
    if log:
        for split, f in log.get("splits", {}).items():
            lines.append(
                f"{split}: +{f['added']} added, -{f['removed']} removed, ~{f['changed']} changed, "
                f"{f['unchanged']} unchanged"
            )
    lines.append(
        f"Judge: {manifest['judge']['name']} {manifest['judge']['version']}, threshold {manifest['judge']['threshold']}"
    )
    return message, "\n".join(lines)


def plan_publish(release: Path, manifest: dict[str, Any], state: RepoState, target: Target) -> PublishPlan:
    """What publishing `release` onto a repo in `state` takes (pure: reads local files only)."""
    config, version = manifest["config"], manifest["version"]
    tag = tag_name(config, version)
    local = release_files(release, manifest)
    remote_version = _remote_version(state, config)
    if remote_version is not None and _version_key(remote_version) > parse_version(version):
        raise PublishError(
            f"{target} already has {config} {remote_version}, newer than {version}: publishing {version} would roll "
            f"it back. Publish a version above {remote_version} instead."
        )
    if remote_version == version:
        data_prefix = config_prefixes(config)[0]
        differing = [
            f.path_in_repo
            for f in local
            if f.path_in_repo.startswith(data_prefix)
            and (f.path_in_repo not in state.files or not state.files[f.path_in_repo].same_as(f))
        ]
        if differing:
            raise PublishError(
                f"{target} already has {config} {version} with other data ({', '.join(differing)}); a published "
                "version is immutable: write and publish a new version"
            )
    readme = build_readme(state.readme, {**state.releases, config: ConfigRelease.of(release, manifest)})
    local.append(LocalFile(README, data=readme.encode("utf-8")))

    adds, unchanged = [], []
    for file in local:
        remote = state.files.get(file.path_in_repo)
        if remote is not None and remote.same_as(file):
            unchanged.append(file.path_in_repo)
        else:
            adds.append(file)
    wanted = {f.path_in_repo for f in local}
    owned = config_prefixes(config)
    deletes = sorted(p for p in state.files if p.startswith(owned) and p not in wanted)
    message, description = _commit_text(manifest)
    return PublishPlan(
        target=target,
        config=config,
        source=manifest["source"],
        version=version,
        tag=tag,
        base=state.head,
        create_repo=not state.exists,
        adds=adds,
        deletes=deletes,
        unchanged=unchanged,
        tag_exists=tag in state.tags,
        tag_commit=state.tags.get(tag),
        commit_message=message,
        commit_description=description,
    )


def _version_key(version: str) -> tuple[int, int, int]:
    try:
        return parse_version(version)
    except ValueError:
        return (-1, -1, -1)


# --- the local folder target -----------------------------------------------------------------


def _folder_files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if path.is_file() and rel.as_posix() != TAGS_FILE and not any(part.startswith(".") for part in rel.parts):
            yield path


def read_folder_tags(folder: Path) -> dict[str, dict[str, Any]]:
    path = folder / TAGS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except ValueError as exc:  # UnicodeDecodeError included
        raise PublishError(f"{path} is not valid JSON ({_one_line(exc)}); fix or remove it") from exc
    tags = data.get("tags") if isinstance(data, dict) else None
    written = data.get("written", {}) if isinstance(data, dict) else None
    tags_ok = isinstance(tags, dict) and all(isinstance(tag, dict) for tag in tags.values())
    if not tags_ok or not isinstance(written, dict):
        raise PublishError(
            f"{path} is not the toolkit's tags file (an object with a `tags` object of tag objects and a `written` "
            "object): fix or remove it"
        )
    return dict(tags)


def folder_state(folder: Path) -> RepoState:
    if not folder.exists():
        return RepoState(exists=False)
    if not folder.is_dir():
        raise PublishError(f"{folder} exists and is not a folder")
    files = {}
    for path in _folder_files(folder):
        rel = path.relative_to(folder).as_posix()
        files[rel] = RemoteFile(rel, path.stat().st_size, file_sha256(path), None)
    try:
        readme = (folder / README).read_text(encoding="utf-8") if (folder / README).is_file() else None
    except UnicodeDecodeError as exc:
        raise PublishError(f"{folder / README} is not UTF-8 text ({_one_line(exc)}); fix or remove it") from exc
    readme_front_matter(readme, str(folder / README))
    tags: dict[str, str | None] = dict.fromkeys(read_folder_tags(folder))  # a folder has tags, not commits
    releases = repo_releases(set(files), lambda rel: (folder / rel).read_bytes())
    return RepoState(exists=True, files=files, tags=tags, readme=readme, releases=releases)


def _atomic_write(path: Path, source: LocalFile) -> None:
    """Write a temporary file beside `path`, then rename it into place: a reader never sees half a file. A
    failure names `path` (shutil names the file it copied from, which is not the one that failed)."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if source.data is not None:
            tmp.write_bytes(source.data)
        else:
            shutil.copyfile(source.path, tmp)  # type: ignore[arg-type]
        os.replace(tmp, path)
    except OSError as exc:
        raise PublishError(
            f"cannot write {path}: {exc.strerror or _one_line(exc)}. Files already written stay and are "
            "recorded; free space (or fix the folder) and push again: it carries on where it stopped"
        ) from exc
    finally:
        tmp.unlink(missing_ok=True)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]


def _apply_to_folder(folder: Path, plan: PublishPlan) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for file in tracked(plan.adds, f"publish to {folder}", total=len(plan.adds), unit="file"):
        _atomic_write(folder / file.path_in_repo, file)
    for rel in plan.deletes:
        (folder / rel).unlink(missing_ok=True)
    for prefix in config_prefixes(plan.config):  # drop folders the deletes emptied
        root = folder / prefix
        if root.is_dir():
            for sub in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
                if not any(sub.iterdir()):
                    sub.rmdir()


def read_written(folder: Path) -> dict[str, str]:
    """The files the toolkit wrote into the folder, path -> SHA-256 (kept in tags.json)."""
    try:
        data = json.loads((folder / TAGS_FILE).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):  # a broken tags.json is named by read_folder_tags
        return {}
    files = data.get("written") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


def _not_ours(plan: PublishPlan, state: RepoState, written: dict[str, str]) -> list[str]:
    """Files already in the folder that the plan would overwrite or delete, and that the toolkit did not
    write there (or that someone changed since). README.md is merged, not replaced: its other sections stay."""
    touched = [f.path_in_repo for f in plan.adds if f.path_in_repo in state.files] + plan.deletes
    return sorted(path for path in touched if path != README and written.get(path) != state.files[path].sha256)


def _write_folder_tags(folder: Path, plan: PublishPlan, written: dict[str, str]) -> None:
    """tags.json: the tags the repo would have (a folder has no commits: a tag names its release's manifest by
    SHA-256 instead), and the files the toolkit has written (after this plan)."""
    tags = read_folder_tags(folder)
    if not plan.tag_exists:
        manifest = f"{config_prefixes(plan.config)[1]}manifest.json"
        tags[plan.tag] = {
            "config": plan.config,
            "version": plan.version,
            "message": plan.commit_message,
            "manifest": manifest,
            "manifest_sha256": file_sha256(folder / manifest),
        }
    files = dict(written)
    files.update((file.path_in_repo, file.sha256) for file in plan.adds)
    for path in plan.deletes:
        files.pop(path, None)
    doc = {
        "target": "folder",  # not a Hub repo: no commits, so no commit ids
        "about": "The tags the Hugging Face repo would have; a folder has no commits, so each tag names the "
        "manifest of its release (and its SHA-256) instead. `written`: the files the toolkit wrote here, the "
        "only ones a later push may replace or delete.",
        "tags": dict(sorted(tags.items())),
        "written": dict(sorted(files.items())),
    }
    _atomic_write(folder / TAGS_FILE, LocalFile(TAGS_FILE, data=(json.dumps(doc, indent=2) + "\n").encode()))


def _check_folder_target(folder: Path, release: Path, releases_root: Path | None) -> None:
    """A push writes only inside its folder, and never into a release (which is sealed by its manifest):
    refuse a folder inside the workspace's releases (or holding a release's manifest.json), and symbolic
    links anywhere in the folder (a linked folder would take the files somewhere else)."""
    resolved = folder.resolve()
    for protected in (releases_root, release):
        if protected is not None and resolved.is_relative_to(protected.resolve()):
            where = "is" if resolved == protected.resolve() else "is inside"
            raise PublishError(
                f"{folder} {where} {protected}, where releases live: push to a folder outside it (a push there "
                "would change a sealed release)"
            )
    if (folder / "manifest.json").is_file():
        raise PublishError(f"{folder} holds a release (manifest.json): push to another folder")
    if not folder.is_dir():
        return
    links = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        links += [Path(root, name) for name in dirs + files if Path(root, name).is_symlink()]
    if links:
        shown = ", ".join(str(p.relative_to(folder)) for p in sorted(links)[:5])
        raise PublishError(
            f"{folder} holds {len(links)} symbolic link(s) ({shown}): a push writes only real files and folders "
            "inside its target. Nothing was changed: replace the links with real folders, or push to another folder"
        )


def _recover_journal(folder: Path, state: RepoState, written: dict[str, str]) -> dict[str, str]:
    """After a push that was killed: the files its journal lists, found with the content it wrote, are the
    toolkit's (a later push may replace them); its half-written temporary files are removed."""
    try:
        journal = json.loads((folder / JOURNAL_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return written
    except ValueError:  # killed while writing the journal itself (written by rename: cannot happen, but safe)
        journal = {}
    planned = journal.get("written") if isinstance(journal, dict) else None
    recovered = dict(written)
    for path, sha256 in (planned if isinstance(planned, dict) else {}).items():
        on_disk = state.files.get(str(path))
        if on_disk is not None and on_disk.sha256 == sha256:
            recovered[str(path)] = str(sha256)
    for leftover in folder.rglob(".*.tmp"):
        if _TEMP_NAME.fullmatch(leftover.name) and leftover.is_file() and not leftover.is_symlink():
            leftover.unlink()
    return recovered


def _publish_folder(
    release: Path, manifest: dict[str, Any], target: Target, dry_run: bool, echo, releases_root: Path | None
) -> PublishResult:
    folder = target.folder
    assert folder is not None
    _check_folder_target(folder, release, releases_root)
    state = folder_state(folder)
    plan = plan_publish(release, manifest, state, target)
    written = _recover_journal(folder, state, read_written(folder))
    foreign = _not_ours(plan, state, written)
    if foreign:
        raise PublishError(
            f"{folder} holds {len(foreign)} file(s) the toolkit did not write (or that were changed since), which "
            f"publishing {plan.config} {plan.version} would replace or delete: {', '.join(foreign)}. Nothing was "
            "changed: move them out of the folder, or push to another folder"
        )
    base = dict(target=str(target), config=plan.config, version=plan.version, tag=plan.tag)
    if dry_run:
        echo("dry run: would " + plan.describe())
        return PublishResult(**base, status="dry-run", commit=None, unchanged=len(plan.unchanged))
    if plan.changes or plan.create_repo:
        folder.mkdir(parents=True, exist_ok=True)
        # The journal first: a push killed midway is recognised by the next one, which carries on.
        planned = {**written, **{f.path_in_repo: f.sha256 for f in plan.adds}}
        journal = {"about": "a push in progress: the files it writes (removed when it ends)", "written": planned}
        _atomic_write(folder / JOURNAL_FILE, LocalFile(JOURNAL_FILE, data=json.dumps(journal, indent=2).encode()))
        _apply_to_folder(folder, plan)
    _write_folder_tags(folder, plan, written)
    (folder / JOURNAL_FILE).unlink(missing_ok=True)
    return _finished(plan, base, None, echo)


def _finished(
    plan: PublishPlan, base: dict[str, Any], commit: str | None, echo: Callable[[str], None]
) -> PublishResult:
    """The result of a publish, on either target (`commit`: the Hub commit that carries the version; None for a
    folder), and its one-line summary."""
    status = "published" if plan.changes else ("tagged" if not plan.tag_exists else "unchanged")
    echo(_summary(plan, status, commit))
    return PublishResult(
        **base,
        status=status,
        commit=commit,
        added=tuple(f.path_in_repo for f in plan.adds),
        deleted=tuple(plan.deletes),
        unchanged=len(plan.unchanged),
    )


# --- the Hub target --------------------------------------------------------------------------

# Answers of a Hub that may well succeed when asked again later: the same status codes huggingface_hub's
# http_backoff retries (it retries the uploads itself; the commit and the reads it does not, and nor do we).
TRANSIENT_STATUS = frozenset({408, 429, 500, 502, 503, 504})


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _host(exc: BaseException, endpoint: str | None) -> str:
    """The host the failed request went to (from the request httpx kept), else the endpoint's."""
    from urllib.parse import urlsplit

    from huggingface_hub import constants

    for error in _chain(exc):
        try:
            request = getattr(error, "request", None)
        except RuntimeError:  # httpx raises when an error carries no request
            request = None
        if request is not None and getattr(request, "url", None) is not None:
            return str(request.url.host)
    return urlsplit(endpoint or constants.ENDPOINT).hostname or "the Hub"


def hub_failure(exc: BaseException, repo_id: str, endpoint: str | None) -> PublishError:
    """The error a failed Hub call ends the publish with. No connection at all (DNS, refused, timeout) or a
    transient answer (HTTP 408/429/5xx, past huggingface_hub's own retries of the uploads) is a network failure
    (`HubUnavailableError`): publishing again is safe, it re-reads the repo and commits only what is missing.
    Anything else (a refused token, a 400) is a `PublishError` that says what the Hub answered."""
    import httpx
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    again = "nothing was lost: publish again, it commits only what is missing and never twice"
    for error in _chain(exc):
        if isinstance(error, OfflineModeIsEnabled):
            return PublishError(f"cannot publish to {repo_id}: huggingface_hub is offline (unset HF_HUB_OFFLINE)")
        if isinstance(error, httpx.TransportError):
            return HubUnavailableError(
                f"the Hugging Face Hub at {_host(exc, endpoint)} could not be reached to publish to {repo_id} "
                f"({_short(error)}); check the network (or HF_ENDPOINT); {again}"
            )
        if isinstance(error, HfHubHTTPError):
            response = getattr(error, "response", None)
            if response is not None and response.status_code in TRANSIENT_STATUS:
                return HubUnavailableError(
                    f"the Hugging Face Hub at {_host(exc, endpoint)} failed while publishing to {repo_id} "
                    f"({_short(error)}); {again}"
                )
            if response is not None and response.status_code == 412:
                return PublishError(f"{repo_id} changed while publishing to it (someone else committed): publish again")
            return PublishError(f"publishing to {repo_id} failed: {_short(error)}")
    return PublishError(f"publishing to {repo_id} failed: {_short(exc)}")


def _hub_state(api: Any, repo_id: str) -> RepoState:
    from huggingface_hub import RepoFile
    from huggingface_hub.errors import RepositoryNotFoundError

    try:
        info = api.dataset_info(repo_id)
    except RepositoryNotFoundError:
        return RepoState(exists=False)
    head = info.sha
    files = {}
    for entry in api.list_repo_tree(repo_id, repo_type=REPO_TYPE, revision=head, recursive=True):
        if isinstance(entry, RepoFile):
            sha256 = entry.lfs.sha256 if entry.lfs else None
            files[entry.path] = RemoteFile(entry.path, entry.size, sha256, entry.blob_id)
    tags: dict[str, str | None] = {
        ref.name: ref.target_commit for ref in api.list_repo_refs(repo_id, repo_type=REPO_TYPE).tags
    }
    with tempfile.TemporaryDirectory(prefix="sob-hub-") as cache:

        def read(path: str) -> bytes:
            local = api.hf_hub_download(repo_id, path, repo_type=REPO_TYPE, revision=head, cache_dir=cache)
            return Path(local).read_bytes()

        readme = read(README).decode("utf-8") if README in files else None
        releases = repo_releases(set(files), read)
    return RepoState(
        exists=True, head=head, files=files, tags=tags, readme=readme, private=info.private, releases=releases
    )


def _publish_hub(
    release: Path,
    manifest: dict[str, Any],
    target: Target,
    *,
    private: bool,
    dry_run: bool,
    token: str | None,
    endpoint: str | None,
    echo: Callable[[str], None],
) -> PublishResult:
    """One pass: read the repo, plan, commit what is missing (huggingface_hub hashes, uploads and retries
    the uploads), tag the commit that carries the version. Any failure ends the publish (`hub_failure`)."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi
    from huggingface_hub import get_token as stored_token

    repo_id = target.repo_id
    assert repo_id is not None
    token = token or os.environ.get("HF_TOKEN") or stored_token()
    if not token and not dry_run:
        raise PublishError(
            f"no Hugging Face token to publish to {repo_id}: set HF_TOKEN to a token with write access "
            "(or run `hf auth login`)"
        )
    api = HfApi(endpoint=endpoint, token=token or None, library_name="sob-curation-toolkit")
    try:
        state = _hub_state(api, repo_id)
        plan = plan_publish(release, manifest, state, target)
        base = dict(target=str(target), config=plan.config, version=plan.version, tag=plan.tag)
        if dry_run:
            echo("dry run: would " + plan.describe(private=private))
            return PublishResult(**base, status="dry-run", commit=None, unchanged=len(plan.unchanged))
        if private and state.exists and state.private is False:
            echo(f"note: {repo_id} exists and is public; --private applies only when the repo is created")
        if not state.exists:
            api.create_repo(repo_id, repo_type=REPO_TYPE, private=private, exist_ok=True)
            echo(f"created {'private' if private else 'public'} dataset repo {repo_id}")
            state = _hub_state(api, repo_id)  # the new repo has an initial commit to build on
            plan = plan_publish(release, manifest, state, target)
        commit = state.head
        if plan.changes:
            operations: list[Any] = [
                CommitOperationAdd(path_in_repo=f.path_in_repo, path_or_fileobj=f.source) for f in plan.adds
            ]
            operations += [CommitOperationDelete(path_in_repo=p) for p in plan.deletes]
            info = api.create_commit(
                repo_id,
                operations,
                commit_message=plan.commit_message,
                commit_description=plan.commit_description,
                repo_type=REPO_TYPE,
                parent_commit=state.head,  # a commit that landed before its answer was lost is not made twice
            )
            commit = info.oid
        if not plan.tag_exists:
            api.create_tag(repo_id, tag=plan.tag, revision=commit, repo_type=REPO_TYPE, tag_message=plan.commit_message)
    except PublishError:
        raise
    except Exception as exc:
        raise hub_failure(exc, repo_id, endpoint) from exc
    assert commit is not None
    return _finished(plan, base, commit, echo)


def _short(exc: BaseException) -> str:
    """One line about an error: HTTP status and the server's message when there is one (never headers)."""
    text = str(exc).strip().splitlines()
    line = f"{type(exc).__name__}: {text[0] if text else ''}"
    response = getattr(exc, "response", None)
    if response is not None and getattr(response, "status_code", None):
        server = getattr(exc, "server_message", None) or ""
        line = f"HTTP {response.status_code}, {line}" + (f" ({server.strip()})" if server.strip() else "")
    return line[:300]


def _summary(plan: PublishPlan, status: str, commit: str | None) -> str:
    where = f"commit {commit[:12]}" if commit else "written"  # a folder has no commits
    tag = f"tag {plan.tag}" if commit else f"tag {plan.tag} in tags.json"
    if status == "published":
        return (
            f"published {plan.config} {plan.version} to {plan.target}: {where}, {len(plan.adds)} file(s) added or "
            f"updated, {len(plan.deletes)} deleted, {len(plan.unchanged)} unchanged; {tag}"
        )
    if status == "tagged":
        return f"{plan.target} already had {plan.config} {plan.version}; {tag}" + (f" on {where}" if commit else "")
    return f"{plan.target} already has {plan.config} {plan.version} (tag {plan.tag}): nothing to do"


# --- entry point -----------------------------------------------------------------------------


def publish_release(
    release: Path | str,
    target: str | Target,
    *,
    private: bool = False,
    dry_run: bool = False,
    token: str | None = None,
    endpoint: str | None = None,
    echo: Callable[[str], None] = print,
    releases_root: Path | None = None,
) -> PublishResult:
    """Publish the local release folder `release` to `target` (a Hub repo id, a folder, or a `Target`).

    The release is checked against its manifest first (it must be unmodified). A folder target may not lie
    inside `releases_root` (the workspace's releases)."""
    release = Path(release)
    try:
        manifest = verify_release(release)
    except ReleaseError as exc:
        raise PublishError(str(exc)) from exc
    if not (release / README).is_file():
        raise PublishError(f"{release} has no README.md card; it is not a complete release")
    try:  # any source's config, or a curator's own (`--config`): a name the Hub and a folder both take
        check_config_name(str(manifest.get("config") or ""))
    except ValueError as exc:
        raise PublishError(f"{release}: config {manifest.get('config')!r} in manifest.json: {exc}") from exc
    parsed = target if isinstance(target, Target) else parse_target(target)
    if parsed.kind == "folder":
        return _publish_folder(release, manifest, parsed, dry_run, echo, releases_root)
    return _publish_hub(
        release,
        manifest,
        parsed,
        private=private,
        dry_run=dry_run,
        token=token,
        endpoint=endpoint,
        echo=echo,
    )
