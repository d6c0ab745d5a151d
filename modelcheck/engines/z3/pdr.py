"""Unbounded proofs with Z3's Spacer (PDR/IC3 on constrained Horn clauses).

For one invariant P, with no user lemmas, the question is put to Z3's Horn
solver as three clauses over a relation ``Inv`` on the flattened state:

    init(x)                      -> Inv(x)
    Inv(x) and step(x, c, x')    -> Inv(x')
    Inv(x) and not ok_P(x)       -> false

where ``ok_P`` is "P evaluates to true without a run-time error" and a step
that raises a run-time error is no step (nor a step from a state outside the
state constraints, which the reference explorer checks but never expands).  Satisfiable: Spacer found an
inductive invariant, P holds in every reachable state of this finite
instance (PROVED); the invariant is printed back as conditions over the
spec's variables (``lemmas.LemmaPrinter``), conjuncts implied by the others
are dropped, and the rest are re-loaded as ``invariant`` declarations and
re-proved by induction, so what is printed is known to be a proof.
Unsatisfiable: P is violated; BMC then finds a shortest counterexample
(REFUTED).  Timeout or unknown: UNKNOWN with the reason.

The question is asked about a reduced model (``slicing``): variables that
never change in this configuration are replaced by their value (their values
are then printed first among the lemmas), and variables the invariant cannot
depend on are left out, which only over-approximates, so a proof stands.

The encoding is the bit-vector one, as for BMC: on the quorum queue Spacer
proves NoLostConfirmed with it in minutes and finds nothing in 25 minutes
with integers and booleans.  The bit tests Spacer then writes on numbers
print as the values they allow (``x in {a, b}``).
"""
from __future__ import annotations

import time
from collections.abc import Sequence

import z3

from modelcheck.engines.initial import demote_vacuous_proof
from modelcheck.engines.base import CheckOptions, NullReporter, Status
from modelcheck.engines.z3.bmc import BmcEngine
from modelcheck.engines.z3.budget import past, watchdog
from modelcheck.engines.z3.encoding import Encoding, EncodingOptions, EncodingUnsupported, StateCopy
from modelcheck.engines.z3.induction import prove, select_invariants
from modelcheck.engines.z3.lemmas import LemmaPrinter, Untranslatable, value_conditions
from modelcheck.engines.z3.logic import boolean, conj, disj, is_true, neg
from modelcheck.engines.z3.slicing import freeze, frozen_facts, slice_model
from modelcheck.engines.z3.symbolic import EncodingTimeout
from modelcheck.engines.z3.proofs import (InvariantProof, Obligation, ProofResult, ProofStatus,
                                          lemma_declarations)
from modelcheck.errors import CompileError, ModelcheckError
from modelcheck.ir import nodes as ir
from modelcheck.ir.values import render_value
from modelcheck.trace.verify import verify_trace

__all__ = ["pdr", "PDR_ENCODING"]

#: The encoding Spacer is given unless the caller chooses another.
PDR_ENCODING = EncodingOptions(ints="bv", sets="bv")

#: Deepest BMC run looking for the counterexample of a refuted invariant.
_BMC_LIMIT = 10_000

#: Spacer's settings, tried in turn while the invariant it finds fails the
#: check in its own encoding or does not print as a proof (a conjunct with no
#: spelling in the spec language, or printed lemmas that do not re-prove the
#: property): the defaults first; then without the inductive generalizer,
#: whose lemmas stay closer to the states Spacer blocked, longer but plainer
#: conditions.  Spacer's answer shifts with the terms the process made before
#: (Z3 orders a commutative term's operands by their ids), and CI saw both
#: faults on TwoPhase after other tests.
_SETTINGS: tuple[dict[str, object], ...] = ({}, {"spacer.use_inductive_generalizer": False})

#: How ``_Spacer.spacer`` begins its reason when Spacer's invariant fails
#: the check in its own encoding (the next setting is then asked).
_FLAWED = "the invariant Spacer answered with"

#: How ``_Spacer.flaw`` says the check itself did not decide (no new
#: setting is asked then: the answer is not known to be wrong).
_UNCHECKED = "could not be checked"

