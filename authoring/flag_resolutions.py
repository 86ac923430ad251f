"""The curator's answer to the flags of the reviewer pass and of the gate's checks, written in Label Studio's
"Flag resolutions" editor.

One line per open flag: `R1 fixed` (the record was edited to fix it) or `R1 dismissed: why the flag is
wrong` (the note is required). A record moves on only when every open flag has such a line; a `fixed`
flag on a record that did not change, a dismissal without a note, or a line naming no open flag sends
the record back with the reason.
"""

from __future__ import annotations

import re

from core.models import Reason
from core.review import ReviewFlag, ReviewInfo

STAGE = "authoring"
NONE_OPEN = "None: no open flag on this record (from the reviewer or the toolkit's checks)."
_LINE = re.compile(
    r"^\s*(?P<id>R\d+)\s*[:.)\-–]?\s*(?P<verb>fixed|fix|edited|accepted|dismissed|dismiss)\b\s*[:,\-–]?\s*(?P<note>.*)$",
    re.IGNORECASE,
)
FIXED_WORDS = ("fixed", "fix", "edited", "accepted")


def flags_text(review: ReviewInfo | None) -> str:
    """What the task's flags box shows: the open flags (the reviewer's and the gate's), one per line."""
    open_flags = review.open_flags if review else []
    if not open_flags:
        return NONE_OPEN
    lines = [f"{f.id} [{f.code}] {f.path}: {f.reason}" for f in open_flags]
    return "\n".join(
        [
            *lines,
            "",
            "Write one line per flag in Flag resolutions: 'R1 fixed' or 'R1 dismissed: why the flag is wrong'.",
        ]
    )


def resolve(review: ReviewInfo, text: str, *, changed: bool, annotator: str | None) -> tuple[ReviewInfo, list[Reason]]:
    """The review with the curator's resolutions applied, and every problem that keeps the record back."""
    open_flags = {f.id.upper(): f for f in review.open_flags}
    answers: dict[str, tuple[str, str]] = {}
    problems: list[Reason] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        match = _LINE.match(line)
        if match is None:
            problems.append(
                _problem(
                    "unreadable_resolution",
                    f"flag resolutions line {number} ({line.strip()[:60]!r}) is not 'R1 fixed' or 'R1 dismissed: why'",
                )
            )
            continue
        flag_id = match["id"].upper()
        if flag_id not in open_flags:
            known = ", ".join(open_flags) or "none"
            problems.append(
                _problem("unknown_flag", f"flag resolutions line {number} names {flag_id}, not an open flag ({known})")
            )
            continue
        status = "fixed" if match["verb"].lower() in FIXED_WORDS else "dismissed"
        answers[flag_id] = (status, " ".join(match["note"].split()))
    updated: list[ReviewFlag] = []
    for flag in review.flags:
        answer = answers.get(flag.id.upper()) if flag.status == "open" else None
        if flag.status != "open":
            updated.append(flag)
            continue
        if answer is None:
            problems.append(_flag_problem("flag_unresolved", flag, "is not resolved: fix the record or dismiss it"))
            updated.append(flag)
            continue
        status, note = answer
        if status == "dismissed" and not note:
            problems.append(_flag_problem("dismissal_without_note", flag, "is dismissed without a note saying why"))
            updated.append(flag)
            continue
        if status == "fixed" and not changed:
            problems.append(
                _flag_problem(
                    "fixed_but_unchanged",
                    flag,
                    "is marked fixed, but the record is unchanged: edit it or dismiss the flag with a note",
                )
            )
            updated.append(flag)
            continue
        updated.append(flag.model_copy(update={"status": status, "note": note or None, "resolved_by": annotator}))
    return review.model_copy(update={"flags": updated}), problems


def _flag_problem(code: str, flag: ReviewFlag, what: str) -> Reason:
    return Reason(stage=STAGE, code=code, message=f"{flag.id} ({flag.code} at {flag.path}) {what}", path=flag.path)


def _problem(code: str, message: str) -> Reason:
    return Reason(stage=STAGE, code=code, message=message, path="$.flag_resolutions")
