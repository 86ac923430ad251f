"""Run every hostile-input case (tests/hostile_cases.py) through the CLI and write the table of
case -> exit code -> message into docs/reliability.md.

    .venv/bin/python scripts/hostile_inputs_table.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.hostile_cases import run_all, table, write_readme_table  # noqa: E402


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="hostile-inputs-") as folder:
        rendered = table(list(run_all(Path(folder))))
    write_readme_table(rendered)
    print(rendered)
    return 0


if __name__ == "__main__":
    sys.exit(main())
