"""Conformance testing: run a spec's behaviours on the real system it
describes, through a user-written driver (docs/conformance.md)."""
from __future__ import annotations

from modelcheck.conform.driver import ConformError, Driver, DriverFailure, load_driver
from modelcheck.conform.replay import load_for_trace, recorded_consts, replay_trace
from modelcheck.conform.report import ReplayReport, StepLog, WalkReport, WalkRun
from modelcheck.conform.walk import random_walks

__all__ = ["ConformError", "Driver", "DriverFailure", "load_driver", "load_for_trace",
           "recorded_consts", "replay_trace", "random_walks", "ReplayReport", "StepLog",
           "WalkReport", "WalkRun"]