#: How ``_Spacer.proved`` begins its reason when a conjunct has no spelling.
_UNSPELLED = "part of the invariant has no spelling in the spec language"


def pdr(model: ir.Model, invariants: Sequence[str] | None = None, timeout: float | None = None,
        encoding: EncodingOptions | None = None, verify: bool = True) -> ProofResult:
    """Prove each invariant (default: all) with Spacer; see the module doc.
    ``verify``: re-prove the printed invariant by induction (needs the spec's
    source, which ``modelcheck.load`` keeps)."""
    start = time.monotonic()
    targets, _ = select_invariants(model, invariants, ())
    deadline = None if timeout is None else start + timeout
    proofs, obligations, notes = [], [], []
    for target in targets:
        t0 = time.monotonic()
        proof, note = _prove_one(model, target, deadline, encoding, verify)
        if note:
            notes.append(note)
        proofs.append(proof)
        obligations.append(Obligation("pdr", target.name, None, proof.status,
                                      time.monotonic() - t0, proof.trace, proof.reason))
    # With no initial state every invariant is inductive: say so, not PROVED.
    return demote_vacuous_proof(model, ProofResult(model.name, "pdr", 1, proofs, obligations,
                                                   time.monotonic() - start, notes))


def _prove_one(model: ir.Model, target: ir.Property, deadline: float | None,
               encoding: EncodingOptions | None, verify: bool) -> tuple[InvariantProof, str | None]:
    """Spacer's answer for one invariant, and the note on its printed
    invariant (None when it re-proves, or was not to be checked).  Spacer is
    asked again with the next of ``_SETTINGS`` while its invariant is wrong
    or does not print as a proof; the first proof is kept if none prints."""
    reduced, _ = freeze(model)
    sliced = slice_model(reduced, [reduced.get_property(target.name)])
    first: tuple[InvariantProof, str | None] | None = None
    enc: Encoding | None = None         # made once: each setting asks Spacer about it
    for settings in _SETTINGS:
        try:
            with watchdog(deadline):
                # The property is translated inside run(), after the actions.
                if enc is None:
                    enc = Encoding(sliced, encoding or PDR_ENCODING, deadline=deadline)
                proof = _Spacer(enc, model, sliced.get_property(target.name), deadline,
                                settings).run()
        except EncodingUnsupported as err:
            return InvariantProof(target.name, ProofStatus.UNKNOWN,
                                  reason=f"the Z3 encoding does not support this spec: {err}"), None
        except (EncodingTimeout, z3.Z3Exception):
            # The watchdog's interrupt may end a call that is not a check.
            if not past(deadline):
                raise
            return first or (InvariantProof(target.name, ProofStatus.UNKNOWN, reason="timeout"),
                             None)
        if proof.status is not ProofStatus.PROVED:
            wrong = (proof.reason or "").startswith(_FLAWED) \
                and _UNCHECKED not in proof.reason
            if wrong and not past(deadline):
                continue        # another setting may give a right answer
            return first or (proof, None)
        # Spacer's invariant speaks of the frozen model: the values of the
        # frozen variables are part of it on the whole model.
        facts = [c for decl, value in frozen_facts(model, target)
                 for c in value_conditions(decl.name, decl.type, value)]
        proof.invariant = facts + proof.invariant
        note = None
        if verify and proof.invariant:
            note = _verify(model, target.name, proof.invariant, deadline)
        whole = proof.reason is None or not proof.reason.startswith(_UNSPELLED)
        if note is None and whole:
            return proof, None
        first = first or (proof, note)
        if past(deadline):
            break
    return first or (proof, None)


