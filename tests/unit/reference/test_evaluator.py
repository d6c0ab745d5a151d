"""The reference semantics of expressions and statements, on IR built by hand."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hand_models import apply, const, die_hard, local, model, var
from modelcheck.diagnostics import Span
from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.errors import EvalError
from modelcheck.ir import nodes as ir
from modelcheck.ir.ops import Op
from modelcheck.ir.types import (BOOL, BagType, EnumType, IntType, MapType, ModelType, OptionType,
                                 RecordType, SeqType, SetType, TupleType)
from modelcheck.ir.values import FrozenDict

INT = IntType(-100, 100)
SMALL = IntType(0, 3)
NODE = ModelType("Node", ("node1", "node2", "node3"))
SPAN = Span("spec.mc", 4, 5, 4, 12)


def ev_of(*vars_, actions=(), properties=(), terminals=()):
    return Evaluator(model("m", vars_, actions, properties, terminals))


def evaluate(expr, state=(), env=None, post=None, ev=None):
    return (ev or ev_of()).eval(expr, state, env or {}, post)


def c(v, t=INT):
    return const(v, t)


# ---------------------------------------------------------------- expressions

@pytest.mark.parametrize("op,args,expected", [
    (Op.ADD, (2, 3), 5), (Op.SUB, (2, 3), -1), (Op.MUL, (-2, 3), -6),
    (Op.DIV, (-7, 2), -4), (Op.MOD, (-7, 2), 1), (Op.MIN, (4, -1), -1), (Op.MAX, (4, -1), 4),
    (Op.LT, (1, 2), True), (Op.LE, (2, 2), True), (Op.GT, (1, 2), False), (Op.GE, (1, 2), False),
    (Op.EQ, (1, 1), True), (Op.NE, (1, 1), False),
])
def test_int_operations(op, args, expected):
    assert evaluate(apply(op, INT, *(c(a) for a in args))) == expected


def test_negation():
    assert evaluate(apply(Op.NEG, INT, c(5))) == -5


@pytest.mark.parametrize("op,a,b,expected", [
    (Op.UNION, {1, 2}, {2, 3}, {1, 2, 3}), (Op.INTER, {1, 2}, {2, 3}, {2}),
    (Op.DIFF, {1, 2}, {2, 3}, {1}), (Op.SUBSET, {1}, {1, 2}, True), (Op.SUBSET, {3}, {1, 2}, False),
])
def test_set_operations(op, a, b, expected):
    st = SetType(INT)
    got = evaluate(apply(op, st, c(frozenset(a), st), c(frozenset(b), st)))
    assert got == (frozenset(expected) if isinstance(expected, set) else expected)


def test_range_min_max_len_in():
    st = SetType(INT)
    rng = apply(Op.RANGE, st, c(2), c(5))
    assert evaluate(rng) == frozenset({2, 3, 4, 5})
    assert evaluate(apply(Op.RANGE, st, c(5), c(2))) == frozenset()
    assert evaluate(apply(Op.SET_MIN, INT, rng)) == 2
    assert evaluate(apply(Op.SET_MAX, INT, rng)) == 5
    assert evaluate(apply(Op.LEN, INT, rng)) == 4
    assert evaluate(apply(Op.IN, BOOL, c(3), rng)) is True


def test_short_circuit_skips_the_failing_operand():
    boom = apply(Op.DIV, INT, c(1), c(0))
    failing = apply(Op.EQ, BOOL, boom, c(0))
    assert evaluate(apply(Op.AND, BOOL, c(False, BOOL), failing)) is False
    assert evaluate(apply(Op.OR, BOOL, c(True, BOOL), failing)) is True
    assert evaluate(apply(Op.IMPLIES, BOOL, c(False, BOOL), failing)) is True
    assert evaluate(apply(Op.AND, BOOL, c(True, BOOL), c(True, BOOL), c(False, BOOL))) is False
    assert evaluate(apply(Op.OR, BOOL, c(False, BOOL), c(False, BOOL), c(True, BOOL))) is True


def test_maps_records_tuples():
    mt = MapType(NODE, SMALL)
    m = FrozenDict({"node1": 0, "node2": 1, "node3": 2})
    assert evaluate(apply(Op.MAP_GET, SMALL, c(m, mt), c("node2", NODE))) == 1
    updated = evaluate(apply(Op.MAP_SET, mt, c(m, mt), c("node2", NODE), c(3, SMALL)))
    assert updated == FrozenDict({"node1": 0, "node2": 3, "node3": 2})
    rt = RecordType("Msg", (("term", SMALL), ("to", NODE)))
    rec = ir.RecordLit((("term", c(1, SMALL)), ("to", c("node1", NODE))), rt)
    assert evaluate(rec) == FrozenDict({"term": 1, "to": "node1"})
    assert evaluate(ir.FieldGet(rec, "to", NODE)) == "node1"
    assert evaluate(ir.FieldSet(rec, "term", c(2, SMALL), rt)) == FrozenDict({"term": 2, "to": "node1"})
    tt = TupleType((SMALL, NODE))
    tup = ir.TupleLit((c(1, SMALL), c("node3", NODE)), tt)
    assert evaluate(apply(Op.TUPLE_GET, NODE, tup, c(1, IntType(1, 1)))) == "node3"


def test_map_comprehension_covers_every_key():
    mt = MapType(NODE, BOOL)
    n = local("n", NODE)
    comp = ir.MapComp("n", apply(Op.EQ, BOOL, n, c("node2", NODE)), mt)
    assert evaluate(comp) == FrozenDict({"node1": False, "node2": True, "node3": False})


def test_sequences():
    st = SeqType(SMALL, 4)
    s = c((1, 2, 3), st)
    assert evaluate(apply(Op.SEQ_GET, SMALL, s, c(0))) == 1
    assert evaluate(apply(Op.SEQ_SET, st, s, c(2), c(0, SMALL))) == (1, 2, 0)
    assert evaluate(apply(Op.APPEND, st, s, c(3, SMALL))) == (1, 2, 3, 3)
    assert evaluate(apply(Op.CONCAT, st, s, s)) == (1, 2, 3, 1, 2, 3)
    assert evaluate(apply(Op.HEAD, SMALL, s)) == 1
    assert evaluate(apply(Op.TAIL, st, s)) == (2, 3)
    assert evaluate(apply(Op.SLICE, st, s, c(1), c(10))) == (2, 3)
    assert evaluate(apply(Op.LEN, INT, s)) == 3
    assert evaluate(ir.SeqLit((c(1, SMALL), c(1, SMALL)), st)) == (1, 1)


def test_options():
    ot = OptionType(SMALL)
    assert evaluate(apply(Op.SOME, ot, c(2, SMALL))) == 2
    assert evaluate(apply(Op.IS_SOME, BOOL, c(None, ot))) is False
    assert evaluate(apply(Op.IS_NONE, BOOL, c(None, ot))) is True
    assert evaluate(apply(Op.OPT_GET, SMALL, apply(Op.SOME, ot, c(0, SMALL)))) == 0
    assert evaluate(apply(Op.EQ, BOOL, c(None, ot), c(None, ot))) is True


def test_bags_count_repeats():
    bt = BagType(SMALL, 5)
    bag = ir.BagLit((c(1, SMALL), c(1, SMALL), c(2, SMALL)), bt)
    assert evaluate(bag) == FrozenDict({1: 2, 2: 1})
    assert evaluate(apply(Op.LEN, INT, bag)) == 3
    assert evaluate(apply(Op.BAG_COUNT, INT, bag, c(1, SMALL))) == 2
    assert evaluate(apply(Op.BAG_ADD, bt, bag, c(3, SMALL))) == FrozenDict({1: 2, 2: 1, 3: 1})
    assert evaluate(apply(Op.BAG_REMOVE, bt, bag, c(2, SMALL))) == FrozenDict({1: 2})
    assert evaluate(apply(Op.BAG_REMOVE, bt, bag, c(1, SMALL))) == FrozenDict({1: 1, 2: 1})
    assert evaluate(apply(Op.BAG_DISTINCT, SetType(SMALL), bag)) == frozenset({1, 2})
    assert evaluate(apply(Op.IN, BOOL, c(2, SMALL), bag)) is True
    # an empty literal where a bag is expected is a bag
    assert evaluate(ir.SetLit((), bt)) == FrozenDict()


def test_quantifiers_and_comprehensions():
    st = SetType(INT)
    dom = c(frozenset({1, 2, 3, 4}), st)
    x = local("x", INT)
    even = apply(Op.EQ, BOOL, apply(Op.MOD, INT, x, c(2)), c(0))
    assert evaluate(ir.Quant(ir.QuantKind.ANY, "x", dom, even)) is True
    assert evaluate(ir.Quant(ir.QuantKind.ALL, "x", dom, even)) is False
    assert evaluate(ir.Quant(ir.QuantKind.ALL, "x", c(frozenset(), st), even)) is True
    assert evaluate(ir.SetComp("x", dom, even, apply(Op.MUL, INT, x, c(10)), st)) == frozenset({20, 40})
    # sum counts each element of the set once, even when the terms repeat
    assert evaluate(ir.SumComp("x", dom, None, apply(Op.MOD, INT, x, c(2)), INT)) == 2


def test_nested_let_restores_the_outer_binding():
    x = local("x", INT)
    inner = ir.LetExpr("x", c(10), x, INT)
    outer = ir.LetExpr("x", c(1), apply(Op.ADD, INT, inner, x), INT)
    assert evaluate(outer) == 11


def test_if_expression_and_primed_variables():
    ev = ev_of(ir.VarDecl("x", SMALL, ir.InitKind.EQ, c(0, SMALL)))
    grew = apply(Op.GT, BOOL, var("x", SMALL, primed=True), var("x", SMALL))
    assert ev.eval(grew, (1,), {}, post=(2,)) is True
    assert ev.eval(grew, (1,), {}, post=(1,)) is False
    pick = ir.IfExpr(grew, c(7), c(8), INT)
    assert ev.eval(pick, (1,), {}, post=(3,)) == 7


# ---------------------------------------------------------------- run-time errors

@pytest.mark.parametrize("expr,code", [
    (apply(Op.DIV, INT, c(1), c(0)), "MC5002"),
    (apply(Op.MOD, INT, c(1), c(0)), "MC5002"),
    (apply(Op.SEQ_GET, SMALL, c((1,), SeqType(SMALL, 2)), c(1)), "MC5003"),
    (apply(Op.SEQ_GET, SMALL, c((1,), SeqType(SMALL, 2)), c(-1)), "MC5003"),
    (apply(Op.SEQ_SET, SeqType(SMALL, 2), c((), SeqType(SMALL, 2)), c(0), c(1, SMALL)), "MC5003"),
    (apply(Op.HEAD, SMALL, c((), SeqType(SMALL, 2))), "MC5003"),
    (apply(Op.TAIL, SeqType(SMALL, 2), c((), SeqType(SMALL, 2))), "MC5003"),
    (apply(Op.OPT_GET, SMALL, c(None, OptionType(SMALL))), "MC5004"),
    (apply(Op.BAG_REMOVE, BagType(SMALL, 2), c(FrozenDict(), BagType(SMALL, 2)), c(1, SMALL)), "MC5005"),
    (apply(Op.SET_MIN, INT, c(frozenset(), SetType(INT))), "MC5006"),
    (apply(Op.SET_MAX, INT, c(frozenset(), SetType(INT))), "MC5006"),
    (apply(Op.MAP_GET, SMALL, c(FrozenDict({0: 1}), MapType(IntType(0, 0), SMALL)), c(1)), "MC5003"),
])
def test_run_time_errors_carry_code_and_span(expr, code):
    expr = ir.Apply(expr.op, expr.args, expr.type, span=SPAN)
    with pytest.raises(EvalError) as info:
        evaluate(expr)
    assert info.value.diagnostic.code == code
    assert info.value.diagnostic.span == SPAN


def test_an_error_reports_the_innermost_failing_expression():
    inner_span = Span("spec.mc", 9, 3, 9, 8)
    inner = ir.Apply(Op.DIV, (c(1), c(0)), INT, span=inner_span)
    outer = ir.Apply(Op.DIV, (c(5), inner), INT, span=SPAN)
    with pytest.raises(EvalError) as info:
        evaluate(outer)
    assert info.value.diagnostic.span == inner_span


def test_a_failing_expression_in_a_branch_not_taken_is_harmless():
    boom = ir.Apply(Op.DIV, (c(1), c(0)), INT, span=SPAN)
    assert evaluate(ir.IfExpr(c(True, BOOL), c(3), boom, INT)) == 3


# ---------------------------------------------------------------- states and steps

def counter_model(lo=0, hi=3, step=1):
    t = IntType(lo, hi)
    x = var("x", t)
    inc = ir.Action("Inc", (), (
        ir.Assign("x", apply(Op.ADD, IntType(lo + step, hi + step), x, c(step, IntType(step, step))),
                  span=SPAN),))
    return model("counter", [ir.VarDecl("x", t, ir.InitKind.EQ, c(lo, t))], [inc])


def test_write_outside_the_declared_type_is_mc5001_naming_the_variable():
    ev = Evaluator(counter_model())
    assert [t.state for t in ev.successors((2,))] == [(3,)]
    with pytest.raises(EvalError) as info:
        list(ev.successors((3,)))
    diag = info.value.diagnostic
    assert diag.code == "MC5001"
    assert diag.span == SPAN
    assert "'x'" in diag.message and "4" in diag.message and "0..3" in diag.message
    assert any("Inc" in note for note in diag.notes)


def test_initial_value_outside_the_type_is_mc5001():
    t = IntType(0, 3)
    m = model("m", [ir.VarDecl("x", t, ir.InitKind.EQ, ir.Const(7, IntType(7, 7), span=SPAN))], [])
    with pytest.raises(EvalError) as info:
        Evaluator(m).initial_states()
    assert info.value.diagnostic.code == "MC5001"
    assert info.value.diagnostic.span == SPAN


def test_capacity_is_checked_deeply():
    inner = SeqType(SMALL, 1)
    t = SetType(inner)
    s = var("s", t)
    add = ir.Action("Add", (), (ir.Assign("s", apply(Op.UNION, SetType(SeqType(SMALL, 2)), s,
                                                       c(frozenset({(1, 2)}), SetType(SeqType(SMALL, 2))))),))
    m = model("m", [ir.VarDecl("s", t, ir.InitKind.EQ, c(frozenset(), t))], [add])
    with pytest.raises(EvalError) as info:
        list(Evaluator(m).successors((frozenset(),)))
    assert info.value.diagnostic.code == "MC5001"


def test_initial_states_are_the_product_in_declaration_order():
    a_t, b_t = IntType(0, 1), EnumType("E", ("p", "q"))
    m = model("m", [ir.VarDecl("a", a_t, ir.InitKind.IN, c(frozenset({1, 0}), SetType(a_t))),
                    ir.VarDecl("b", b_t, ir.InitKind.IN, c(frozenset({"q", "p"}), SetType(b_t)))], [])
    assert Evaluator(m).initial_states() == [(0, "p"), (0, "q"), (1, "p"), (1, "q")]


def test_successor_order_is_canonical():
    """Actions in declaration order, bindings first parameter slowest, picks in
    canonical order, either branches in order."""
    t = IntType(0, 9)
    x = var("x", t)
    small = IntType(0, 1)
    p, q = local("p", small), local("q", small)
    set_to = ir.Action("SetTo", (ir.Param("p", small), ir.Param("q", small)), (
        ir.Assign("x", apply(Op.ADD, t, apply(Op.MUL, t, p, c(2, IntType(2, 2))), q)),))
    y = local("y", t)
    choose = ir.Action("Choose", (), (
        ir.Pick("y", c(frozenset({7, 5, 6}), SetType(t))),
        ir.Either(((ir.Assign("x", y),), (ir.Assign("x", c(9, t)),))),
    ))
    m = model("m", [ir.VarDecl("x", t, ir.InitKind.EQ, c(0, t))], [set_to, choose])
    got = [(tr.action, tr.params, tr.state) for tr in Evaluator(m).successors((0,))]
    assert got == [
        ("SetTo", (("p", 0), ("q", 0)), (0,)), ("SetTo", (("p", 0), ("q", 1)), (1,)),
        ("SetTo", (("p", 1), ("q", 0)), (2,)), ("SetTo", (("p", 1), ("q", 1)), (3,)),
        ("Choose", (), (5,)), ("Choose", (), (9,)), ("Choose", (), (6,)), ("Choose", (), (9,)),
        ("Choose", (), (7,)), ("Choose", (), (9,)),
    ]


def test_paths_do_not_see_each_others_writes():
    t = IntType(0, 9)
    x, y = var("x", t), var("y", t)
    act = ir.Action("A", (), (ir.Either((
        (ir.Assign("x", c(1, t)),),
        (ir.Assign("y", c(2, t)),),
        (ir.If(apply(Op.EQ, BOOL, x, c(0, t)), (ir.Assign("x", c(3, t)),), ()),),
    )),))
    m = model("m", [ir.VarDecl("x", t, ir.InitKind.EQ, c(0, t)),
                    ir.VarDecl("y", t, ir.InitKind.EQ, c(0, t))], [act])
    assert [tr.state for tr in Evaluator(m).successors((0, 0))] == [(1, 0), (0, 2), (3, 0)]
    # an if without else and a false condition keeps the state unchanged
    assert [tr.state for tr in Evaluator(m).successors((5, 5))] == [(1, 5), (5, 2), (5, 5)]


def test_requires_read_the_pre_state_and_disable_the_path():
    t = IntType(0, 9)
    x = var("x", t)
    act = ir.Action("A", (), (
        ir.Assign("x", c(5, t)),
        ir.Require(apply(Op.EQ, BOOL, x, c(0, t))),     # still reads the old x
    ))
    m = model("m", [ir.VarDecl("x", t, ir.InitKind.EQ, c(0, t))], [act])
    ev = Evaluator(m)
    assert [tr.state for tr in ev.successors((0,))] == [(5,)]
    assert list(ev.successors((1,))) == []
    blocked: list = []
    assert ev.outcomes("A", (), (1,), blocked) == []
    assert [type(b) for b in blocked] == [ir.Require]


def test_pick_over_an_empty_set_has_no_outcome():
    t = IntType(0, 3)
    act = ir.Action("A", (), (ir.Pick("y", c(frozenset(), SetType(t))), ir.Assign("x", local("y", t))))
    m = model("m", [ir.VarDecl("x", t, ir.InitKind.EQ, c(0, t))], [act])
    assert list(Evaluator(m).successors((0,))) == []


def test_pick_in_a_bag_picks_distinct_elements():
    t = IntType(0, 3)
    bt = BagType(t, 4)
    act = ir.Action("A", (), (ir.Pick("y", c(FrozenDict({2: 3, 1: 1}), bt)), ir.Assign("x", local("y", t))))
    m = model("m", [ir.VarDecl("x", t, ir.InitKind.EQ, c(0, t))], [act])
    assert [tr.state for tr in Evaluator(m).successors((0,))] == [(1,), (2,)]


def test_properties_and_terminal():
    m = die_hard()
    ev = Evaluator(m)
    assert ev.check_property("NotFour", (0, 0)) is True
    assert ev.check_property("NotFour", (3, 4)) is False
    assert ev.is_terminal((0, 0)) is False
    assert ev.state_dict((1, 2)) == {"small": 1, "big": 2}
    assert ev.state_from_dict({"big": 2, "small": 1}) == (1, 2)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.MOD, Op.MIN, Op.MAX, Op.LT, Op.EQ]),
       st.integers(-9, 9), st.integers(-9, 9))
def test_constant_folding_changes_nothing(op, a, b):
    """Constant sub-expressions are computed when the model is loaded; the
    result (or the run-time error) must be what evaluating them later gives."""
    folded = apply(op, INT, c(a), c(b))
    late = apply(op, INT, local("a", INT), local("b", INT))

    def outcome(expr, env):
        try:
            return evaluate(expr, env=env)
        except EvalError as err:
            return err.diagnostic.code
    assert outcome(folded, {}) == outcome(late, {"a": a, "b": b})
