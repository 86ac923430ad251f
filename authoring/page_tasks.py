"""Page tasks in Label Studio (sources whose items are OCR'd pages, `Source.page_tasks`): the page image beside
an editable OCR transcript.

Push: each task gets its page images (`$pages`), uploaded through Label Studio's API to a server that cannot
read the workspace (authoring/media_upload.py), or, the fast path on this machine, as URLs it serves as local files:
`/data/local-files/?d=<path under its LOCAL_FILES_DOCUMENT_ROOT>`) and the OCR markdown as the
prefilled `transcript` editor. Label Studio serves a file only under a local-files storage of the
project, so one is created per project for `<workspace>/media/page-images` (never synced: a sync
would turn every image into a task). The toolkit's own server (`--start-label-studio`) serves
`<workspace>/media`; a server given by URL must run on this machine with
LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED=true and LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT=<workspace>/media
(or a folder above it).

Pull: the curator's transcript becomes the record's context. What changed is kept in the record's
provenance (`context_correction`: characters changed, a line diff, and how many of the page's own
olmOCR-bench tests the OCR and the corrected text pass), and evidence spans marked on the OCR text
are carried over to the corrected text.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from rapidfuzz.distance import Levenshtein

from authoring import media_upload
from core.evidence import Evidence
from core.models import Reason, SourceItem
from core.sources import get_source
from loaders.bench_tests import BENCH_TESTS_KEY, bench_tests_from_records, score_pages
from loaders.page_images import IMAGES_DIR, MEDIA_DIR

if TYPE_CHECKING:
    from authoring.labelstudio.client import LabelStudioSession
    from core.store import Store

TRANSCRIPT_CONTROL = "transcript"
LOCAL_FILES_URL = "/data/local-files/?d="
FILES_ROOT_ENV = "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT"
STORAGE_TITLE = "SOB page images (served to curators; never synced)"
OCR_PREDICTION = "olmocr-transcript"  # model_version of the transcript-only prediction (no draft)
HIDDEN_METADATA = (BENCH_TESTS_KEY, "page_images")  # in the task data already, or too long for the table
MAX_DIFF_CHARS = 20_000


def files_root(session: LabelStudioSession, workspace: Path) -> Path:
    """Label Studio's local-files document root: the session's, the environment's, or `<workspace>/media`."""
    configured = getattr(session.settings, "local_files_root", None) or os.environ.get(FILES_ROOT_ENV)
    return Path(configured).resolve() if configured else Path(workspace).resolve() / MEDIA_DIR


def page_urls(item: SourceItem, workspace: Path, root: Path) -> list[str]:
    """The item's page images as Label Studio local-file URLs (relative to its document root)."""
    urls = []
    for relative in item.metadata.get("page_images") or []:
        path = (Path(workspace).resolve() / relative).resolve()
        try:
            inside = path.relative_to(root).as_posix()
        except ValueError:
            raise PageImageError(
                f"the page image {path} is not under Label Studio's local-files document root {root}; start Label "
                f"Studio with {FILES_ROOT_ENV}={Path(workspace).resolve() / MEDIA_DIR} (or a folder above it)"
            ) from None
        urls.append(LOCAL_FILES_URL + quote(inside, safe="/"))
    return urls


class PageImageError(RuntimeError):
    """Label Studio cannot serve the page images; the message says how to start it so that it can."""


def ensure_image_storage(session: LabelStudioSession, project_id: int, images_dir: Path) -> None:
    """A local-files storage of the project for `images_dir`: what lets Label Studio serve its files."""
    from authoring.labelstudio.client import LabelStudioError

    storages = session.client.import_storage.local
    path = str(images_dir.resolve())
    existing = session.call("listing the project's local-files storages", storages.list, project=project_id)
    if any(os.path.normpath(str(s.path or "")) == os.path.normpath(path) for s in existing or []):
        return
    images_dir.mkdir(parents=True, exist_ok=True)
    try:
        session.call(
            "adding the page images as a local-files storage",
            storages.create,
            project=project_id,
            path=path,
            title=STORAGE_TITLE,
            use_blob_urls=True,
            synchronizable=False,
        )
    except LabelStudioError as exc:
        if exc.status_code != 400:
            raise
        raise PageImageError(
            f"Label Studio will not serve the page images in {path}: {exc}. Run it on this machine with "
            f"LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED=true and {FILES_ROOT_ENV}={images_dir.parent} "
            "(--start-label-studio does this), or upload the images through its API (--label-studio-media upload)"
        ) from exc


