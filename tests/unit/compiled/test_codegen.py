"""The generated kernels against the reference evaluator, state by state.

Each spec under specs/ packs many constructs (every operation of ir.ops,
comprehensions, quantifiers, picks, either, if with requires, conversions
between int ranges and capacities); on every reachable state the compiled
successors must be exactly the reference's (same order, same action labels,
same states), and every state and step property must agree.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from modelcheck import api
from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.ir.nodes import PropertyKind

pytest.importorskip("numba")


def _reachable_agree(model, k) -> int:
    ev = Evaluator(model)
    init = k.initial_states()
    assert [k.decode(r) for r in init] == ev.initial_states()
    seen = {bytes(r) for r in init}
    order = list(init)
    i = 0
    while i < len(order):
        row = order[i]
        i += 1
        state = k.decode(row)
        expected = [(t.action, t.params, t.state) for t in ev.successors(state)]
        succ, _, aid, fault = k.expand(row)
        assert fault is None
        got = [k.action_label(a) + (k.decode(w),) for a, w in zip(aid, succ)]
        assert got == expected, state
        flags = k.check_state_properties(row)[0]
        for c, prop in enumerate(k.state_columns):
            want = (bool(ev.eval(prop.expr, state)) if prop.kind is PropertyKind.TERMINAL
                    else ev.check_property(prop.name, state))
            assert bool(flags[c]) == want, (prop.name, state)
        if len(succ) and k.step_columns:
            steps = k.check_steps(np.repeat(row.reshape(1, -1), len(succ), 0), succ, aid)
            for j, w in enumerate(succ):
                post = k.decode(w)
                for c, prop in enumerate(k.step_columns):
                    assert bool(steps[j, c]) == ev.check_property(prop.name, state, post)
        for w in succ:
            if bytes(w) not in seen:
                seen.add(bytes(w))
                order.append(w)
    return len(order)


@pytest.mark.parametrize("name,states", [("constructs_a", 1182), ("constructs_b", 1501),
                                         ("constructs_c", 448), ("wide", None)])
def test_kernels_agree_with_the_reference_on_every_reachable_state(name, states, load, kernels):
    model = load(name)
    if states is None:
        states = api.check(model, engine="reference").stats.distinct_states
    assert _reachable_agree(model, kernels(name)) == states


def test_wide_layout_uses_field_tables(kernels):
    from modelcheck.engines.compiled.codegen.action import INLINE_SLOTS
    k = kernels("wide")
    assert k.layout.slots > INLINE_SLOTS and "def pack_word_t(" in k.generated.source


def test_wide_layout_unpacks_line_by_line(kernels):
    from modelcheck.engines.compiled.codegen.module import UNPACK_INLINE_SLOTS
    k = kernels("wide")
    assert k.layout.slots <= UNPACK_INLINE_SLOTS
    assert "for i in range(NSLOTS):" not in k.generated.source


def test_unpacking_by_field_tables_agrees_with_the_reference(tmp_path):
    """A layout wider than UNPACK_INLINE_SLOTS unpacks by a loop over the
    field tables: the same states as line by line (wide.mc with longer
    queues: the same reachable states, more slots)."""
    from modelcheck.engines.compiled.codegen.module import UNPACK_INLINE_SLOTS
    from modelcheck.engines.compiled.kernels import KernelOptions, compile_model
    text = (Path(__file__).parent / "specs" / "wide.mc").read_text().replace("seq[0..3, 8]", "seq[0..3, 40]")
    assert "seq[0..3, 40]" in text
    path = tmp_path / "wider.mc"
    path.write_text(text)
    model = api.load(str(path))
    k = compile_model(model, KernelOptions(symmetry=False))
    assert k.layout.slots > UNPACK_INLINE_SLOTS
    assert "for i in range(NSLOTS):" in k.generated.source
    assert _reachable_agree(model, k) == api.check(model, engine="reference").stats.distinct_states


def test_examples_agree_with_the_reference(load, kernels):
    assert _reachable_agree(load("die_hard"), kernels("die_hard")) == 16
    assert _reachable_agree(load("two_phase", N=3), kernels("two_phase", N=3)) == 288


def test_run_time_errors_have_the_reference_codes(load, kernels):
    """errors.mc: mode k makes an action fail with MC500k."""
    model = load("errors")
    k = kernels("errors")
    ev = Evaluator(model)
    first = ev.initial_states()[0]
    for mode in range(1, 7):
        state = (mode,) + first[1:]
        *_, fault = k.expand(k.layout.pack(state))
        with pytest.raises(Exception) as raised:
            list(ev.successors(state))
        assert fault is not None and fault.code == raised.value.diagnostic.code == f"MC500{mode}"


def test_generated_source_is_readable_and_dumped(load, tmp_path):
    from modelcheck.engines.compiled.kernels import KernelOptions, compile_model
    target = tmp_path / "kernel.py"
    k = compile_model(load("die_hard"), KernelOptions(dump_kernel=str(target)))
    text = target.read_text()
    assert text == k.generated.source
    assert "def act_0_FillSmall(" in text and "def successors(" in text
    assert "big: slots 1..1, 3 bits" in text        # the layout, as a comment
    compile(text, str(target), "exec")


def _function(source: str, name: str) -> str:
    start = source.index(f"def {name}(")
    end = source.find("\ndef ", start + 1)
    return source[start:end]


def test_records_in_sets_read_by_field_agree_with_the_reference(load, kernels):
    """Loops over sets of records bind each element as its rank and unrank
    only the fields read (codegen/ranked.py); whole-record uses (equality,
    membership) unrank the record.  The search agrees with the reference
    (counts, the first violation of each invariant and its length), and its
    new states are unpacked only in the slots that the invariants and the
    constraint read."""
    model = load("ranked_records")
    k = kernels("ranked_records")
    reference = api.check(model, engine="reference")
    compiled = api.check(model, engine="compiled")
    assert compiled.stats.distinct_states == reference.stats.distinct_states
    assert compiled.stats.generated_states == reference.stats.generated_states
    def verdicts(result):
        return {p.name: (p.status, None if p.trace is None else len(p.trace.steps))
                for p in result.properties}
    assert verdicts(compiled) == verdicts(reference)
    noise, ticks = k.layout.var("noise"), k.layout.var("ticks")
    props = _function(k.generated.source, "unpack_props_row")
    constraint = _function(k.generated.source, "unpack_model_row")
    assert f"U[{noise.first}] =" not in props and f"U[{ticks.first}] =" not in props
    assert f"U[{ticks.first}] =" in constraint and f"U[{k.layout.var('recs').first}] =" not in constraint
