"""Rows as Arrow batches (what crosses the JVM/Python boundary), and the
Python tasks of a Spark level run on them directly."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pa = pytest.importorskip("pyarrow")

from modelcheck.engines.spark.arrowpack import (batch_rows, from_batches, from_long,  # noqa: E402
                                                hit_words, pack_hits, row_columns, spark_schema,
                                                to_batch, to_long)
from modelcheck.engines.spark.kernels import plan_properties  # noqa: E402
from modelcheck.engines.spark.partition import (INSIDE, OUTSIDE, Candidates,  # noqa: E402
                                                LevelReport, empty_part, expand_part,
                                                initial_candidates, merge_part)
from modelcheck.engines.spark.tasks import expand_batches  # noqa: E402
from evaluator_kernels import EvaluatorKernels  # noqa: E402
from many_parts import jvm_new_states, jvm_settle  # noqa: E402
from spark_specs import load_spec  # noqa: E402

U64 = np.uint64
words64 = st.integers(0, 2**64 - 1)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(words64, words64, st.sampled_from([-1, 0, 1]), words64, words64),
                max_size=40))
def test_round_trip_through_arrow_batches(rows):
    fp = np.array([r[0] for r in rows], dtype=U64)
    parent = np.array([r[1] for r in rows], dtype=U64)
    inside = np.array([r[2] for r in rows], dtype=np.int8)
    states = np.array([[r[3], r[4]] for r in rows], dtype=U64).reshape(len(rows), 2)
    pfail = np.array([r[3] % 2 for r in rows], dtype=np.int8)
    hits = np.array([[r[4], r[0]] for r in rows], dtype=U64).reshape(len(rows), 2)
    half = len(rows) // 2
    batches = [to_batch(fp[:half], parent[:half], inside[:half], states[:half], pfail[:half],
                        hits[:half]),
               to_batch(fp[half:], parent[half:], inside[half:], states[half:], pfail[half:],
                        hits[half:])]
    assert batches[0].schema.names == row_columns(2, 2)
    back = from_batches(batches, 2)
    assert back.fp.tolist() == fp.tolist() and back.parent.tolist() == parent.tolist()
    assert back.inside.tolist() == inside.tolist() and back.states.tolist() == states.tolist()
    assert back.pfail.tolist() == pfail.tolist() and back.hits.tolist() == hits.tolist()
    plain = from_batches([to_batch(fp, parent, inside, states)], 2)
    assert plain.hits is None and plain.pfail.tolist() == [0] * len(rows)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 200), st.data())
def test_hit_bits_pack_one_column_a_bit(columns, data):
    hits = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=columns,
                                                max_size=columns), max_size=5)),
                    dtype=bool).reshape(-1, columns)
    packed = pack_hits(hits)
    assert packed.shape == (len(hits), hit_words(columns))
    for c in range(columns):
        bit = (packed[:, c // 64] >> U64(c % 64)) & U64(1)
        assert bit.astype(bool).tolist() == hits[:, c].tolist()


@settings(max_examples=40, deadline=None)
@given(st.lists(words64, min_size=1, max_size=30))
def test_longs_keep_the_unsigned_order(values):
    # Spark compares signed longs: its min(parent) must be the unsigned min.
    fps = np.array(values, dtype=U64)
    longs = to_long(fps)
    assert longs.dtype == np.int64
    assert int(fps[np.argmin(longs)]) == min(values)
    assert from_long(longs).tolist() == fps.tolist()


def test_schema_and_batch_sizes():
    assert spark_schema(2) == ("fp long, parent long, inside tinyint, pfail tinyint, "
                               "s0 long, s1 long")
    assert spark_schema(1, 2) == ("fp long, parent long, inside tinyint, pfail tinyint, "
                                  "h0 long, h1 long, s0 long")
    assert (hit_words(0), hit_words(1), hit_words(64), hit_words(65)) == (0, 1, 1, 2)
    assert batch_rows(2, 65536) == 65536
    assert batch_rows(64, 65536) * (18 + 8 * 64) <= 16 << 20
    assert batch_rows(10**6, 65536) == 1024


def test_tasks_count_and_settle_like_the_in_process_merge():
    # Expand the second level of "grid" through the Arrow tasks (one state a
    # flush, so (1, 1) comes from (1, 0) and from (0, 1) in two flushes),
    # remove duplicates and the seen states as the JVM does, check the new.
    model = load_spec("grid")
    plan = plan_properties(list(model.properties))
    kernels = EvaluatorKernels(model, plan)
    initial, _ = initial_candidates(kernels)
    part, _ = merge_part(kernels, plan, empty_part(kernels.words), [initial])
    part, _ = merge_part(kernels, plan, part, list(expand_part(
        kernels, plan, part.frontier_fp, part.frontier, True, LevelReport())))
    n = len(part.frontier_fp)
    frontier = [to_batch(part.frontier_fp, part.frontier_fp, np.full(n, INSIDE, np.int8),
                         part.frontier)]
    report = LevelReport()
    out = list(expand_batches(kernels, plan, True, True, frontier, report, flush_rows=2,
                              expand_rows=1))
    assert report.expanded == n > 1
    assert report.from_python == sum(b.nbytes for b in out) and report.to_python > 0
    cands = from_batches(out, kernels.words)
    assert len(cands) > len(set(cands.fp.tolist()))        # duplicates across flushes
    fresh = jvm_new_states(cands, part.seen_fp)
    assert sorted(fresh.fp.tolist()) == sorted(set(cands.fp.tolist()) - set(part.seen_fp.tolist()))
    for f, p in zip(fresh.fp.tolist(), fresh.parent.tolist()):
        assert p == min(q for g, q in zip(cands.fp.tolist(), cands.parent.tolist()) if g == f)
    settled = jvm_settle(fresh, len(plan.state))
    assert settled.new_states == int((fresh.inside != OUTSIDE).sum()) == len(fresh)
    # The hit bits are what the in-process merge settles on the same states.
    _, in_process = merge_part(kernels, plan, part, [Candidates(fresh.fp, fresh.parent,
                                                                fresh.states)])
    assert (settled.state_hits, settled.failed) == (in_process.state_hits, in_process.failed)
