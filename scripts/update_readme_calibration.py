"""Write the labelled sets' matrices (validation + heuristic judge + gate) into docs/reliability.md: the test half of
`tests/data/calibration/` between the calibration markers, and the blind holdout `tests/data/calibration8/`
between the holdout markers; `tests/calibration/test_readme_matrix.py` checks that both are current.

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
HOLDOUT_START, HOLDOUT_END = "<!-- holdout:start -->", "<!-- holdout:end -->"
PAGE = ROOT / "docs" / "reliability.md"  # the documentation page that shows the matrices
NAMES = ("hotpotqa", "ami", "olmocr")
CASES = [ROOT / "tests" / "data" / "calibration" / f"{name}.jsonl" for name in NAMES]
HOLDOUT = [ROOT / "tests" / "data" / "calibration8" / f"{name}.jsonl" for name in NAMES]
ROWS = ROOT / "tests" / "data" / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json"


def test_half_matrix(cases: list[Path] = CASES) -> str:
    """What `python -m judge.calibrate ... --split test` prints: its header, the matrices and the rates."""
    args = [arg for path in cases for arg in ("--cases", str(path))]
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


def holdout_matrix() -> str:
    """The same for the blind holdout, every case of which is in the test half."""
    return test_half_matrix(HOLDOUT)


def block(text: str, start: str = START, end: str = END) -> str:
    return text.split(start, 1)[1].split(end, 1)[0]


def replace_block(text: str, start: str, end: str, matrix: str) -> str:
    if start not in text or end not in text:
        raise SystemExit(f"{PAGE} lacks the {start} ... {end} block")
    head, rest = text.split(start, 1)
    old, tail = rest.split(end, 1)
    prose = old[old.rindex("```") + 3 :] if "```" in old else "\n"
    return head + start + "\n" + matrix + prose + end + tail


def main() -> None:
    text = PAGE.read_text(encoding="utf-8")
    text = replace_block(text, START, END, test_half_matrix())
    text = replace_block(text, HOLDOUT_START, HOLDOUT_END, holdout_matrix())
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote the test half's and the holdout's matrices into {PAGE}")


if __name__ == "__main__":
    main()
