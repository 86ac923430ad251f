"""Write the labelled set's test-half matrix (validation + heuristic judge + gate) into docs/reliability.md, between
the calibration markers; `tests/calibration/test_readme_matrix.py` checks that it is current.

.venv/bin/python scripts/update_readme_calibration.py
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge.calibrate import main as calibrate  # noqa: E402

START, END = "<!-- calibration:start -->", "<!-- calibration:end -->"
PAGE = ROOT / "docs" / "reliability.md"  # the documentation page that shows the matrix
CASES = [ROOT / "tests" / "data" / "calibration" / f"{name}.jsonl" for name in ("hotpotqa", "ami", "olmocr")]
ROWS = ROOT / "tests" / "data" / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json"


def test_half_matrix() -> str:
    """What `python -m judge.calibrate ... --split test` prints: its header, the matrices and the rates."""
    args = [arg for path in CASES for arg in ("--cases", str(path))]
    args += ["--source", "hotpotqa", "--input", str(ROWS), "--judge", "heuristic", "--split", "test"]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = calibrate(args)
    if code != 0:
        raise SystemExit(f"calibrate failed ({code}): {err.getvalue()}")
    lines = [line.rstrip() for line in out.getvalue().splitlines()]
    header = lines[0]
    body = lines[next(i for i, line in enumerate(lines) if line.startswith("all")) :]
    body = body[: body.index("by kind")]
    rates = [line for line in lines if line.startswith(("false releases", "false rejections", "right answers held",
                                                         "wrong answers held"))]  # fmt: skip
    return "\n".join(["```", header, *[line for line in body], *rates, "```"]).replace("\n\n\n", "\n\n")


def block(text: str) -> str:
    return text.split(START, 1)[1].split(END, 1)[0]


def main() -> None:
    text = PAGE.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"{PAGE} lacks the {START} ... {END} block")
    head, rest = text.split(START, 1)
    old, tail = rest.split(END, 1)
    prose = old[old.rindex("```") + 3 :] if "```" in old else "\n"
    PAGE.write_text(head + START + "\n" + test_half_matrix() + prose + END + tail, encoding="utf-8")
    print(f"wrote the test half's matrix into {PAGE}")


if __name__ == "__main__":
    main()
