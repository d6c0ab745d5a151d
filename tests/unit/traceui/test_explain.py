"""Why a property failed (modelcheck.trace.explain)."""
from __future__ import annotations

import pytest

import modelcheck
from modelcheck.errors import UsageError
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import BOOL, IntType
from modelcheck.trace.explain import explain, expr_text
from modelcheck.trace.trace import Step, Trace


def test_a_leaf_comparison_with_its_operand(die_hard_model, die_hard_trace):
    e = explain(die_hard_trace, die_hard_model, "NotFour")
    assert e.step == 6 and e.label == "BigToSmall"
    assert e.root.text == "big != 4"
    assert e.root.failed and e.root.operands == (("big", "4"),)
    assert e.root.span.line == 25
    assert e.variables == (("big", "4"),)


def test_quantifier_instance_and_every_failing_instance(mini_model, mini_trace):
    e = explain(mini_trace, mini_model, "NoLoss")
    assert e.step == 5
    assert e.root.reason == "fails for v = 0"
    assert e.root.bindings == (("v", "0"),)
    [inner] = e.root.children
    assert inner.text == "any(v in store[n] for n in Node)"
    assert [c.bindings for c in inner.children] == [(("n", "node1"),), (("n", "node2"),)]
    assert all(c.failed and c.operands[1] == ("store[n]", "{}") for c in inner.children)


def test_or_shows_every_false_operand(mini_model, mini_trace):
    e = explain(mini_trace, mini_model, "AllUp")
    assert e.step == 4
    assert e.root.reason == "every operand is false"
    texts = [c.text for c in e.root.children]
    assert texts == ["all(up[n] for n in Node)", "len(confirmed) == 0"]
    assert e.root.children[0].bindings == (("n", "node1"),)
    assert e.root.children[0].children[0].text == "up[n]"


NOT_ANY = """\
module two
type R = model(2)
type S = enum { working, aborted, committed }
var st: map[R, S] = {r: working for r in R}
action Abort(r: R) { st[r] := aborted }
action Commit(r: R) { st[r] := committed }
invariant Consistent: not any(st[a] == aborted and st[b] == committed for a in R for b in R)
invariant Ordered: all(st[a] == committed => st[a] != aborted for a in R)
step invariant NoUndo: all(st[a] == committed => st'[a] == committed for a in R)
sometimes Both: any(st[a] == aborted for a in R) and any(st[a] == committed for a in R)
invariant Calm: all(st[a] != aborted for a in R) and all(st[a] != committed for a in R)
def done(x: R) -> bool = st[x] == committed
invariant NoneDone: not any(done(x) for x in R)
"""


@pytest.fixture(scope="module")
def two():
    model = modelcheck.load_source(NOT_ANY, "two.mc")
    s = lambda a, b: {"st": {"r1": a, "r2": b}}  # noqa: E731
    from modelcheck.ir.values import FrozenDict
    steps = [Step(None, (), {"st": FrozenDict(s("working", "working")["st"])}),
             Step("Commit", (("r", "r2"),), {"st": FrozenDict(s("working", "committed")["st"])}),
             Step("Abort", (("r", "r1"),), {"st": FrozenDict(s("aborted", "committed")["st"])}),
             Step("Abort", (("r", "r2"),), {"st": FrozenDict(s("aborted", "aborted")["st"])})]
    return model, Trace("two", steps)


def test_not_any_descends_to_the_witness_with_both_bound_variables(two):
    model, trace = two
    e = explain(trace, model, "Consistent")
    assert e.step == 2
    [witness] = e.root.children
    assert witness.reason == "holds for a = r1, b = r2"
    assert witness.bindings == (("a", "r1"), ("b", "r2"))
    [conj] = witness.children
    assert conj.expected is False and conj.reason == "every operand is true"
    assert [c.operands for c in conj.children] == [(("st[a]", "aborted"),), (("st[b]", "committed"),)]


def test_step_invariant_reads_the_post_state(two):
    model, trace = two
    e = explain(trace, model, "NoUndo")
    assert e.step == 3 and e.kind is ir.PropertyKind.STEP
    [impl] = e.root.children
    assert impl.reason == "the premise holds and the conclusion is false"
    assert ("st", "{r1: aborted, r2: committed}") in e.variables
    assert ("st'", "{r1: aborted, r2: aborted}") in e.variables


def test_sometimes_explains_where_it_first_holds(two):
    model, trace = two
    e = explain(trace, model, "Both")
    assert e.step == 2 and e.root.value == "true" and e.root.expected is False


def test_a_property_that_never_fails_has_nothing_to_explain(two):
    model, trace = two
    assert explain(trace, model, "Ordered").step is None


def test_unknown_property_and_foreign_trace(two, die_hard_trace):
    model, trace = two
    with pytest.raises(UsageError) as info:
        explain(trace, model, "Consistnt")
    assert info.value.hint == "did you mean 'Consistent'?"
    with pytest.raises(UsageError):
        explain(die_hard_trace, model, "Consistent")


def test_expressions_without_source_are_printed_from_the_ir():
    x = ir.Var("x", IntType(0, 3))
    e = ir.Apply(Op.AND, (ir.Apply(Op.LT, (x, ir.Const(3, IntType(3, 3))), BOOL),
                          ir.Apply(Op.NOT, (ir.Apply(Op.EQ, (x, ir.Const(1, IntType(1, 1))), BOOL),), BOOL)),
                 BOOL)
    assert expr_text(e) == "(x < 3) and (not (x == 1))"


def test_and_that_is_false_descends_into_the_false_operand(two):
    model, trace = two
    e = explain(trace, model, "Calm")
    assert e.step == 1
    assert e.root.reason == "the first operand that is false"
    [child] = e.root.children
    assert child.text == "all(st[a] != committed for a in R)"
    assert child.failed and child.expected is True
    assert child.children[0].operands == (("st[a]", "committed"),)


def test_a_def_call_is_shown_as_written_with_its_arguments(two):
    model, trace = two
    e = explain(trace, model, "NoneDone")
    [witness] = e.root.children
    [call] = witness.children
    assert call.text == "done(x)"
    assert call.reason == "the def's body, with x = r2"
    assert call.children[0].text == "st[x] == committed"
