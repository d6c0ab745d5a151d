"""The trace tests use the hand-built IR models of tests/unit/reference."""
from __future__ import annotations

import sys
from pathlib import Path

_REFERENCE_TESTS = str(Path(__file__).resolve().parents[1] / "reference")
if _REFERENCE_TESTS not in sys.path:
    sys.path.insert(0, _REFERENCE_TESTS)
