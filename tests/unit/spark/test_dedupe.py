"""Deduplicating successors: the compiled pass agrees with the sort it replaces."""
from __future__ import annotations

import numpy as np
import pytest

from modelcheck.engines.spark.dedupe import _distinct_rows_py, distinct_rows

U64 = np.uint64


def _check(fp: np.ndarray, parent: np.ndarray) -> None:
    rows, best = distinct_rows(fp, parent)
    want_rows, want_best = _distinct_rows_py(fp, parent)
    assert np.array_equal(fp[rows], fp[want_rows])
    assert np.array_equal(best, want_best)
    assert bool(np.all(fp[rows][1:] > fp[rows][:-1]))


def test_large_batches_with_many_duplicates():
    rng = np.random.default_rng(7)
    base = rng.integers(0, 2**64 - 1, 50_000, dtype=U64)
    fp = base[rng.integers(0, len(base), 200_000)]
    _check(fp, rng.integers(0, 2**64 - 1, len(fp), dtype=U64))


def test_fingerprints_sharing_their_high_bits_come_out_in_order():
    # Keys keep only a fingerprint's high bits: rows that share them must
    # still be ordered by the whole fingerprint.
    rng = np.random.default_rng(3)
    low = rng.permutation(3000).astype(U64)
    fp = np.concatenate([(U64(5) << U64(40)) | low] * 2)
    _check(fp, rng.integers(0, 100, len(fp), dtype=U64))


@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_the_sort(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1024, 5000))
    # From all distinct to nearly all one fingerprint.
    base = rng.integers(0, 2**64 - 1, max(1, n >> int(rng.integers(0, 12))), dtype=U64)
    fp = base[rng.integers(0, len(base), n)]
    _check(fp, rng.integers(0, 2**64 - 1, n, dtype=U64))
