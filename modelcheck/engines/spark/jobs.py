"""Running one of the search's Spark jobs: in a job group of its own,
cancelled when the time is up or on Ctrl-C, its failure reduced to the
line a user can act on."""
from __future__ import annotations

import re
import threading
import uuid
from typing import TYPE_CHECKING, Any, Callable

from modelcheck.engines.spark.levels import LevelCancelled

if TYPE_CHECKING:
    from pyspark import SparkContext

__all__ = ["SparkJobError", "run_job", "job_failure"]

_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b")


class SparkJobError(RuntimeError):
    """A Spark job failed for another reason than a cancellation."""


def run_job(sc: "SparkContext", job: Callable[[], Any], time_left_s: float | None) -> Any:
    """``job()`` in its own job group, cancelled after ``time_left_s``
    (LevelCancelled) or on Ctrl-C."""
    group = f"modelcheck-{uuid.uuid4().hex}"
    sc.setJobGroup(group, "modelcheck level", interruptOnCancel=True)
    timer = None
    cancelled = threading.Event()
    if time_left_s is not None:
        def cancel() -> None:
            cancelled.set()
            sc.cancelJobGroup(group)
        timer = threading.Timer(time_left_s, cancel)
        timer.daemon = True
        timer.start()
    try:
        return job()
    except KeyboardInterrupt:
        sc.cancelJobGroup(group)
        raise
    except Exception as err:
        if cancelled.is_set():
            raise LevelCancelled() from None
        raise SparkJobError(job_failure(err)) from err
    finally:
        if timer is not None:
            timer.cancel()
        sc.setLocalProperty("spark.jobGroup.id", None)   # type: ignore[arg-type]


def job_failure(err: BaseException) -> str:
    """The useful line of a failed job: the Python exception raised on an
    executor if there was one, else the JVM's message."""
    lines = [ln.strip() for ln in str(err).splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        if "Traceback (most recent call last)" in line:
            for later in lines[i + 1:]:
                if _EXCEPTION_LINE.match(later):
                    return later
    for line in lines:
        if line.startswith(":") and "Exception" in line:
            return line.lstrip(": ")
    return lines[0] if lines else type(err).__name__
