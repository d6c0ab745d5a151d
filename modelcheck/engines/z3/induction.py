"""Inductive proofs (k-induction) of invariants, with lemmas.

For each target invariant, the candidate inductive invariant is the
conjunction of the target's top-level conjuncts and those of the lemmas (other
invariants of the spec).  A conjunct *holds* in a state when it evaluates to
true without a run-time error.  The proof asks:

* initiation: no path of fewer than k steps from an initial state reaches a
  state where some conjunct fails (k = 1: the initial states satisfy them).
  A model is a real counterexample (REFUTED);
* consecution, one query per (action, conjunct) so the failing pair is
  named: from k consecutive states satisfying every conjunct (pairwise
  distinct when k > 1), the action's step leads to a state satisfying the
  conjunct.  A model is a counterexample to induction (CTI): the states and
  the action with its parameters, shown as a trace.  Each query is asked for
  all conjuncts of an action at once first, and split only when it fails.

With state constraints, a step leaves only a state in the model (``Encoding``):
the states checked are those reachable through states in the model, as the
reference explorer checks them.

Every state is constrained to its declared types (ints in range, capacities:
the MC5001 check keeps reachable states there), and a step that raises a
run-time error is no step.  Variables that the configuration never changes
(``slicing.freeze``) are fixed to their values, which are invariants.  So PROVED means: the invariant holds in every
state reachable without a run-time error, in this finite instance (these
consts).  Whether some action can raise a run-time error from a state
satisfying the candidate is asked too, and reported as a note.

Every CTI is checked against the reference evaluator (the pre-states satisfy
the conjuncts, the action leads from the last but one state to the last,
which fails the conjunct), and every counterexample is replayed.
"""
from __future__ import annotations

import fnmatch
import time
from collections.abc import Sequence
from typing import Any

import z3

from modelcheck.engines.initial import demote_vacuous_proof
from modelcheck.evaluate.evaluator import Evaluator
from modelcheck.engines.z3.budget import past, watchdog
from modelcheck.engines.z3.encoding import (Encoding, EncodingOptions, EncodingUnsupported,
                                            StateCopy, StepCopy)
from modelcheck.engines.z3.logic import conj, disj, is_false, neg
from modelcheck.engines.z3.proofs import (Conjunct, InvariantProof, Obligation, ProofResult,
                                          ProofStatus, conjuncts)
from modelcheck.engines.z3.slicing import freeze
from modelcheck.engines.z3.symbolic import EncodingTimeout
from modelcheck.engines.z3.traces import EncodingMismatch, decode_trace
from modelcheck.errors import EvalError, UsageError
from modelcheck.ir import nodes as ir
from modelcheck.trace.verify import verify_trace
from modelcheck.trace.trace import Trace

__all__ = ["prove", "select_invariants"]


def select_invariants(model: ir.Model, invariants: Sequence[str] | None,
                      lemmas: Sequence[str]) -> tuple[list[ir.Property], list[ir.Property]]:
    """The target invariants (default: every invariant that is not a lemma) and
    the lemmas, by name (a lemma name may be a pattern: ``Proof*``).
    UsageError for a name that is not an invariant."""
    by_name = {p.name: p for p in model.properties}
    known = sorted(p.name for p in model.properties if p.kind is ir.PropertyKind.INVARIANT)

    def get(name: str) -> ir.Property:
        p = by_name.get(name)
        if p is None and any(t.name == name for t in model.temporals):
            raise UsageError(f"'{name}' is a liveness property: prove handles invariants",
                             hint=f"check it with: modelcheck check SPEC --property {name} "
                                  "(the reference and compiled engines check liveness)")
        if p is None or p.kind is not ir.PropertyKind.INVARIANT:
            what = "no invariant" if p is None else f"'{name}' is a {p.kind.value}, not an invariant:"
            raise UsageError(f"{what} named {name!r} in spec {model.name!r}" if p is None else
                             f"{what} only invariants can be proved or used as lemmas",
                             hint="invariants: " + (", ".join(known) or "(none)"))
        return p

    lemmas = _expand(lemmas, known)
    lemma_props = [get(n) for n in dict.fromkeys(lemmas)]
    if invariants:
        targets = [get(n) for n in dict.fromkeys(invariants)]
    else:
        targets = [p for p in model.properties
                   if p.kind is ir.PropertyKind.INVARIANT and p.name not in lemmas]
    if not targets:
        raise UsageError(f"spec {model.name!r} has no invariant to prove",
                         hint="name one with --invariant")
    return targets, lemma_props


