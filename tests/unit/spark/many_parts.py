"""Test-only backend: the Spark backend's data flow (``rdds.py``) on P parts
in this process, without Spark.  The tasks are the real ones
(``tasks.expand_block``, ``tasks.merge_blocks``, ``tasks.fold_runs`` and the
save task, run on tiny batches so that every flush and batch boundary is
crossed; a level merges each partition's candidates and expands its new
states at once, as a fused task does; every other level merges against the
tables kept from the level before, twice, as a re-run task would); what
Spark does between them (the shuffle of candidate blocks to
their owners, the co-partitioned union of the runs with them, caching) is
done here with lists, in reverse arrival order, so results can be compared
across partition counts and arrival orders in seconds.  The real Spark side
is tested in tests/slow/test_spark_local.py."""
from __future__ import annotations

import numpy as np

from modelcheck.engines.spark.checkpoint import NPZ
from modelcheck.engines.spark.partition import LevelReport, Part, concat_parts
from modelcheck.engines.spark.rdd_tasks import as_frontier, save_task
from modelcheck.engines.spark.tasks import (LEVEL, RUN, combine_pieces, expand_block, fold_runs,
                                            frontier_of, lookup, merge_blocks, owner, runs_of,
                                            split_part)

__all__ = ["ManyParts", "owner"]

U64 = np.uint64


class ManyParts:
    where = "spark"

    def __init__(self, kernels, plan, parts: list[Part], partitions: int, max_runs: int = 3):
        self.kernels = kernels
        self.plan = plan
        self.partitions = partitions
        self.max_runs = max_runs
        words = kernels.words
        whole = concat_parts(parts, words)
        pieces = list(split_part(whole, partitions))
        # A run: per partition, the list of its elements.
        base = [combine_pieces(p, [e for e in reversed(pieces) if e[0] == p], words)
                for p in range(partitions)]
        self.runs = [base]
        self.frontier = base
        self.steps = 0
        # Each partition's seen table between levels (an executor's resident copy).
        self.tables = [None] * partitions
        # The next level's candidates, expanded by the level before, and
        # that expansion's report.
        self.pending = None

    def frontier_size(self) -> int:
        return sum(len(frontier_of(els, self.kernels.words)[0]) for els in self.frontier)

    def seen_size(self) -> int:
        return sum(len(fp) for run in self.runs for els in run for fp, _ in runs_of(els))

    def _expand(self, p, check_deadlock, fp, states, shuffled):
        """Expand partition ``p``'s new states into their owners' lists (the
        shuffle); returns the expansion's report."""
        report = LevelReport()
        for key, payload in expand_block(self.kernels, self.plan, check_deadlock,
                                         self.partitions, fp, states, report,
                                         flush_rows=7, batch_rows=3, owned_rows=4):
            assert owner(payload[1][:, 0], self.partitions).tolist() == [key] * len(payload[1])
            shuffled[key].append((key, payload))
        return report

    def step(self, check_deadlock, commit, time_left_s=None):
        # As on Spark, a level is one stage: each partition merges its
        # candidates and expands its new states at once; the expansion is
        # the next step's (reported with it).  Only the first step expands
        # a frontier on its own.
        self.steps += 1
        words, parts = self.kernels.words, self.partitions
        if self.pending is None:
            expanded = LevelReport()
            shuffled: list[list] = [[] for _ in range(parts)]
            for p in range(parts):
                expanded.add(self._expand(p, check_deadlock,
                                          *frontier_of(self.frontier[p], words), shuffled))
        else:
            shuffled, expanded = self.pending
        merged, following = LevelReport(), LevelReport()
        nxt: list[list] = [[] for _ in range(parts)]
        level = []
        for p in range(parts):
            report = LevelReport()
            if self.steps % 2 and self.tables[p] is not None:
                # As against an executor's resident table: the candidates
                # only.  The first attempt is thrown away and the task run
                # again on the table it changed (Spark re-running a task):
                # the stamps make the second see what the first saw.
                table = self.tables[p]
                first = merge_blocks(self.kernels, self.plan, commit, shuffled[p],
                                     LevelReport(), words, self.steps, table)
                fp, parent, states, table = merge_blocks(self.kernels, self.plan, commit,
                                                         shuffled[p], report, words,
                                                         self.steps, table)
                assert first[0].tolist() == fp.tolist()
                assert first[1].tolist() == parent.tolist()
            else:
                # The fallback: a table built from the runs.
                elements = [e for run in self.runs for e in run[p]] + shuffled[p]
                fp, parent, states, table = merge_blocks(self.kernels, self.plan, commit,
                                                         elements, report, words, self.steps)
            self.tables[p] = table
            merged.add(report)
            level.append([(p, (LEVEL, fp, parent, states))])
            if commit:
                following.add(self._expand(p, check_deadlock, fp, states, nxt))
        if not commit and merged.new_states and merged.failed is None:
            return expanded, merged
        # Arrival order must not matter: the owners read their blocks reversed.
        self.pending = ([list(reversed(blocks)) for blocks in nxt], following) if commit else None
        self.runs.append(level)
        self.frontier = level
        if len(self.runs) > self.max_runs:
            # Fold every run but the frontier's into one (fp, parent) run.
            older = self.runs[:-1]
            folded = [[(p, (RUN, *fold_runs([r for run in older for r in runs_of(run[p])])))]
                      for p in range(parts)]
            self.runs = [folded, level]
        return expanded, merged

    def parents(self, fps):
        found = {}
        for run in self.runs:
            for els in run:
                found.update(lookup(els, np.array(fps, dtype=U64)))
        return found

    def save(self, directory, folder):
        written = {}
        for p in range(self.partitions):
            elements = [e for run in self.runs if run is not self.frontier for e in run[p]]
            elements += list(as_frontier(p, self.frontier[p]))
            written.update(save_task(directory, folder, self.kernels.words, p, elements))
        return NPZ, written

    def close(self):
        self.runs, self.frontier, self.pending = [], [], None
