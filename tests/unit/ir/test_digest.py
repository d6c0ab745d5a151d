"""``ir_digest`` is the same in every process (the kernel index is keyed
by it, and read by other processes), tells apart models that differ, and
agrees where equality does: source positions do not count."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from modelcheck import api
from modelcheck.ir.digest import ir_digest
from modelcheck.ir.values import FrozenDict

SPEC = str(Path(__file__).resolve().parents[3] / "specs" / "examples" / "two_phase.mc")

_DIGEST = ("import sys\n"
           "from modelcheck import api\n"
           "from modelcheck.ir.digest import ir_digest\n"
           "print(ir_digest(api.load(sys.argv[1], {'N': '3'})))\n")


def _digest_in_process(seed: str) -> str:
    return subprocess.run([sys.executable, "-c", _DIGEST, SPEC], capture_output=True, text=True,
                          check=True, env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout.strip()


def test_the_digest_of_a_model_is_the_same_under_every_hash_seed():
    # The spec has sets of strings (RM members), whose order follows the seed.
    digests = {_digest_in_process(seed) for seed in ("0", "1", "12345")}
    assert len(digests) == 1
    assert digests == {ir_digest(api.load(SPEC, {"N": "3"}))}


def test_models_that_differ_have_different_digests():
    three, four = api.load(SPEC, {"N": "3"}), api.load(SPEC, {"N": "4"})
    assert ir_digest(three) != ir_digest(four)
    assert ir_digest(three) == ir_digest(api.load(SPEC, {"N": "3"}))


def test_positions_in_the_source_do_not_count(tmp_path):
    text = Path(SPEC).read_text()
    moved = tmp_path / "moved.mc"
    first, rest = text.split("\n", 1)
    moved.write_text(first + "\n\n\n# two lines down, and a comment\n" + rest)
    assert ir_digest(api.load(str(moved), {"N": "3"})) == ir_digest(api.load(SPEC, {"N": "3"}))
    # ... unless asked for: the kernel cache keeps IR nodes whose spans errors are shown at.
    assert ir_digest(api.load(str(moved), {"N": "3"}), positions=True) \
        != ir_digest(api.load(SPEC, {"N": "3"}), positions=True)


def test_unordered_values_are_sorted_and_kinds_kept_apart():
    assert ir_digest(frozenset({"a", "b", "c"})) == ir_digest(frozenset({"c", "b", "a"}))
    assert ir_digest(FrozenDict({"x": 1, "y": 2})) == ir_digest(FrozenDict({"y": 2, "x": 1}))
    assert ir_digest(1) != ir_digest("1") != ir_digest(True)
    assert ir_digest((1, 2)) != ir_digest(frozenset({1, 2}))
    assert ir_digest(("a", "b")) != ir_digest(("b", "a"))


def test_an_object_outside_the_ir_is_refused():
    with pytest.raises(TypeError):
        ir_digest(object())


_EVERY_SPEC = ("import sys, glob\n"
               "from modelcheck import api\n"
               "from modelcheck.ir.digest import ir_digest\n"
               "for path in sorted(glob.glob(sys.argv[1] + '/specs/**/*.mc', recursive=True)):\n"
               "    print(path, ir_digest(api.load(path), positions=True))\n")


def test_the_front_end_makes_the_same_ir_under_every_hash_seed():
    """What ``mark_origin`` relies on: a model's origin (its sources and
    overrides) decides its IR, positions included, in every process."""
    root = str(Path(SPEC).resolve().parents[2])
    outputs = {subprocess.run([sys.executable, "-c", _EVERY_SPEC, root], capture_output=True,
                              text=True, check=True, env={"PYTHONHASHSEED": seed, "PATH": ""}
                              ).stdout for seed in ("0", "7", "4242")}
    assert len(outputs) == 1
    assert len(next(iter(outputs)).splitlines()) >= 8      # every shipped spec


def test_a_loaded_model_is_digested_by_its_origin(tmp_path):
    from dataclasses import replace
    from modelcheck.ir.digest import model_digest
    three = api.load(SPEC, {"N": "3"})
    assert model_digest(three) == model_digest(api.load(SPEC, {"N": "3"}))
    assert model_digest(three) != model_digest(api.load(SPEC, {"N": "4"}))
    # Another text (a comment only) is another origin: it costs a miss, never a wrong hit.
    other = tmp_path / "two_phase.mc"
    other.write_text(Path(SPEC).read_text() + "\n# a comment\n")
    assert model_digest(api.load(str(other), {"N": "3"})) != model_digest(three)
    # A model changed after loading has no origin: its IR is digested.
    changed = replace(three, properties=three.properties[:1])
    assert model_digest(changed) == ir_digest(changed, (), positions=True)
    assert model_digest(changed) != model_digest(three)
    # A model sent to another process keeps its origin.
    import pickle
    assert model_digest(pickle.loads(pickle.dumps(three))) == model_digest(three)
