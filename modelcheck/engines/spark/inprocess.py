"""The in-process backend: the partitioned search on one part in this process.

Narrow levels run here: starting Spark and running a level as a Spark job
costs a fraction of a second at least, which a level of a few thousand
states does not repay.  The seen set is a hash table with parents
(``seen_table.SeenTable``), as in each executor, so a level costs one probe
per candidate.  Handing over to Spark cuts the table's entries and the
frontier into one piece per owner partition and ships them
(``rdds.SparkPartitions.from_parts``).
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from modelcheck.engines.spark.checkpoint import NPZ, part_name, write_part
from modelcheck.engines.spark.kernels import PropertyPlan, SearchKernels
from modelcheck.engines.spark.partition import (Candidates, LevelReport, Part, concat_parts,
                                                concat_pieces, expand_part, merge_into)
from modelcheck.engines.spark.seen_table import SeenTable

__all__ = ["InProcessLevels"]

_U64 = np.uint64


class InProcessLevels:
    """Level steps over one seen table and frontier held in memory."""

    where = "in-process"

    def __init__(self, kernels: SearchKernels, plan: PropertyPlan, part: Part | None = None):
        self.kernels = kernels
        self.plan = plan
        words = kernels.words
        if part is None:
            self.table = SeenTable.empty()
            self.frontier_fp, self.frontier = np.empty(0, _U64), np.empty((0, words), _U64)
        else:
            self.table = SeenTable.build(part.seen_fp, part.seen_parent)
            self.frontier_fp, self.frontier = part.frontier_fp, part.frontier
        # The stamp of the next level's inserts (the table is never merged
        # twice here, but the stamps are how a table says what a level added).
        self.level = 1

    @classmethod
    def from_parts(cls, kernels: SearchKernels, plan: PropertyPlan,
                   parts: Iterable[Part]) -> "InProcessLevels":
        return cls(kernels, plan, concat_parts(list(parts), kernels.words))

    @property
    def partitions(self) -> int:
        return 1

    @property
    def part(self) -> Part:
        """The seen set (sorted) and the frontier as a ``Part``."""
        fp, parent = self.table.items()
        order = np.argsort(self.frontier_fp, kind="stable")
        return Part(fp, parent, self.frontier_fp[order], self.frontier[order])

    def seed(self, initial: Candidates) -> LevelReport:
        """Add the initial states."""
        report = LevelReport()
        self._merge([initial] if len(initial.fp) else [], True, report)
        return report

    def frontier_size(self) -> int:
        return len(self.frontier_fp)

    def seen_size(self) -> int:
        return len(self.table)

    def step(self, check_deadlock: bool, commit: bool,
             time_left_s: float | None = None) -> tuple[LevelReport, LevelReport]:
        # Levels run here are narrow (below the Spark threshold): the timeout
        # is checked between them.
        expanded, merged = LevelReport(), LevelReport()
        # Each flush of successors is probed at once and only the unseen
        # rows are kept (most successors of a level are seen states): the
        # level holds its new states, not its successors, until the merge.
        incoming = []
        for piece in expand_part(self.kernels, self.plan, self.frontier_fp, self.frontier,
                                 check_deadlock, expanded, flush=concat_pieces):
            fresh = np.flatnonzero(self.table.fresh(piece.fp, self.level))
            incoming.append(Candidates(piece.fp[fresh], piece.parent[fresh],
                                       piece.states[fresh]))
        self._merge(incoming, commit, merged)
        return expanded, merged

    def _merge(self, incoming: list[Candidates], commit: bool, report: LevelReport) -> None:
        words = self.kernels.words
        if not incoming:
            if commit:
                self.frontier_fp, self.frontier = np.empty(0, _U64), np.empty((0, words), _U64)
            return
        if len(incoming) == 1:
            c = incoming[0]
            fp, parent, states = c.fp, c.parent, c.states
        else:
            fp = np.concatenate([c.fp for c in incoming])
            parent = np.concatenate([c.parent for c in incoming])
            states = np.concatenate([c.states for c in incoming])
        # Unordered: the frontier's order does not matter here (a ``Part``
        # sorts when one is asked for).
        fp, _, states = merge_into(self.kernels, self.plan, self.table, self.level, fp, parent,
                                   states, commit, report, ordered=False)
        self.level += 1
        if not commit and report.new_states and report.failed is None:
            return          # past the depth bound: counted, not kept
        self.frontier_fp, self.frontier = fp, states

    def parents(self, fps: list[int]) -> dict[int, int]:
        return self.table.parents_of(np.array(fps, dtype=_U64))

    def save(self, directory: str, folder: str) -> tuple[str, list[str]]:
        write_part(directory, folder, part_name(0), self.part)
        return NPZ, [part_name(0)]

    def parts(self) -> list[Part]:
        return [self.part]

    def close(self) -> None:
        self.table = SeenTable.empty()
        self.frontier_fp = np.empty(0, _U64)
        self.frontier = np.empty((0, self.kernels.words), _U64)
