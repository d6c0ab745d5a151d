"""`modelcheck check` and `modelcheck parse`: output (golden files), exit codes
for every path, the traces written."""
from __future__ import annotations

import json
import os
import stat
import sys

import pytest

from modelcheck.api import load
from modelcheck.cli.progress import ProgressDisplay
from modelcheck.engines.reference.engine import ReferenceEngine
from modelcheck.trace.itf import read_itf
from modelcheck.trace.replay import replay

DIE_HARD = "specs/examples/die_hard.mc"
TWO_PHASE = "specs/examples/two_phase.mc"
REF = ("--engine", "reference")


def test_violation_exits_1_and_writes_a_trace_that_replays(mc, golden):
    run = mc("check", DIE_HARD, *REF, "--out", "OUT")
    assert run.exit_code == 1
    golden.check("cli/check_violated.txt", run.transcript())
    path, = mc.out_dir.glob("die_hard-NotFour-*.itf.json")
    model = load(DIE_HARD)
    trace = read_itf(path, model)
    assert len(trace) == 6 and trace.steps[-1].state["big"] == 4
    assert replay(model, trace).ok


def test_all_holding_exits_0(mc, golden):
    run = mc("check", TWO_PHASE, "-D", "N=2", *REF, "--out", "OUT")
    assert run.exit_code == 0
    golden.check("cli/check_holds.txt", run.transcript())
    assert not mc.out_dir.exists()          # nothing to write, no folder


def test_witness_step_invariant_and_never_enabled_action(mc, golden):
    run = mc("check", "tests/cli/specs/reach.mc", *REF, "--out", "OUT")
    assert run.exit_code == 0
    golden.check("cli/check_sometimes.txt", run.transcript())
    assert len(list(mc.out_dir.glob("reach-Top-*.itf.json"))) == 1


def test_deadlock_is_a_violation_unless_no_deadlock(mc):
    spec = "tests/cli/specs/deadlocks.mc"
    run = mc("check", spec, *REF, "--out", "OUT")
    assert run.exit_code == 1
    assert "deadlock  deadlock   violated in 2 steps  <OUT>/deadlocks-deadlock-<STAMP>.itf.json" in run.stdout
    run = mc("check", spec, *REF, "--out", "OUT", "--no-deadlock")
    assert run.exit_code == 0 and "deadlock  deadlock" not in run.stdout


def test_spec_error_exits_2_with_the_source_line_and_a_caret(mc, golden):
    run = mc("check", "tests/cli/specs/bad_name.mc", *REF)
    assert run.exit_code == 2 and run.stdout == ""
    golden.check("cli/check_spec_error.txt", run.transcript())
    assert "^^^^" in run.stderr and "Traceback" not in run.stderr


def test_spec_error_in_json_mode_still_prints_one_object(mc):
    run = mc("check", "tests/cli/specs/bad_name.mc", *REF, "--json")
    assert run.exit_code == 2
    obj = json.loads(run.stdout)
    assert obj["model"] is None and obj["complete"] is False
    assert (obj["error"]["code"], obj["error"]["line"], obj["error"]["col"]) == ("MC2001", 8, 14)
    assert "error[MC2001]" in run.stderr


@pytest.mark.parametrize("define, message", [
    ("N=x", "error: -D N=x: expected an integer in 1..12"),
    ("N=40", "error: -D N=40: 40 is outside 1..12"),
    ("M=3", "error: -D M: the spec has no constant 'M'"),
    ("N", "error: bad -D 'N': expected NAME=VALUE"),
])
def test_bad_define_exits_2_with_a_message(mc, define, message):
    run = mc("check", TWO_PHASE, "-D", define, *REF)
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr.startswith(message)


def test_max_states_makes_the_result_unknown_exit_3(mc, golden):
    run = mc("check", TWO_PHASE, *REF, "--max-states", "20", "--out", "OUT")
    assert run.exit_code == 3
    golden.check("cli/check_unknown.txt", run.transcript())


def test_run_time_error_exits_2_with_the_trace_to_it(mc, golden):
    run = mc("check", "tests/cli/specs/overflow.mc", *REF, "--out", "OUT")
    assert run.exit_code == 2
    golden.check("cli/check_run_time_error.txt", run.transcript())
    assert read_itf(next(mc.out_dir.glob("overflow-error-*.itf.json"))).steps[-1].state["total"] == 3