def _expand(names: Sequence[str], known: list[str]) -> list[str]:
    """Names with ``*``/``?`` stand for every invariant they match (``Proof*``)."""
    out = []
    for name in names:
        if any(ch in name for ch in "*?["):
            matched = [k for k in known if fnmatch.fnmatchcase(k, name)]
            if not matched:
                raise UsageError(f"no invariant matches {name!r}",
                                 hint="invariants: " + (", ".join(known) or "(none)"))
            out.extend(matched)
        else:
            out.append(name)
    return out


def prove(model: ir.Model, invariants: Sequence[str] | None = None, lemmas: Sequence[str] = (),
          k: int = 1, timeout: float | None = None,
          encoding: EncodingOptions | None = None) -> ProofResult:
    """Prove each target invariant by k-induction with the lemmas (see the
    module doc).  ``timeout`` (seconds) bounds the whole run: what is left
    undecided is UNKNOWN."""
    if k < 1:
        raise UsageError(f"k must be at least 1, not {k}")
    start = time.monotonic()
    targets, lemma_props = select_invariants(model, invariants, lemmas)
    deadline = None if timeout is None else start + timeout
    notes: list[str] = []
    proofs, obligations = [], []
    with watchdog(deadline):
        try:
            # Variables the configuration never changes are replaced by their
            # value (exact: their values are invariants); traces get them back.
            reduced, fixed = freeze(model)
            enc = Encoding(reduced, encoding or EncodingOptions(solver="incremental"),
                           deadline=deadline)
        except (EncodingUnsupported, EncodingTimeout) as err:
            reason = ("timeout" if isinstance(err, EncodingTimeout)
                      else f"the Z3 encoding does not support this spec: {err}")
            return ProofResult(model.name, "induction", k,
                               [InvariantProof(t.name, ProofStatus.UNKNOWN, reason=reason)
                                for t in targets], [], time.monotonic() - start)
        ev = Evaluator(model)
        lemma_conjuncts = [c for p in lemma_props
                           for c in conjuncts(model, reduced.get_property(p.name), True)]
        for target in targets:
            own = conjuncts(model, reduced.get_property(target.name), False)
            run = _Induction(enc, ev, own + lemma_conjuncts, k, deadline, fixed)
            proof = run.prove(target.name, tuple(p.name for p in lemma_props))
            proofs.append(proof)
            obligations.extend(run.obligations)
            notes.extend(n for n in run.notes if n not in notes)
    # With no initial state every invariant is inductive: say so, not PROVED.
    return demote_vacuous_proof(model, ProofResult(model.name, "induction", k, proofs, obligations,
                                                   time.monotonic() - start, notes))


class _Undecided(Exception):
    """The solver gave up (timeout or unknown); the message says why."""


