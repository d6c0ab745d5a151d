"""Test-only backend: the Spark backend's data flow (expand every part, route
the successors by owner, merge each part) on P parts held in this process,
so that results can be compared across partition counts without Spark."""
from __future__ import annotations

import numpy as np

from modelcheck.engines.spark.checkpoint import part_path, write_part
from modelcheck.engines.spark.partition import (LevelReport, Part, concat_parts, expand_part,
                                                lookup_parents, merge_part, owner, split_part)

__all__ = ["ManyParts"]


class ManyParts:
    where = "spark"

    def __init__(self, kernels, plan, parts: list[Part], partitions: int):
        self.kernels = kernels
        self.plan = plan
        self.parts_ = split_part(concat_parts(parts, kernels.words), partitions)
        self.partitions = partitions
        self.steps = 0

    def frontier_size(self) -> int:
        return sum(len(p.frontier_fp) for p in self.parts_)

    def seen_size(self) -> int:
        return sum(len(p.seen_fp) for p in self.parts_)

    def step(self, check_deadlock, commit, time_left_s=None):
        self.steps += 1
        expanded = LevelReport()
        inbox: list[list] = [[] for _ in range(self.partitions)]
        # Expand in reverse order: arrival order must not matter.
        for part in reversed(self.parts_):
            report = LevelReport()
            for routed in expand_part(self.kernels, self.plan, part, self.partitions,
                                      check_deadlock, report, flush_rows=7,
                                      batch_rows=3):
                for target, cands in routed.items():
                    inbox[target].append(cands)
            expanded.add(report)
        merged = LevelReport()
        new_parts = []
        for part, incoming in zip(self.parts_, inbox):
            new, report = merge_part(self.kernels, self.plan, part, incoming, commit)
            new_parts.append(new)
            merged.add(report)
        self.parts_ = new_parts
        return expanded, merged

    def parents(self, fps):
        fps = np.array(fps, dtype=np.uint64)
        found = {}
        for p in sorted(set(owner(fps, self.partitions).tolist())):
            found.update(lookup_parents(self.parts_[p], fps))
        return found

    def save(self, directory, folder):
        for i, part in enumerate(self.parts_):
            write_part(part_path(directory, folder, i), part)
        return self.partitions

    def parts(self):
        return list(self.parts_)

    def close(self):
        self.parts_ = []