def media_mode(session: LabelStudioSession, project_id: int, workspace: Path) -> str:
    """How this project's page images reach the server (decided once per session and project): local files when
    asked for, or with `auto` when the server is on this machine and accepts `<workspace>/media` as a local-files
    storage; uploads through its API otherwise (authoring/media_upload.py)."""
    known = session.media_modes.get(project_id)
    if known is not None:
        return known
    mode = media_upload.first_choice(session.settings.media, session.base_url)
    if mode == media_upload.LOCAL_FILES:
        try:
            root = files_root(session, workspace)
            images = Path(workspace).resolve() / MEDIA_DIR / IMAGES_DIR
            images.relative_to(root)  # a ValueError: not under the server's document root
            ensure_image_storage(session, project_id, images)
        except (PageImageError, ValueError) as exc:
            if session.settings.media != media_upload.AUTO:
                if isinstance(exc, ValueError):
                    raise PageImageError(
                        f"the page images in {images} are not under Label Studio's local-files document root {root}; "
                        f"start it with {FILES_ROOT_ENV}={Path(workspace).resolve() / MEDIA_DIR}, or upload them "
                        "(--label-studio-media upload)"
                    ) from None
                raise
            mode = media_upload.UPLOAD  # the server cannot read the workspace: it gets the images through its API
    session.media_modes[project_id] = mode
    return mode


def add_page_data(
    store: Store,
    session: LabelStudioSession,
    source: str,
    project_id: int,
    items: Sequence[SourceItem],
    payload: Sequence[dict[str, Any]],
) -> None:
    """Give page tasks their page images and the OCR transcript editor (sources without page tasks: nothing)."""
    if not get_source(source).page_tasks or not items:
        return
    workspace = Path(store.path).parent
    with_images = [item for item in items if item.metadata.get("page_images")]
    mode = media_mode(session, project_id, workspace) if with_images else media_upload.LOCAL_FILES
    root = files_root(session, workspace)
    for item, task in zip(items, payload, strict=True):
        data = task["data"]
        if mode == media_upload.UPLOAD:
            relatives = list(item.metadata.get("page_images") or [])
            data["pages"] = media_upload.upload_urls(store, session, source, workspace, relatives)
        else:
            data["pages"] = page_urls(item, workspace, root)
        data["page_count"] = str(len(data["pages"]))
        data["metadata"] = {k: v for k, v in data.get("metadata", {}).items() if k not in HIDDEN_METADATA}
        region = {
            "from_name": TRANSCRIPT_CONTROL,
            "to_name": "context",
            "type": "textarea",
            "value": {"text": [item.context]},
        }
        predictions = task.setdefault("predictions", [{"model_version": OCR_PREDICTION, "result": []}])
        predictions[0]["result"].append(region)


# -- pull -------------------------------------------------------------------------------------------
def transcript_text(result: Iterable[Mapping[str, Any]]) -> str | None:
    """The transcript editor's text in an annotation, or None when the annotation has none."""
    parts: list[str] = []
    found = False
    for region in result or []:
        if region.get("from_name") == TRANSCRIPT_CONTROL:
            found = True
            parts.extend(str(t) for t in (region.get("value") or {}).get("text") or [])
    return "\n".join(parts).strip() if found else None


