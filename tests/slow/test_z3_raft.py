"""Raft (specs/examples/raft.mc, 2 servers) under the Z3 engines: a bag of a
four-case variant with logs inside (sparsebags.py), a capped set of
elections (sparse.py).  BMC deep enough to find the reference's shortest
traces of 2 to 15 steps; k-induction proves what the reference finds true."""
from __future__ import annotations

from pathlib import Path

import pytest

from modelcheck import api
from modelcheck.engines.base import DEADLOCK, CheckOptions, Status
from modelcheck.engines.z3.induction import prove
from modelcheck.engines.z3.proofs import ProofStatus
from modelcheck.pipeline import load_source
from modelcheck.trace.replay import replay

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

# Reachable facts, each false at a known depth of the reference's search.
PROBES = """
invariant NoMsg: len(messages) == 0
invariant NoLeader: all(state[i] != Leader for i in Server)
invariant NoResponse: all(not (m is RequestVoteResponse) for m in messages)
invariant NoElection: len(elections) == 0
invariant NoAppendResp: all(not (m is AppendEntriesResponse) for m in messages)
invariant NoCommit: all(commitIndex[i] == 0 for i in Server)
"""


def _raft():
    return load_source((ROOT / "specs/examples/raft.mc").read_text() + PROBES, "raft.mc")


def test_bmc_finds_the_references_shortest_traces():
    model = _raft()
    ref = api.check(model, "reference", CheckOptions())
    got = api.check(model, "bmc", CheckOptions(depth=16))
    assert got.error is None
    for want in ref.properties:
        have = got.get_property(want.name)
        if want.trace is None:
            assert have.status is Status.HOLDS_UP_TO_BOUND, want.name
        else:
            assert (have.status, have.steps) == (want.status, want.steps), want.name
            assert replay(model, have.trace).ok
    assert got.get_property(DEADLOCK).status is Status.HOLDS_UP_TO_BOUND
    assert ref.get_property("NoCommit").steps == 15


def test_induction_proves_log_matching():
    model = load_source((ROOT / "specs/examples/raft.mc").read_text(), "raft.mc")
    assert prove(model, ["LogMatching"]).get("LogMatching").status is ProofStatus.PROVED
