"""A FrozenDict pickled in one process is a working dict key in another:
worker processes (verdicts --jobs, the background compile) receive models
pickled by a parent that hashes strings with another seed."""
from __future__ import annotations

import pickle
import subprocess
import sys

from modelcheck.ir.values import FrozenDict

_MAKE = ("import pickle, sys\n"
         "from modelcheck.ir.values import FrozenDict\n"
         "d = FrozenDict({'leader': 'n1', 'term': 2})\n"
         "hash(d)\n"
         "sys.stdout.buffer.write(pickle.dumps(d))\n")

_USE = ("import pickle, sys\n"
        "from modelcheck.ir.values import FrozenDict\n"
        "d = pickle.loads(sys.stdin.buffer.read())\n"
        "fresh = FrozenDict({'leader': 'n1', 'term': 2})\n"
        "print(d in {fresh}, fresh in {d}, hash(d) == hash(fresh))\n")


def _python(code: str, seed: str, data: bytes = b"") -> bytes:
    return subprocess.run([sys.executable, "-c", code], input=data, capture_output=True,
                          check=True, env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout


def test_a_pickled_frozen_dict_hashes_afresh_in_another_process():
    data = _python(_MAKE, "1")
    assert _python(_USE, "2", data).decode().split() == ["True", "True", "True"]


def test_a_pickled_frozen_dict_equals_the_original():
    d = FrozenDict({"a": FrozenDict({"b": 1})})
    hash(d)
    copy = pickle.loads(pickle.dumps(d))
    assert copy == d and hash(copy) == hash(d) and copy["a"]["b"] == 1
