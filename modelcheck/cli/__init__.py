"""The command line: click commands and rich rendering.  This package is the
only code in modelcheck that prints; everything below it returns values.

The entry point is ``modelcheck.cli.launch:main`` (the ``modelcheck`` console
script).  Modules are imported by ``main`` on demand, so that ``--help`` does
not pay for numba, z3 or pyspark."""
from __future__ import annotations

__all__: list[str] = []
