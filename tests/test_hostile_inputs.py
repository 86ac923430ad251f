"""Every hostile input and fault of issue 11 through the real CLI: the exit code, the message that names
the problem, the good lines beside a bad one still loaded, and the workspace still usable afterwards.
The table in docs/reliability.md is this table (scripts/hostile_inputs_table.py writes it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile_cases import CASES, Case, Outcome, readme_table, run_all, table


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Case, Outcome]]:
    return list(run_all(Path(tmp_path_factory.mktemp("hostile"))))


@pytest.mark.parametrize("index", range(len(CASES)), ids=[case.name for case in CASES])
def test_hostile_case(results: list[tuple[Case, Outcome]], index: int) -> None:
    case, outcome = results[index]
    assert (outcome.exit_code, case.expect in outcome.message) == (case.exit_code, True), outcome.message
    assert outcome.message.startswith(("error: ", "[", "sealed:")), outcome.message
    if outcome.loaded_the_rest is not None:
        assert outcome.loaded_the_rest, "the good lines beside the bad one were not loaded"
    if outcome.next_run is not None:
        assert outcome.next_run == 0, "the workspace could not be used after the hostile input"


def test_the_readme_table_is_current(results: list[tuple[Case, Outcome]]) -> None:
    stale = "the table in docs/reliability.md is stale: run scripts/hostile_inputs_table.py"
    assert readme_table() == table(results), stale
