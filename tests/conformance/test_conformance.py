"""Cross-engine conformance: one test body, parametrised over every engine and
every spec configuration in the repository (the rows of specs/verdicts.toml and
specs/examples/verdicts.toml).  Each engine must agree with the reference
explorer within its declared capabilities:

* explicit engines (compiled, spark): distinct states, depth, generated states,
  every property's status and shortest trace length;
* bounded model checking (bmc): where the reference found a violation or a
  witness in d steps, BMC finds one of exactly d steps; where a property holds
  with diameter D (TLC depth, D - 1 steps), BMC to D - 1 steps finds nothing.

The reference result of each configuration is computed once per session.

Budgets, so that CI (2 cores, 90 minutes) can run this on every row: BMC gets
``BMC_BUDGET_S`` per row, and a row it cannot finish in time must come back
UNKNOWN or HOLDS_UP_TO_BOUND with a reason, never with a wrong answer (deep
Raft rows need 13-15 steps, which BMC does not reach in that time on this
machine class).  Spark forces every level through Spark
(``spark_threshold=0``) on the example specs and on one row of each RabbitMQ
spec; elsewhere it runs with its default threshold (in-process until a level
is wide), which is how users run it.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.engines.compiled.cache.plan_key import resolve_backend
from modelcheck.ir.nodes import PropertyKind

ROOT = Path(__file__).resolve().parents[2]
VERDICT_FILES = [ROOT / "specs" / "examples" / "verdicts.toml", ROOT / "specs" / "verdicts.toml"]


BMC_BUDGET_S = 20.0
#: how a Z3 engine's answer starts when the spec is outside its encoding
Z3_DECLINES = "the Z3 encoding does not support this spec"

#: configurations on which Spark runs every level distributed
SPARK_FORCED = {"DH-1", "TP-3", "TP-5", "CMQ-1", "QQ-2", "TLA-CounterConstraint"}


def _liveness_checked(row: dict, spec: Path) -> tuple[list[str], list[str]]:
    """The row's checks, and those of them that are liveness properties of
    its spec (read from the spec's text: loading every spec at collection
    would be slow)."""
    text = spec.read_text(encoding="utf-8")
    names = [c["property"] for c in row.get("check", [])]
    live = [n for n in names if re.search(rf"^liveness\s+{re.escape(n)}\b", text, re.M)]
    return names, live


def _row_liveness() -> dict[str, tuple[str, ...]]:
    """Row id -> the liveness properties the row checks.  A configuration is
    checked for every safety property of its spec and for the liveness
    properties its row names: the liveness graph and its kernels are built
    where a row asks for them, not on every configuration of a spec."""
    out = {}
    for path in VERDICT_FILES:
        if path.exists():
            for row in tomllib.loads(path.read_text())["row"]:
                out[row["id"]] = tuple(_liveness_checked(row, path.parent / row["spec"])[1])
    return out


ROW_LIVENESS = _row_liveness()


def _selection(model, row_id: str) -> tuple[str, ...]:
    wanted = ROW_LIVENESS.get(row_id, ())
    return tuple(p.name for p in model.properties) + tuple(
        t.name for t in model.temporals if t.name in wanted)


def _configurations(liveness_rows: bool = True):
    """(id, spec path, consts, no_deadlock) for every non-large row, plus extra
    example sizes; without the rows that check only liveness properties when
    ``liveness_rows`` is false (engines that do not check liveness would only
    repeat the safety checks of other rows of the same spec)."""
    configs = []
    for path in VERDICT_FILES:
        if not path.exists():
            continue
        rows = tomllib.loads(path.read_text())["row"]
        for row in rows:
            if row.get("large"):
                continue
            spec = (path.parent / row["spec"]).resolve()
            names, live = _liveness_checked(row, spec)
            if not liveness_rows and names and len(live) == len(names):
                continue
            consts = {k: str(v).lower() if isinstance(v, bool) else str(v)
                      for k, v in row.get("consts", {}).items()}
            configs.append(pytest.param(spec, consts, bool(row.get("no_deadlock", False)),
                                        row["id"], id=row["id"]))
    return configs


CONFIGS = _configurations()
SAFETY_CONFIGS = _configurations(liveness_rows=False)
#: The TLA+ twins of TLC's CONSTRAINT (bench/tla): state constraints, which
#: the explicit engines apply as the reference does (docs/design.md).
CONSTRAINT_CONFIGS = [pytest.param(ROOT / "bench" / "tla" / f"{name}.mc", {}, False, f"TLA-{name}",
                                   id=f"TLA-{name}")
                      for name in ("CounterConstraint", "EdgeConstraint", "InitConstraint")]
#: Specs of the language's TLA+ idioms (docs/tla.md): sequence comprehensions
#: and membership, elems, last, choose, narrowing to a variant case; pick each.
IDIOM_CONFIGS = [pytest.param(ROOT / "tests" / "conformance" / "specs" / f"{name}.mc", {}, False,
                              f"IDIOM-{name}", id=f"IDIOM-{name}")
                 for name in ("seq_idioms", "pick_each")]
CONSTRAINT_CONFIGS = CONSTRAINT_CONFIGS + IDIOM_CONFIGS
#: "compiled-parallel" is the compiled engine on three workers from the first
#: level (parallel.py; by default a search goes parallel after a second).
#: "compiled" runs the default backend (C where there is a compiler),
#: "compiled-numba" the same kernels compiled by numba.
EXPLICIT = ["compiled", "compiled-numba", "compiled-parallel", "spark"]

#: The RabbitMQ rows that the numba backend runs.  numba is the compiled
#: engine's fallback (a machine without a C compiler, a kernel C cannot
#: take); every row runs on the default backend above.  Each RabbitMQ row's
#: kernel is its own code (its consts unroll loops and size the layout):
#: 28 kernels of 8,000-9,000 lines, each a cold numba compile of 50-110 s,
#: which was a third of the suite's cold time.  These rows cover each
#: RabbitMQ spec's safety checks, a violation's shortest trace, a witness of
#: a `sometimes`, and liveness; every other row (examples, TLA+ twins,
#: idioms) runs on numba too.
NUMBA_RABBIT_ROWS = {"CMQ-1", "CMQ-3-unavailable", "CMQ-live-delivery",
                     "QQ-1", "QQ-5", "QQ-live-election"}


def _on_engine(engine: str, param) -> bool:
    row_id = param.values[3]
    rabbit = row_id.startswith(("CMQ-", "QQ-"))
    return engine != "compiled-numba" or not rabbit or row_id in NUMBA_RABBIT_ROWS


@pytest.fixture(scope="session")
def reference_results():
    cache: dict = {}

    def get(spec, consts, no_deadlock, row_id):
        key = (str(spec), tuple(sorted(consts.items())), no_deadlock,
               ROW_LIVENESS.get(row_id, ()))
        if key not in cache:
            model = api.load(str(spec), consts=consts)
            options = CheckOptions(deadlock=not no_deadlock,
                                   invariants=_selection(model, row_id))
            cache[key] = (model, api.check(model, engine="reference", options=options))
        return cache[key]

    return get


#: Engines that answer UNKNOWN for liveness (docs/engines/liveness.md).
NO_LIVENESS = {"spark", "bmc"}


def _summary(result, engine: str = "reference"):
    """Verdicts and trace lengths; a lasso's by its prefix and its cycle
    (every engine that checks liveness builds the reference's lasso: the same
    prefix search, the same waypoints round the cycle).  An engine that does
    not check liveness must say UNKNOWN."""
    out = {}
    for p in result.properties:
        if p.kind is PropertyKind.LIVENESS:
            if p.status is Status.UNKNOWN and p.reason and "does not check liveness" in p.reason:
                out[p.name] = ("unchecked", None)
            else:
                out[p.name] = (p.status, None if p.trace is None else
                               (p.trace.loop, len(p.trace.states), p.trace.loop_back is None))
        else:
            out[p.name] = (p.status, p.steps)
    return out


def _expected(ref, engine: str):
    want = _summary(ref)
    if engine in NO_LIVENESS:
        want.update({p.name: ("unchecked", None) for p in ref.properties
                     if p.kind is PropertyKind.LIVENESS})
    return want


def _engine_options(engine: str, no_deadlock: bool, row_id: str, model) -> CheckOptions:
    # Symmetry on, as every engine runs by default: the reference's brute-force
    # reduction is the oracle of the kernels' canonical forms.
    options = CheckOptions(deadlock=not no_deadlock, invariants=_selection(model, row_id))
    if engine == "spark":
        if row_id in SPARK_FORCED:
            options.spark_threshold = 0   # force every level through Spark
        options.partitions = 2           # one per core: 4 made every level run in two waves
    if engine in ("compiled", "compiled-numba"):
        options.workers = 1              # the one-core search (compiled-parallel: below)
    if engine == "compiled-numba":
        options.extra["kernel_backend"] = "numba"
    if engine == "compiled-parallel":
        # three workers: slices of unequal rows, and more shards than workers
        options.workers = 3
        options.extra["parallel_after_s"] = 0
    return options


@pytest.mark.parametrize("engine,spec,consts,no_deadlock,row_id", [
    pytest.param(engine, *p.values, id=f"{p.id}-{engine}")
    for engine in EXPLICIT
    for p in (CONFIGS if engine.startswith("compiled") and engine != "compiled-parallel"
              else SAFETY_CONFIGS) + CONSTRAINT_CONFIGS
    if _on_engine(engine, p)])
def test_explicit_engine_agrees_with_reference(engine, spec, consts, no_deadlock, row_id,
                                               reference_results):
    if engine == "spark":
        pytest.importorskip("pyspark")
    model, ref = reference_results(spec, consts, no_deadlock, row_id)
    assert ref.complete, f"reference did not finish: {ref.reason}"
    got = api.check(model, engine=engine.split("-")[0],
                    options=_engine_options(engine, no_deadlock, row_id, model))
    assert got.error is None and ref.error is None
    assert got.complete, got.reason
    assert got.stats.distinct_states == ref.stats.distinct_states
    assert got.stats.depth == ref.stats.depth
    assert got.stats.generated_states == ref.stats.generated_states
    assert _summary(got) == _expected(ref, engine)
    if engine.startswith("compiled"):
        # no silent fallback: every shipped kernel translates to C
        want = "numba" if engine == "compiled-numba" else resolve_backend()
        assert got.stats.extras["kernel_backend"] == want, got.notes


@pytest.mark.parametrize("spec,consts,no_deadlock,row_id", SAFETY_CONFIGS + CONSTRAINT_CONFIGS)
def test_bmc_agrees_with_reference(spec, consts, no_deadlock, row_id, reference_results):
    pytest.importorskip("z3")
    model, ref = reference_results(spec, consts, no_deadlock, row_id)
    assert ref.complete, f"reference did not finish: {ref.reason}"
    diameter_steps = ref.stats.depth - 1
    found = {p.name: p for p in ref.properties}
    # The deepest question BMC has to answer: the longest trace the reference
    # found, or the diameter when something holds (nothing is found to that depth).
    safety = [p for p in ref.properties if p.kind is not PropertyKind.LIVENESS]
    lengths = [p.steps for p in safety if p.steps is not None]
    holds = [p for p in safety if p.trace is None]
    depth = max(lengths + ([diameter_steps] if holds else []), default=1)
    options = CheckOptions(deadlock=not no_deadlock, depth=depth, timeout_s=BMC_BUDGET_S,
                           invariants=_selection(model, row_id))
    got = api.check(model, engine="bmc", options=options)
    assert got.error is None
    if got.reason and got.reason.startswith(Z3_DECLINES):
        # Outside the encoding's declared capabilities (docs/engines/z3.md,
        # e.g. a state variable of a large set type without a capacity):
        # UNKNOWN for every property, never a verdict.
        assert all(p.trace is None and p.status is Status.UNKNOWN for p in got.properties)
        return
    for p in got.properties:
        expected = found[p.name]
        if expected.kind is PropertyKind.LIVENESS:
            assert p.status is Status.UNKNOWN and "does not check liveness" in p.reason, p.name
            continue
        if p.trace is None and p.status in (Status.UNKNOWN, Status.HOLDS_UP_TO_BOUND) and got.reason:
            # Out of budget: an honest UNKNOWN, but it must say why and not
            # claim more depth than the reference's answer needs.
            assert "timeout" in got.reason or "depth" in got.reason, got.reason
            if expected.trace is not None and "timeout" not in got.reason:
                pytest.fail(f"{p.name}: BMC finished without the {expected.steps}-step trace")
            continue
        if expected.trace is not None:
            assert p.trace is not None, f"{p.name}: BMC found no trace of {expected.steps} steps"
            assert p.steps == expected.steps, p.name
            assert p.status == expected.status, p.name
        elif expected.kind is PropertyKind.SOMETIMES:
            # never reachable: BMC must not find a witness within the diameter
            assert p.trace is None and p.status in (Status.HOLDS_UP_TO_BOUND, Status.UNKNOWN,
                                                    Status.VIOLATED), p.name
        else:
            assert p.trace is None and p.status is Status.HOLDS_UP_TO_BOUND, p.name


@pytest.mark.parametrize("spec,consts,no_deadlock,row_id", SAFETY_CONFIGS + CONSTRAINT_CONFIGS)
def test_compiled_without_symmetry_agrees_with_reference(spec, consts, no_deadlock, row_id,
                                                         reference_results):
    """Where a spec declares a usable symmetric type, the test above compares
    the reduced counts; here both engines run un-reduced, which must give the
    same verdicts and trace lengths and exactly the reference's counts."""
    from modelcheck.engines.symmetry import usable_symmetric_types
    model, reduced = reference_results(spec, consts, no_deadlock, row_id)
    if not usable_symmetric_types(model)[0]:
        pytest.skip("no usable symmetric type: the test above ran it un-reduced")
    options = CheckOptions(deadlock=not no_deadlock, symmetry=False,
                           invariants=_selection(model, row_id))
    ref = api.check(model, engine="reference", options=options)
    off = api.check(model, engine="compiled", options=options)
    assert off.error is None and off.complete, off.reason
    assert _summary(off) == _summary(ref) == _summary(reduced)
    assert (off.stats.distinct_states, off.stats.generated_states, off.stats.depth) == (
        ref.stats.distinct_states, ref.stats.generated_states, ref.stats.depth)
    assert reduced.stats.distinct_states < ref.stats.distinct_states
