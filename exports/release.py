"""Write a local release: WORKSPACE/releases/<config>/<VERSION>/ with data files, card and manifest.

A release folder is never overwritten. Everything is written into a temp folder beside it and
renamed into place at the end, so a crash leaves no half release (stale temp folders are removed
by the next run). Writing the same records again under an existing version is a no-op
(`unchanged`); different records under an existing version are refused.

Data files are deterministic: rows sorted by record id, a fixed Arrow schema (with the `huggingface`
features metadata `datasets` writes), fixed batch and row-group sizes and no timestamps inside, so the
same records give byte-identical files. Each is named after its content's SHA-256 (`train-<16 hex>.parquet`).

Besides the data, a release holds its card (README.md), PNG plots (plots/) and manifest.json,
which records the SHA-256 of every other file and the changelog from the parent release. Once
renamed into place, the files are made read-only; `verify_release` checks them against the
manifest (publishing does, before anything is uploaded).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from core import fast_json
from core.derived import merged
from core.gc_tuning import fewer_collections
from core.models import RecordState
from core.progress import tracked
from core.sources import release_config_of, source_family
from core.store import Store
from exports import card as card_mod
from exports import page_images as page_images_mod
from exports import plot_data
from exports import plots as plots_mod
from exports.audit import audit_summary
from exports.audit import card_section as audit_card_section
from exports.audit import manifest_entry as audit_manifest_entry
from exports.changelog import compute_changelog, content_columns, first_release_changelog, release_digests, row_digest
from exports.columns import record_row, stored_row
from exports.curation_card import card_section as curation_card_section
from exports.dataset_description import DatasetDescription
from exports.features import release_schema
from exports.flags import accepted_with_open_flags, flag_counts
from exports.layout import DATA_DIR
from exports.manifest import build_funnel, build_manifest, file_sha256
from exports.splits import SplitAssigner, split_names
from exports.stats import StatsCollector
from exports.versions import parse_version, previous_version

TEMP_PREFIX = ".tmp-"
WRITE_BATCH = 1000  # rows per write and per row group; part of the byte-identical output, keep fixed
PAGE_IMAGE_BATCH = 100  # the same with page images (PNG bytes in every row): as `datasets` does for images
READ_BATCH = 2000  # stored records fetched at a time
COMPRESSION = "zstd"
T = TypeVar("T")


class ReleaseError(RuntimeError):
    """A release could not be written."""


class ReleaseExistsError(ReleaseError):
    """The version is already released with different records."""


class EmptyReleaseError(ReleaseError):
    """No accepted records to release."""


@dataclass(frozen=True)
class ReleaseResult:
    path: Path
    version: str
    config: str
    source: str
    status: Literal["written", "unchanged"]
    counts: dict[str, int]  # rows per split, in publishing order
    parent: str | None = None
    new_split_assignments: int = 0

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass
class _Written:
    counts: dict[str, int]
    files: dict[str, dict[str, Any]]
    record_ids_sha256: str
    new_assignments: dict[str, str]
    stats: dict[str, Any]
    distributions: dict[str, Any]
    digests: dict[str, tuple[str, str]] | None  # record_id -> (split, content digest), when a parent exists

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def data_file_name(split: str, sha256: str) -> str:
    """A data file's name carries its content's SHA-256 (first 16 hex digits): `datasets` keys its cache on
    the data files' paths, so a release can never be served the rows cached from other files."""
    return f"{split}-{sha256[:16]}.parquet"


def _partial_file_name(split: str) -> str:
    return f".{split}.parquet.partial"  # renamed to its content-addressed name once written


def release_dir(workspace: Path | str, config: str, version: str) -> Path:
    return Path(workspace) / "releases" / config / version


def config_for(source: str) -> str:
    """The release config of a source's records (the source decides; an unknown name is a ValueError)."""
    return release_config_of(source)


