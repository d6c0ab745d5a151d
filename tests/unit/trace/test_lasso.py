"""A liveness counterexample proves itself: a lasso is checked under the
reference semantics (every step, the loop-back step, the fairness of its
cycle, the violation), travels through ITF with its loop, and every view
marks its cycle and says what stays enabled round it without firing."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelcheck import api
from modelcheck.cli.main import cli
from modelcheck.engines.base import Status
from modelcheck.ir.nodes import PropertyKind
from modelcheck.ir.values import FrozenDict
from modelcheck.trace.html import render_html
from modelcheck.trace.itf import dumps_itf, from_itf, read_itf, to_itf
from modelcheck.trace.itf_json import TraceFileError
from modelcheck.trace.lasso import analyse_lasso, is_failure_action, lasso_phrase, lasso_problem
from modelcheck.trace.replay import TraceReplayError
from modelcheck.trace.store import write_trace
from modelcheck.trace.trace import Step, Trace
from modelcheck.trace.verify import trace_problem, verify_trace

ENV = {"COLUMNS": "100", "NO_COLOR": "1", "FORCE_COLOR": None, "TTY_COMPATIBLE": None,
       "TTY_INTERACTIVE": None, "MODELCHECK_PROGRESS_EVERY": "off"}

# Up counts x to 2, Reset takes it back; Flip toggles y for ever, Hold never
# changes anything (its steps are stutters).
BLINK = """\
module blink
var x: 0..2 = 0
var y: 0..1 = 0
action Up() { require x < 2
              x := x + 1 }
action Reset() { require x == 2
                 x := 0 }
action Flip() { y := 1 - y }
action Bump(d: 1..2) { require x + d <= 2
                       x := x + d }
constraint NoOverflow: x <= 2
FAIR
liveness Reaches2: eventually x == 2
liveness Often: always eventually y == 1
liveness Settles: eventually always x == 0
liveness Back: x == 2 leads to x == 0
"""


def blink(fair: str = ""):
    return api.load_source(BLINK.replace("FAIR", fair), "blink.mc")


def lasso(prop: str, xs_ys: list[tuple[str | None, int, int]], loop: int,
          back: str | None = None, back_params: tuple = ()) -> Trace:
    steps = [Step(a, (("d", 1),) if a == "Bump" else (), {"x": x, "y": y}) for a, x, y in xs_ys]
    loop_back = None if back is None else Step(back, back_params, dict(steps[loop].state))
    return Trace("blink", steps, property_name=prop, loop=loop, loop_back=loop_back)


# ------------------------------------------------------------------ the checks

def test_a_stutter_at_the_start_violates_eventually_without_fairness():
    model = blink()
    report = analyse_lasso(model, lasso("Reaches2", [(None, 0, 0)], 0))
    assert report.cycle_steps == 0 and report.fairness == ()
    assert "false in every state" in report.violation
    # Up, Flip and both bindings of Bump stay enabled at x=0 and never fire
    assert report.starved == ("Up", "Flip", "Bump(d=1)", "Bump(d=2)")
    assert report.suggestions[0] == "fair weak Up" and report.suggestions[2] == "fair weak Bump(1)"


def test_weak_fairness_rules_out_a_cycle_where_its_action_stays_enabled():
    model = blink("fair weak Up")
    problem = lasso_problem(model, lasso("Reaches2", [(None, 0, 0)], 0))
    assert "is not fair: weak Up is enabled in every state of the cycle (state 0)" in problem
    # Flipping y for ever does not take Up, which stays enabled: still unfair
    flip = lasso("Reaches2", [(None, 0, 0), ("Flip", 0, 1)], 0, "Flip")
    assert "weak Up is enabled in every state" in lasso_problem(model, flip)


def test_weak_fairness_met_by_taking_it_or_by_a_state_where_it_is_disabled():
    model = blink("fair weak Up\nfair weak Reset")
    taken = lasso("Often", [(None, 0, 0), ("Up", 1, 0), ("Up", 2, 0)], 0, "Reset")
    report = analyse_lasso(model, taken)
    assert [(f.label, f.how) for f in report.fairness] == [
        ("weak Up", "taken at step 1"), ("weak Reset", "taken at the loop-back step")]
    assert report.starved == ("Flip",) and lasso_phrase(taken) == \
        "a lasso of 2 steps, cycle of 3 (from state 0)"
    at_two = lasso("Back", [(None, 0, 0), ("Up", 1, 0), ("Up", 2, 0), ("Flip", 2, 1)], 2, "Flip")
    model = blink("fair weak Up")
    report = analyse_lasso(model, at_two)
    assert [(f.label, f.how) for f in report.fairness] == [("weak Up", "disabled in state 2")]
    assert report.starved == ("Reset",)
    assert "left side holds in state 2" in report.violation


def test_strong_fairness_needs_its_action_never_enabled_in_the_cycle():
    model = blink("fair strong Reset")
    # x stays 2, Reset enabled throughout and never taken
    stuck = lasso("Back", [(None, 0, 0), ("Up", 1, 0), ("Up", 2, 0)], 2)
    assert "is not fair: strong Reset is enabled in state 2" in lasso_problem(model, stuck)
    fine = lasso("Reaches2", [(None, 0, 0), ("Flip", 0, 1)], 0, "Flip")
    report = analyse_lasso(model, fine)
    assert [(f.label, f.how) for f in report.fairness] == [("strong Reset", "never enabled in the cycle")]


def test_a_step_takes_a_condition_whatever_action_the_trace_names_for_it():
    # Up and Bump(d=1) lead from x=0 to x=1: the step takes `fair weak Up`
    # even when the trace names Bump for it.
    model = blink("fair weak Up\nfair weak Reset")
    trace = lasso("Often", [(None, 0, 0), ("Bump", 1, 0), ("Up", 2, 0)], 0, "Reset")
    assert analyse_lasso(model, trace).fairness[0].how == "taken at step 1"


# A node's link delivers only while it is up; crashes and restarts may go on
# for ever.
RELAY = """\
module relay
type Node = enum { n1, n2 }
var up: map[Node, bool] = {n: true for n in Node}
var sent: bool = false
var delivered: bool = false
action Send() { require not sent
                sent := true }
