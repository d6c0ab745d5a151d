"""The handles the Spark backend keeps of its runs, and the two helpers every
RDD of a search goes through (rdds.py, batch_step.py)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark import RDD, SparkContext

__all__ = ["Run", "owner_key", "plain"]


def owner_key(key: int) -> int:
    """The partition function of every RDD of the search: elements are keyed
    by their owner partition already."""
    return key


@dataclass
class Run:
    """Part of the seen set: an RDD read from the cache, how many states it
    holds, whether it holds (fp, parent) only (``slim``) or a level's states
    too, and what is persisted for it (``keep``: the RDD itself, or a fused
    level's whole output, of which ``rdd`` is the level's part)."""
    rdd: "RDD"
    size: int
    slim: bool
    keep: Any = None
    forget: Any = None      # removes what the run is read from (a batch's files)

    @property
    def in_file(self) -> bool:
        """Read from its file (a batch's, or a level's on a local master):
        it holds no memory until a job reads it."""
        return self.forget is not None

    def drop(self) -> None:
        (self.rdd if self.keep is None else self.keep).unpersist(False)
        if self.forget is not None:
            self.forget()


def plain(sc: "SparkContext", rdd: "RDD") -> "RDD":
    """``rdd`` as a plain RDD over the same JVM RDD, read with the context's
    serializer: the Python object no longer holds its lineage, and a union
    with the runs needs no re-serialisation (``partitionBy`` labels its
    output with another serializer object of the same format)."""
    from pyspark import RDD
    out = RDD(rdd._jrdd, sc, sc.serializer)
    out.partitioner = rdd.partitioner
    return out