@fewer_collections()  # 25k records: 0.4 s of collections finding no garbage
def write_release(
    store: Store,
    source: str,
    version: str,
    workspace: Path | str,
    *,
    judge_name: str,
    judge_version: str,
    threshold: int | float,
    toolkit_version: str,
    parent: str | None = None,
    rubric_version: str | None = None,
    plots: bool = True,
    review: dict[str, Any] | None = None,
    test_size: int | None = None,
    curation: dict[str, Any] | None = None,
    calibration: dict[str, Any] | None = None,
    page_images: bool = False,
    description: DatasetDescription | None = None,
) -> ReleaseResult:
    """Release the ACCEPTED records of `source` as `version` of its config (see module docstring); refused
    while an accepted record carries an open flag (records held in `needs_review` are not accepted).

    `parent` defaults to the highest lower version released locally; the changelog compares
    with it when its folder is there. `plots=False` skips the PNGs (the card then says so).
    `test_size` fills the test split up to that many records, stratified by schema complexity and
    source category, and sends every other new record to the other splits (sticky, as always).
    `page_images` adds the `page_image` column (the record's rendered pages: exports/page_images.py); a record
    without readable page images then stops the release with the records named."""
    key = parse_version(version)
    if page_images and not page_images_mod.supports(source):
        raise ValueError(f"page images: only {', '.join(sorted(page_images_mod.SOURCES))} records have rendered pages")
    flagged = accepted_with_open_flags(store, source)
    if flagged:  # a release never holds a record with an open flag
        shown = ", ".join(rid[:12] for rid in flagged[:5]) + (" ..." if len(flagged) > 5 else "")
        raise ReleaseError(
            f"release {version} refused: {len(flagged)} accepted {source} record(s) still carry an open flag "
            f"({shown}); resolve each flag (fixed, or dismissed with a note) and run the judge again"
        )
    if parent is not None and parse_version(parent) >= key:
        raise ValueError(f"parent version {parent} must be lower than the release version {version}")
    config = config_for(source)
    splits = list(split_names(config))
    config_dir = Path(workspace) / "releases" / config
    config_dir.mkdir(parents=True, exist_ok=True)
    clean_stale_temp_dirs(config_dir)
    final = config_dir / version
    if parent is None:
        parent = previous_version(config_dir, version)

    parent_dir = config_dir / parent if parent else None
    has_parent_data = parent_dir is not None and (parent_dir / DATA_DIR).is_dir() and not final.exists()

    tmp = config_dir / f"{TEMP_PREFIX}{version}-{uuid.uuid4().hex[:12]}"
    tmp.mkdir()  # not mkdtemp: its 0700 mode would end up on the release folder
    try:
        written = _write_data(
            store,
            source,
            config,
            splits,
            tmp / DATA_DIR,
            digests=has_parent_data,
            test_size=test_size,
            page_images=Path(workspace) if page_images else None,
        )
        if written.total == 0:
            raise EmptyReleaseError(_nothing_accepted(store, source, threshold))
        if final.exists():
            _check_same_records(final, written, version)
            shutil.rmtree(tmp)
            # The records are those already released: keep (or restore) their split assignments.
            store.assign_splits(config, written.new_assignments, version)
            return ReleaseResult(
                final, version, config, source, "unchanged", written.counts, _manifest_parent(final, parent), 0
            )

        funnel = build_funnel(store, source, written.total)
        flags = flag_counts(store, source)
        if has_parent_data:
            assert parent_dir is not None and written.digests is not None
            changelog = compute_changelog(written.digests, release_digests(parent_dir, source), splits, parent)
        else:
            changelog = first_release_changelog(written.counts, parent)
        plot_files = (
            plots_mod.render_plots(
                tmp,
                title=f"{description.title if description else card_mod.SOURCE_CARDS[source].name}, {config} {version}",
                distributions=written.distributions,
                judged=plot_data.judge_scores(store, source),
                funnel=plot_data.funnel(store, source, written.total),
                flags=plot_data.flag_resolutions(flags),
                threshold=threshold,
                # the offline heuristic's scores are labelled as the pre-filter's, never as a judge's
                scorer="pre-filter" if judge_name == "heuristic" else "judge",
            )
            if plots
            else {}
        )
        assets = {
            rel: {"bytes": (tmp / rel).stat().st_size, "sha256": file_sha256(tmp / rel)} for rel in plot_files.values()
        }
        card_text = card_mod.render_card(
            source=source,
            config=config,
            version=version,
            parent=parent,
            splits=splits,
            stats=written.stats,
            funnel=funnel,
            judge_name=judge_name,
            judge_version=judge_version,
            threshold=threshold,
            toolkit_version=toolkit_version,
            rubric_version=rubric_version,
            changelog=changelog,
            review=review,
            flags=flags,
            calibration=calibration,
            plots=plot_files,
            plots_skipped_reason=None if plot_files else _plots_skipped(plots),
            data_files=written.files,
            page_images=page_images,
            description=description,
            example=_first_row(tmp, written.files),
        )
        audit = audit_summary(store, source)  # the residual-error audit, beside SOB's own figure
        card_text = card_text.rstrip("\n") + "\n\n" + audit_card_section(audit)
        if curation is not None:  # measured by the caller: how the drafts shaped the answers, flags, budget
            card_text += "\n" + curation_card_section(curation)
        card_bytes = card_text.encode("utf-8")
        _write_file(tmp / "README.md", card_bytes)
        manifest = build_manifest(
            version=version,
            parent=parent,
            config=config,
            source=source_family(source),  # the registered source; the config says which of its configs
            counts=written.counts,
            files=written.files,
            record_ids_sha256=written.record_ids_sha256,
            new_split_assignments=len(written.new_assignments),
            judge_name=judge_name,
            judge_version=judge_version,
            threshold=threshold,
            toolkit_version=toolkit_version,
            stats=written.stats,
            funnel=funnel,
            card_sha256=hashlib.sha256(card_bytes).hexdigest(),
            rubric_version=rubric_version,
            changelog=changelog,
            assets=assets,
            review=review,
        )
        manifest["residual_error_audit"] = audit_manifest_entry(audit)
        manifest["flags"] = flags
        if description is not None:  # the project file's title, licence, citation and languages
            manifest["dataset"] = description.model_dump(mode="json")
        if calibration is not None:
            manifest["judge_calibration"] = calibration
        if curation is not None:
            manifest["curation"] = curation
        if page_images:  # the data files hold the extra `page_image` column
            manifest["page_images"] = {"column": page_images_mod.COLUMN, "feature": "List(Image())"}
        if test_size is not None:  # a fixed-size test split, filled from new records only, stratified
            manifest["split_policy"]["test_size"] = {
                "target": test_size,
                "stratified_by": ["schema_complexity", "source_category"],
            }
        manifest_text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
        _write_file(tmp / "manifest.json", manifest_text.encode("utf-8"))
        for rel in assets:
            _fsync_file(tmp / rel)
        _fsync_dir(tmp / DATA_DIR)
        _fsync_dir(tmp)
        try:
            os.rename(tmp, final)  # atomic; fails if `final` appeared meanwhile
        except OSError as exc:
            raise ReleaseExistsError(
                f"release folder {final} appeared while writing ({exc}); is another run writing it?"
            ) from exc
        _fsync_dir(config_dir)
        _make_read_only(final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise

    # Only a completed release makes new assignments sticky.
    store.assign_splits(config, written.new_assignments, version)
    return ReleaseResult(
        final, version, config, source, "written", written.counts, parent, len(written.new_assignments)
    )


def _nothing_accepted(store: Store, source: str, threshold: int | float) -> str:
    """Why there is nothing to release: the judge rejected every judged record at this threshold (with its main
    reasons), or nothing has been validated and judged yet."""
    states = store.state_counts(source)
    judged_out = sorted(
        ((code, n) for stage, code, n in store.reason_counts(source) if stage == "judge"), key=lambda c: (-c[1], c[0])
    )
    if judged_out and not states.get(str(RecordState.ACCEPTED)):
        reasons = ", ".join(f"{code} ({n})" for code, n in judged_out[:4])
        return (
            f"no accepted {source} records to release: at threshold {threshold} the judge accepted none "
            f"(main reasons: {reasons}; record states: {states}); lower --threshold, or fix the records and run again"
        )
    return (
        f"no accepted {source} records to release: run validation and the judge first "
        f"(record states: {states or 'none'})"
    )


def _plots_skipped(requested: bool) -> str:
    if not requested:
        return "plots were not requested for this release"
    return "matplotlib is not installed, so no plots were rendered"


def _make_read_only(folder: Path) -> None:
    """Files of a written release are read-only: a release is immutable (folders stay writable,
    so a curator can still delete a whole release folder on purpose)."""
    for path in folder.rglob("*"):
        if path.is_file():
            path.chmod(0o444)


def seal_releases(workspace: Path | str) -> list[Path]:
    """Make read-only every complete release whose files are still writable: a run killed between the
    rename into place and `_make_read_only` left it so. Only folders that match their manifest are
    sealed (one that does not is left for `verify_release` to report). Returns the folders sealed."""
    sealed = []
    for manifest in sorted(Path(workspace, "releases").glob("*/*/manifest.json")):
        folder = manifest.parent
        if folder.name.startswith(TEMP_PREFIX):
            continue
        if not any(p.is_file() and p.stat().st_mode & 0o222 for p in folder.rglob("*")):
            continue
        try:
            verify_release(folder)
        except ReleaseError:
            continue
        _make_read_only(folder)
        sealed.append(folder)
    return sealed


def verify_release(path: Path | str) -> dict[str, Any]:
    """Check a release folder against its manifest; returns the manifest.

    Every data file, plot and the card must have the SHA-256 the manifest records: a release is
    immutable, so any difference means it was modified after it was written."""
    folder = Path(path)
    manifest = _read_manifest(folder)
    if manifest is None:
        raise ReleaseError(f"{folder} is not a release folder: manifest.json is missing or unreadable")
    expected = {name: info["sha256"] for name, info in (manifest.get("files") or {}).items()}
    expected |= {name: info["sha256"] for name, info in (manifest.get("assets") or {}).items()}
    if manifest.get("card_sha256"):
        expected["README.md"] = manifest["card_sha256"]
    problems = []
    for name, digest in sorted(expected.items()):
        file = folder / name
        if not file.is_file():
            problems.append(f"{name} is missing")
        elif file_sha256(file) != digest:
            problems.append(f"{name} differs from the manifest")
    if problems:
        raise ReleaseError(
            f"release {folder} was modified after it was written ({'; '.join(problems)}); releases are immutable: "
            "restore the folder or write a new version"
        )
    return manifest


def clean_stale_temp_dirs(config_dir: Path) -> list[Path]:
    """Remove temp folders left by crashed runs (the workspace store lock keeps writers single)."""
    removed = []
    for path in config_dir.glob(f"{TEMP_PREFIX}*"):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        removed.append(path)
    return removed


def _split_strata(store: Store, source: str) -> dict[str, str]:
    """record id -> "complexity|category" of the accepted records, for a fixed-size stratified test
    split (category: olmOCR's `source_category`, HotpotQA's question `type`)."""
    strata = {}
    for stored in store.records(source, [RecordState.ACCEPTED]):
        meta = stored.record.metadata
        level = ((stored.validation or {}).get("complexity") or {}).get("level") or meta.schema_complexity
        category = meta.extra.get("source_category") or meta.extra.get("type")
        strata[stored.record.record_id] = f"{level}|{category}"
    return strata


def _write_data(
    store: Store,
    source: str,
    config: str,
    splits: Sequence[str],
    data_dir: Path,
    *,
    digests: bool = False,
    test_size: int | None = None,
    page_images: Path | None = None,
) -> _Written:
    """Stream ACCEPTED records into one Parquet file per split, gathering statistics on the way
    (and each record's content digest, for the changelog, when `digests`). With `page_images` (the
    workspace), each row also gets its rendered pages."""
    data_dir.mkdir(parents=True)
    # with the `huggingface` features metadata, as `datasets` writes it
    schema = release_schema(source, page_images=page_images is not None)
    batch = WRITE_BATCH if page_images is None else PAGE_IMAGE_BATCH
    strata = _split_strata(store, source) if test_size is not None else None
    assigner = SplitAssigner(config, store.split_assignments(config), test_size=test_size, strata=strata)
    assigner.plan_new(store.record_ids(source, [RecordState.ACCEPTED]))
    background = _Background()
    stats = StatsCollector(splits, submit=background.submit)
    buffers: dict[str, list[dict[str, Any]]] = {split: [] for split in splits}
    counts = dict.fromkeys(splits, 0)
    ids_digest = hashlib.sha256()
    previous_id: str | None = None
    digest_columns = content_columns(source)
    record_digests: dict[str, tuple[str, str]] | None = {} if digests else None

    with contextlib.ExitStack() as stack:
        writers = {
            split: stack.enter_context(
                pq.ParquetWriter(data_dir / _partial_file_name(split), schema, compression=COMPRESSION)
            )
            for split in splits
        }
        stack.callback(background.stop)  # runs first: no write is running when the writers close

        def flush(split: str) -> None:
            rows = buffers[split]
            if rows:
                table = _table(rows, schema)
                background.submit(writers[split].write_table, table, row_group_size=batch)
                rows.clear()

        accepted = store.state_counts(source).get(str(RecordState.ACCEPTED))
        rows = tracked(_accepted_rows(store, source), f"release ({config})", total=accepted)
        missing: list[str] = []
        for row, validation, judge, extra in rows:
            rid = row["record_id"]
            if previous_id is not None and rid <= previous_id:
                raise ReleaseError(f"records are not streamed in record_id order ({previous_id} then {rid})")
            previous_id = rid
            ids_digest.update(rid.encode("utf-8") + b"\n")
            split = assigner.split_of(rid)
            buffers[split].append(row)
            counts[split] += 1
            if record_digests is not None:
                record_digests[rid] = (split, row_digest(row, digest_columns))
            if page_images is not None:
                try:
                    row[page_images_mod.COLUMN] = page_images_mod.column_value(
                        page_images, rid, extra.get(page_images_mod.EXTRA_KEY)
                    )
                except page_images_mod.PageImagesError as exc:
                    missing.append(str(exc))
            stats.add(
                split,
                row["context"],
                (validation or {}).get("complexity"),
                category=row.get("source_category"),
                difficulty=row["question_difficulty"],
                scores=(judge or {}).get("scores"),
                annotator=row["annotator"],
                draft_model=row["draft_model"],
                judge=row["judge"],
            )
            if len(buffers[split]) >= batch:
                flush(split)
        if missing:
            raise ReleaseError(
                f"--with-page-images: {len(missing)} record(s) have no readable page image ({'; '.join(missing[:3])}"
                f"{' ...' if len(missing) > 3 else ''}); load the olmOCR items again so their pages are rendered, or "
                "release without --with-page-images"
            )
        for split in splits:
            flush(split)
        stats_result, distributions = stats.result(), stats.distributions()  # waits for the token counts
        background.close()

    files = {}
    for split in splits:
        partial = data_dir / _partial_file_name(split)
        _fsync_file(partial)
        sha256 = file_sha256(partial)
        path = partial.rename(data_dir / data_file_name(split, sha256))
        files[f"{DATA_DIR}/{path.name}"] = {
            "split": split,
            "rows": counts[split],
            "bytes": path.stat().st_size,
            "num_bytes": arrow_size(path),
            "sha256": sha256,
        }
    return _Written(counts, files, ids_digest.hexdigest(), assigner.new, stats_result, distributions, record_digests)


def _first_row(folder: Path, files: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The first released row (of the first split with rows), for the card's example."""
    for name, file in files.items():
        if file["rows"]:
            table = pq.ParquetFile(folder / name).read_row_group(
                0, columns=["record_id", "context", "question", "json_schema", "ground_truth"]
            )
            return table.slice(0, 1).to_pylist()[0]
    return None


def arrow_size(path: Path) -> int:
    """The Hub's `num_bytes` of a data file: its rows' Arrow size as `datasets` counts it when it reads the file
    (a row group at a time, so memory stays bounded)."""
    parquet = pq.ParquetFile(path)
    return sum(parquet.read_row_group(i).nbytes for i in range(parquet.num_row_groups))


def _accepted_rows(
    store: Store, source: str
) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None, dict[str, Any]]]:
    """(published row, validation report, verdict, source metadata `extra`) of every ACCEPTED record, by record
    id, from the stored JSON
    (no Record model is built: that was most of a release's time). A record whose JSON does not have the
    fields a row needs is read through the Record model (`Store.read_row`), as any stage would read it: set
    aside if unreadable, else published from its model.

    Read a page at a time (`Store.record_pages`): one query sorting every accepted row with its record would
    have DuckDB hold them all at once, a few hundred MB on a 25k-record release."""
    for raw in store.record_pages(source, [RecordState.ACCEPTED], READ_BATCH):
        try:
            validation = fast_json.loads(raw.validation) if raw.validation else None
            judge = fast_json.loads(raw.judge) if raw.judge else None
            data = fast_json.loads(raw.record)
            if raw.derived:  # the stage outputs kept beside the record (core/derived.py)
                data = merged(data, fast_json.loads(raw.derived))
            row = stored_row(data, validation, judge)
        except ValueError:
            row = None
        if row is not None and row["record_id"] == raw.record_id:
            yield row, validation, judge, data["metadata"].get("extra") or {}
        elif (parsed := store.read_row(raw)) is not None:  # None: set aside as unreadable
            row = record_row(parsed.record, parsed.validation, parsed.judge)
            yield row, parsed.validation, parsed.judge, parsed.record.metadata.extra


