"""Record the SHA-256 of every file of the three samples' 0.1.0 releases (tests/data/release_digests.json).

    python scripts/record_release_digests.py            # build the samples' releases and write the digests
    python scripts/record_release_digests.py --check    # build them and compare instead (exit 1 on a change)

tests/exports/test_release_bytes.py builds the same releases and compares them with the recorded digests, so a
change that alters a release's bytes (data files, card, manifest, plots) is seen. The one time-dependent value,
the manifest's `created_at` (the wall-clock time of the run), is replaced by a fixed text before hashing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DIGESTS = REPO / "tests" / "data" / "release_digests.json"
# source -> release config folder of its sample release
SAMPLE_RELEASES = {"hotpotqa": "default", "ami": "audio", "olmocr": "image"}
VERSION = "0.1.0"
# The manifest's creation time is the wall clock of the run; everything else in a release is reproducible.
_CREATED_AT = re.compile(rb'"created_at": "[^"]*"')


def file_digest(path: Path) -> str:
    data = path.read_bytes()
    if path.name == "manifest.json":
        data = _CREATED_AT.sub(b'"created_at": "<time of the run>"', data)
    return hashlib.sha256(data).hexdigest()


def release_digests(release: Path) -> dict[str, str]:
    """Every file of a release folder (relative POSIX path -> SHA-256), sorted by path."""
    return {p.relative_to(release).as_posix(): file_digest(p) for p in sorted(release.rglob("*")) if p.is_file()}


def build_sample_release(source: str, workspace: Path) -> Path:
    """`python -m build_split --source SOURCE --sample --release 0.1.0 --allow-unreviewed` into `workspace`."""
    from build_split.cli import main

    args = ["--source", source, "--sample", "--release", VERSION, "--allow-unreviewed"]
    code = main([*args, "--workspace", str(workspace), "--judge", "heuristic", "--no-review", "--quiet"])
    if code != 0:
        raise RuntimeError(f"the {source} sample release failed (exit {code})")
    return workspace / "releases" / SAMPLE_RELEASES[source] / VERSION


def all_digests(root: Path) -> dict[str, dict[str, str]]:
    return {source: release_digests(build_sample_release(source, root / source)) for source in SAMPLE_RELEASES}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the recorded digests; write nothing")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="release-digests-") as tmp:
        digests = all_digests(Path(tmp))
    if args.check:
        recorded = json.loads(DIGESTS.read_text(encoding="utf-8"))
        changed = sorted(
            f"{source}/{name}"
            for source in recorded.keys() | digests.keys()
            for name in recorded.get(source, {}).keys() | digests.get(source, {}).keys()
            if recorded.get(source, {}).get(name) != digests.get(source, {}).get(name)
        )
        for name in changed:
            print(f"changed: {name}")
        print("releases identical to the recorded digests" if not changed else f"{len(changed)} file(s) changed")
        return 1 if changed else 0
    DIGESTS.write_text(json.dumps(digests, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {DIGESTS.relative_to(REPO)}: {sum(map(len, digests.values()))} files of {len(digests)} releases")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
