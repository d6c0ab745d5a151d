"""The Spark engine on a real embedded Spark (local[2]) with the compiled
kernels, as shipped: results equal the reference explorer's, levels move to
Spark at the threshold, a timeout cancels a running level and the run
resumes from its checkpoint to the same counts; the Spark levels (the
co-partitioned union, folds, checkpoints read back by the executors under
another partition count) against the in-process search, level by level.
One SparkContext serves the module."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "specs" / "examples"

GRID = """
module grid
var x: 0..6 = 0
var y: 0..4 = 0
action Right() { require x < 6  x := x + 1 }
action Up(k: 1..2) { require y + k <= 4  y := y + k }
action Home() { require x == 6 and y == 4  x := 0  y := 0 }
step invariant NoJump: y' <= y + 1 or y' == 0
sometimes Corner: x == 6 and y == 0
invariant Small: x + y < 9
"""

OVERFLOW = """
module overflow
var x: 0..3 = 0
action Inc() { x := x + 1 }
"""


@pytest.fixture(scope="module")
def spark():
    from modelcheck.engines.spark.session import spark_context, stop_spark
    stop_spark()                    # a context for another master would be reused
    sc, _ = spark_context("local[2]")
    yield sc
    stop_spark()


def _summary(result):
    return (result.stats.distinct_states, result.stats.generated_states, result.stats.depth,
            {p.name: (p.status, p.steps) for p in result.properties})


def _options(**kw):
    return CheckOptions(symmetry=False, spark_threshold=0, partitions=2, master="local[2]", **kw)


def test_python_workers_start_with_the_engine_loaded(spark):
    # The executors' daemon (worker_daemon.py) loads the engine before it
    # forks the workers, from the installed PySpark rather than its zip,
    # and the context's warm-up job has started it.
    from modelcheck.engines.spark.session import warmed_up
    assert spark.getConf().get("spark.python.daemon.module") == \
        "modelcheck.engines.spark.worker_daemon"
    assert warmed_up(spark)

    def worker_view(rows):      # nested: pickled by value (this module is not importable there)
        import sys

        import pyspark
        return [(pyspark.__file__, "modelcheck.engines.spark.rdd_tasks" in sys.modules,
                 "modelcheck.engines.compiled.kernel.runtime" in sys.modules)]
    seen = spark.parallelize(range(2), 2).mapPartitions(worker_view).collect()
    assert len(seen) == 2
    for where, tasks, runtime in seen:
        assert ".zip" not in where and tasks and runtime


@pytest.mark.parametrize("source,threshold", [("die_hard", 0), ("two_phase", 30), ("grid", 0)])
def test_spark_levels_agree_with_reference(spark, source, threshold):
    # two_phase (N=3) hands over to Spark at a frontier of 30 states, halfway.
    if source == "grid":
        model = api.load_source(GRID, path="<grid>")
    else:
        model = api.load(str(EXAMPLES / f"{source}.mc"))
    reference = api.check(model, "reference", CheckOptions(symmetry=False))
    options = CheckOptions(symmetry=False, spark_threshold=threshold, partitions=2,
                           master="local[2]")
    result = api.check(model, "spark", options)      # replays every trace
    assert _summary(result) == _summary(reference)
    assert result.stats.action_counts == reference.stats.action_counts
    extras = result.stats.extras
    assert extras["levels_on_spark"]
    if threshold:
        assert extras["levels_in_process"].startswith("1-")
    assert extras["spark_bytes_to_python"] > 0 and extras["spark_bytes_from_python"] > 0


def test_runtime_error_on_spark(spark):
    model = api.load_source(OVERFLOW, path="<overflow>")
    result = api.check(model, "spark", _options())
    assert result.error.diagnostic.code == "MC5001"
    assert len(result.error.trace) == 3
    # One job a level: the levels' runs are in files, and the trace is
    # walked back through them.
    alone = api.check(model, "spark", _options(extra={"spark_batch": False}))
    assert alone.error.diagnostic.code == "MC5001"
    assert alone.error.trace == result.error.trace
    assert alone.stats.extras["spark_file_run_levels"] >= 1


def test_timeout_then_resume(spark, tmp_path):
    from modelcheck.engines.spark.checkpoint import NPZ
    model = api.load(str(EXAMPLES / "two_phase.mc"), consts={"N": "7"})
    whole = api.check(model, "compiled", CheckOptions(symmetry=False))
    # 23 levels do not fit in 2 s, one job each (no batches).
    stopped = api.check(model, "spark", _options(timeout_s=2, checkpoint_dir=str(tmp_path),
                                                 extra={"spark_batch": False}))
    if stopped.complete:
        pytest.skip("the whole run fitted in the timeout on this machine")
    assert stopped.reason.startswith("timeout")
    assert all(p.status is Status.UNKNOWN for p in stopped.properties)
    # The checkpoint was written by the executors, one part per partition.
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["layout"] == NPZ and len(manifest["sha256"]) == 2
    resumed = api.check(model, "spark", _options(resume_dir=str(tmp_path)))
    assert _summary(resumed) == _summary(whole)


def test_timeout_in_batches_then_resume(spark, tmp_path):
    # In batches (the default) a timeout cancels the batch's job: the
    # checkpoint holds the levels before it, and the resumed run ends as an
    # uninterrupted one.
    model = api.load(str(EXAMPLES / "two_phase.mc"), consts={"N": "8"})
    whole = api.check(model, "compiled", CheckOptions(symmetry=False))
    stopped = api.check(model, "spark", _options(timeout_s=1.5, checkpoint_dir=str(tmp_path)))
    if stopped.complete:
        pytest.skip("the whole run fitted in the timeout on this machine")
    assert stopped.reason.startswith("timeout")
    resumed = api.check(model, "spark", _options(resume_dir=str(tmp_path)))
    assert _summary(resumed) == _summary(whole)
    assert resumed.stats.extras["spark_batches"] >= 1


def test_batches_stop_at_the_bounds_and_checkpoints_and_resume_exactly(spark, tmp_path):
    # Batches end at the state bound and at every third level (the
    # checkpoints): the stopped run's counts are the one-job-a-level run's,
    # and resumed from its checkpoint it ends as an uninterrupted run.
    model = api.load(str(EXAMPLES / "two_phase.mc"), consts={"N": "5"})
    whole = api.check(model, "compiled", CheckOptions(symmetry=False))
    bounded = dict(max_states=whole.stats.distinct_states // 2,
                   extra={"checkpoint_levels": 3})
    alone = api.check(model, "spark", _options(max_states=bounded["max_states"],
                                               extra={"spark_batch": False}))
    stopped = api.check(model, "spark", _options(checkpoint_dir=str(tmp_path), **bounded))
    assert stopped.reason.startswith("stopped at the state bound")
    assert _summary(stopped) == _summary(alone)
    assert stopped.stats.extras["spark_batches"] >= 2
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["state"]["depth"] == stopped.stats.depth
    resumed = api.check(model, "spark", _options(resume_dir=str(tmp_path)))
    assert _summary(resumed) == _summary(whole)


def _seen_rows(backend) -> dict[int, int]:
    from modelcheck.engines.spark.tasks import runs_of
    seen = backend.union([run.rdd for run in backend.runs])
    pairs = seen.mapPartitions(lambda elements: [
        (fp.tolist(), parent.tolist()) for fp, parent in runs_of(elements)]).collect()
    fps = [f for fp, _ in pairs for f in fp]
    parents = [p for _, parent in pairs for p in parent]
    assert len(fps) == len(set(fps)), "a state was admitted twice"
    return dict(zip(fps, parents))


def _plan(rdd) -> str:
    text = rdd._jrdd.toDebugString()
    return text.decode() if isinstance(text, bytes) else text


class _Clearing:
    """A reporter that removes or spoils the executors' resident copies
    between levels (local mode: the executor's directory is this process's)."""

    def __init__(self, only=None):
        self.levels = 0
        self.only = only            # the level ticks to act at (None: every one)

    def progress(self, progress):
        import glob
        import os
        import shutil

        from modelcheck.engines.spark.resident import resident_root
        self.levels += 1
        if self.only is not None and self.levels not in self.only:
            return
        root = resident_root()
        if self.levels % 3 == 0:
            shutil.rmtree(root, ignore_errors=True)            # missing
        elif self.levels % 3 == 1:
            for path in glob.glob(os.path.join(root, "*", "p0", "head.json")):
                # stale: a copy that claims another generation
                with open(path) as f:
                    text = f.read()
                with open(path, "w") as f:
                    f.write(text.replace('"gen": ', '"gen": 1000'))

    def note(self, message):
        pass


def test_counts_stay_exact_when_resident_copies_are_missing_or_stale(spark):
    # The resident copies only make a level faster: cleared or spoiled
    # between levels, the merge runs again from the cached runs.
    # One job a level (no batches: batch.py), so that every level meets
    # the spoiled copies.
    model = api.load(str(EXAMPLES / "two_phase.mc"), consts={"N": "4"})
    whole = api.check(model, "compiled", CheckOptions(symmetry=False))
    reporter = _Clearing()
    alone = {"spark_batch": False}
    result = api.check(model, "spark", _options(extra=alone), reporter)
    assert _summary(result) == _summary(whole)
    extras = result.stats.extras
    assert extras["spark_resident"] is True
    assert extras["spark_fallback_levels"] >= 4
    assert extras["spark_resident_levels"] >= 3
    assert extras["spark_batches"] == 0
    # The fallbacks read the levels' runs from their files (a local master).
    assert extras["spark_file_run_levels"] >= 3
    # Untouched, every level is merged against the resident copies.
    clean = api.check(model, "spark", _options(extra=alone))
    assert _summary(clean) == _summary(whole)
    assert clean.stats.extras["spark_fallback_levels"] == 0
    # And off, every level reads the cached runs.
    off = api.check(model, "spark", _options(extra={"spark_resident": False}))
    assert _summary(off) == _summary(whole)
    assert off.stats.extras["spark_resident_levels"] == 0
    assert off.stats.extras["spark_batches"] == 0


def test_batches_of_levels_stay_exact_when_resident_copies_are_spoiled(spark):
    # In batches (batch.py) the copies are spoiled between batches: the
    # next batch's first level misses, the batch is dropped, that level runs
    # on its own from the cached runs, and the batches go on.
    model = api.load(str(EXAMPLES / "two_phase.mc"), consts={"N": "4"})
    whole = api.check(model, "compiled", CheckOptions(symmetry=False))
    result = api.check(model, "spark", _options(extra={"spark_batch_levels": 3}),
                       _Clearing(only={6}))
    assert _summary(result) == _summary(whole)
    extras = result.stats.extras
    assert extras["spark_batches"] >= 2
    assert extras["spark_batch_misses"] >= 1 and extras["spark_fallback_levels"] >= 1
    clean = api.check(model, "spark", _options(extra={"spark_batch_levels": 3}))
    assert _summary(clean) == _summary(whole)
    assert clean.stats.extras["spark_batch_misses"] == 0
    assert clean.stats.extras["spark_batches"] >= 4


@pytest.mark.parametrize("runs_in_files", [True, False], ids=["runs-in-files", "runs-kept-by-spark"])
def test_seen_set_on_spark_matches_the_in_process_one(spark, tmp_path, monkeypatch, runs_in_files):
    # Level by level against the in-process search: the same new states, so
    # the merge never re-admits a seen state; at the end every state once,
    # with the parent the in-process search keeps (the smallest).  Halfway,
    # a checkpoint is read back by the executors with another partition
    # count and the search goes on from it.  Each level is a co-partitioned
    # union: the runs are read where they are (cached, or their files) and
    # only the candidates are shuffled.  A local master writes the levels'
    # runs to files (never folded: they hold no memory); kept by Spark (a
    # cluster's way) three runs at most, so that folds happen.
    from modelcheck.engines.reference.explorer import select_properties
    from modelcheck.engines.spark import rdds as rdds_module
    from modelcheck.engines.spark.checkpoint import NPZ
    from modelcheck.engines.spark.compiled_adapter import compiled_kernels
    from modelcheck.engines.spark.inprocess import InProcessLevels
    from modelcheck.engines.spark.kernels import plan_properties
    from modelcheck.engines.spark.partition import initial_candidates
    from modelcheck.engines.spark.rdds import SparkPartitions

    monkeypatch.setattr(rdds_module, "MAX_RUNS", 3)
    monkeypatch.setattr(rdds_module, "RESIDENT_MAX_RUNS", 3)
    if not runs_in_files:
        monkeypatch.setattr(SparkPartitions, "_runs_to_files", lambda self, out: None)
    model = api.load(str(EXAMPLES / "die_hard.mc"))
    options = CheckOptions(symmetry=False)
    plan = plan_properties(select_properties(model, options))
    kernels = compiled_kernels(model, options, plan)
    local = InProcessLevels(kernels, plan)
    local.seed(initial_candidates(kernels)[0])
    backend = SparkPartitions.from_parts(spark, kernels, plan, local.parts(), 2)
    depth = 0
    try:
        while local.frontier_size():
            if depth == 2:
                shuffled, _, exchange_in = backend.pending
                # Local mode: the candidates came through the exchange
                # files, the shuffle's RDD empty but co-partitioned.
                assert exchange_in is not None
                out = backend.fused(shuffled, True, True, True, True, exchange_in, None)
                plan_text = _plan(out.level)
                out.drop()
                # The fallback: the level's one stage over a co-partitioned
                # union of the runs and the candidates; one shuffle, the
                # candidates' (the runs are cached, not moved; a run in its
                # file is read by a task over its level's carrier, an empty
                # shuffle whose map stage has run).
                in_files = sum(1 for r in backend.runs if r.forget is not None)
                assert (in_files > 0) == runs_in_files
                assert "PartitionerAwareUnionRDD" in plan_text
                assert plan_text.count("ShuffledRDD[") == 1 + in_files
                assert plan_text.count("CachedPartitions") >= len(backend.runs) - in_files
                # Against the resident tables: the candidates only.
                out = backend.fused(shuffled, True, True, True, False, exchange_in, None)
                plan_text = _plan(out.level)
                out.drop()
                assert "UnionRDD" not in plan_text
                assert plan_text.count("ShuffledRDD[") == 1
                # A level's lineage is cut where it is cached: it holds
                # no level before it, and no shuffle; read from its file, no
                # more than its carrier.
                plan_text = _plan(backend.frontier)
                if runs_in_files:
                    assert plan_text.count("ShuffledRDD[") == 1
                    assert "UnionRDD" not in plan_text
                else:
                    assert "ShuffledRDD[" not in plan_text
                    assert plan_text.count("CachedPartitions") == 1
            ours, theirs = backend.step(True, True, None), local.step(True, True)
            assert ours[1].new_states == theirs[1].new_states
            assert ours[0].generated == theirs[0].generated
            assert ours[1].state_hits == theirs[1].state_hits
            assert backend.frontier_size() == local.frontier_size()
            depth += 1
            if depth == 3:
                layout, files = backend.save(str(tmp_path), "level-000003")
                assert layout == NPZ and sorted(files) == ["part-00000.npz", "part-00001.npz"]
                backend.close()
                backend = SparkPartitions.from_files(spark, kernels, plan, str(tmp_path),
                                                     "level-000003", list(files), 3)
                assert backend.frontier_size() == local.frontier_size()
                assert backend.seen_size() == local.seen_size()
        if not runs_in_files:
            assert len(backend.runs) <= 3
        part = local.part
        assert _seen_rows(backend) == dict(zip(part.seen_fp.tolist(), part.seen_parent.tolist()))
        some = part.seen_fp[::3].tolist()
        assert backend.parents(some) == local.parents(some)
    finally:
        backend.close()


class _Exchange:
    """A reporter that watches the exchange directory between levels (local
    mode: the executor's scratch directory is this process's) and, with
    ``drop_at``, removes one writer's file for owner 0 after that level."""

    def __init__(self, drop_at=None):
        self.levels = 0
        self.drop_at = drop_at
        self.most_levels = 0

    def progress(self, progress):
        import glob
        import os

        from pyspark import SparkFiles

        from modelcheck.engines.spark.exchange import local_base
        self.levels += 1
        root = local_base(SparkFiles.getRootDirectory())
        # the levels' folders (a batch's runs are held in folders of their
        # own until they are folded)
        held = [p for p in glob.glob(os.path.join(root, f"{os.getpid()}-*", "*"))
                if os.path.basename(p).isdigit()]
        self.most_levels = max(self.most_levels, len(held))
        if self.levels == self.drop_at:
            for path in glob.glob(os.path.join(root, f"{os.getpid()}-*", "*", "0",
                                               "from-1.npy")):
                os.remove(path)

    def note(self, message):
        pass


