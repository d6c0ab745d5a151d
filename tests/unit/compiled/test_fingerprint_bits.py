"""Wide fingerprints (``--fingerprint-bits 96|128``, kernel/widths.py): a
second hash word in each slot tells apart states whose 64-bit keys collide;
on specs without a collision the counts, verdicts and shortest traces are
the 64-bit search's on every table layout (tagged, preallocated, the
sharded table of 2 workers, levels on disk), with symmetry, constraints and
liveness; checkpoints record the width and refuse another."""
from __future__ import annotations

import numpy as np
import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.errors import UsageError

from searches import SPILL, outcome

pytest.importorskip("numba")

from modelcheck.engines.compiled.kernel.table import (FOUND, NEW,  # noqa: E402
                                                      FingerprintTable, second_word,
                                                      slot_bytes, table_insert)
from modelcheck.engines.compiled.kernel.widths import (MODE_FP96, MODE_FP128,  # noqa: E402
                                                       collision_probability)
from modelcheck.engines.compiled.search.shards import (entries_of,  # noqa: E402
                                                       table_from_entries)

WIDE = (96, 128)


def _run(model, bits, workers=1, symmetry=False, **extra):
    extra = dict(extra, parallel_after_s=0) if workers > 1 else extra
    return api.check(model, engine="compiled",
                     options=CheckOptions(symmetry=symmetry, workers=workers,
                                          fingerprint_bits=bits, extra=extra))


def _insert(t, key, row):
    return int(table_insert(t.keys, t.tags, t.states, t.meta, np.int64(key), np.int64(0),
                            row, True))


@pytest.mark.parametrize("bits", [64, *WIDE])
def test_the_second_word_tells_apart_states_whose_keys_collide(bits):
    """Two states given the same 64-bit key: one state to a 64-bit table,
    two to a wide one, and each found again by its own words, across a
    growth and a refill from entries (a checkpoint, the shards)."""
    t = FingerprintTable(2, exact=False, capacity=64, bits=bits)
    a, b = np.array([1, 2], dtype=np.int64), np.array([3, 4], dtype=np.int64)
    assert _insert(t, 12345, a) == NEW
    assert _insert(t, 12345, b) == (FOUND if bits == 64 else NEW)
    if bits == 64:
        return
    assert t.count == 2 and t.states.shape[1] == 1
    t.grow(homes=True)
    assert _insert(t, 12345, a) == FOUND and _insert(t, 12345, b) == FOUND
    for shards in (1, 2):
        again = table_from_entries(2, entries_of(t), shards)
        assert again.count == 2 and again.bits == bits
    again = table_from_entries(2, entries_of(t), 1)
    assert _insert(again, 12345, a) == FOUND and _insert(again, 12345, b) == FOUND
    assert _insert(again, 12345, np.array([5, 6], dtype=np.int64)) == NEW


def test_the_second_word_is_a_hash_of_its_own():
    rows = np.arange(2000, dtype=np.int64).reshape(1000, 2)
    wide = {int(second_word(r, MODE_FP128)) for r in rows}
    narrow = {int(second_word(r, MODE_FP96)) for r in rows}
    assert len(wide) == 1000 and len(narrow) == 1000
    assert all(0 <= w < 2 ** 32 for w in narrow)
    assert int(second_word(rows[0], 0)) == 0


def test_slot_bytes_and_the_collision_bound():
    assert slot_bytes(3, False, True, 64) == 12
    assert slot_bytes(3, False, True, 128) == 20
    assert slot_bytes(3, False, False, 96) == 16
    assert slot_bytes(3, True, True, 128) == 36       # --exact: the words, no second word
    n = 10 ** 9
    assert collision_probability(n, 64) == pytest.approx(n * (n - 1) / 2.0 ** 65)
    assert collision_probability(n, 96) == pytest.approx(n * (n - 1) / 2.0 ** 97)
    assert collision_probability(n, 128) == pytest.approx(n * (n - 1) / 2.0 ** 129)
    with pytest.raises(ValueError):
        FingerprintTable(1, False, bits=80)


@pytest.mark.parametrize("name,consts,symmetry,workers,extra", [
    ("two_phase", {"N": 5}, False, 1, {}),
    ("two_phase", {"N": 5}, True, 1, {}),
    ("two_phase", {"N": 5}, False, 2, {}),
    ("two_phase", {"N": 5}, False, 1, dict(SPILL, preallocate=True, max_memory_mib=1100)),
    ("two_phase", {"N": 5}, False, 2, dict(SPILL, preallocate=True, max_memory_mib=1100)),
    ("constrained_mutex", {"N": 3}, False, 1, {}),
    ("constrained_mutex", {"N": 3}, True, 2, {}),
    ("sym_mutex", {"N": 3}, True, 2, {}),
])
def test_wide_fingerprints_give_the_64_bit_counts(name, consts, symmetry, workers, extra,
                                                  load, kernels):
    model = load(name, **consts)
    kernels(name, symmetry=symmetry, **consts)
    narrow = _run(model, 64, workers, symmetry, **extra)
    for bits in WIDE:
        wide = _run(model, bits, workers, symmetry, **extra)
        assert outcome(wide) == outcome(narrow), bits
        x = wide.stats.extras
        assert x["fingerprint_bits"] == bits
        n = wide.stats.distinct_states
        assert x["fp_collision_probability"] == pytest.approx(n * (n - 1) / 2.0 ** (bits + 1))
        if extra.get("preallocate"):
            # the same budget, in fewer slots of 16 bytes, not 8
            assert x["table_load"] > narrow.stats.extras["table_load"] * 1.9
        else:
            # a second word a slot: 8 bytes more at the same load
            assert x["bytes_per_state"] > narrow.stats.extras["bytes_per_state"]
        if workers > 1:
            # the second word is not covered by the shared table's compare-and-swap
            assert x["table"] == "shards"


