"""``constraint N: e``: kept apart from the properties, a bool predicate on one state."""
from __future__ import annotations

import pytest

from modelcheck.engines.base import CheckOptions
from modelcheck.engines.reference.explorer import select_properties
from modelcheck.errors import UsageError
from modelcheck.ir import nodes as ir

ACTION = "action Inc(n: Node) {\n require x < 3\n x := x + 1\n}\n"


def test_constraints_are_not_properties(compile_spec):
    model = compile_spec(ACTION + "def small() = x <= 2\n"
                         "constraint Bound: small() and all(not m[n] for n in Node)\n"
                         "invariant I: x <= 3\n")
    (bound,) = model.constraints
    assert bound.name == "Bound" and bound.kind is ir.PropertyKind.CONSTRAINT
    assert [p.name for p in model.properties] == ["I"]
    # --inv names properties only: a constraint is not checked, it bounds.
    with pytest.raises(UsageError):
        select_properties(model, CheckOptions(invariants=["Bound"]))


def test_a_spec_without_constraints_has_none(compile_spec):
    assert compile_spec(ACTION).constraints == ()


@pytest.mark.parametrize("body, code, words", [
    ("constraint B: x + 1", "MC3001", "expected bool for constraint 'B'"),
    ("constraint B: x' > x", "MC4005", "not in constraint 'B'"),
    ("constraint B: m[n]", "MC2001", "parameter of action 'Inc'"),
    ("constraint B: Inc(node1)", "MC3009", "is an action"),
    ("invariant B: true\nconstraint B: true", "MC2002", "'B' is already defined"),
])
def test_misuse(spec_errors, body, code, words):
    (d,) = spec_errors(ACTION + body)
    assert d.code == code and words in d.message
