"""Each rule's CPU cost (benchmarks/bench_text_pipeline.py --rule-costs, shown in docs/rules.md): the sampling
profiler charges a function by the CPU spent under it, and a rule is charged only for its own functions."""

from __future__ import annotations

import importlib
import inspect
import signal
from pathlib import Path
from types import ModuleType

import pytest

from build_split.ingest import import_into_store, load_into_store
from build_split.options import RunOptions
from core.models import RecordState
from core.store import Store
from validation.rules import all_rules

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def benchmarks(monkeypatch: pytest.MonkeyPatch) -> dict[str, ModuleType]:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    return {name: importlib.import_module(name) for name in ("cpu_samples", "bench_text_pipeline")}


def _spin(rounds: int) -> int:
    total = 0
    for i in range(rounds):
        total += i * i % 7
    return total


def light() -> int:
    return _spin(150_000)


def heavy() -> int:
    return _spin(600_000)  # four times the work of `light`


def outer() -> int:
    return sum(light() + heavy() for _ in range(4))


def _function(fn: object) -> tuple[str, str]:
    code = fn.__code__  # type: ignore[attr-defined]
    return code.co_filename, code.co_qualname


def test_the_samples_charge_each_function_by_the_cpu_under_it(benchmarks: dict[str, ModuleType]) -> None:
    samples = benchmarks["cpu_samples"].CpuSamples()
    with samples.recording():
        while samples.count < 200:  # the CPU timer ticks every 1-4 ms, by the kernel's rate
            outer()
    assert samples.share({_function(outer)}) > 0.95  # the loop is all under `outer`, its callees included
    heavy_share, light_share = samples.share({_function(heavy)}), samples.share({_function(light)})
    assert 0.6 < heavy_share < 0.95 and 0.05 < light_share < 0.4, (heavy_share, light_share)
    assert samples.share(set()) == 0.0
    # The timer is off and the signal's handler is the one before.
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGPROF) in (signal.SIG_DFL, None)


def test_rule_costs_charge_each_rule_only_its_own_functions(benchmarks: dict[str, ModuleType], tmp_path: Path) -> None:
    bench = benchmarks["bench_text_pipeline"]
    source, authored = bench.generate(20, tmp_path)
    workspace = tmp_path / "workspace"
    with Store.open(workspace) as store:
        load_into_store(store, RunOptions(source="hotpotqa", input=source, workspace=workspace))
        import_into_store(store, "hotpotqa", authored)
        rows = list(store.record_pages("hotpotqa", [RecordState.AUTHORED], 100))
    costs = bench.rule_costs(rows)
    assert costs["records"] == 20 and costs["passes"] >= 1 and costs["samples"] > 0
    per_rule = costs["us_per_record"]
    total, engine = costs["total_us_per_record"], costs["engine_us_per_record"]
    assert total > 0 and 0 < engine <= total
    assert all(0 <= value <= total for value in per_rule.values())
    # The locator every rule relies on (and the located evidence stored for curators) is the engine's: no rule names
    # it, so no rule is charged for it. It was once charged to `value_not_near_entity` as its costliest rule.
    named = {check for rule in all_rules() for check in rule.checks}
    assert "validation.evidence_fields:_locate" not in named
    assert "value_not_near_entity" in per_rule
    # A function two rules name is charged to neither: `_check_fields` serves two rules.
    own = bench.own_functions(all_rules())
    shared = "validation.evidence_fields:_check_fields"
    sharing = [rule.code for rule in all_rules() if shared in rule.checks]
    assert sharing == ["value_in_wrong_field", "value_not_near_entity"]
    assert all(name != "_check_fields" for code in sharing for _, name in own[code])
    assert {name for _, name in own["value_not_near_entity"]} == {"_place_near_entity", "_near"}
    assert {name for _, name in own["value_in_wrong_field"]} == {"check_labels"}
    # Every rule that has a function of its own has a figure; the others show none.
    assert set(per_rule) <= {rule.code for rule in all_rules()}


def test_every_function_a_rule_names_is_found_in_the_samples_under_that_name() -> None:
    """A sample notes each frame's (file, qualified name), and a rule's functions are looked up as (its module's file,
    the name it gives). A rule naming a function where it is only imported, not defined, would read 0 µs whatever
    it cost."""
    wrong = []
    for rule in all_rules():
        for check in rule.checks:
            module_name, _, attribute = check.partition(":")
            module = importlib.import_module(module_name)
            target: object = module
            for part in attribute.split("."):
                target = getattr(target, part)
            code = inspect.unwrap(target).__code__  # type: ignore[arg-type, attr-defined]
            if (code.co_filename, code.co_qualname) != (module.__file__, attribute):
                wrong.append(f"{rule.code}: {check} is {code.co_qualname} of {code.co_filename}")
    assert not wrong, wrong