@pytest.mark.parametrize("workers", [1, 2])
def test_a_violation_and_its_shortest_trace(workers, load, kernels):
    consts = {"L": 40, "M": 2000, "BAD": 30}
    model = load("deep", **consts)
    kernels("deep", **consts)
    narrow = _run(model, 64, workers)
    wide = _run(model, 128, workers, **SPILL)
    assert outcome(wide) == outcome(narrow)
    bad = next(p for p in wide.properties if p.name == "NotBad")
    assert bad.status is Status.VIOLATED and bad.steps == 30


def test_liveness_with_a_wide_fingerprint(load):
    model = load("ewd840", N=3)
    runs = [api.check(model, engine="compiled",
                      options=CheckOptions(symmetry=False, workers=1, fingerprint_bits=bits))
            for bits in (64, 96)]
    assert outcome(runs[1]) == outcome(runs[0])
    assert runs[1].stats.extras["liveness_graph_bytes"] > 0
    assert runs[1].stats.extras["fingerprint_bits"] == 96


@pytest.mark.parametrize("extra", [{}, dict(SPILL, preallocate=True, max_memory_mib=1025)])
def test_a_checkpoint_keeps_the_width(extra, load, kernels, tmp_path, monkeypatch):
    """Interrupted at 128 bits and resumed at 128 bits: the uninterrupted
    counts; a resume at another width is refused with the width to use."""
    from interrupts import InterruptAt
    import modelcheck.engines.compiled.search.serial as search
    monkeypatch.setattr(search, "PROGRESS_EVERY_S", 0.0)
    model = load("two_phase", N=5)
    kernels("two_phase", N=5)
    full = _run(model, 128)
    resumed = 0
    for at in (5, 9):
        folder = tmp_path / f"at{at}"
        rep = InterruptAt(at)
        part = api.check(model, engine="compiled", reporter=rep,
                         options=CheckOptions(symmetry=False, workers=1, fingerprint_bits=128,
                                              checkpoint_dir=str(folder),
                                              extra=dict(extra, cross_levels=False)))
        if rep.ticks < at:
            continue
        assert part.reason == "interrupted"
        for workers in (1, 2):
            rest = api.check(model, engine="compiled",
                             options=CheckOptions(symmetry=False, workers=workers,
                                                  fingerprint_bits=128, resume_dir=str(folder),
                                                  extra=dict(extra, parallel_after_s=0)))
            assert outcome(rest) == outcome(full)
        for bits in (64, 96):
            with pytest.raises(UsageError) as info:
                api.check(model, engine="compiled",
                          options=CheckOptions(symmetry=False, workers=1, fingerprint_bits=bits,
                                               resume_dir=str(folder), extra=extra))
            assert "128-bit fingerprints" in str(info.value)
            assert info.value.hint == "resume with --fingerprint-bits 128"
        resumed += 1
    assert resumed >= 1


def test_a_64_bit_checkpoint_refuses_a_wide_resume(load, kernels, tmp_path):
    model = load("two_phase", N=3)
    kernels("two_phase", N=3)
    folder = tmp_path / "ckpt"
    api.check(model, engine="compiled",
              options=CheckOptions(symmetry=False, checkpoint_dir=str(folder),
                                   checkpoint_every_s=0.0))
    with pytest.raises(UsageError) as info:
        api.check(model, engine="compiled",
                  options=CheckOptions(symmetry=False, fingerprint_bits=96,
                                       resume_dir=str(folder)))
    assert info.value.hint == "resume with --fingerprint-bits 64"


def test_the_api_refuses_a_width_not_offered(load):
    with pytest.raises(UsageError) as info:
        api.check(load("two_phase", N=3), engine="compiled",
                  options=CheckOptions(fingerprint_bits=100))
    assert info.value.hint == "use 64, 96 or 128"


def test_the_spark_engine_says_it_keeps_64_bits():
    from types import SimpleNamespace

    from modelcheck.engines.spark.summary import level_notes
    state = SimpleNamespace(distinct=10, levels=[])
    notes = level_notes(state, {}, CheckOptions(fingerprint_bits=128), False)
    assert any("--fingerprint-bits 128 is not supported by the spark engine" in n
               for n in notes)
