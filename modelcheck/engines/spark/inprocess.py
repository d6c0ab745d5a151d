"""The in-process backend: the partitioned search on one part in this process.

Narrow levels run here: starting Spark and running a level as a Spark job
costs a fraction of a second at least, which a level of a few thousand
states does not repay.  Handing over to Spark cuts the part's seen set and
frontier into one piece per owner partition and ships them
(``rdds.SparkPartitions.from_parts``).
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from modelcheck.engines.spark.checkpoint import NPZ, part_name, write_part
from modelcheck.engines.spark.kernels import PropertyPlan, SearchKernels
from modelcheck.engines.spark.partition import (Candidates, LevelReport, Part, concat_parts,
                                                empty_part, expand_part, lookup_parents,
                                                merge_part)

__all__ = ["InProcessLevels"]


class InProcessLevels:
    """Level steps over one part held in memory."""

    where = "in-process"

    def __init__(self, kernels: SearchKernels, plan: PropertyPlan, part: Part | None = None):
        self.kernels = kernels
        self.plan = plan
        self.part = part if part is not None else empty_part(kernels.words)

    @classmethod
    def from_parts(cls, kernels: SearchKernels, plan: PropertyPlan,
                   parts: Iterable[Part]) -> "InProcessLevels":
        return cls(kernels, plan, concat_parts(list(parts), kernels.words))

    @property
    def partitions(self) -> int:
        return 1

    def seed(self, initial: Candidates) -> LevelReport:
        """Add the initial states."""
        self.part, report = merge_part(self.kernels, self.plan, self.part,
                                       [initial] if len(initial.fp) else [])
        return report

    def frontier_size(self) -> int:
        return len(self.part.frontier_fp)

    def seen_size(self) -> int:
        return len(self.part.seen_fp)

    def step(self, check_deadlock: bool, commit: bool,
             time_left_s: float | None = None) -> tuple[LevelReport, LevelReport]:
        # Levels run here are narrow (below the Spark threshold): the timeout
        # is checked between them.
        expanded = LevelReport()
        incoming = list(expand_part(self.kernels, self.plan, self.part.frontier_fp,
                                    self.part.frontier, check_deadlock, expanded))
        self.part, merged = merge_part(self.kernels, self.plan, self.part, incoming, commit)
        return expanded, merged

    def parents(self, fps: list[int]) -> dict[int, int]:
        return lookup_parents(self.part, np.array(fps, dtype=np.uint64))

    def save(self, directory: str, folder: str) -> tuple[str, list[str]]:
        write_part(directory, folder, part_name(0), self.part)
        return NPZ, [part_name(0)]

    def parts(self) -> list[Part]:
        return [self.part]

    def close(self) -> None:
        self.part = empty_part(self.kernels.words)
