"""Write one line of output per adversarial case into docs/reliability.md (between the adversarial markers).

.venv/bin/python scripts/update_readme_checks.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.judge.adversarial_run import all_lines  # noqa: E402

PAGE = ROOT / "docs" / "reliability.md"  # the documentation page that shows the cases
START, END = "<!-- adversarial:start -->", "<!-- adversarial:end -->"


def main() -> None:
    text = PAGE.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"{PAGE} lacks the {START} ... {END} block")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    PAGE.write_text(head + START + "\n" + "\n".join(all_lines()) + "\n" + END + tail, encoding="utf-8")
    print(f"wrote {len(all_lines())} example lines into {PAGE}")


if __name__ == "__main__":
    main()