class _Spacer:
    def __init__(self, enc: Encoding, model: ir.Model, target: ir.Property,
                 deadline: float | None, settings: dict[str, object] | None = None):
        self.enc = enc           # of the model sliced to the target's cone of influence
        self.model = model       # the whole model: counterexamples are found there
        self.target = target
        self.deadline = deadline
        self.settings = settings or {}   # Spacer's parameters beyond the defaults

    def left_ms(self) -> int | None:
        if self.deadline is None:
            return None
        return max(1, int((self.deadline - time.monotonic()) * 1000))

    def ok(self, s: StateCopy) -> z3.BoolRef:
        holds, faults = self.enc.prop(self.target, s)
        return conj([holds, neg(faults)])

    def run(self) -> InvariantProof:
        enc, name = self.enc, self.target.name
        x, y = enc.state("x:"), enc.state("y:")
        step = enc.step(x, y, 0)
        ok = self.ok(x)
        # Built only when needed: Spacer's answer (and how well it prints)
        # depends on the terms created before it runs.
        def failing() -> z3.BoolRef:
            # The initial values, the state constraints in x, or a step from
            # x raise a run-time error.
            return disj([enc.init(x)[1], enc.in_model(x)[1], step.faults])

        # The property alone may be inductive: then Spacer is not needed (and
        # its answer would only restate the reachable states).
        if self.flaw(ok, x, y, step.formula, neg(ok)) is None and not self.allows(ok, x, failing()):
            return InvariantProof(name, ProofStatus.PROVED,
                                  reason="inductive by itself: no lemma needed")
        proof, found = self.spacer(x, y, step.formula, neg(ok), errors=False)
        if found is not None and self.allows(found, x, failing()):
            # A step that raises an error is no step of the relation, so the
            # invariant may hold only because the run stops at an error the
            # reference explorer would report: ask again, errors being bad too.
            proof, _ = self.spacer(x, y, step.formula, disj([neg(ok), failing()]), errors=True)
        return proof

    def allows(self, inv: z3.BoolRef, x: StateCopy, failing: z3.BoolRef) -> bool:
        """Whether some state of ``inv`` raises a run-time error (undecided counts as yes)."""
        s = self.solver()
        s.add(x.wf, inv, failing)
        return s.check() != z3.unsat

    def spacer(self, x: StateCopy, y: StateCopy, step: z3.BoolRef, bad: z3.BoolRef,
               errors: bool) -> tuple[InvariantProof, z3.BoolRef | None]:
        """Spacer's answer with ``bad`` as the states to exclude, and the
        invariant it found (None unless PROVED)."""
        enc, name = self.enc, self.target.name
        inv = z3.Function(f"Inv_{name}", *[t.sort() for t in x.terms], z3.BoolSort())
        solver = z3.SolverFor("HORN")
        # Keep Inv a relation over the state: inlining or slicing it away
        # would give an answer with quantifiers over the transition's unknowns.
        solver.set("xform.inline_eager", False)
        solver.set("xform.inline_linear", False)
        solver.set("xform.slice", False)
        for key, value in self.settings.items():
            solver.set(key, value)
        if (ms := self.left_ms()) is not None:
            solver.set("timeout", ms)
        solver.add(_clause(conj([x.wf, enc.init(x)[0]]), inv(*x.terms)))
        solver.add(_clause(conj([inv(*x.terms), x.wf, y.wf, step]), inv(*y.terms)))
        solver.add(_clause(conj([inv(*x.terms), bad]), boolean(False)))
        answer = solver.check()
        if answer == z3.sat:
            # (Model completion would replace the interpretation by true.)
            found = z3.simplify(_without_quantifiers(solver.model().eval(inv(*x.terms))))
            # Spacer's answer is checked before it is believed: PROVED only
            # when the invariant it gives is inductive and safe here.
            flaw = self.flaw(found, x, y, step, bad)
            if flaw is not None:
                return InvariantProof(name, ProofStatus.UNKNOWN,
                                      reason=f"{_FLAWED} {flaw}"), None
            return self.proved(found, x), found
        if answer == z3.unsat:
            return self.refuted(errors), None
        why = solver.reason_unknown() or "Spacer could not decide"
        if self.deadline is not None and time.monotonic() >= self.deadline:
            why = "timeout"
        return InvariantProof(name, ProofStatus.UNKNOWN, reason=why), None

    def flaw(self, inv: z3.BoolRef, x: StateCopy, y: StateCopy, step: z3.BoolRef,
             bad: z3.BoolRef) -> str | None:
        """Why ``inv`` is not an inductive invariant that excludes ``bad``
        (in the encoding Spacer was given), or None."""
        inv_y = z3.substitute(inv, *zip(x.terms, y.terms)) if x.terms else inv
        for what, facts in (("misses an initial state", [x.wf, self.enc.init(x)[0], neg(inv)]),
                            ("is not inductive", [x.wf, inv, step, y.wf, neg(inv_y)]),
                            (f"does not imply {self.target.name} (or allows a run-time error)",
                             [x.wf, inv, bad])):
            s = self.solver()
            s.add(*facts)
            answer = s.check()
            if answer == z3.sat:
                return what
            if answer != z3.unsat:
                why = "timeout" if past(self.deadline) else s.reason_unknown() or "unknown"
                return f"{_UNCHECKED} ({why})"
        return None

    def solver(self, limit_ms: int | None = None) -> z3.Solver:
        """A solver for the encoding, bounded by the time left (and by ``limit_ms``)."""
        s = self.enc.solver()
        ms = self.left_ms()
        if limit_ms is not None:
            ms = limit_ms if ms is None else min(ms, limit_ms)
        if ms is not None:
            s.set("timeout", ms)
        return s

    def proved(self, found: z3.BoolRef, x: StateCopy) -> InvariantProof:
        parts = self.essential(found, x)
        printer = LemmaPrinter(x.leaves)
        texts = [_spelled(printer.boolean, p) for p in parts]
        # A spelling that does not mean what Spacer's conjunct means (the
        # printer misread a term) is replaced by the exact listing of the
        # values that satisfy it, else by the conjunct case by case over the
        # conditions of its fields, or left out with the reason.
        for spell in (printer.listing, printer.by_cases):
            wrong = set(self.misspelled(parts, texts, x))
            for i, text in enumerate(texts):
                if text is None or i in wrong:
                    texts[i] = _spelled(spell, parts[i])
        for i in self.misspelled(parts, texts, x):
            texts[i] = None
        raw = [str(p) for p, t in zip(parts, texts) if t is None]
        reason = None
        if raw:
            reason = f"{_UNSPELLED}: " + "; ".join(raw)
        return InvariantProof(self.target.name, ProofStatus.PROVED, reason=reason,
                              invariant=[t for t in texts if t is not None])

    def misspelled(self, parts: list[z3.BoolRef], texts: list[str | None],
                   x: StateCopy) -> list[int]:
        """The indexes of the texts that, compiled in the spec, are not
        equivalent to their conjunct in well-formed states.  Texts that
        cannot be compiled count as misspelled; without the spec's source
        nothing is checked (the re-proof in ``_verify`` is then skipped too)."""
        todo = [i for i, t in enumerate(texts) if t is not None]
        if not todo:
            return []
        try:
            again = _with_declarations(self.model, [f"invariant PdrSpelling{i}: {texts[i]}"
                                                    for i in todo])
        except ModelcheckError:
            if len(todo) == 1:
                return todo
            # One bad text should not condemn the others: check them apart.
            alone = [[t if k == i else None for k, t in enumerate(texts)] for i in todo]
            return [i for i, one in zip(todo, alone) if self.misspelled(parts, one, x)]
        if again is None:
            return []
        bad = []
        for i in todo:
            try:
                holds, faults = self.enc.expr(again.get_property(f"PdrSpelling{i}").expr, x)
            except (KeyError, EncodingUnsupported):
                bad.append(i)      # names a variable the sliced model left out
                continue
            s = self.solver(30_000)
            s.add(x.wf, z3.Or(faults, holds != parts[i]))
            if s.check() == z3.sat:      # unknown: left to the re-proof
                bad.append(i)
        return bad

    def essential(self, found: z3.BoolRef, x: StateCopy) -> list[z3.BoolRef]:
        """The invariant's conjuncts, less those implied by the rest (with the
        property itself and the type constraints)."""
        parts = list(found.children()) if z3.is_and(found) else [found]
        parts = [p for p in parts if not is_true(p)]
        keep = list(parts)
        for p in parts:
            others = [q for q in keep if q is not p]
            s = self.solver()
            s.add(x.wf, self.ok(x), *others, neg(p))
            if s.check() == z3.unsat:
                keep = others
        return keep

    def refuted(self, errors: bool = False) -> InvariantProof:
        """Spacer found a bad state reachable (with ``errors``: a violation
        or a run-time error); BMC on the whole model finds which."""
        name = self.target.name
        left = None if self.deadline is None else max(0.001, self.deadline - time.monotonic())
        options = CheckOptions(invariants=(name,), deadlock=False, depth=_BMC_LIMIT,
                               timeout_s=left, extra={"z3_encoding": EncodingOptions()})
        result = BmcEngine().check(self.model, options, NullReporter())
        if result.error is not None:
            return InvariantProof(name, ProofStatus.UNKNOWN, result.error.trace,
                                  f"a run-time error is reachable first: {result.error}")
        prop = result.get_property(name)
        if prop.status is Status.VIOLATED:
            verify_trace(self.model, prop.trace, "pdr")
            return InvariantProof(name, ProofStatus.REFUTED, prop.trace,
                                  f"violated in {prop.steps} steps")
        # A refutation with no counterexample rests on Spacer's word alone (and
        # Spacer has said so on a spec with no initial state): not an answer.
        found = "a violation or a run-time error" if errors else "a violation"
        return InvariantProof(name, ProofStatus.UNKNOWN, None,
                              f"Spacer found {found} reachable, but BMC found no "
                              f"counterexample to confirm it: {prop.reason}")