class _Induction:
    def __init__(self, enc: Encoding, ev: Evaluator, cands: list[Conjunct], k: int,
                 deadline: float | None, fixed: dict[str, Any]):
        self.enc = enc              # of the frozen model
        self.fixed = fixed          # the frozen variables' values
        self.ev = ev
        self.cands = cands
        self.k = k
        self.deadline = deadline
        self.obligations: list[Obligation] = []
        self.notes: list[str] = []

    # ---------------------------------------------------------------- queries

    def ok(self, c: Conjunct, s: StateCopy) -> z3.BoolRef:
        holds, faults = self.enc.expr(c.expr, s, None, key=("conjunct", c.name))
        return conj([holds, neg(faults)])

    def ask(self, solver: z3.Solver, goal: z3.BoolRef) -> z3.ModelRef | None:
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise _Undecided("timeout")
            solver.set("timeout", max(1, int(left * 1000)))
        answer = solver.check(goal)
        if answer == z3.sat:
            return solver.model()
        if answer == z3.unsat:
            return None
        if past(self.deadline):
            # Z3 says "canceled" or "interrupted" when the watchdog ended it.
            raise _Undecided("timeout")
        raise _Undecided(solver.reason_unknown() or "the solver could not decide")

    def path(self, tag: str, n: int, initial: bool) -> tuple[list[StateCopy], list[StepCopy],
                                                            z3.Solver]:
        enc = self.enc
        states = [enc.state(f"{tag}{i}:") for i in range(n + 1)]
        steps = [enc.step(states[i], states[i + 1], i) for i in range(n)]
        solver = enc.solver()
        solver.add(*[s.wf for s in states], *[st.formula for st in steps])
        if initial:
            solver.add(enc.init(states[0])[0])
        return states, steps, solver

    # ---------------------------------------------------------------- the proof

    def prove(self, name: str, lemmas: tuple[str, ...]) -> InvariantProof:
        try:
            failed = self.initiation()
            if failed:
                return self.refuted(name, lemmas, failed)
            failed = self.consecution()
        except _Undecided as why:
            return InvariantProof(name, ProofStatus.UNKNOWN, reason=str(why), lemmas=lemmas)
        except EncodingTimeout:
            # Paths and properties are translated as the proof needs them.
            return InvariantProof(name, ProofStatus.UNKNOWN, reason="timeout", lemmas=lemmas)
        except z3.Z3Exception:
            if not past(self.deadline):
                raise
            return InvariantProof(name, ProofStatus.UNKNOWN, reason="timeout", lemmas=lemmas)
        except EncodingUnsupported as err:
            # Properties are translated on first use, after the actions.
            return InvariantProof(name, ProofStatus.UNKNOWN, lemmas=lemmas,
                                  reason=f"the Z3 encoding does not support this spec: {err}")
        if failed:
            first = next((o for o in failed if o.conjunct.split("#")[0] == name), failed[0])
            pairs = ", ".join(f"{o.action} breaks {o.conjunct}" for o in failed)
            return InvariantProof(name, ProofStatus.CTI, first.trace, f"not inductive: {pairs}",
                                  failed, lemmas)
        try:
            self.error_note()
        except (_Undecided, EncodingTimeout):
            pass
        return InvariantProof(name, ProofStatus.PROVED, lemmas=lemmas)

    def refuted(self, name: str, lemmas: tuple[str, ...], failed: list[Obligation]) -> InvariantProof:
        own = [o for o in failed if o.conjunct.split("#")[0] == name]
        if own:
            o = own[0]
            if o.status is ProofStatus.UNKNOWN:
                return InvariantProof(name, ProofStatus.UNKNOWN, o.trace,
                                      f"a run-time error is reachable first: {o.reason}",
                                      failed, lemmas)
            return InvariantProof(name, ProofStatus.REFUTED, o.trace,
                                  f"violated in {len(o.trace)} steps ({o.conjunct})", failed, lemmas)
        o = failed[0]
        return InvariantProof(name, ProofStatus.UNKNOWN, o.trace,
                              f"lemma {o.conjunct.split('#')[0]} is violated in {len(o.trace)} steps, "
                              f"so it cannot support the proof", failed, lemmas)

    def initiation(self) -> list[Obligation]:
        """No path of fewer than k steps from an initial state leaves the candidate."""
        states, steps, solver = self.path("b", self.k - 1, initial=True)
        failed = []
        pending = list(self.cands)
        for j in range(self.k):
            t0 = time.monotonic()
            while pending:
                m = self.ask(solver, disj(neg(self.ok(c, states[j])) for c in pending))
                if m is None:
                    break
                hit = [c for c in pending
                       if is_false(m.eval(self.ok(c, states[j]), model_completion=True))]
                trace = decode_trace(self.enc, m, states[:j + 1], steps[:j], "counterexample",
                                     hit[0].prop, self.ev.model, self.fixed)
                last = self.ev.state_from_dict(trace.steps[-1].state)
                # A conjunct that raises a run-time error in a reachable state
                # is not violated there: the reference explorer stops with
                # the error, so the proof has no answer.
                errors = {c.name: self._error(c, last) for c in hit}
                if any(e is None for e in errors.values()):
                    verify_trace(self.ev.model, trace, "induction")
                for c in hit:
                    err = errors[c.name]
                    failed.append(Obligation("initiation", c.name, None,
                                             ProofStatus.REFUTED if err is None
                                             else ProofStatus.UNKNOWN,
                                             time.monotonic() - t0, trace, err))
                pending = [c for c in pending if c not in hit]
        for c in pending:
            self.obligations.append(Obligation("initiation", c.name, None, ProofStatus.PROVED, 0.0))
        self.obligations.extend(failed)
        return failed

    def consecution(self) -> list[Obligation]:
        k = self.k
        states, steps, solver = self.path("i", k, initial=False)
        for s in states[:k]:
            solver.add(*[self.ok(c, s) for c in self.cands])
        if k > 1:
            # Distinct states: k-induction is then complete on a finite instance.
            sy = self.enc.sy
            for i in range(k + 1):
                for j in range(i + 1, k + 1):
                    solver.add(neg(conj(sy.same(states[i].vars[v.name], states[j].vars[v.name])
                                        for v in self.enc.model.vars)))
        failed = []
        last = steps[-1]
        for action in self.enc.model.actions:
            taken = self.taken(last, action.name)
            t0 = time.monotonic()
            m = self.ask(solver, conj([taken, disj(neg(self.ok(c, states[k])) for c in self.cands)]))
            if m is None:
                spent = time.monotonic() - t0
                for c in self.cands:
                    self.obligations.append(Obligation("consecution", c.name, action.name,
                                                       ProofStatus.PROVED, spent / len(self.cands)))
                continue
            for c in self.cands:
                t1 = time.monotonic()
                m = self.ask(solver, conj([taken, neg(self.ok(c, states[k]))]))
                spent = time.monotonic() - t1
                if m is None:
                    self.obligations.append(Obligation("consecution", c.name, action.name,
                                                       ProofStatus.PROVED, spent))
                    continue
                trace = decode_trace(self.enc, m, states, steps, "cti", c.prop, self.ev.model,
                                     self.fixed)
                trace.meta.update({"conjunct": c.name, "conjunct_text": c.text,
                                   "action": action.name, "k": k})
                self.check_cti(trace, c)
                o = Obligation("consecution", c.name, action.name, ProofStatus.CTI, spent, trace,
                               f"{trace.steps[-1].label()} from a state satisfying every conjunct "
                               f"leads to one where {c.name} ({c.text}) fails")
                self.obligations.append(o)
                failed.append(o)
        return failed

    def taken(self, step: StepCopy, action: str) -> z3.BoolRef:
        nums = self.enc.sy.nums
        return disj(nums.eq_const(step.selector, i) for i, inst in enumerate(self.enc.instances)
                    if inst.action == action)

    def error_note(self) -> None:
        states, steps, solver = self.path("e", 1, initial=False)
        solver.add(*[self.ok(c, states[0]) for c in self.cands])
        m = self.ask(solver, disj([self.enc.in_model(states[0])[1], steps[0].faults]))
        if m is None:
            return
        state = self.ev.state_from_dict({**self.fixed, **self.enc.decode_state(m, states[0])})
        try:
            # The constraints are evaluated first; only a state in the model is expanded.
            if self.ev.in_model(state):
                list(self.ev.successors(state))
        except EvalError as err:
            note = "; ".join(err.diagnostic.notes)
            self.notes.append(
                f"from a state satisfying the invariant and lemmas, a step can raise "
                f"{err.diagnostic.code} ({err.diagnostic.message}{'; ' + note if note else ''}); "
                f"the proof covers the states reachable without a run-time error")
            return
        raise EncodingMismatch("internal error: the Z3 encoding flags a run-time error the "
                               "reference evaluator does not raise")

    # ---------------------------------------------------------------- checking a CTI

    def check_cti(self, trace: Trace, failing: Conjunct) -> None:
        """The reference evaluator agrees: the CTI's states before the last
        satisfy every conjunct, each step is a step of the spec, and the last
        state fails ``failing``."""
        ev = self.ev
        states = [ev.state_from_dict(s.state) for s in trace.steps]
        for st in states[:-1]:
            for c in self.cands:
                if not self._holds(c, st):
                    raise EncodingMismatch(f"internal error: a CTI's state fails {c.name}")
        for step, before, after in zip(trace.steps[1:], states, states[1:]):
            if not self._in_model(before):
                raise EncodingMismatch(f"internal error: the CTI's step {step.label()} leaves a "
                                       f"state outside the state constraints")
            if after not in ev.outcomes(step.action, step.params, before):
                raise EncodingMismatch(f"internal error: the CTI's step {step.label()} is not a "
                                       f"step of the spec")
        if self._holds(failing, states[-1]):
            raise EncodingMismatch(f"internal error: the CTI's last state satisfies {failing.name}")

    def _error(self, c: Conjunct, state: tuple) -> str | None:
        """The run-time error evaluating ``c`` in ``state`` raises, if any."""
        try:
            self.ev.eval(c.expr, state)
        except EvalError as err:
            return str(err)
        return None

    def _in_model(self, state: tuple) -> bool:
        try:
            return self.ev.in_model(state)
        except EvalError:
            return False

    def _holds(self, c: Conjunct, state: tuple) -> bool:
        try:
            return bool(self.ev.eval(c.expr, state))
        except EvalError:
            return False
