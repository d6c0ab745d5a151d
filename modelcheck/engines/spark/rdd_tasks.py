"""The functions the RDD search (rdds.py) ships to its executors, one per
kind of task: a level's fused merge and expand (candidates into a
partition's seen table, the executor's resident copy or one built from the
cached runs, and the new states expanded at once), the first level's
expand, fold, combine, save and read checkpoints, look fingerprints up.  Module-level, so
that Spark pickles them by reference."""
from __future__ import annotations

import gc
import os
import pickle
import struct
import time
from typing import Any

import numpy as np

from modelcheck.engines.spark import exchange, resident
from modelcheck.engines.spark.batch import BatchRule, Note
from modelcheck.engines.spark.checkpoint import part_name, read_part, write_part
from modelcheck.engines.spark.kernels import PropertyPlan
from modelcheck.engines.spark.partition import LevelReport, Part
from modelcheck.engines.spark.seen_table import SeenTable
from modelcheck.engines.spark.tasks import (FRONTIER, LEVEL, RUN, combine_pieces, expand_block,
                                            fold_runs, frontier_of, lookup, merge_blocks, runs_of,
                                            split_part)
from modelcheck.fsutil import sha256_file

__all__ = ["EXPAND_FLUSH_ROWS", "FRONT_LEVEL", "FRONT_ONLY", "LEVEL_KEY", "CANDIDATE_KEY",
           "NOTE_TIMEOUT_S", "expand_task", "fused_task", "batch_task", "batch_runs_task",
           "clear_task", "fold_task", "combine_task", "as_frontier", "save_task",
           "lookup_task", "read_pieces"]

#: Successors an expand task deduplicates at once (a hash table over them):
#: duplicates across flushes are shuffled and removed by the merge, so a
#: flush is larger than in-process (8M successors: a few hundred MB).
EXPAND_FLUSH_ROWS = 1 << 23
#: The frontier's elements, as the save job sees them (also a run, or not).
FRONT_LEVEL, FRONT_ONLY = "L", "F"
#: The keys of a fused task's output (``fused_task``): at or above 2**31, so
#: that py4j hands them to the JVM as longs (the JVM-side split looks them
#: up in a map of longs), and equal to the partition modulo 2**32, which is
#: what ``PythonPartitioner`` takes of a long key.
CANDIDATE_KEY, LEVEL_KEY = 1 << 32, 2 << 32


def _pack_long(value: int) -> bytes:
    """A key as ``pyspark.serializers.pack_long`` writes it (big-endian)."""
    return struct.pack(">q", value)


def _dumps(items: list) -> bytes:
    """A batch as the context's serializer (``CPickleSerializer``) pickles it."""
    return pickle.dumps(items, pickle.HIGHEST_PROTOCOL)


def _task_kernels(kernels_bc: Any) -> Any:
    """The broadcast kernels, in a Spark task with the worker's objects
    moved out of the cyclic collector's reach (``gc.freeze``).  PySpark's
    daemon runs a full ``gc.collect()`` after every task of a reused worker,
    and with the kernels loaded (the compiler's and numba's objects: some
    150,000 of them) that pass was a fifth of the workers' CPU on TwoPhase
    N=9 and a large part of a narrow level's floor (docs/engines/spark.md).  The
    objects live now are the worker's for its life (the kernels, the
    modules); what a task allocates after this is collected as before.
    Outside a Spark task (the unit tests' stand-ins) nothing is frozen."""
    kernels = kernels_bc.value
    try:
        from pyspark import TaskContext
        in_task = TaskContext.get() is not None
    except ImportError:       # pragma: no cover - pyspark ships with the engine
        in_task = False
    if in_task:
        gc.freeze()
    return kernels