def _spelled(spell, part: z3.BoolRef) -> str | None:
    try:
        return spell(part)
    except Untranslatable:
        return None


def _without_quantifiers(f: z3.BoolRef) -> z3.BoolRef:
    # Z3 sometimes answers with the image of the transition, existentially
    # quantified over its unknowns; eliminating them gives a state formula.
    if not _has_quantifier(f):
        return f
    goals = z3.Then("qe", "simplify")(f)
    return z3.And([g.as_expr() for g in goals])


def _has_quantifier(f: z3.ExprRef) -> bool:
    todo, seen = [f], set()
    while todo:
        e = todo.pop()
        if z3.is_quantifier(e):
            return True
        if e.get_id() not in seen:
            seen.add(e.get_id())
            todo.extend(e.children())
    return False


def _clause(body: z3.BoolRef, head: z3.BoolRef) -> z3.BoolRef:
    f = z3.Implies(body, head)
    unknowns = _unknowns(f)
    return z3.ForAll(unknowns, f) if unknowns else f


def _unknowns(f: z3.ExprRef) -> list[z3.ExprRef]:
    found: dict[int, z3.ExprRef] = {}
    seen: set[int] = set()
    todo = [f]
    while todo:
        e = todo.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found[e.get_id()] = e
        todo.extend(e.children())
    return list(found.values())


