"""-D values and constant folding."""
from __future__ import annotations

import pytest

from modelcheck.errors import UsageError
from modelcheck.ir import nodes as ir
from modelcheck.ir import types as T
from modelcheck.ir.ops import Op
from modelcheck.ir.values import FrozenDict, Variant
from modelcheck.semantics.consts import (NotConstant, fold, normalize_name, normalize_overrides,
                                         parse_const_value)

MODE = T.EnumType("Mode", ("always", "when_synced"))
NODE = T.ModelType("Node", ("node1", "node2"))
PLAN = T.VariantType("Plan", (
    ("Fixed", T.RecordType("Fixed", (("n", T.IntType(1, 3)), ("at", T.OptionType(NODE))))),
    ("Off", T.RecordType("Off", ())),
))


@pytest.mark.parametrize("text, t, value", [
    ("5", T.IntType(1, 9), 5),
    (" -2 ", T.IntType(-3, 3), -2),
    ("+3", T.IntType(0, 3), 3),
    ("true", T.BOOL, True),
    ("false", T.BOOL, False),
    ("when-synced", MODE, "when_synced"),
    ("always", MODE, "always"),
    ("node2", NODE, "node2"),
    ("none", T.OptionType(NODE), None),
    ("some(node1)", T.OptionType(NODE), "node1"),
    ("Off", PLAN, Variant("Off", FrozenDict())),
    ("Fixed(at=some(node2), n=3)", PLAN,
     Variant("Fixed", FrozenDict({"n": 3, "at": "node2"}))),
])
def test_values_are_read_by_type(text, t, value):
    assert parse_const_value(text, t, "C") == value


@pytest.mark.parametrize("text, t, message, hint", [
    ("x", T.IntType(1, 9), "-D C=x: expected an integer in 1..9", None),
    ("12", T.IntType(1, 9), "-D C=12: 12 is outside 1..9", "C is declared 1..9"),
    ("1", T.BOOL, "-D C=1: expected true or false", None),
    ("sometimes", MODE, "-D C=sometimes: 'sometimes' is not a value of Mode",
     "Mode has: always, when_synced"),
    ("{}", T.SetType(NODE), "-D C={}: a constant of type set[Node] cannot be set with -D",
     "-D sets ints, bools, enum members, model values, options and variants"),
    ("Fixed(n=4, at=none)", PLAN, "-D C.n=4: 4 is outside 1..3", "C.n is declared 1..3"),
    ("Fixed(n=1)", PLAN, "-D C=Fixed(n=1): Fixed needs every field; missing: at", None),
    ("Fast", PLAN, "-D C=Fast: expected a case of Plan, as written in the spec",
     "Plan has: Fixed, Off"),
    ("Fixed(n=1, n=2, at=none)", PLAN,
     "-D C=Fixed(n=1, n=2, at=none): 'n=2' is not a field of Fixed given once as name=value",
     "Fixed has: n, at"),
])
def test_bad_values(text, t, message, hint):
    with pytest.raises(UsageError) as info:
        parse_const_value(text, t, "C")
    assert str(info.value) == message
    assert info.value.hint == hint


def test_override_names_read_hyphens_as_underscores():
    assert normalize_name("ha-promote-on-failure") == "ha_promote_on_failure"
    assert normalize_overrides({"max-len": 3, "flag": True}, ["max_len", "flag"]) == {
        "max_len": "3", "flag": "true"}


def test_fold():
    three = ir.Const(3, T.IntType(3, 3))
    two = ir.Const(2, T.IntType(2, 2))
    expr = ir.Apply(Op.ADD, (ir.Apply(Op.MUL, (three, two), T.IntType(6, 6)),
                             ir.Apply(Op.MOD, (three, two), T.IntType(0, 1))), T.IntType(6, 7))
    assert fold(expr) == 7
    cond = ir.IfExpr(ir.Apply(Op.LT, (three, two), T.BOOL), three, two, T.IntType(2, 3))
    assert fold(cond) == 2
    assert fold(ir.Apply(Op.RANGE, (two, three), T.SetType(T.IntType(2, 3)))) == {2, 3}
    let = ir.LetExpr("a", three, ir.Apply(Op.NEG, (ir.Local("a", T.IntType(3, 3)),),
                                          T.IntType(-3, -3)), T.IntType(-3, -3))
    assert fold(let) == -3


def test_fold_refuses_state_and_division_by_zero():
    with pytest.raises(NotConstant, match="cannot read state variable 'x'"):
        fold(ir.Var("x", T.IntType(0, 1)))
    zero = ir.Const(0, T.IntType(0, 0))
    with pytest.raises(NotConstant, match="division by zero"):
        fold(ir.Apply(Op.DIV, (zero, zero), T.IntType(0, 0)))


def test_division_by_zero_in_a_type_bound(spec_errors):
    (d,) = spec_errors("type T = 0..(3 // 0)")
    assert d.code == "MC3006"
    assert d.message == ("the upper bound of a range must be a constant: "
                         "division by zero in a constant expression")
