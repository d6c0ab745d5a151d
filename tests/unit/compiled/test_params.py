"""Constants read at run time (engines/compiled/params.py): a spec's bool and
enum constants are not built into the kernel, so every value of them shares
one source (one cache entry, one compile), and each run reads its own values.
"""
from __future__ import annotations

import itertools

import pytest

from modelcheck import api
from modelcheck.engines.compiled.cache.kcache import kernel_key

pytest.importorskip("numba")

FLAGS = {"rule": ["lenient", "strict", "paranoid"], "guarded": ["true", "false"],
         "also_guarded": ["true", "false"]}


def _key(load, **consts: str) -> str:
    from modelcheck.engines.compiled.kernels import KernelOptions, _KernelPlan
    return kernel_key(_KernelPlan.of(load("flags", **consts), KernelOptions()).generated.source)


def test_every_value_of_the_flags_shares_one_source(load):
    keys = {_key(load, **dict(zip(FLAGS, values))) for values in itertools.product(*FLAGS.values())}
    assert len(keys) == 1


def test_an_int_constant_is_built_in(load):
    assert _key(load, K="1") != _key(load, K="2")


@pytest.mark.parametrize("values", list(itertools.product(*FLAGS.values())),
                         ids=lambda v: "-".join(v))
def test_each_run_reads_its_own_values(values, load):
    model = load("flags", **dict(zip(FLAGS, values)))
    ref = api.check(model, engine="reference")
    got = api.check(model, engine="compiled")
    assert (got.stats.distinct_states, got.stats.generated_states, got.stats.depth) == \
        (ref.stats.distinct_states, ref.stats.generated_states, ref.stats.depth)
    def verdicts(result):
        return [(p.name, p.status, p.steps)
                for p in result.properties]
    assert verdicts(got) == verdicts(ref)


def test_a_checkpoint_is_resumed_only_with_its_own_values(load, tmp_path):
    from modelcheck.engines.base import CheckOptions
    from modelcheck.errors import UsageError
    folder = tmp_path / "ckpt"
    api.check(load("flags"), engine="compiled",
              options=CheckOptions(checkpoint_dir=str(folder), checkpoint_every_s=0.0))
    with pytest.raises(UsageError, match="constants"):
        api.check(load("flags", guarded="false"), engine="compiled",
                  options=CheckOptions(resume_dir=str(folder)))
    same = api.check(load("flags"), engine="compiled", options=CheckOptions(resume_dir=str(folder)))
    assert same.stats.distinct_states == api.check(load("flags"), engine="reference") \
        .stats.distinct_states
