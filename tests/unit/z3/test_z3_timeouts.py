"""``--timeout`` holds in every Z3 engine, whether the time goes into the
solver (a factoring query) or into Python building the encoding (a set of
4,096 bits whose every ``len`` adds them up): UNKNOWN, reason "timeout".

The bounds asserted on elapsed times are generous bounds on a hang (before
these fixes the runs below took 45-50 s for a 5 s timeout, or minutes), not
measurements."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
import z3

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.engines.z3.budget import watchdog
from modelcheck.engines.z3.induction import prove
from modelcheck.engines.z3.pdr import pdr
from modelcheck.engines.z3.proofs import ProofStatus
from modelcheck.pipeline import load_source

TIMEOUT_S = 3
HANG_S = 30

#: p * q == N, N the product of two random 48-bit primes: the solver cannot
#: answer the depth-6 query in minutes.  Each action has 65,536 bindings:
#: its parameter is an unknown, not 65,536 copies of its body.
FACTOR = """
module factor
var p: 0..281474976710655 = 0
var q: 0..281474976710655 = 0
var stage: 0..6 = 0

action ChooseP(x: 0..65535) {
    require stage % 2 == 0 and stage < 6
    p := p * 65536 + x
    stage := stage + 1
}

action ChooseQ(x: 0..65535) {
    require stage % 2 == 1
    q := q * 65536 + x
    stage := stage + 1
}

invariant NotFactored: not (stage == 6 and p * q == 50668735533102531785624545187 and p > 1 and q > 1)
"""

#: A set without a capacity over 4,096 records: one bit per record, and each
#: ``len`` adds up 4,096 of them, about a minute of Python to encode.
SLOW_ENCODING = """
module slowenc
type Node = model(4)
type Msg = record { src: Node, val: 0..1023 }

var msgs: set[Msg] = {}

action Send(n: Node) {
    require len(msgs) < 3
    pick v in 0..1023
    msgs := msgs | {Msg(src=n, val=v)}
}

action Drop(n: Node) {
    require len(msgs) > 0 and len({m for m in msgs if m.src == n}) > 0
    msgs := {m for m in msgs if m.src != n}
}

action Trim(n: Node) {
    require len(msgs) > 1 and len({m for m in msgs if m.src == n}) > 1
    msgs := {m for m in msgs if m.src != n or m.val > 511}
}

invariant Few: len(msgs) <= 3
"""


def test_bmc_timeout_cuts_a_solver_call(tmp_path: Path) -> None:
    spec = tmp_path / "factor.mc"
    spec.write_text(FACTOR)
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "modelcheck", "check", str(spec),
                           "--engine", "bmc", "--depth", "6", "--timeout", str(TIMEOUT_S),
                           "--no-deadlock"], capture_output=True, text=True, timeout=120)
    assert time.monotonic() - t0 < HANG_S
    assert done.returncode == 3, done.stdout + done.stderr
    assert "NotFactored" in done.stdout and f"timeout after {TIMEOUT_S} s at depth 6" in done.stdout


def test_bmc_timeout_cuts_the_encoding() -> None:
    model = load_source(SLOW_ENCODING, "slowenc.mc")
    t0 = time.monotonic()
    result = api.check(model, engine="bmc", options=CheckOptions(depth=2, timeout_s=TIMEOUT_S))
    assert time.monotonic() - t0 < HANG_S
    assert result.reason.startswith(f"timeout after {TIMEOUT_S} s")
    assert all(p.status is Status.UNKNOWN for p in result.properties)


@pytest.mark.parametrize("source", [FACTOR, SLOW_ENCODING], ids=["solver", "encoding"])
@pytest.mark.parametrize("engine", [prove, pdr], ids=["induction", "pdr"])
def test_proof_timeouts_cut_the_solver_and_the_encoding(engine, source) -> None:
    model = load_source(source, "m.mc")
    t0 = time.monotonic()
    result = engine(model, timeout=TIMEOUT_S)
    assert time.monotonic() - t0 < HANG_S
    assert [(p.status, p.reason) for p in result.invariants] == [(ProofStatus.UNKNOWN, "timeout")]


def test_the_watchdog_interrupts_a_call_that_has_no_timeout_of_its_own() -> None:
    x, y = z3.BitVecs("x y", 96)
    s = z3.SolverFor("QF_BV")
    s.add(x * y == 50668735533102531785624545187, z3.UGT(x, 1), z3.UGT(y, 1),
          z3.ULT(x, 2 ** 48), z3.ULT(y, 2 ** 48))
    t0 = time.monotonic()
    with watchdog(time.monotonic() + 1.0):
        answer = s.check()
    assert answer == z3.unknown
    assert time.monotonic() - t0 < HANG_S
    # An interrupt landing between calls (the watchdog firing as a call
    # ends) does nothing to the next call.
    z3.main_ctx().interrupt()
    a = z3.BitVec("a", 8)
    assert z3.SolverFor("QF_BV").check(a * a == 9) == z3.sat