def _with_declarations(model: ir.Model, decls: list[str]) -> ir.Model | None:
    """The spec re-loaded from its source, with the same constants and
    ``decls`` appended; None when the source is not at hand.  Raises
    ModelcheckError (CompileError for text that does not compile)."""
    from modelcheck.pipeline import load_source
    source = dict(model.sources).get(model.path)
    if source is None:
        return None
    consts = {n: render_value(t, v) for n, t, v in model.consts}
    return load_source(source + "\n\n" + "\n".join(decls) + "\n", model.path, consts)


def _verify(model: ir.Model, name: str, lemmas: list[str], deadline: float | None) -> str | None:
    """Re-load the spec with the printed lemmas and re-prove ``name`` by induction;
    a note if that does not go through."""
    decls = lemma_declarations(name, lemmas)
    try:
        again = _with_declarations(model, decls)
    except CompileError as err:
        return f"{name}: the printed invariant does not compile ({err.diagnostics[0].message})"
    except ModelcheckError as err:
        return f"{name}: the printed invariant could not be re-loaded ({err})"
    if again is None:
        return f"{name}: the printed invariant was not re-checked (the spec's source is not at hand)"
    left = None if deadline is None else max(1.0, deadline - time.monotonic())
    result = prove(again, [name], [f"{name}_pdr{i}" for i in range(1, len(decls) + 1)],
                   timeout=left)
    proof = result.get(name)
    if proof.status is ProofStatus.PROVED:
        return None
    return f"{name}: the printed invariant does not re-prove it by induction ({proof.reason})"