def test_json_output_is_one_object_with_the_contract_members(mc, golden):
    run = mc("check", DIE_HARD, *REF, "--json", "--out", "OUT")
    assert run.exit_code == 1 and run.stderr == ""
    golden.check("cli/check_json.txt", run.stdout)
    obj = json.loads(run.stdout)
    assert list(obj) == ["schema_version", "spec", "model", "engine", "requested_engine",
                         "consts", "properties", "distinct_states", "generated_states", "depth",
                         "elapsed_s", "complete", "reason", "error", "notes", "write_errors"]
    assert obj["properties"]["NotFour"] == {"kind": "invariant", "status": "violated", "steps": 6,
                                            "trace_file": "<OUT>/die_hard-NotFour-<STAMP>.itf.json",
                                            "reason": None}
    assert (obj["distinct_states"], obj["generated_states"], obj["depth"]) == (16, 97, 8)


def test_json_of_an_unknown_result(mc):
    run = mc("check", TWO_PHASE, *REF, "--json", "--max-states", "20", "--out", "OUT")
    assert run.exit_code == 3
    obj = json.loads(run.stdout)
    assert obj["complete"] is False and obj["reason"].startswith("stopped at the state bound")
    assert {p["status"] for p in obj["properties"].values()} == {"unknown"}
    assert obj["consts"] == {"N": 3}


def test_property_selects_properties_and_typos_get_a_hint(mc):
    run = mc("check", "tests/cli/specs/reach.mc", *REF, "--property", "Top",
             "--json", "--out", "OUT")
    assert run.exit_code == 0 and list(json.loads(run.stdout)["properties"]) == ["Top"]
    run = mc("check", "tests/cli/specs/reach.mc", *REF, "--property", "Tpo")
    assert run.exit_code == 2
    assert run.stderr == ("error: --property Tpo: no property of that name in reach\n"
                          "   = hint: did you mean 'Top'?\n")


def test_a_named_property_is_all_that_decides_the_exit_code(mc):
    # deadlocks.mc deadlocks in 2 steps; naming its invariant leaves deadlock out.
    spec = "tests/cli/specs/deadlocks.mc"
    for flag in ("--property", "--invariant"):
        run = mc("check", spec, *REF, flag, "Bounded", "--json", "--out", "OUT")
        assert run.exit_code == 0, flag
        assert list(json.loads(run.stdout)["properties"]) == ["Bounded"]
    run = mc("check", spec, *REF, "--property", "deadlock", "--json", "--out", "OUT")
    assert run.exit_code == 1
    assert list(json.loads(run.stdout)["properties"]) == ["deadlock"]
    run = mc("check", spec, *REF, "--property", "deadlock", "--no-deadlock")
    assert run.exit_code == 2 and "contradict" in run.stderr


def test_never_enabled_is_only_said_after_a_finished_search(mc):
    spec = "tests/cli/specs/reach.mc"
    run = mc("check", spec, *REF, "--out", "OUT")
    assert run.exit_code == 0 and "never enabled: Never" in run.stdout
    run = mc("check", spec, *REF, "--max-depth", "1", "--out", "OUT")
    assert run.exit_code == 3 and "search incomplete" in run.stdout
    assert "never enabled" not in run.stdout


def test_internal_error_exits_4_without_a_traceback(mc, monkeypatch):
    def boom(self, model, options=None, reporter=None):
        raise RuntimeError("boom")
    monkeypatch.setattr(ReferenceEngine, "check", boom)
    run = mc("check", DIE_HARD, *REF)
    assert run.exit_code == 4
    assert run.stderr == ("internal error: RuntimeError: boom "
                          "(rerun with --debug for the traceback)\n")
    run = mc("--debug", "check", DIE_HARD, *REF)
    assert run.exit_code == 4
    assert run.stderr.startswith("Traceback (most recent call last):")
    assert run.stderr.endswith("internal error: RuntimeError: boom\n")


def test_debug_shows_the_traceback_of_a_spec_error_too(mc):
    run = mc("--debug", "check", "tests/cli/specs/bad_name.mc", *REF)
    assert run.exit_code == 2
    assert "Traceback" in run.stderr and "error[MC2001]" in run.stderr


def test_ctrl_c_during_the_search_prints_partial_results_exit_3(mc, monkeypatch):
    # The first progress tick stands for the moment the user presses Ctrl-C.
    def interrupt(self, progress):
        raise KeyboardInterrupt
    monkeypatch.setattr(ProgressDisplay, "progress", interrupt)
    run = mc("check", TWO_PHASE, *REF, "--out", "OUT")
    assert run.exit_code == 3
    assert "Consistent  invariant  unknown: interrupted" in run.stdout
    assert "search incomplete: interrupted" in run.stdout


