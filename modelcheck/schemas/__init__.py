"""JSON Schemas of the command line's ``--json`` output, shipped in the wheel
so that a user's own tools can validate what they read."""
from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

__all__ = ["CHECK_SCHEMA", "load_schema"]

#: ``modelcheck check --json`` (each item of the list, with ``--sweep``).
CHECK_SCHEMA = "check.schema.json"


def load_schema(name: str = CHECK_SCHEMA) -> dict[str, Any]:
    """The schema ``name`` of this package, parsed."""
    return json.loads(files(__name__).joinpath(name).read_text(encoding="utf-8"))
