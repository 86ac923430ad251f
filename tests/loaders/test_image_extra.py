"""The image source's libraries are an extra (`[image]`): without it `--source olmocr` stops with one error
line naming the install command, and the text and audio sources run without it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from build_split.cli import main
from loaders.image_extra import INSTALL_IMAGE_EXTRA, ImageExtraMissingError, require_image_extra

REPO = Path(__file__).resolve().parents[2]
# Every top-level package the [image] extra brings that our code or olmocr's bench classes import.
IMAGE_PACKAGES = ("olmocr", "pypdf", "fuzzysearch", "bs4", "lxml", "playwright")


def _without(monkeypatch: pytest.MonkeyPatch, package: str) -> None:
    """Make `package` unimportable here, as if the extra were not installed (None in sys.modules)."""
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        monkeypatch.delitem(sys.modules, name)
    # olmocr's bench classes import fuzzysearch, bs4 and playwright: import them afresh
    for name in [m for m in sys.modules if m.startswith("olmocr.bench")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, package, None)


@pytest.mark.parametrize("package", ["olmocr", "pypdf", "fuzzysearch", "playwright"])
def test_a_missing_image_library_names_the_extra(monkeypatch: pytest.MonkeyPatch, package: str) -> None:
    _without(monkeypatch, package)
    with pytest.raises(ImageExtraMissingError) as raised:
        require_image_extra()
    message = str(raised.value)
    assert INSTALL_IMAGE_EXTRA in message and repr(package) in message


def test_the_olmocr_source_without_the_extra_is_one_error_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _without(monkeypatch, "olmocr")
    code = main(["--source", "olmocr", "--sample", "--ocr-server", "cpu", "--workspace", str(tmp_path / "ws")])
    err = capsys.readouterr().err
    assert code == 2
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert errors == [
        "error: the image source (--source olmocr) needs the [image] extra, and 'olmocr' cannot be imported: "
        "pip install -e '.[image]'"
    ]
    assert "Traceback" not in err


_BLOCKED_RUN = """
import sys
for name in {packages!r}:
    sys.modules[name] = None  # not installed, as in a base install without the [image] extra
from build_split.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _run_without_image_extra(*args: str) -> subprocess.CompletedProcess[str]:
    code = _BLOCKED_RUN.format(packages=IMAGE_PACKAGES)
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )


def test_a_real_process_without_the_extra_exits_2_with_the_install_command(tmp_path: Path) -> None:
    done = _run_without_image_extra("--source", "olmocr", "--sample", "--workspace", str(tmp_path / "ws"))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith("error:")] == [
        "error: the image source (--source olmocr) needs the [image] extra, and 'olmocr' cannot be imported: "
        "pip install -e '.[image]'"
    ]


def test_the_audio_demo_runs_without_the_image_extra(tmp_path: Path) -> None:
    """`make demo` installs the base only: the AMI sample run and its release need nothing from [image]."""
    ws = tmp_path / "ws"
    done = _run_without_image_extra(
        "--source", "ami", "--sample", "--workspace", str(ws), "--release", "0.1.0", "--allow-unreviewed"
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert (ws / "releases" / "audio" / "0.1.0").is_dir()
