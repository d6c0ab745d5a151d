"""``trace explain`` tells the whole story: the variables a failure reads
through defs and quantifiers, and a deadlock (which require stops each
action in the last state), with the hint a deadlock verdict gives."""
from __future__ import annotations

import re

import pytest

SPEC = "tests/cli/specs/acks.mc"
REF = ("--engine", "reference")


def transcript(run) -> str:
    """The transcript without stderr: the progress lines there depend on timing."""
    text = run.transcript().split("--- stderr\n", 1)[0]
    return re.sub(r"-\d{8}T\d{6}\.itf", "-<STAMP>.itf", text)


@pytest.fixture
def written(mc):
    run = mc("check", SPEC, *REF, "--out", "OUT")
    assert run.exit_code == 1
    return run, {p.name.split("-")[1]: "OUT/" + p.name for p in mc.out_dir.glob("acks-*.itf.json")}


def test_the_variables_read_through_a_def_and_a_quantifier_are_listed(mc, written, golden):
    _, files = written
    run = mc("trace", "explain", files["Safe"])
    assert run.exit_code == 0
    golden.check("cli/explain_reads.txt", transcript(run))
    reads = run.stdout.split("The variables it reads there:\n", 1)[1].splitlines()
    # log: the quantifier's domain; acked: the def's body; commit: the premise
    assert [line.split()[0] for line in reads] == ["log", "acked", "commit"]


def test_a_deadlock_trace_is_explained_action_by_action(mc, written, golden):
    check, files = written
    assert "hint: if the system is meant to stop there, say so with `terminal NAME: condition`" \
        in check.stdout and "--no-deadlock" in check.stdout
    assert "`modelcheck trace explain <OUT>/acks-deadlock-<STAMP>.itf.json`" in check.stdout
    golden.check("cli/check_deadlock.txt", transcript(check))
    run = mc("trace", "explain", files["deadlock"])
    assert run.exit_code == 0
    golden.check("cli/explain_deadlock.txt", transcript(run))
    assert "✗ Ack, every binding: require acked[n] < len(log) is false" in run.stdout
    named = mc("trace", "explain", files["deadlock"], "--property", "deadlock")
    assert named.stdout == run.stdout


def test_a_trace_that_ends_in_no_deadlock_is_refused(mc, written):
    _, files = written
    run = mc("trace", "explain", files["Safe"], "--property", "deadlock")
    assert run.exit_code == 2 and "no deadlock counterexample" in run.stderr
