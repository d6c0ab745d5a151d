"""The model's side of a conformance run: the set of spec states the real
system may be in, given what was done to it and what it showed.

Successors come from the reference semantics (``Evaluator.successors`` and
``outcomes``, as ``trace.replay`` uses them).  The system's own actions
(those the driver does not drive) may happen any number of times between
two observations, so every set is closed under them, bounded by
``max_closure`` states.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from modelcheck.conform.driver import ConformError, Driver
from modelcheck.evaluate.evaluator import Evaluator, State
from modelcheck.ir import nodes as ir
from modelcheck.trace.itf import encode_value
from modelcheck.trace.paths import path_steps, path_to
from modelcheck.trace.trace import Trace

__all__ = ["Belief", "Canon", "PathNode"]


@dataclass(frozen=True)
class PathNode:
    """A state with the first path found to it (for the trace of a mismatch)."""
    state: State
    parent: PathNode | None
    action: str | None
    params: tuple[tuple[str, Any], ...]

    def path(self) -> list[PathNode]:
        return path_to(self)


class Canon:
    """Observations and projected model states as JSON, so that a driver may
    report plain Python sets, lists and dicts: both sides are encoded by the
    variable's declared type when the key names one."""

    def __init__(self, model: ir.Model):
        self.types = {d.name: d.type for d in model.vars}

    def value(self, key: str, value: Any) -> Any:
        t = self.types.get(key)
        try:
            encoded = encode_value(t, value) if t is not None else value
            return json.loads(json.dumps(encoded, sort_keys=True, default=_sorted))
        except (TypeError, KeyError, AttributeError, ValueError) as err:
            raise ConformError("MC7003", f"the observed value {value!r} of '{key}' does not fit "
                               f"its type in the spec: {err}") from None

    def of(self, observation: Mapping[str, Any]) -> dict[str, Any]:
        """Keys that start with an underscore are the driver's own (for
        ``holds``): neither compared nor logged."""
        return {k: self.value(k, v) for k, v in observation.items() if not k.startswith("_")}


def _sorted(v: Any) -> Any:
    if isinstance(v, (set, frozenset)):
        return sorted(v, key=repr)
    return str(v)


class Belief:
    """The states the system may be in (``nodes``), kept closed under the
    system's own actions."""

    def __init__(self, model: ir.Model, driver: Driver, max_closure: int = 20_000,
                 evaluator: Evaluator | None = None):
        self.model = model
        self.driver = driver
        self.ev = evaluator if evaluator is not None else Evaluator(model)
        self.canon = Canon(model)
        self.max_closure = max_closure
        self.truncated = False
        self.nodes: dict[State, PathNode] = {}

    # ------------------------------------------------------------ building

    def initial(self) -> dict[State, PathNode]:
        return self.close(PathNode(s, None, None, ()) for s in self.ev.initial_states())

    def close(self, seeds: Iterable[PathNode]) -> dict[State, PathNode]:
        """``seeds`` and every state the system's own actions reach from them."""
        seen: dict[State, PathNode] = {}
        frontier = []
        for node in seeds:
            if node.state not in seen:
                seen[node.state] = node
                frontier.append(node)
        while frontier:
            nxt = []
            for node in frontier:
                for t in self.ev.successors(node.state):
                    if t.state in seen or (self.driver.drives(t.action) and
                                           not self.driver.waits_for(t.action, dict(t.params))):
                        continue
                    if len(seen) >= self.max_closure:
                        self.truncated = True
                        return seen
                    child = PathNode(t.state, node, t.action, t.params)
                    seen[t.state] = child
                    nxt.append(child)
            frontier = nxt
        return seen

    def after(self, action: str, params: tuple[tuple[str, Any], ...]) -> dict[State, PathNode]:
        """Every state the driven action instance (or any instance the
        driver does the same way: ``Driver.instance_key``), then the
        system's own actions, lead to from a state of the belief."""
        key = self.driver.instance_key(action, dict(params))
        seeds = [PathNode(t.state, node, t.action, t.params)
                 for node in self.nodes.values()
                 for t in self.ev.successors(node.state)
                 if t.action == action and self.driver.instance_key(t.action, dict(t.params)) == key]
        return self.close(seeds)

    # ------------------------------------------------------------ matching

    def projection(self, state: State) -> dict[str, Any]:
        return self.canon.of(self.driver.project(self.ev.state_dict(state)))

    def matching(self, candidates: Mapping[State, PathNode],
                 observed: Mapping[str, Any]) -> dict[State, PathNode]:
        return {s: n for s, n in candidates.items() if self.projection(s) == observed}

    def closest(self, candidates: Mapping[State, PathNode],
                observed: Mapping[str, Any]) -> PathNode | None:
        """The candidate whose projection differs from ``observed`` in the
        fewest keys (the model's side of a mismatch)."""
        best, best_diff = None, None
        for s, node in candidates.items():
            proj = self.projection(s)
            diff = sum(1 for k in set(proj) | set(observed) if proj.get(k) != observed.get(k))
            if best_diff is None or diff < best_diff or \
                    (diff == best_diff and len(node.path()) < len(best.path())):
                best, best_diff = node, diff
        return best

    def driveable(self) -> list[tuple[str, tuple[tuple[str, Any], ...]]]:
        """Driven action instances enabled in every state of the belief, in
        canonical order: performing one is then possible whatever state the
        system is really in."""
        common: dict[Any, tuple[str, tuple]] | None = None
        for node in self.nodes.values():
            here: dict[Any, tuple[str, tuple]] = {}
            for t in self.ev.successors(node.state):
                if self.driver.drives(t.action) \
                        and not self.driver.waits_for(t.action, dict(t.params)) \
                        and self.driver.can_perform(t.action, dict(t.params)):
                    here.setdefault(self.driver.instance_key(t.action, dict(t.params)),
                                    (t.action, t.params))
            common = here if common is None else {k: v for k, v in common.items() if k in here}
            if not common:
                return []
        return list((common or {}).values())

    def any_driveable(self) -> bool:
        return any(self.driver.drives(t.action) and not self.driver.waits_for(t.action, dict(t.params))
                   for node in self.nodes.values() for t in self.ev.successors(node.state))

    def trace(self, node: PathNode, meta: Mapping[str, Any]) -> Trace:
        steps = path_steps(self.ev, node.path())
        return Trace(self.model.name, steps, kind="scenario", meta=dict(meta))
