"""The engine around the kernels: the fallback to the reference explorer,
pickling for Spark executors, and the batch API's shapes."""
from __future__ import annotations

import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.compiled.engine import CompiledEngine


class Notes:
    def __init__(self):
        self.notes = []

    def progress(self, p):
        pass

    def note(self, message):
        self.notes.append(message)


def test_falls_back_to_the_reference_without_numba(load, monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)          # import numba -> ImportError
    rep = Notes()
    got = CompiledEngine().check(load("die_hard"), CheckOptions(), rep)
    assert got.engine == "reference" and got.stats.distinct_states == 16
    assert len(rep.notes) == 1 and "reference explorer" in rep.notes[0]
    assert got.notes[0] == rep.notes[0]


def test_falls_back_when_the_layout_cannot_hold_the_spec():
    pytest.importorskip("numba")
    model = api.load_source("""
module huge
var m: map[0..999, set[0..9999]] = {k: {} for k in 0..999}
action Add(x: 0..2) { m[x] := m[x] | {x} }
""")
    rep = Notes()
    got = CompiledEngine().check(model, CheckOptions(), rep)
    assert got.engine == "reference" and got.stats.distinct_states == 8
    assert "157,000 slots" in rep.notes[0]


def test_compiled_model_pickles_for_spark(kernels):
    k = kernels("two_phase", N=3)
    again = pickle.loads(pickle.dumps(k))
    rows = k.initial_states()
    a, b = k.expand(rows), again.expand(rows)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[2], b[2])
    assert again.layout.words == k.layout.words


def test_batch_api_shapes(kernels):
    k = kernels("two_phase", N=3)
    w = k.layout.words
    init = k.initial_states()
    assert init.dtype == np.uint64 and init.shape == (1, w)
    batch = np.repeat(init, 3, axis=0)
    succ, parent, aid, fault = k.expand(batch)
    assert fault is None and succ.dtype == np.uint64 and succ.shape[1] == w
    assert parent.dtype == np.int64 and aid.dtype == np.int32
    assert sorted(set(parent.tolist())) == [0, 1, 2]
    assert k.fingerprint(succ).dtype == np.uint64
    props = k.check_state_properties(succ)
    assert props.dtype == bool and props.shape == (len(succ), len(k.state_columns))
    steps = k.check_steps(batch[parent], succ, aid)
    assert steps.shape == (len(succ), 0)
    assert k.action_label(int(aid[0]))[0] in {a.name for a in k.model.actions}
    assert np.array_equal(k.canonicalize(succ), succ)          # symmetry off
    assert k.decode(init[0]) == k.layout.unpack(init[0])


def test_cli_dump_kernel_and_max_memory(tmp_path, kernels, monkeypatch):
    """The two compiled-only flags, end to end through ``modelcheck check``
    (the table starts small, so that a small spec has to grow it)."""
    from click.testing import CliRunner

    import modelcheck.engines.compiled.search.serial as search
    from modelcheck.cli.main import cli
    pytest.importorskip("numba")
    monkeypatch.setattr(search, "START_CAPACITY", 64)
    kernels("two_phase", N=4)
    spec = str(Path(__file__).resolve().parents[3] / "specs" / "examples" / "two_phase.mc")
    dump = tmp_path / "kernel.py"
    run = CliRunner().invoke(cli, ["check", spec, "-D", "N=4", "--no-symmetry",
                                   "--dump-kernel", str(dump), "--out", str(tmp_path)])
    assert run.exit_code == 0, run.output
    assert "def act_3_RMPrepare(" in dump.read_text()
    run = CliRunner().invoke(cli, ["check", spec, "-D", "N=4", "--no-symmetry",
                                   "--max-memory", "0.01", "--out", str(tmp_path)])
    assert run.exit_code == 3, run.output
    assert "out of memory at" in run.output
