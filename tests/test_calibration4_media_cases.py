"""The calibration4 AMI and olmOCR cases are well-formed data (tests/data/calibration4/check_media.py): each line
parses, validates against its schema, quotes its context, and real contexts are true windows of the repository's
AMI meeting or olmOCR pages. This checks the cases, never the gate."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_media_cases_are_well_formed_and_balanced():
    done = subprocess.run(
        [sys.executable, "tests/data/calibration4/check_media.py"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PROBLEM" not in done.stdout
