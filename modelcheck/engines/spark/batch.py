"""Several levels in one Spark job: the rule that ends a batch of levels.

A level on Spark is a job, and a job costs about 0.1 s before any state is
expanded (scheduling the stage, launching the tasks, the driver's calls to
the JVM): on Raft's 53 levels, most of them narrow, that floor was half of
the search (docs/engines/spark.md, "Levels in batches").  With the file
exchange the tasks hand each other the candidates through files anyway, so
one job of *barrier* tasks (Spark launches all P together, or none) can run
level after level: each task merges its partition's candidates, expands its
new states into the next level's files, writes a **note** of what the level
showed, and waits for the notes of all P tasks; every task then applies the
same ``BatchRule`` to the same P notes, so all of them go on to the next
level, or all stop after this one.

A batch stops after a level that settles anything the search has still open
(a property's hit, a deadlock, a run-time error), that hits a bound (the
state bound, the depth bound, the level count the driver allows before its
next checkpoint), that empties the frontier, or once its levels have held
``rows`` new states or run ``seconds``.  The driver then takes the batch's
levels one by one as if each had been a job of its own: the same reports,
the same counts, the same shortest traces (only the last level of a batch
can settle anything).
"""
from __future__ import annotations

from dataclasses import dataclass

from modelcheck.engines.spark.partition import LevelReport

__all__ = ["BatchRule", "Note", "BATCH_LEVELS", "BATCH_ROWS", "BATCH_SECONDS"]

#: Levels a batch runs at most.
BATCH_LEVELS = 64
#: New states a batch's levels hold at most: they stay unfolded (states and
#: all) until the batch ends.
BATCH_ROWS = 1 << 21
#: Seconds a batch runs at most, so that progress, checkpoints and the
#: timeout still come level by level to the user.
BATCH_SECONDS = 2.0


@dataclass(frozen=True)
class Note:
    """What one task's level showed, as the other tasks read it."""
    new: int                # new states the partition kept
    eventful: bool          # it settles something open, or hit an error
    elapsed: float          # seconds since the task began
    stop: bool = False      # the task could not merge (a miss): the batch ends

    def to_json(self) -> dict:
        return {"new": self.new, "eventful": self.eventful, "elapsed": self.elapsed,
                "stop": self.stop}

    @classmethod
    def from_json(cls, data: dict) -> "Note":
        return cls(int(data["new"]), bool(data["eventful"]), float(data["elapsed"]),
                   bool(data["stop"]))


@dataclass(frozen=True)
class BatchRule:
    """When a batch stops (see the module's doc); the same for every task."""
    max_levels: int
    states_left: int | None         # the state bound less the states found so far
    rows: int
    seconds: float
    state_cols: frozenset[int]      # state properties still open
    step_cols: frozenset[int]       # step properties still open
    deadlock: bool                  # the deadlock check still open

    def eventful(self, merged: LevelReport, expanded: LevelReport) -> bool:
        """Whether a partition's level settles anything the search has open
        (or hit a run-time error): the batch must end with it."""
        return (merged.failed is not None or expanded.failed is not None
                or any(c in self.state_cols for c in merged.state_hits)
                or any(c in self.state_cols for c in merged.outside_hits)
                or any(c in self.step_cols for c in expanded.step_hits)
                or (self.deadlock and expanded.deadlock is not None))

    def go_on(self, done: int, found: int, notes: list[Note]) -> bool:
        """After ``done`` levels holding ``found`` new states, the last one's
        ``notes`` (one a task): whether the batch runs the next level."""
        if any(n.stop or n.eventful for n in notes):
            return False
        if sum(n.new for n in notes) == 0:
            return False
        if done >= self.max_levels or found >= self.rows:
            return False
        if self.states_left is not None and found > self.states_left:
            return False
        return max((n.elapsed for n in notes), default=0.0) < self.seconds
