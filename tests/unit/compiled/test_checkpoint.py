"""Checkpoints: Ctrl-C writes one and stops with UNKNOWN "interrupted"; a
resumed search ends with exactly the counts, verdicts and traces of an
uninterrupted one, wherever it was stopped (level boundaries and mid-level)."""
from __future__ import annotations

import pytest

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status
from modelcheck.errors import UsageError

from interrupts import InterruptAt

pytest.importorskip("numba")



def _result(r):
    return (r.stats.distinct_states, r.stats.generated_states, r.stats.depth,
            r.stats.action_counts,
            {p.name: (p.status, p.steps, p.trace.steps if p.trace else None) for p in r.properties})


@pytest.mark.parametrize("name,consts", [("two_phase", {"N": 4}), ("die_hard", {}),
                                         ("sym_mutex", {"N": 3})])
def test_resume_ends_with_the_uninterrupted_counts(name, consts, load, kernels, tmp_path,
                                                   monkeypatch):
    import modelcheck.engines.compiled.search.serial as search
    monkeypatch.setattr(search, "PROGRESS_EVERY_S", 0.0)     # a tick at every safe point
    model = load(name, **consts)
    kernels(name, **consts)
    full = api.check(model, engine="compiled", options=CheckOptions())
    resumed = 0
    for at in (2, 4, 7, 12):
        folder = tmp_path / f"at{at}"
        rep = InterruptAt(at)
        # one level a call at most, so that these small specs have a safe
        # point (and a tick) at every level and inside levels; the resumed
        # search runs levels on in its calls (test_deep.py stops deep runs
        # between such calls)
        part = api.check(model, engine="compiled", reporter=rep,
                         options=CheckOptions(checkpoint_dir=str(folder),
                                              extra={"cross_levels": False}))
        if rep.ticks < at:
            continue                          # finished before the tick
        assert part.reason == "interrupted"
        assert all(p.status is not Status.HOLDS for p in part.properties)
        assert any("checkpoint written" in n for n in rep.notes)
        rest = api.check(model, engine="compiled", options=CheckOptions(resume_dir=str(folder)))
        assert _result(rest) == _result(full)
        resumed += 1
    assert resumed >= 2


def test_periodic_checkpoints_and_a_wrong_resume(load, kernels, tmp_path):
    model = load("two_phase", N=3)
    kernels("two_phase", N=3)
    folder = tmp_path / "ckpt"
    api.check(model, engine="compiled",
              options=CheckOptions(checkpoint_dir=str(folder), checkpoint_every_s=0.0))
    assert (folder / "compiled-checkpoint.json").exists()
    with pytest.raises(UsageError):
        api.check(load("die_hard"), engine="compiled", options=CheckOptions(resume_dir=str(folder)))
    with pytest.raises(UsageError):
        api.check(model, engine="compiled", options=CheckOptions(resume_dir=str(tmp_path / "none")))