def expand_task(kernels_bc: Any, plan: PropertyPlan, check_deadlock: bool, partitions: int,
                 reports: Any, level: int, index: int, elements: Any) -> Any:
    """The expand stage of the first Spark level after a hand-over or a
    resume (later levels are expanded by the fused task of the level
    before)."""
    kernels = _task_kernels(kernels_bc)
    fp, states = frontier_of(elements, kernels.words)
    report = LevelReport(to_python=fp.nbytes + states.nbytes)
    for item in expand_block(kernels, plan, check_deadlock, partitions, fp, states, report,
                             flush_rows=EXPAND_FLUSH_ROWS):
        report.from_python += item[1][1].nbytes
        yield item
    reports.add({("x", level, index): report})


def _merge(kernels: Any, plan: PropertyPlan, commit: bool, level: int, search: str | None,
           expected: int, from_runs: bool, index: int, elements: Any,
           report: LevelReport, exchanged: list | None = None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Partition ``index``'s merge of ``level``: against the executor's
    resident table (only the candidates are read), or ``from_runs`` (a
    table built from the cached runs among ``elements``, written as the
    resident table afresh when ``search``).  None: no valid resident table
    (the input is read to the end; the driver runs the level from the runs).
    ``exchanged``: the candidate blocks read from the exchange files, merged
    with those among ``elements`` (not counted as read from the JVM)."""
    if from_runs:
        elements = list(elements)
        report.to_python = sum(a.nbytes for _, p in elements for a in p[1:]
                               if isinstance(a, np.ndarray))
        elements += exchanged or []
        fp, parent, states, table = merge_blocks(kernels, plan, commit, elements, report,
                                                 kernels.words, level)
        del elements
        if search is not None and commit:
            key = resident.ResidentKey(search, index)
            with resident.locked(key):
                resident.store(key, table, level, expected, expected + len(fp))
        return fp, parent, states
    key = resident.ResidentKey(search, index)
    with resident.locked(key):
        table = resident.load(key, level, expected)
        if table is None:
            for _ in elements:
                pass
            return None
        elements = list(elements)
        report.to_python = sum(p[1].nbytes for _, p in elements)
        elements += exchanged or []
        fp, parent, states, table = merge_blocks(kernels, plan, commit, elements, report,
                                                 kernels.words, level, table)
        del elements
        if commit:
            resident.store(key, table, level, expected, expected + len(fp))
    return fp, parent, states


def fused_task(kernels_bc: Any, plan: PropertyPlan, commit: bool, expand: bool,
               check_deadlock: bool, partitions: int, reports: Any, level: int,
               search: str | None, expected: list[int], from_runs: bool, index: int,
               elements: Any, exchange_in: str | None = None,
               exchange_out: str | None = None, runs_to: str | None = None) -> Any:
    """One task of a level's only stage: merge partition ``index``'s
    candidates of ``level`` (``_merge``), then, with ``expand``, expand the
    new states at once (the next level's candidates, reported as level
    ``level + 1``'s expansion).  The output is already keyed for the JVM
    (``pack_long`` keys, pickled batches, as ``RDD.partitionBy`` writes
    them): the level's element under ``LEVEL_KEY + index`` (kept by Spark:
    the run, the frontier for checkpoints) and, without ``exchange_out``,
    each owner's candidate block under ``CANDIDATE_KEY + owner`` (shuffled;
    ``shuffle_out.py`` splits the two by key on the JVM side, so neither
    crosses into Python again).  With ``exchange_out`` the candidate blocks
    go to the exchange files instead (``exchange.py``), and with
    ``exchange_in`` this level's candidates are read from them: a missing
    file is reported as an ``xmiss`` and nothing is merged or written (the
    driver runs the level again with the shuffle).  With ``runs_to`` (a
    local master, the exchange on: ``rdds.SparkPartitions.step``) the
    level's element goes to a runs file of that name under ``exchange_out``
    instead, as a batch's runs do (``batch_runs_task`` reads it back when a
    job first needs it): kept by Spark, a level crossed into the JVM, and a
    wide one back out and in again when it was folded, all for nothing the
    search needed (docs/engines/spark.md, "The JVM's share")."""
    kernels = _task_kernels(kernels_bc)
    exchanged = None
    if exchange_in is not None:
        exchanged = exchange.read_blocks(exchange_in, level, index, partitions)
        if exchanged is None:
            for _ in elements:
                pass
            reports.add({("xmiss", level, index): True})
            return
    merged = LevelReport()
    new = _merge(kernels, plan, commit, level, search, expected[index], from_runs, index,
                 elements, merged, exchanged)
    del exchanged
    if new is None:
        reports.add({("miss", level, index): True})
        return
    fp, parent, states = new
    merged.from_python = fp.nbytes + parent.nbytes + states.nbytes
    reports.add({("m", level, index): merged})
    if runs_to is not None and exchange_out is not None:
        exchange.write_runs(exchange_out, runs_to, index, [(fp, parent, states)])
    else:
        yield _pack_long(LEVEL_KEY + index)
        yield _dumps([(index, (LEVEL, fp, parent, states))])
    if not expand:
        return
    expanded = LevelReport()
    blocks = expand_block(kernels, plan, check_deadlock, partitions, fp, states, expanded,
                          flush_rows=EXPAND_FLUSH_ROWS)
    if exchange_out is not None:
        expanded.exchanged = exchange.write_blocks(exchange_out, level + 1, index, partitions,
                                                   blocks)
    else:
        for owner, payload in blocks:
            expanded.from_python += payload[1].nbytes
            yield _pack_long(CANDIDATE_KEY + owner)
            yield _dumps([(owner, payload)])
    reports.add({("x", level + 1, index): expanded})


#: Seconds a batch's task waits for the other tasks' notes of a level before
#: it fails.  Only a safety net: the tasks run together, and a task that
#: dies fails the barrier stage, whose other tasks Spark then kills; a
#: level's task may itself take long (a wide level on few partitions).
NOTE_TIMEOUT_S = 24 * 3600.0


def batch_task(kernels_bc: Any, plan: PropertyPlan, check_deadlock: bool, partitions: int,
               reports: Any, level: int, search: str, expected: list[int], root: str,
               batch: str, rule: BatchRule, index: int, elements: Any) -> Any:
    """Levels ``level``, ``level + 1``, ... of partition ``index`` in one
    barrier task (batch.py): each level is ``fused_task``'s work against the
    resident table, its candidates read from and written to the exchange
    files under ``root``, then a note to the other tasks and the rule over
    all their notes.  The levels' runs go to a file of the batch
    (``batch_runs_task`` reads them back, outside the barrier stage: an RDD
    of a barrier stage makes every stage it feeds one too, and Spark allows
    no union there).  A task that cannot read its files or its table notes
    a stop and ends: the driver then runs the batch's first level again on
    its own."""
    kernels = _task_kernels(kernels_bc)
    for _ in elements:          # the candidates' RDD: empty, the files hold them
        pass
    started = time.monotonic()
    count, found, lvl = expected[index], 0, level
    runs: list[tuple[np.ndarray, ...]] = []
    while True:
        merged = LevelReport()
        exchanged = exchange.read_blocks(root, lvl, index, partitions)
        new = None
        if exchanged is None:
            reports.add({("xmiss", lvl, index): True})
        else:
            new = _merge(kernels, plan, True, lvl, search, count, False, index, (), merged,
                         exchanged)
            del exchanged
            if lvl > level:
                # Read: gone (the batch's first level's stay, for the driver
                # to run it again alone after a miss).
                exchange.clear_owner(root, lvl, index)
            if new is None:
                reports.add({("miss", lvl, index): True})
        if new is None:
            exchange.write_note(root, lvl + 1, batch, index,
                                Note(0, True, time.monotonic() - started, stop=True).to_json())
            return iter(())
        fp, parent, states = new
        count += len(fp)
        # nothing goes back to the JVM here: the runs go to the batch's file
        reports.add({("m", lvl, index): merged})
        expanded = LevelReport()
        blocks = expand_block(kernels, plan, check_deadlock, partitions, fp, states, expanded,
                              flush_rows=EXPAND_FLUSH_ROWS)
        expanded.exchanged = exchange.write_blocks(root, lvl + 1, index, partitions, blocks)
        reports.add({("x", lvl + 1, index): expanded})
        note = Note(merged.new_states, rule.eventful(merged, expanded),
                    time.monotonic() - started)
        exchange.write_note(root, lvl + 1, batch, index, note.to_json())
        notes = [Note.from_json(n) for n in
                 exchange.read_notes(root, lvl + 1, batch, partitions, NOTE_TIMEOUT_S)]
        found += sum(n.new for n in notes)
        if not rule.go_on(len(runs) + 1, found, notes):
            runs.append((fp, parent, states))
            exchange.write_runs(root, batch, index, runs)
            return iter(())
        runs.append((fp, parent))
        del fp, parent, states
        lvl += 1


def batch_runs_task(root: str, batch: str, index: int, elements: Any) -> Any:
    """Partition ``index``'s runs of a batch (``batch_task``): a run of
    (fp, parent) for each level but the last, which keeps its states."""
    for _ in elements:
        pass
    runs = exchange.read_runs(root, batch, index)
    out = [(index, (RUN, r[0], r[1])) for r in runs[:-1]]
    if runs:
        fp, parent, states = runs[-1]
        out.append((index, (LEVEL, fp, parent, states)))
    return out


def clear_task(search: str, index: int, elements: Any) -> Any:
    resident.clear(search)
    return []


def fold_task(index: int, elements: Any) -> Any:
    fp, parent = fold_runs(runs_of(elements))
    return [(index, (RUN, fp, parent))]


def combine_task(words: int, reports: Any, search: str | None, index: int,
                  elements: Any) -> Any:
    out = combine_pieces(index, elements, words)
    seen = sum(len(p[1]) for _, p in out if p[0] == RUN)
    if search is not None:
        runs = [p[1] for _, p in out if p[0] == RUN]
        key = resident.ResidentKey(search, index)
        with resident.locked(key):
            resident.store(key, SeenTable.build(np.concatenate(runs) if runs else
                                                np.empty(0, np.uint64), None, 0,
                                                with_parents=False), 0, -1, seen)
    front = sum(len(p[1]) for _, p in out if p[0] == FRONTIER)
    reports.add({("s", 0, index): (seen, front)})
    return out


def as_frontier(index: int, elements: Any) -> Any:
    """The frontier's elements tagged as such, for the save job."""
    for key, payload in elements:
        if payload[0] == LEVEL:
            yield key, (FRONT_LEVEL, *payload[1:])
        elif payload[0] == FRONTIER:
            yield key, (FRONT_ONLY, *payload[1:])
        else:
            yield key, payload


def save_task(directory: str, folder: str, words: int, index: int, elements: Any) -> Any:
    runs, front_fp, front = [], [], []
    for _, payload in elements:
        tag = payload[0]
        if tag in (RUN, LEVEL, FRONT_LEVEL):
            runs.append((payload[1], payload[2]))
        if tag == FRONT_LEVEL:
            front_fp.append(payload[1])
            front.append(payload[3])
        elif tag == FRONT_ONLY:
            front_fp.append(payload[1])
            front.append(payload[2])
    seen_fp, seen_parent = fold_runs(runs)
    if front_fp:
        fp = np.concatenate(front_fp)
        order = np.argsort(fp, kind="stable")
        part = Part(seen_fp, seen_parent, fp[order], np.concatenate(front)[order])
    else:
        part = Part(seen_fp, seen_parent, np.empty(0, np.uint64), np.empty((0, words), np.uint64))
    name = part_name(index)
    write_part(directory, folder, name, part)
    return [(name, sha256_file(os.path.join(directory, folder, name)))]


def lookup_task(wanted: np.ndarray, elements: Any) -> Any:
    return [lookup(elements, wanted)]


def read_pieces(partitions: int, path: str) -> Any:
    return split_part(read_part(path), partitions)
