"""The terminal view of a trace (modelcheck.cli.trace_render)."""
from __future__ import annotations

import pytest
from rich.console import Console

from modelcheck.cli.trace_render import render_trace, select_vars
from modelcheck.errors import UsageError
from modelcheck.ir.values import FrozenDict
from modelcheck.trace.trace import Step, Trace


def text_of(renderable, width: int = 120) -> str:
    console = Console(width=width, record=True, color_system=None, force_terminal=False)
    console.print(renderable)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def test_each_step_shows_its_action_and_only_what_changed(die_hard_model, die_hard_trace):
    out = text_of(render_trace(die_hard_trace, die_hard_model))
    assert out.splitlines()[0] == "counterexample to NotFour in die_hard: 6 steps"
    assert "State 0  Init" in out
    assert "Step 1  FillBig\n    big 0 → 5\nStep 2" in out
    assert "Step 6  BigToSmall\n    small 2 → 3\n    big   5 → 4" in out


def test_params_and_nested_changes(mini_model, mini_trace):
    out = text_of(render_trace(mini_trace, mini_model))
    assert "Step 1  Write(n=node1, v=0)" in out
    assert "store[node1] + 0" in out
    assert "net          + Msg(src=node1, dst=node2, val=0)" in out
    assert "up[node2]    true → false" in out


def test_vars_and_hide_filter(mini_model, mini_trace):
    only = text_of(render_trace(mini_trace, mini_model, vars="up"))
    assert "up[node1]" in only and "store" not in only and "net" not in only
    hidden = text_of(render_trace(mini_trace, mini_model, hide=["net", "store"]))
    assert "net" not in hidden and "store" not in hidden and "confirmed + 0" in hidden
    assert "(no change to the variables shown)" in hidden   # the writes change nothing shown


def test_unknown_variable_is_a_usage_error_with_a_hint(mini_model, mini_trace):
    with pytest.raises(UsageError) as info:
        render_trace(mini_trace, mini_model, vars="stroe")
    assert info.value.hint == "did you mean 'store'?"
    assert select_vars(["a", "b", "c"], "c,a", "a") == ["c"]


def test_full_shows_every_variable_and_stars_the_changed(mini_model, mini_trace):
    out = text_of(render_trace(mini_trace, mini_model, full=True))
    step3 = out.split("Step 3  Confirm(v=0)")[1].split("Step 4")[0]
    assert "* confirmed {0}" in step3
    assert "  up        {node1: true, node2: true}" in step3


def test_by_lays_out_per_node_columns(mini_model, mini_trace):
    out = text_of(render_trace(mini_trace, mini_model, by="Node"))
    init = out.split("Step 1")[0]
    assert "node1" in init and "node2" in init
    header = next(line for line in init.splitlines() if "node1" in line)
    assert header.index("node1") < header.index("node2")
    step4 = out.split("Step 4  Crash(n=node1)")[1].split("Step 5")[0]
    assert "true → false" in step4 and "{0} → {}" in step4


def test_an_untyped_trace_from_another_tool():
    s0 = {"votes": FrozenDict({"n1": 0, "n2": 0}), "leader": "none"}
    s1 = {"votes": FrozenDict({"n1": 1, "n2": 0}), "leader": "n1"}
    trace = Trace("", [Step(None, (), s0), Step(None, (), s1)], kind="counterexample")
    out = text_of(render_trace(trace))
    assert "Step 1  (action not recorded)" in out
    assert "votes[n1] 0 → 1" in out
    table = text_of(render_trace(trace, by="N"))
    assert "n1" in table.split("Step 1")[1]
