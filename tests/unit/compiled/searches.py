"""The compiled search as the tests of levels on disk and parents on disk
run it, and what of its result they compare."""
from __future__ import annotations

from modelcheck import api
from modelcheck.engines.base import CheckOptions

from interrupts import InterruptAt

__all__ = ["SPILL", "outcome", "run_search", "interrupted", "resumed"]

#: A few rows: every level past it goes to disk, in many pieces.
SPILL = {"frontier_spill_rows": 300}


def outcome(r):
    """Counts, action counts and every property's verdict and trace length."""
    return (r.stats.distinct_states, r.stats.generated_states, r.stats.depth,
            r.stats.action_counts,
            {p.name: (p.status, p.steps, p.trace.steps if p.trace else None) for p in r.properties})


def run_search(model, workers=1, symmetry=False, **extra):
    """The compiled engine's search; ``extra`` its options' extras."""
    # parallel_after_s 0: a search on several workers goes parallel at once
    extra = dict(extra, parallel_after_s=0) if workers > 1 else extra
    return api.check(model, engine="compiled",
                     options=CheckOptions(symmetry=symmetry, workers=workers, extra=extra))


def interrupted(model, workers, folder, at, extra) -> bool:
    """Ctrl-C at progress tick ``at``, the checkpoint written to ``folder``;
    False when the search ended first."""
    rep = InterruptAt(at)
    part = api.check(model, engine="compiled", reporter=rep,
                     options=CheckOptions(symmetry=False, workers=workers,
                                          checkpoint_dir=str(folder), extra=extra))
    if rep.ticks < at:
        return False
    assert part.reason == "interrupted"
    return True


def resumed(model, workers, folder, extra):
    """The search resumed from the checkpoint in ``folder``."""
    return api.check(model, engine="compiled",
                     options=CheckOptions(symmetry=False, workers=workers,
                                          resume_dir=str(folder), extra=extra))
