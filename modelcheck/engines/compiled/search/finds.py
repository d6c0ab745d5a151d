"""The finds of the compiled search: which property each column of ``found``
is, the level its trace is rebuilt to, and its verdict with that trace,
handed to the reporter mid-search or settled at the end (search/rebuild.py
and search/parents.py rebuild the paths).

A rebuild of a long trace takes minutes, so it runs under the search's
Ctrl-C/SIGTERM flag and asks it as it goes: a find whose rebuild the user
stopped is UNKNOWN, never HOLDS and never a verdict without its replayed
trace (docs/engines/compiled.md, "Traces").
"""
from __future__ import annotations

import numpy as np

from modelcheck.engines.base import DEADLOCK, PropertyResult, Status, report_found
from modelcheck.engines.compiled.kernel.driver import (FOUND_OUTSIDE, FOUND_OUTSIDE_INITIAL,
                                                       FOUND_STORED)
from modelcheck.engines.compiled.search.parents import find_path_on_disk
from modelcheck.engines.compiled.search.rebuild import (RebuildInterrupted, Stop, find_path,
                                                        step_after, trace_of)
from modelcheck.engines.reference.explorer import TRACE_CUT
from modelcheck.ir.nodes import PropertyKind

__all__ = ["Finds"]


class Finds:
    """The finds' part of CompiledSearch (a mixin: it reads the search's
    kernels, columns, table, levels kept and stop flag)."""

    def _found_names(self) -> set[str]:
        return {self._find_name(q)[0] for q in np.flatnonzero(self.found)}

    def _note_found(self, state_level: int, pre_level: int) -> None:
        """The level of the stored state each new find's trace is rebuilt to:
        the state itself, or the parent of a step or of a state outside the
        model."""
        for q in np.flatnonzero(self.found):
            if self.found_level[q] is None:
                stored = q < self.nstate and self.found[q] == FOUND_STORED
                self.found_level[q] = state_level if stored else pre_level

    def _settle_found(self) -> None:
        """Each find's verdict with its trace.  Once the user has asked to
        stop during a rebuild, the finds left are UNKNOWN: never HOLDS (an
        invariant left unsettled at the end of a finished search would hold)
        and never a verdict without its replayed trace."""
        if not self.found.any():
            return
        initial = self.initial_rows()
        for q in np.flatnonzero(self.found):
            if int(q) in self.built:        # handed to the reporter mid-search
                self.verdicts.settle(*self.built[int(q)])
                continue
            if not self.rebuild_cut:
                try:
                    self.verdicts.settle(*self._find(q, initial))
                    continue
                except RebuildInterrupted:
                    self.rebuild_cut = True
            name, kind = self._find_name(q)
            self.verdicts.leave_unknown(name, kind, TRACE_CUT)

    def _find_name(self, q: int) -> tuple[str, PropertyKind | None]:
        if q < self.nstate:
            prop = self.k.state_columns[q]
            return prop.name, prop.kind
        if q < self.nstate + self.nstep:
            prop = self.k.step_columns[q - self.nstate]
            return prop.name, prop.kind
        return DEADLOCK, None

    def _find(self, q: int, initial: np.ndarray) -> tuple:
        """(name, kind, status, trace) of the find in column ``q``."""
        level = self.found_level[q]
        assert level is not None
        if self.found[q] == FOUND_OUTSIDE_INITIAL:
            # an initial state outside the model: a 0-step trace
            path = [(None, self.frows2[q].view(np.uint64).copy())]
            pi = np.zeros(0, dtype=np.int64)
        else:
            path, pi = self._path_to(self.frows[q], level, initial, self._stop_asked)
        if self.found[q] == FOUND_OUTSIDE:
            path.append(self._step_to(path[-1][1], pi, self.frows2[q]))
        name, kind = self._find_name(q)
        if q < self.nstate:     # an invariant broken or a `sometimes` shown
            status = Status.VIOLATED if kind is PropertyKind.INVARIANT else Status.HOLDS
        else:                   # a step invariant's step or a deadlock
            status = Status.VIOLATED
            if q < self.nstate + self.nstep:
                path.append(self._step_to(path[-1][1], pi, self.frows2[q]))
        shown = "counterexample" if status is Status.VIOLATED else "witness"
        return name, kind, status, trace_of(self.k, path, shown, name, self._stop_asked)

    def _stop_asked(self) -> bool:
        return self.interrupt[0]

    def _report_finds(self) -> None:
        """Hand each new find to the reporter while the search goes on
        (``Reporter.found``), its trace rebuilt now."""
        if (getattr(self.reporter, "found", None) is None or self.options.stop_on_first
                or not self.STOPS_WHEN_SETTLED or self.rebuild_cut):
            return
        new = [int(q) for q in np.flatnonzero(self.found) if int(q) not in self.reported]
        if not new:
            return
        self.reported.update(new)
        found = self._found_names()
        v = self.verdicts
        open_names = [p.name for p in v.properties if p.name not in found]
        if v.deadlock and DEADLOCK not in found:
            open_names.append(DEADLOCK)
        if not open_names:
            return
        initial = self.initial_rows()
        for q in new:
            try:
                self.built[q] = name, kind, status, trace = self._find(q, initial)
            except RebuildInterrupted:
                # the flag stays set: the search stops at its next safe point
                self.rebuild_cut = True
                return
            report_found(self.reporter, PropertyResult(name, kind, status, trace), open_names)

    def _path_to(self, row: np.ndarray, level: int, initial: np.ndarray,
                 stop: Stop = None) -> tuple:
        """A concrete path to the stored state ``row`` found at ``level``."""
        if self.parents is not None:
            return find_path_on_disk(self.k, self.parents, row, level, initial, stop)
        return find_path(self.k, self.table, row, level, initial, stop)

    def _step_to(self, concrete: np.ndarray, pi: np.ndarray, post: np.ndarray) -> tuple:
        step = step_after(self.k, concrete, pi, post)
        if step is None:
            raise RuntimeError("internal error: the step of a trace does not re-execute")
        return step

