"""The Spark engine: a level-synchronous, hash-partitioned breadth-first search
that runs in-process while levels are narrow and on Spark once they are wide.
See docs/engines/spark.md.  pyspark is imported only when Spark is started."""
from modelcheck.engines.spark.engine import SparkEngine

__all__ = ["SparkEngine"]