def correction(item: SourceItem, corrected: str) -> dict[str, Any]:
    """What the curator changed in the OCR transcript, and the page's own olmOCR-bench tests on both."""
    original = item.context
    diff = "".join(
        difflib.unified_diff(
            original.splitlines(keepends=True), corrected.splitlines(keepends=True), "ocr", "corrected", n=0
        )
    )
    summary: dict[str, Any] = {
        "kind": "ocr_transcript",
        "chars_changed": Levenshtein.distance(original, corrected),
        "ocr_chars": len(original),
        "corrected_chars": len(corrected),
        "diff": diff if len(diff) <= MAX_DIFF_CHARS else diff[:MAX_DIFF_CHARS] + "\n... (diff cut)",
    }
    records = item.metadata.get(BENCH_TESTS_KEY) or []
    if records:
        tests = bench_tests_from_records(records)
        # A transcript is the whole document (olmOCR-bench pages are single pages): every page's tests
        # run on all of it, the OCR's and the correction's alike.
        pages = {int(t.page) for t in tests}
        before = score_pages(tests, dict.fromkeys(pages, original))
        after = score_pages(tests, dict.fromkeys(pages, corrected))
        summary.update(
            bench_tests=after.total,
            bench_passed_ocr=before.passed,
            bench_passed_corrected=after.passed,
            bench_failed_corrected=after.failed_ids,
            bench_pass_rate_corrected=round(after.pass_rate, 4),
        )
    return summary


def remap_evidence(evidence: Mapping[str, Evidence], original: str, corrected: str) -> dict[str, Evidence]:
    """Evidence spans marked on the OCR text, moved onto the corrected text through the edit."""
    ops = [op for op in Levenshtein.opcodes(original, corrected) if op.src_end > op.src_start]  # inserts: below

    def new_start(pos: int) -> int:  # the op holding character `pos`; text inserted before a span stays out
        for op in ops:
            if op.src_start <= pos < op.src_end:
                return op.dest_start + (pos - op.src_start if op.tag == "equal" else 0)
        return len(corrected)

    def new_end(pos: int) -> int:  # the op holding character `pos - 1`; a span ending in an edit takes all of it
        for op in ops:
            if op.src_start < pos <= op.src_end:
                return op.dest_start + (pos - op.src_start) if op.tag == "equal" else op.dest_end
        return 0

    out: dict[str, Evidence] = {}
    for path, ev in evidence.items():
        if ev.start is None or ev.end is None or not 0 <= ev.start < ev.end <= len(original):
            out[path] = ev
            continue
        start, end = new_start(ev.start), new_end(ev.end)
        out[path] = ev.model_copy(update={"start": start, "end": max(start, end), "quote": corrected[start:end]})
    return out


def correction_outcomes(summary: Mapping[str, Any] | None) -> list[str]:
    """What a pull reports about a correction: that there was one, and whether the page's tests fail on it."""
    if summary is None:
        return []
    outcomes = ["ocr_transcript_corrected"]
    if summary.get("bench_tests") and summary.get("bench_passed_corrected", 0) < summary["bench_tests"]:
        outcomes.append("corrected_transcript_fails_bench_tests")
    return outcomes


def apply_transcript(
    item: SourceItem, result: Iterable[Mapping[str, Any]], evidence: Mapping[str, Evidence], problems: list[Reason]
) -> tuple[SourceItem, dict[str, Evidence], dict[str, Any] | None]:
    """The source item with the curator's transcript as its context, the evidence moved onto it, and the
    correction summary; the item unchanged (and None) when the transcript was not edited. An emptied
    transcript is a problem (the record goes back to the curator): a record needs a context."""
    corrected = transcript_text(result)
    if not get_source(item.source).page_tasks or corrected is None or corrected == item.context.strip():
        return item, dict(evidence), None
    if not any(ch.isalnum() for ch in corrected):
        message = "the OCR transcript was emptied; restore it (or reject the page) and submit again"
        problems.append(Reason(stage="authoring", code="empty_transcript", message=message, path="$.transcript"))
        return item, dict(evidence), None
    summary = correction(item, corrected)
    moved = remap_evidence(evidence, item.context, corrected)
    return item.model_copy(update={"context": corrected}), moved, summary