def test_ctrl_c_escaping_an_engine_exits_3(mc, monkeypatch):
    def interrupted(self, model, options=None, reporter=None):
        raise KeyboardInterrupt
    monkeypatch.setattr(ReferenceEngine, "check", interrupted)
    run = mc("check", DIE_HARD, *REF)
    assert (run.exit_code, run.stderr) == (3, "interrupted\n")


@pytest.mark.parametrize("args", [
    ["check", DIE_HARD, "--no-such-flag"],
    ["check", "no/such/spec.mc"],
    ["check", DIE_HARD, "--engine", "nope"],
    ["check", DIE_HARD, "--max-states", "0"],
    ["check"],
    ["frobnicate"],
])
def test_command_line_mistakes_exit_2(mc, args):
    run = mc(*args)
    assert run.exit_code == 2 and run.stdout == ""
    assert "Error:" in run.stderr and "Traceback" not in run.stderr


def test_a_fingerprint_width_not_offered_exits_2_with_the_widths(mc):
    run = mc("check", TWO_PHASE, "--fingerprint-bits", "80")
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr == ("error: --fingerprint-bits 80: not a fingerprint width\n"
                          "   = hint: use 64, 96 or 128\n")
    run = mc("check", TWO_PHASE, "--fingerprint-bits", "128", "--exact")
    assert run.exit_code == 2 and "contradict" in run.stderr
    run = mc("check", TWO_PHASE, "--fingerprint-bits", "80", "--json")
    assert run.exit_code == 2 and "--fingerprint-bits 80" in run.stdout


def test_the_reference_explorer_says_the_width_has_no_effect(mc):
    run = mc("check", DIE_HARD, *REF, "--fingerprint-bits", "128", "--json", "--out", "OUT")
    assert run.exit_code == 1
    assert any("--fingerprint-bits 128 has no effect" in n
               for n in json.loads(run.stdout)["notes"])


def test_simulate_runs_on_the_reference_engine_only(mc):
    run = mc("check", DIE_HARD, "--simulate", "3", "--engine", "bmc")
    assert run.exit_code == 2
    assert run.stderr.startswith("error: --simulate runs on the reference engine, not bmc")


def test_simulate_finds_the_die_hard_counterexample(mc):
    run = mc("check", DIE_HARD, "--simulate", "200", "--depth", "30", "--seed", "1",
             "--json", "--out", "OUT")
    assert run.exit_code == 1
    obj = json.loads(run.stdout)
    assert obj["engine"] == "reference"
    assert obj["properties"]["NotFour"]["status"] == "violated"


def test_without_compiled_engine_the_default_falls_back_with_a_note(mc, monkeypatch):
    monkeypatch.setitem(sys.modules, "modelcheck.engines.compiled.engine", None)
    run = mc("check", DIE_HARD, "--json", "--out", "OUT")
    assert run.exit_code == 1 and json.loads(run.stdout)["engine"] == "reference"
    assert run.stderr.startswith("note: the compiled engine is not available (")
    assert len(run.stderr.splitlines()) == 1


def test_parse_prints_a_one_line_summary(mc, golden):
    run = mc("parse", TWO_PHASE, "-D", "N=4")
    assert run.exit_code == 0
    golden.check("cli/parse.txt", run.transcript())
    run = mc("parse", "tests/cli/specs/bad_name.mc")
    assert run.exit_code == 2 and "error[MC2001]" in run.stderr and run.stdout == ""


def test_version(mc):
    run = mc("--version")
    assert run.exit_code == 0 and run.stdout.startswith("modelcheck, version ")


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_variant_field_outside_its_type_is_mc5001_where_it_is_built(mc, golden, engine):
    if engine == "compiled":
        pytest.importorskip("numba")
    run = mc("check", "tests/cli/specs/variant_field.mc", "--engine", engine, "--no-deadlock",
             "--out", "OUT")
    assert run.exit_code == 2
    assert "compiled engine unavailable" not in run.transcript()
    golden.check(f"cli/check_variant_field_{engine}.txt", run.transcript())


def test_check_help_lists_every_exit_code(mc):
    run = mc("check", "--help")
    text = " ".join(run.stdout.split())
    for code, meaning in [(0, "all hold"), (1, "a property violated"), (2, "bad input"),
                          (3, "unknown"), (4, "internal error")]:
        assert f"{code} {meaning}" in text, code


def test_counterexample_files_get_the_users_umask(mc):
    mask = os.umask(0o002)
    try:
        run = mc("check", DIE_HARD, *REF, "--out", "OUT")
    finally:
        os.umask(mask)
    assert run.exit_code == 1
    path, = mc.out_dir.glob("die_hard-NotFour-*.itf.json")
    assert stat.S_IMODE(path.stat().st_mode) == 0o664
