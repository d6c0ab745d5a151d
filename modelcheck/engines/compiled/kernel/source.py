"""The kernel templates' text: the model-independent parts of every kernel
module (the search loops of driver.py, par_driver.py, claim_driver.py,
live_driver.py), kept in ``templates/`` as Python files so that editors,
linters and ``ast`` read them as code, and appended to each generated module
as text so that numba (or the C translator) compiles them with the model's
functions: a jitted function cannot take another as an argument and still be
cached."""
from __future__ import annotations

import functools
from pathlib import Path

__all__ = ["TEMPLATES", "template_path", "template_text"]

#: The templates, in the order a generated module appends them.
TEMPLATES = ("driver", "par_driver", "claim_driver", "live_driver")


def template_path(name: str) -> Path:
    if name not in TEMPLATES:
        raise ValueError(f"no kernel template {name!r}")
    return Path(__file__).resolve().parent / "templates" / f"{name}.py"


@functools.lru_cache(maxsize=None)
def template_text(name: str) -> str:
    return template_path(name).read_text(encoding="utf-8")
