"""Every trace under counterexamples/ (written by `modelcheck verdicts
specs/verdicts.toml`) replays against its spec and configuration, as its ITF
#meta records them, and is the trace its row of specs/verdicts.toml asks
for: a counterexample whose last state violates the property, or a witness
whose last state satisfies it, of exactly the row's length.  A mutant's
trace (<row>-mutant<n>-<property>.itf.json) replays under the row's consts
with the mutant's over them, and violates the property, of the mutant's
length where it gives one."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from modelcheck.api import load
from modelcheck.cli.verdict_file import Expectation, read_verdict_file
from modelcheck.engines.base import Status
from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.ir.nodes import PropertyKind
from modelcheck.trace.itf import decode_generic, read_itf
from modelcheck.trace.lasso import lasso_problem
from modelcheck.trace.replay import replay

ROOT = Path(__file__).resolve().parents[2]
TRACES = sorted((ROOT / "counterexamples").glob("*.itf.json"))
ROWS = {row.id: row for row in read_verdict_file(str(ROOT / "specs" / "verdicts.toml"))}


def const_text(value) -> str:
    """A const's value as -D writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def row_of(path: Path):
    """The consts and the expectation a trace file is named after
    (<row>-<property>.itf.json, or <row>-mutant<n>-<property>.itf.json)."""
    stem = path.name.removesuffix(".itf.json")
    for row_id, row in ROWS.items():
        for c in row.checks:
            if stem == f"{row_id}-{c.property}":
                return row.consts, c
        for m in row.mutants:
            for name in (m.property,) if m.property else row.holds_names:
                if stem == f"{m.name(row_id)}-{name}":
                    steps = m.steps if m.property else None
                    return {**row.consts, **m.consts}, Expectation(name, Status.VIOLATED, steps)
    raise AssertionError(f"{path.name} is named after no row of specs/verdicts.toml")


def test_there_are_traces_for_every_row_that_has_one():
    names = {p.name for p in TRACES}
    for row in ROWS.values():
        if row.large:
            continue
        for c in row.checks:
            if c.steps is not None:
                assert f"{row.id}-{c.property}.itf.json" in names
        for m in row.mutants:
            if m.steps is not None:
                assert f"{m.name(row.id)}-{m.property}.itf.json" in names


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.name)
def test_trace_replays(path):
    meta = json.loads(path.read_text(encoding="utf-8"))["#meta"]
    row_consts, expectation = row_of(path)
    spec = Path(meta["source"])
    if not spec.is_absolute():
        spec = ROOT / spec
    consts = {name: const_text(decode_generic(v)) for name, v in meta["consts"].items()}
    model = load(str(spec), consts)
    # the configuration recorded is the row's
    for name, value in row_consts.items():
        assert consts[name] == value, f"{path.name}: {name}"
    assert meta["property"] == expectation.property
    trace = read_itf(path, model)
    result = replay(model, trace)
    assert result.ok, f"{path.name}: step {result.step}: {result.reason}"
    if expectation.steps is not None:
        assert len(trace) == expectation.steps
    if any(t.name == expectation.property for t in model.temporals):
        # a liveness counterexample: a fair lasso that violates the property
        assert trace.loop is not None, f"{path.name}: no cycle"
        problem = lasso_problem(model, trace)
        assert problem is None, f"{path.name}: {problem}"
        return
    prop = model.get_property(expectation.property)
    evaluator = Evaluator(model)
    last = evaluator.check_property(prop.name, evaluator.state_from_dict(trace.steps[-1].state))
    if prop.kind is PropertyKind.SOMETIMES:
        assert last, f"{path.name}: the witness does not end in a state where it holds"
    else:
        assert not last, f"{path.name}: the counterexample does not end in a violation"