action Deliver() { require sent and up[n1] and not delivered
                   delivered := true }
action Crash(n: Node) { require up[n]
                        up[n] := false }
action Restart(n: Node) { require not up[n]
                          up[n] := true }
FAIR
liveness Delivered: eventually delivered
"""


def relay_lasso(fair: str):
    model = api.load_source(RELAY.replace("FAIR", fair), "relay.mc")
    def state(n1: bool, n2: bool, sent: bool) -> dict:
        return {"up": FrozenDict({"n1": n1, "n2": n2}), "sent": sent, "delivered": False}
    steps = [Step(None, (), state(True, True, False)), Step("Send", (), state(True, True, True)),
             Step("Crash", (("n", "n1"),), state(False, True, True))]
    trace = Trace("relay", steps, property_name="Delivered", loop=1,
                  loop_back=Step("Restart", (("n", "n1"),), dict(steps[1].state)))
    return model, trace


def test_a_weakly_fair_action_the_cycle_disables_now_and_then_is_advised_strong():
    model, trace = relay_lasso("fair weak Send\nfair weak Deliver\nfair weak Restart(*)")
    report = analyse_lasso(model, trace)
    strengthen = [a for a in report.advice if a.kind == "strengthen"]
    assert [(a.subject, a.declare) for a in strengthen] == [("Deliver", "fair strong Deliver")]
    assert "disabled in state 2" in strengthen[0].says
    assert report.advice[0] is strengthen[0]
    # the cycle crashes n1 again and again: that is said, with what fairness assumes
    repeats = [a for a in report.advice if a.kind == "repeats"]
    assert [a.subject for a in repeats] == ["Crash(n=n1)"] and repeats[0].declare is None
    assert "assuming such failures stop" in repeats[0].says
    # Crash(n=n2) stays enabled round the cycle: a failure, never to be made fair
    failure = [a for a in report.advice if a.kind == "failure"]
    assert [a.subject for a in failure] == ["Crash(n=n2)"] and failure[0].declare is None
    assert all("Crash" not in s for s in report.suggestions)
    assert "fair strong Deliver" in report.suggestions
    # the strong form rules the cycle out
    strong, _ = relay_lasso("fair weak Send\nfair strong Deliver\nfair weak Restart(*)")
    assert "is not fair: strong Deliver is enabled" in lasso_problem(strong, trace)


def test_the_advice_is_printed_remedy_first(tmp_path):
    model, trace = relay_lasso("fair weak Send\nfair weak Deliver\nfair weak Restart(*)")
    from modelcheck.cli.trace_render import render_lasso_report
    from rich.console import Console
    console = Console(width=300, no_color=True, record=True, file=open(tmp_path / "out", "w"))
    console.print(render_lasso_report(analyse_lasso(model, trace)))
    lines = console.export_text().splitlines()
    advice = lines[lines.index("No fairness declared rules the cycle out:") + 1:]
    assert advice[0].startswith("  Deliver is enabled in state 1 of the cycle and never taken")
    assert advice[0].endswith("declare `fair strong Deliver` if the system guarantees it runs "
                              "when it is enabled again and again")
    assert advice[1].startswith("  Crash(n=n2) stays enabled but never fires: it models a failure")
    assert "fair weak Crash" not in "\n".join(lines)
    assert advice[2].startswith("Crash(n=n1) is a failure the cycle takes at step 2")
    page = render_html(trace, model)
    assert "<code>fair strong Deliver</code>" in page and 'class="repeats"' in page
    assert "fair weak Crash" not in page


@pytest.mark.parametrize("name,failure", [
    ("Crash", True), ("CrashNode", True), ("LoseMsg", True), ("drop_message", True),
    ("Partition", True), ("StopNode", True), ("Fail", True), ("LoseAck", True),
    ("Restart", False), ("Deliver", False), ("Failover", False), ("Send", False),
    ("Heal", False)])
def test_failure_actions_are_known_by_their_names(name, failure):
    assert is_failure_action(name) is failure


@pytest.mark.parametrize("prop,steps,loop,back,words", [
    ("Reaches2", [(None, 0, 0), ("Up", 1, 0), ("Up", 2, 0)], 2, None, "does not violate Reaches2"),
    ("Often", [(None, 0, 0), ("Flip", 0, 1)], 0, "Flip", "does not violate Often"),
    ("Settles", [(None, 0, 0)], 0, None, "does not violate Settles"),
    ("Back", [(None, 0, 0), ("Up", 1, 0), ("Up", 2, 0)], 0, "Reset", "does not violate Back"),
])
def test_a_lasso_that_satisfies_its_property_is_refused(prop, steps, loop, back, words):
    assert words in lasso_problem(blink(), lasso(prop, steps, loop, back))


@pytest.mark.parametrize("trace,words", [
    (lasso("Reaches2", [(None, 0, 0), ("Up", 1, 0)], 5), "loop index 5"),
    (lasso("Reaches2", [(None, 0, 0), ("Up", 1, 0)], 0), "without saying by which step"),
    (lasso("Reaches2", [(None, 0, 0), ("Up", 1, 0)], 1, "Up"), "that is a stutter"),
    (lasso("Reaches2", [(None, 0, 0), ("Up", 1, 0)], 0, "Up"),
     "loops back by Up, which does not lead from its last state to state 0"),
    (lasso("Reaches2", [(None, 0, 0), ("Up", 1, 0)], 0, "Nope"), "not an action of blink"),
    (lasso("Reaches2", [(None, 0, 0), ("Reset", 1, 0)], 1), "does not replay"),
    (lasso("Sometime", [(None, 0, 0)], 0), "not a liveness property"),
    (Trace("blink", [Step(None, (), {"x": 0, "y": 0})], property_name="Reaches2"), "no loop index"),
])
def test_a_bad_lasso_is_refused_with_the_reason(trace, words):
    problem = lasso_problem(blink(), trace)
    assert problem is not None and words in problem
    with pytest.raises(TraceReplayError, match="internal error"):
        analyse_lasso(blink(), trace)


def test_a_cycle_through_a_state_outside_the_constraints_is_refused():
    model = api.load_source(BLINK.replace("x <= 2", "x <= 1").replace("FAIR", ""), "blink.mc")
    trace = lasso("Reaches2", [(None, 0, 0), ("Up", 1, 0), ("Up", 2, 0)], 2)
    assert "fails a state constraint" in lasso_problem(model, trace)


def test_every_engine_trace_goes_through_the_lasso_check():
    model = blink("fair weak Up")
    unfair = lasso("Reaches2", [(None, 0, 0)], 0)
    with pytest.raises(TraceReplayError, match="the compiled engine's trace for property 'Reaches2' "
                                               "is not fair"):
        verify_trace(model, unfair, "compiled")
    with pytest.raises(TraceReplayError, match="refusing to write"):
        write_trace(unfair, model, "/nonexistent-never-written")


def test_the_reference_engine_lassos_verify_and_report():
    model = blink("fair weak Up")
    result = api.check(model, "reference")      # verifies every trace
    verdicts = {p.name: p for p in result.properties if p.kind is PropertyKind.LIVENESS}
    assert verdicts["Reaches2"].status is Status.HOLDS
    for name in ("Often", "Settles", "Back"):
        prop = verdicts[name]
        assert prop.status is Status.VIOLATED and prop.trace.loop is not None
        assert trace_problem(model, prop.trace) is None


# ------------------------------------------------------------------ ITF

def test_itf_writes_and_reads_back_the_loop_and_the_loop_back_step():
    model = blink()
    trace = lasso("Often", [(None, 0, 0), ("Up", 1, 0), ("Up", 2, 0)], 0, "Reset")
    data = to_itf(trace, model)
    assert data["loop"] == 0 and data["#meta"]["loop-back"] == {"action": "Reset", "params": {}}
    for reader_model in (model, None):
        back = from_itf(json.loads(json.dumps(data)), reader_model)
        assert back.loop == 0 and back.loop_back == Step("Reset", (), {"x": 0, "y": 0})
        assert "loop-back" not in back.meta
    stutter = to_itf(lasso("Reaches2", [(None, 0, 0)], 0), model)
    assert stutter["loop"] == 0 and "loop-back" not in stutter["#meta"]
    assert "loop" not in to_itf(Trace("blink", trace.steps), model)


@pytest.mark.parametrize("edit,code,where", [
    (lambda d: d.update(loop=3), "MC3203", "loop:"),
    (lambda d: d.update(loop=-1), "MC3203", "loop:"),
    (lambda d: d.update(loop="0"), "MC3203", "loop:"),
    (lambda d: d["#meta"].update({"loop-back": "Reset"}), "MC3203", '#meta["loop-back"]:'),
    (lambda d: d["#meta"].update({"loop-back": {"action": "Rest", "params": {}}}), "MC2201",
     '#meta["loop-back"].action:'),
    (lambda d: d["#meta"].update({"loop-back": {"action": "Bump", "params": {"d": "two"}}}), "MC3201",
     '#meta["loop-back"].params.d:'),
])
def test_a_bad_loop_is_a_coded_error_at_its_place(tmp_path, edit, code, where):
    model = blink()
    data = to_itf(lasso("Often", [(None, 0, 0), ("Up", 1, 0), ("Up", 2, 0)], 0, "Reset"), model)
    edit(data)
    path = tmp_path / "bad.itf.json"
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(TraceFileError) as info:
        read_itf(path, model)
    assert info.value.diagnostic.code == code and where in info.value.diagnostic.message
    assert info.value.diagnostic.span is not None


# ------------------------------------------------------------------ views

@pytest.fixture
def written(tmp_path, monkeypatch):
    """The spec and its reference lassos, written as the CLI writes them."""
    monkeypatch.chdir(tmp_path)
    Path("blink.mc").write_text(BLINK.replace("FAIR", "fair weak Up"))
    model = api.load("blink.mc")
    result = api.check(model, "reference")
    return {p.name: str(write_trace(p.trace, model, "out", f"{p.name}.itf.json"))
            for p in result.properties if p.trace is not None}


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args), env=ENV)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def test_trace_show_marks_where_the_cycle_starts_and_where_it_goes_back(written):
    out = invoke("trace", "show", written["Often"]).output
    lines = out.splitlines()
    assert lines[0].startswith("counterexample to Often in blink: a lasso of")
    start = next(i for i, line in enumerate(lines) if line.startswith("↻ the cycle starts here"))
    assert lines[start + 1].startswith(("State", "Step"))
    assert any(line.startswith("↻ back to state") for line in lines[start + 2:])
    stutter = invoke("trace", "show", written["Back"]).output
    assert stutter.rstrip().endswith("↻ the last state stutters forever")


def test_trace_explain_gives_the_fairness_report(written):
    run = invoke("trace", "explain", written["Back"])
    assert run.exit_code == 0
    assert "Back (leads to) is violated" in run.output
    assert "The cycle is fair:" in run.output and "weak Up disabled in state" in run.output
    assert ("Reset stays enabled but never fires: declare `fair weak Reset` if the system "
            "guarantees it runs") in run.output


def test_a_lasso_file_that_is_not_fair_is_said_so(written):
    data = json.loads(Path(written["Back"]).read_text())
    data["states"] = data["states"][:1]          # x=0 stuttering: Up stays enabled
    data["loop"] = 0
    Path("unfair.itf.json").write_text(json.dumps(data))
    show = invoke("trace", "show", "unfair.itf.json")
    assert "this lasso is not fair: weak Up is enabled in every state" in show.output
    run = invoke("trace", "explain", "unfair.itf.json")
    assert run.exit_code == 2 and "is not fair" in run.output


def test_the_trace_page_draws_the_return_edge_and_the_fairness_panel(written):
    model = api.load("blink.mc")
    trace = read_itf(written["Often"], model)
    page = render_html(trace, model)
    last = len(trace.steps) - 1
    assert f'class="loop-back" data-from="{last}" data-to="{trace.loop}"' in page
    assert 'class="step loop-start in-cycle"' in page or 'class="step selected loop-start' in page
    assert "weak Up</span> taken at step" in page
    assert "stays enabled but never fires" in page
    stutter = read_itf(written["Back"], model)
    assert 'class="loop-back stutter"' in render_html(stutter, model)


def test_itf_text_of_a_lasso_reads_back_the_same(written):
    model = api.load("blink.mc")
    trace = read_itf(written["Often"], model)
    assert dumps_itf(read_itf(written["Often"], model), model) == dumps_itf(trace, model)
    assert lasso_problem(model, trace) is None


def test_explain_takes_the_lasso_property_by_name_and_diff_compares_cycles(written):
    assert "Often (always eventually) is violated" in \
        invoke("trace", "explain", written["Often"], "--property", "Often").output
    other = invoke("trace", "explain", written["Back"], "--property", "Often")
    assert other.exit_code == 2 and "Often is a liveness property" in other.output
    data = json.loads(Path(written["Often"]).read_text())
    data["loop"] = len(data["states"]) - 1
    del data["#meta"]["loop-back"]
    Path("stutters.itf.json").write_text(json.dumps(data))
    run = invoke("trace", "diff", written["Often"], "stutters.itf.json")
    assert run.exit_code == 1 and "what follows the last one is not" in run.output
    assert "↻ the last state stutters forever" in run.output
    assert invoke("trace", "diff", written["Often"], written["Often"]).exit_code == 0


def test_a_property_with_parameters_is_checked_for_the_binding_the_lasso_names():
    model = api.load_source(BLINK.replace("FAIR", "fair weak Up\nliveness Hits(v: 0..2): "
                                                  "always eventually x == v"), "blink.mc")
    result = api.check(model, "reference")
    traces = [p.trace for p in result.properties if p.trace is not None and p.name == "Hits"]
    assert traces, "some binding of Hits is violated (x may stay at 2)"
    trace = traces[0]
    assert trace.meta["instance"].startswith("Hits(v=")
    assert analyse_lasso(model, trace).property_label == trace.meta["instance"]
    # the same lasso named for a binding it does not violate is refused
    holds = next(f"Hits(v={v})" for v in range(3)
                 if any(s.state["x"] == v for s in trace.steps[trace.loop:]))
    trace.meta["instance"] = holds
    assert f"does not violate {holds}" in lasso_problem(model, trace)
    trace.meta["instance"] = "Hits(v=9)"
    assert "does not say which binding" in lasso_problem(model, trace)


def test_a_file_with_a_loop_but_no_loop_back_step_gets_it_filled_in(written):
    data = json.loads(Path(written["Often"]).read_text())
    del data["#meta"]["loop-back"]               # as Apalache writes a lasso
    Path("apalache.itf.json").write_text(json.dumps(data))
    out = invoke("trace", "show", "apalache.itf.json").output
    assert "note:" not in out and f"↻ back to state {data['loop']} by Reset" in out
    Path("blink.mc").rename("gone.mc")           # without the spec: the loop, by its shape
    out = invoke("trace", "show", written["Often"]).output
    assert "read without types" in out and "↻ back to state" in out


def test_replaying_an_itf_lasso_checks_it_as_a_counterexample(written):
    good = invoke("replay", "blink.mc", written["Often"], "-o", "again.itf.json")
    assert good.exit_code == 0
    assert "Often  liveness  violated: a lasso of" in good.output and "↻ back to state" in good.output
    assert read_itf("again.itf.json", api.load("blink.mc")).loop is not None
    data = json.loads(Path(written["Often"]).read_text())
    data["#meta"]["loop-back"]["action"] = "Flip"        # x=2 -> x=2, y flips: not back
    Path("flip.itf.json").write_text(json.dumps(data))
    bad = invoke("replay", "blink.mc", "flip.itf.json", "--json")
    often, = [p for p in json.loads(bad.output)["properties"] if p["name"] == "Often"]
    assert often["status"] == "not shown" and "does not lead from its last state" in often["reason"]
