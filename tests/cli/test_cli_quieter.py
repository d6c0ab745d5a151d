"""Quieter output when wanted: ``check --quiet`` gives the verdicts and the
files written; ``--by`` tables end no line in spaces; ``trace diff`` says
when two traces come from different specs; ``trace serve``'s index marks a
trace whose spec has changed since it was written."""
from __future__ import annotations

import re
import shutil

from modelcheck.cli.trace_serve import index_page

ACKS = "tests/cli/specs/acks.mc"
REF = ("--engine", "reference")


def _stamped(run) -> str:
    """The transcript without stderr: the progress lines there depend on timing."""
    text = run.transcript().split("--- stderr\n", 1)[0]
    return re.sub(r"-\d{8}T\d{6}\.itf", "-<STAMP>.itf", text)


def test_quiet_check_prints_the_verdicts_and_the_files(mc, golden):
    run = mc("check", ACKS, *REF, "--out", "OUT", "--quiet")
    assert run.exit_code == 1
    golden.check("cli/check_quiet.txt", _stamped(run))
    assert "State 0" not in run.stdout and "Step 1" not in run.stdout
    assert len(list(mc.out_dir.glob("acks-*.itf.json"))) == 2


def test_tables_by_lane_end_no_line_in_spaces(mc):
    mc("check", ACKS, *REF, "--out", "OUT", "--quiet")
    trace = sorted(mc.out_dir.glob("acks-deadlock-*.itf.json"))[0]
    run = mc("trace", "show", "OUT/" + trace.name, "--by", "Node", "--all")
    assert run.exit_code == 0 and "acked" in run.stdout
    lines = run.stdout.splitlines()
    assert [line for line in lines if line != line.rstrip()] == []
    assert any(re.fullmatch(r" +a +b", line) for line in lines)


def test_diff_of_traces_from_two_specs_says_so(mc):
    mc("check", ACKS, *REF, "--out", "OUT", "--quiet")
    mc("check", "specs/examples/die_hard.mc", *REF, "--out", "OUT", "--quiet")
    acks = sorted(mc.out_dir.glob("acks-Safe-*.itf.json"))[0].name
    die_hard = sorted(mc.out_dir.glob("die_hard-*.itf.json"))[0].name
    run = mc("trace", "diff", "OUT/" + acks, "OUT/" + die_hard)
    assert run.exit_code == 1
    assert "The traces come from different specs" in run.stdout
    assert "from acks" in run.stdout and "from die_hard" in run.stdout
    assert "→" not in run.stdout                      # no bogus changes


def test_the_index_marks_a_trace_whose_spec_changed(mc, tmp_path):
    spec = tmp_path / "acks.mc"
    shutil.copy(ACKS, spec)
    run = mc("check", str(spec), *REF, "--out", "OUT", "--quiet")
    assert run.exit_code == 1
    assert "changed since" not in index_page(mc.out_dir)
    spec.write_text(spec.read_text() + "\n# edited\n")
    page = index_page(mc.out_dir)
    assert page.count('class="changed"') == 2 and "changed since" in page
