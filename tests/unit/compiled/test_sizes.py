"""The seen-state table sized from the last complete search of a
configuration (compiled/sizes.py): the second search never rebuilds it, and
a stale, wrong or missing count changes nothing but the sizing."""
from __future__ import annotations

import pytest

from modelcheck.engines.base import CheckOptions
from modelcheck.engines.compiled.cache import sizes
from modelcheck.engines.compiled.cache.sizes import START_CAPACITY
from modelcheck.engines.compiled.kernel.table import GROWTH, MAX_LOAD, FingerprintTable


def test_the_usual_start_is_the_tables_own_default():
    assert FingerprintTable(2, False).capacity == START_CAPACITY


def test_a_count_gives_a_table_that_holds_it_without_growing():
    for count in (20_000, 50_816, 10_340_352):
        cap = sizes.start_capacity(count, 12, None, START_CAPACITY)
        assert MAX_LOAD / GROWTH <= count / cap < MAX_LOAD


@pytest.mark.parametrize("count, max_bytes", [(None, None), (0, None), (100, None),
                                              (10_000_000, 1 << 20)])
def test_no_count_a_small_one_or_one_past_the_memory_cap_keep_the_usual_start(count, max_bytes):
    assert sizes.start_capacity(count, 12, max_bytes, START_CAPACITY) == START_CAPACITY


def test_counts_are_kept_per_key_and_a_damaged_record_reads_as_none(tmp_path):
    assert sizes.expected_states(tmp_path, "k1") is None
    sizes.record_states(tmp_path, "k1", 50_816)
    sizes.record_states(tmp_path, "k2", 7)
    assert sizes.expected_states(tmp_path, "k1") == 50_816
    assert sizes.expected_states(tmp_path, "k2") == 7
    (tmp_path / "kernels" / "sizes" / "k1").write_text("fifty")
    assert sizes.expected_states(tmp_path, "k1") is None


def test_a_cache_that_cannot_be_written_loses_only_the_sizing(tmp_path):
    blocker = tmp_path / "kernels"
    blocker.write_text("a file where the folder would be")
    sizes.record_states(tmp_path, "k", 5)
    assert sizes.expected_states(tmp_path, "k") is None


def test_the_key_tells_symmetry_and_configurations_apart(load):
    one, other = load("two_phase", N=3), load("two_phase", N=4)
    assert sizes.size_key(one, True) == sizes.size_key(load("two_phase", N=3), True)
    assert len({sizes.size_key(one, True), sizes.size_key(one, False),
                sizes.size_key(other, True)}) == 3


@pytest.mark.parametrize("workers", [1, 2])
def test_the_second_search_of_a_configuration_never_grows_its_table(load, tmp_path, monkeypatch,
                                                                    workers):
    pytest.importorskip("numba")
    from modelcheck.engines.compiled.engine import CompiledEngine
    # Counts in a folder of this test's; the kernels stay in the usual cache.
    monkeypatch.setattr(sizes, "_path", lambda cache_dir, key: tmp_path / key)
    model = load("two_phase", N=6)
    options = CheckOptions(symmetry=False, workers=workers,
                           extra={"parallel_after_s": 0.0, "parallel_wide_rows": 1})
    first = CompiledEngine().check(model, options)
    second = CompiledEngine().check(model, options)
    assert first.complete and second.complete
    assert second.stats.extras.get("workers", 1) == workers
    count = first.stats.distinct_states
    assert first.stats.extras["table_sized_for"] is None
    assert second.stats.extras["table_sized_for"] == count
    # Its home slots are those it started with: it never grew.
    start = sizes.start_capacity(count, 12, None, START_CAPACITY)
    assert second.stats.extras["table_load"] == round(count / start, 3)
    assert first.stats.extras["table_load"] != second.stats.extras["table_load"]
    assert (second.stats.distinct_states, second.stats.generated_states, second.stats.depth) == \
        (first.stats.distinct_states, first.stats.generated_states, first.stats.depth)
    assert second.stats.extras["bytes_per_state"] < 16
    # A search stopped by a bound leaves the count as it was.
    bounded = CompiledEngine().check(model, CheckOptions(symmetry=False, max_states=1000))
    assert not bounded.complete
    assert sizes.expected_states(None, sizes.size_key(model, False)) == \
        first.stats.distinct_states


def test_a_count_whose_table_passes_half_the_memory_at_hand_is_not_used():
    gib = 1 << 30
    assert sizes.start_capacity(100_000_000, 12, None, START_CAPACITY, at_hand=gib) == \
        START_CAPACITY
    assert sizes.start_capacity(100_000_000, 12, None, START_CAPACITY, at_hand=4 * gib) > \
        START_CAPACITY


@pytest.mark.parametrize("text", ["99999999999999999999", "-5", "0", "1e6", "", "7" * 200])
def test_a_record_that_is_no_count_reads_as_none_and_is_removed(tmp_path, text):
    sizes.record_states(tmp_path, "k", 5)
    record = tmp_path / "kernels" / "sizes" / "k"
    record.write_text(text)
    assert sizes.expected_states(tmp_path, "k") is None
    assert not record.exists()
