"""The exit codes of `python -m build_split`, and the one-line summary of LLM failures behind them.

- 0: the run finished; nothing failed that a rerun could fix.
- 1: an unexpected error (a traceback: please report it).
- 2: a usage or input error: the `error:` line says what to fix.
- 3: LLM calls failed on server errors, timeouts or an outage, or the circuit breaker stopped the
  stage (`--max-consecutive-failures`): the records stay waiting (`judge_error`, or no draft
  stored) and the next run asks again. One line on stderr says how many and the last error.
- 4: the LLM provider refused the key, its permissions or the model (HTTP 400 naming the key,
  401, 403, 404): the stage stopped at the first call, nothing else was sent and no release was
  written. Fix the key (GEMINI_API_KEY, GOOGLE_API_KEY, OPENAI_API_KEY) or the model name.
- 5: the network failed: the Hugging Face Hub could not be reached (DNS, refused connection, timeout) or
  answered with a transient error (HTTP 408/429/5xx). Nothing is lost: the local release stays, and
  publishing again commits only what is missing.
- 6: the run finished, but an import left conflicts unapplied: incoming versions that conflict with a record's
  current revision from another origin are kept, not applied. The last line says how many; `--rejections` lists
  them, `--overwrite` applies them.
- 7: the run finished, but the audit (`--audit N`) drew fewer records per round than asked: fewer records are
  accepted than N. The last line says how many each round holds; its intervals are wider than asked for.

- 141 (128 + SIGPIPE): stdout was closed by its reader (`--status | head -3`): the run ends quietly, as
  command-line tools do, with nothing on stderr.

Malformed replies do not change the code: they are cached as failures and reported on the summary
line; `--retry-failed` asks again.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from core.llm.failures import LLMStopped
from core.redaction import redact

OK = 0
UNEXPECTED = 1
USAGE = 2
LLM_UNAVAILABLE = 3
LLM_REFUSED = 4
NETWORK = 5
CONFLICTS_NOT_APPLIED = 6
AUDIT_SHORT = 7
CLOSED_STDOUT = 141  # 128 + SIGPIPE, what a shell reports for `yes | head -1`


def ended_by_closed_stdout() -> int:
    """Stdout's reader went away: point stdout at /dev/null (so the flush at exit cannot fail again, which
    Python would report on stderr) and end quietly."""
    import os
    import sys

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return CLOSED_STDOUT


_WHAT_HAPPENS = {
    "transient": "server error or timeout, waiting for the next run",
    "refused": "refused",
    "rejected": "refused for that request (a 4xx, or a reply over the size limit), asked again with --retry-failed",
    "malformed": "malformed reply, cached (--retry-failed asks again)",
    "not_sent": "not sent after the stop",
}


@dataclass
class StageFailures:
    """The failed LLM results of one stage of a run."""

    stage: str  # "draft" or "judge"
    client: str  # "<backend>:<model>"
    counts: Counter[str] = field(default_factory=Counter)
    last: dict[str, str] = field(default_factory=dict)
    stop: LLMStopped | None = None

    @property
    def failed(self) -> bool:
        return self.stop is not None or any(n for kind, n in self.counts.items() if kind != "not_sent")


def exit_code(stages: list[StageFailures]) -> int:
    if any(s.stop is not None and s.stop.kind == "refused" for s in stages):
        return LLM_REFUSED
    if any(s.stop is not None or s.counts.get("transient") for s in stages):
        return LLM_UNAVAILABLE
    return OK


def summary_line(failures: StageFailures) -> str:
    """One line: what failed in the stage, what happens to it, and the last error."""
    noun = "record(s)" if failures.stage == "judge" else "item(s)"
    parts = [f"{n} {noun} {_WHAT_HAPPENS.get(kind, kind)}" for kind, n in sorted(failures.counts.items()) if n]
    line = f"llm failures in {failures.stage} ({failures.client}): " + ("; ".join(parts) or "none")
    if failures.stop is not None:
        line += f". STOPPED: {failures.stop}"
    else:
        last = failures.last.get("transient") or failures.last.get("rejected") or failures.last.get("malformed")
        if last:
            line += f". Last error: {last}"
    return redact(" ".join(line.split())) or ""