def test_the_file_exchange_is_exact_and_falls_back_to_the_shuffle(spark):
    # In local mode the candidates go through the exchange files; a missing
    # file runs the level again with the JVM shuffle (and keeps it), and
    # forced, the shuffle gives the same counts.
    import os

    from pyspark import SparkFiles

    from modelcheck.engines.spark.exchange import local_base
    model = api.load(str(EXAMPLES / "two_phase.mc"), consts={"N": "4"})
    whole = api.check(model, "compiled", CheckOptions(symmetry=False))
    watch = _Exchange()
    files = api.check(model, "spark", _options(), watch)
    assert _summary(files) == _summary(whole)
    x = files.stats.extras
    assert x["spark_exchange"] == "files" and x["spark_exchange_misses"] == 0
    assert x["spark_exchange_levels"] >= 5 and x["spark_exchange_bytes"] > 0
    # Only the first level on Spark (its own expand stage) is shuffled.
    assert x["spark_shuffle_bytes"] == x["spark_shuffle_bytes_max_level"] > 0
    # Merged levels' files are removed: at most the next level's are held,
    # and nothing once the search is done.
    assert watch.most_levels <= 1
    root = local_base(SparkFiles.getRootDirectory())
    assert not os.path.isdir(root) or not [n for n in os.listdir(root)
                                           if n.startswith(f"{os.getpid()}-")]
    # A file removed after the 4th level: one job a level, or in batches of
    # 3 levels (the 4th is the last of the first batch: the next batch's
    # first level misses, the batch is dropped and the level runs alone).
    for extra in ({"spark_batch": False}, {"spark_batch_levels": 3}):
        dropped = api.check(model, "spark", _options(extra=extra), _Exchange(drop_at=4))
        assert _summary(dropped) == _summary(whole)
        d = dropped.stats.extras
        assert d["spark_exchange_misses"] >= 1 and d["spark_exchange_levels"] >= 2
        assert d["spark_shuffle_bytes"] > 0
        assert d["spark_batch_misses"] == (0 if "spark_batch" in extra else 1)
    shuffle = api.check(model, "spark", _options(extra={"spark_exchange": "shuffle"}))
    assert _summary(shuffle) == _summary(whole)
    s = shuffle.stats.extras
    assert s["spark_exchange"] == "shuffle" and s["spark_exchange_levels"] == 0
    assert s["spark_exchange_bytes"] == 0 and s["spark_shuffle_bytes"] > 0