def _table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """The rows as an Arrow table, built column by column (the same table as `from_pylist`, faster)."""
    return pa.Table.from_arrays(
        [pa.array([row.get(field.name) for row in rows], field.type) for field in schema], schema=schema
    )


class _Background:
    """One background thread for the work that releases the GIL: compressing and writing Parquet, and the
    tokenizer's encoding of new words. Jobs run in submission order (each file's row groups stay in
    order); at most `MAX_QUEUED` wait, so memory stays bounded. A job's error is raised in the caller."""

    MAX_QUEUED = 4

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="release")
        self._queued: deque[Future[Any]] = deque()

    def submit(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> Future[T]:
        while len(self._queued) >= self.MAX_QUEUED:
            self._queued.popleft().result()
        job = self._pool.submit(fn, *args, **kwargs)
        self._queued.append(job)
        return job

    def close(self) -> None:
        """Wait for every job, raising the first error."""
        try:
            while self._queued:
                self._queued.popleft().result()
        finally:
            self.stop()

    def stop(self) -> None:
        """Drop the jobs not started and wait for the running one (on the way out of an error, too)."""
        self._queued.clear()
        self._pool.shutdown(wait=True, cancel_futures=True)


def _data_hashes(folder: Path) -> dict[str, str]:
    data = folder / DATA_DIR
    if not data.is_dir():
        return {}
    return {f"{DATA_DIR}/{p.name}": file_sha256(p) for p in sorted(data.iterdir()) if p.is_file()}


def _read_manifest(folder: Path) -> dict[str, Any] | None:
    try:
        return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _manifest_parent(folder: Path, default: str | None) -> str | None:
    manifest = _read_manifest(folder)
    return manifest.get("parent_version", default) if manifest else default


def _check_same_records(final: Path, written: _Written, version: str) -> None:
    """Raise unless the existing release holds byte-identical data files."""
    ours = {name: info["sha256"] for name, info in written.files.items()}
    theirs = _data_hashes(final)
    if ours == theirs:
        return
    manifest = _read_manifest(final) or {}
    detail = []
    if manifest.get("record_ids_sha256") == written.record_ids_sha256:
        detail.append(
            "it has the same record ids, but their content differs (edited records, or a "
            "different pyarrow/toolkit version)"
        )
    elif manifest.get("splits"):
        detail.append(f"it has {manifest['splits']} rows, this run would write {written.counts}")
    changed = sorted(set(ours) ^ set(theirs) | {n for n in ours if n in theirs and ours[n] != theirs[n]})
    detail.append(f"differing data files: {', '.join(changed)}")
    raise ReleaseExistsError(
        f"release {version} already exists at {final} with different records; releases are never "
        f"overwritten: choose a new version (e.g. the next patch/minor after {version}). " + "; ".join(detail)
    )


def _write_file(path: Path, data: bytes) -> None:
    with path.open("wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _fsync_file(path: Path) -> None:
    with path.open("rb") as fh:
        os.fsync(fh.fileno())


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
