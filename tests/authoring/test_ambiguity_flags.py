"""Ambiguity flags from repeated drafts reach the curator: the note appears in the Label Studio task, whose
state is kept."""

from __future__ import annotations

from authoring import labelstudio as ls
from authoring import ls_state
from core.store import Store
from scoring.send_back import show_ambiguity_flags
from tests.authoring.test_labelstudio import load, make_items, server_tasks


def test_an_ambiguous_item_gets_a_note_in_its_task(store: Store, ls_session) -> None:
    load(store, make_items(2))
    pushed = ls.push_tasks(store, ls_session, "hotpotqa", {})
    flags = {
        "hotpotqa-001": {"consistency": 0.41, "min_pair": 0.2, "pairs": 3},
        "not-pushed": {"consistency": 0.1, "pairs": 1},
    }
    assert show_ambiguity_flags(store, ls_session, "hotpotqa", flags) == 1
    tasks = {t.data["source_id"]: t for t in server_tasks(ls_session, pushed.project_id)}
    assert "consistency 0.41" in tasks["hotpotqa-001"].data["feedback"]
    assert "consistency" not in tasks["hotpotqa-000"].data["feedback"]
    rows = {r.source_id: r for r in ls_state.tasks_by_id(store, ls_session.base_url, pushed.project_id).values()}
    assert rows["hotpotqa-001"].status == rows["hotpotqa-000"].status  # still awaiting its curator
