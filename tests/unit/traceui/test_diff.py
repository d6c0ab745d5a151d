"""Where two traces part (modelcheck.trace.diff)."""
from __future__ import annotations

from modelcheck.ir.types import IntType
from modelcheck.trace.diff import diff_traces
from modelcheck.trace.trace import Step, Trace


def _trace(*steps: tuple[str | None, int, int]) -> Trace:
    return Trace("t", [Step(a, (), {"x": x, "y": y}) for a, x, y in steps],
                 meta={"var_types": {"x": IntType(0, 9), "y": IntType(0, 9)}})


def test_equal_traces_are_the_same():
    a = _trace((None, 0, 0), ("Inc", 1, 0))
    d = diff_traces(a, _trace((None, 0, 0), ("Inc", 1, 0)))
    assert d.same and d.index is None and d.steps_a == 1


def test_first_differing_step_with_actions_and_state_differences():
    a = _trace((None, 0, 0), ("Inc", 1, 0), ("Inc", 2, 0), ("Dec", 1, 0))
    b = _trace((None, 0, 0), ("Inc", 1, 0), ("Up", 1, 1), ("Down", 1, 0))
    d = diff_traces(a, b)
    assert d.index == 2
    assert (d.label_a, d.label_b) == ("Inc", "Up")
    assert d.action_differs
    assert [(c.where, c.old, c.new) for c in d.changes] == [("x", "2", "1"), ("y", "0", "1")]
    assert d.rejoin == (3, 3)


def test_a_trace_that_is_a_prefix_of_the_other():
    a = _trace((None, 0, 0), ("Inc", 1, 0))
    b = _trace((None, 0, 0), ("Inc", 1, 0), ("Inc", 2, 0))
    d = diff_traces(a, b)
    assert d.index == 2 and d.label_a is None and d.label_b == "Inc"
    assert d.changes == ()


def test_different_initial_states():
    d = diff_traces(_trace((None, 0, 0)), _trace((None, 0, 3)))
    assert d.index == 0
    assert [c.where for c in d.changes] == ["y"]
    assert not d.action_differs


def test_same_states_by_different_actions():
    d = diff_traces(_trace((None, 0, 0), ("A", 1, 0)), _trace((None, 0, 0), ("B", 1, 0)))
    assert d.index == 1 and d.action_differs and d.changes == ()
