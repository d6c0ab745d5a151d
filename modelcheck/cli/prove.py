"""``modelcheck prove``: inductive proofs (k-induction with lemmas, or PDR)."""
from __future__ import annotations

from typing import Any

import click
from rich.console import Console
from rich.text import Text

from modelcheck.cli.check import json_failure
from modelcheck.cli.console import err_console, out_console
from modelcheck.cli.json_out import dumps, plain_value
from modelcheck.cli.options import POSITIVE, parse_defines
from modelcheck.cli.render import consts_text, format_seconds
from modelcheck.cli.runner import load_model
from modelcheck.cli.trace_render import render_trace
from modelcheck.engines import require_extra
from modelcheck.engines.z3.proofs import InvariantProof, ProofResult, ProofStatus, lemma_declarations
from modelcheck.errors import UsageError
from modelcheck.ir.nodes import Model
from modelcheck.trace.trace import Trace

__all__ = ["prove_cmd", "proof_json"]

_STYLE = {ProofStatus.PROVED: "green", ProofStatus.REFUTED: "red", ProofStatus.CTI: "yellow",
          ProofStatus.UNKNOWN: "yellow"}


@click.command("prove")
@click.argument("spec", type=click.Path(exists=True, dir_okay=False))
@click.option("-D", "--define", "defines", multiple=True, metavar="NAME=VALUE",
              help="Set a const (repeatable); '-' in names and values reads as '_'.")
@click.option("--invariant", "invariants", multiple=True, metavar="NAME",
              help="Prove this invariant (repeatable). Default: every invariant not used as a lemma.")
@click.option("--lemma", "lemmas", multiple=True, metavar="NAME",
              help="[induction] Assume and prove this invariant too (repeatable).")
@click.option("--k", type=click.IntRange(min=1), default=1, show_default=True, metavar="K",
              help="[induction] k of k-induction.")
@click.option("--engine", type=click.Choice(["induction", "pdr"]), default="induction",
              show_default=True, help="k-induction with your lemmas, or PDR (Spacer) finding them.")
@click.option("--timeout", type=POSITIVE, metavar="S",
              help="Give up after S seconds (the answer is then unknown).")
@click.option("--no-verify", is_flag=True,
              help="[pdr] Do not re-prove the printed invariant by induction.")
@click.option("--json", "json_mode", is_flag=True,
              help="Print one JSON object on stdout and nothing else.")
@click.pass_context
def prove_cmd(ctx: click.Context, spec: str, defines: tuple[str, ...], invariants: tuple[str, ...],
              lemmas: tuple[str, ...], k: int, engine: str, timeout: float | None,
              no_verify: bool, json_mode: bool) -> None:
    """Prove invariants of SPEC for every reachable state (of these consts),
    not only up to a depth.  With --engine induction, each invariant and the
    --lemma invariants must be inductive: a failure shows a counterexample to
    induction (a step from a state satisfying them all to one that breaks a
    conjunct) naming the action and the conjunct.  With --engine pdr, Z3's
    Spacer looks for the inductive invariant itself and prints it as lemmas
    you can add to the spec.  Exit code: 0 proved, 1 violated or not
    inductive, 2 bad input, 3 unknown (timeout)."""
    with json_failure(json_mode, spec, engine, {}):
        consts = parse_defines(defines)
    with json_failure(json_mode, spec, engine, consts):
        model = load_model(spec, consts)
        require_extra(engine)
        if engine == "pdr":
            if lemmas or k != 1:
                raise UsageError("--engine pdr finds its own lemmas: --lemma and --k are for "
                                 "--engine induction")
            # The solver is imported on use: other commands start without it.
            from modelcheck.engines.z3.pdr import pdr
            if not json_mode:
                err_console().print("proving with PDR (Z3 Spacer)...", style="dim")
            result = pdr(model, invariants or None, timeout=timeout, verify=not no_verify)
        else:
            from modelcheck.engines.z3.induction import prove
            result = prove(model, invariants or None, lemmas, k=k, timeout=timeout)
    if json_mode:
        click.echo(dumps(proof_json(spec, model, result)))
    else:
        show_proof(out_console(), spec, model, result)
    ctx.exit(result.exit_code)


# ---------------------------------------------------------------- text

def show_proof(out: Console, spec: str, model: Model, result: ProofResult) -> None:
    how = "k-induction" if result.engine == "induction" else "PDR (Z3 Spacer)"
    if result.engine == "induction":
        how += f", k={result.k}"
    out.print(Text(f"prove {spec} ({how}): consts {consts_text(model.consts)}", style="bold"))
    width = max(len(p.name) for p in result.invariants)
    for p in result.invariants:
        line = Text(f"  {p.name:<{width}}  ")
        line.append(p.status.value, style=_STYLE[p.status])
        if p.lemmas:
            line.append(f"  with lemmas {', '.join(p.lemmas)}", style="dim")
        if p.reason and p.status is not ProofStatus.CTI:
            line.append(f"  ({p.reason})", style="dim")
        out.print(line)
    counts = _obligation_counts(result)
    out.print(Text(f"{counts}; {format_seconds(result.elapsed_s)}", style="dim"))
    for note in result.notes:
        out.print(Text(f"note: {note}", style="yellow"))
    for p in result.invariants:
        _show_details(out, model, p)


def _obligation_counts(result: ProofResult) -> str:
    total = len(result.obligations)
    failed = sum(1 for o in result.obligations if o.status is not ProofStatus.PROVED)
    one, many = ("query", "queries") if result.engine == "pdr" else ("obligation", "obligations")
    return f"{total} {one if total == 1 else many}, {failed} not proved"


def _show_details(out: Console, model: Model, p: InvariantProof) -> None:
    if p.status is ProofStatus.CTI:
        out.print()
        out.print(Text(f"{p.name} is not inductive:", style="bold yellow"))
        for o in p.failed:
            out.print(f"  {o.action} breaks {o.conjunct}")
        if p.trace is not None:
            _show_cti(out, model, p.trace)
    elif p.status is ProofStatus.REFUTED and p.trace is not None:
        out.print()
        out.print(render_trace(p.trace, model))
    elif p.status is ProofStatus.UNKNOWN and p.trace is not None:
        out.print()
        out.print(render_trace(p.trace, model))
    elif p.status is ProofStatus.PROVED and p.invariant:
        out.print()
        out.print(Text(f"inductive invariant found for {p.name} ({len(p.invariant)} conjuncts); "
                       f"keep it as lemmas:", style="bold"))
        out.print(f"# Lemmas for the inductive proof of {p.name} (found by PDR)", markup=False,
                  highlight=False)
        for decl in lemma_declarations(p.name, p.invariant):
            out.print(decl, markup=False, highlight=False, soft_wrap=True)


def _show_cti(out: Console, model: Model, trace: Trace) -> None:
    meta = trace.meta
    out.print()
    out.print(Text(f"counterexample to induction: {meta.get('action')} breaks "
                   f"{meta.get('conjunct')} ({meta.get('conjunct_text')})", style="bold"))
    out.print(Text("State 0 (shown as Init) is any state satisfying the invariant and every "
                   "lemma; it need not be reachable.  If it is not, add a lemma (an invariant of "
                   "the spec, passed with --lemma) that excludes it.", style="dim"))
    out.print(render_trace(trace, model))


# ---------------------------------------------------------------- JSON

def _trace_json(trace: Trace | None) -> dict[str, Any] | None:
    if trace is None:
        return None
    return {
        "kind": trace.kind,
        "property": trace.property_name,
        "steps": [{"action": s.action, "params": {n: plain_value(v) for n, v in s.params},
                   "state": {n: plain_value(v) for n, v in s.state.items()}}
                  for s in trace.steps],
        "meta": {k: plain_value(v) for k, v in trace.meta.items()},
    }


def proof_json(spec: str, model: Model, result: ProofResult) -> dict[str, Any]:
    """The --json object of ``prove`` (documented in docs/engines/z3.md)."""
    return {
        "spec": spec,
        "model": model.name,
        "engine": result.engine,
        "k": result.k,
        "consts": {name: plain_value(value) for name, _, value in model.consts},
        "exit_code": result.exit_code,
        "elapsed_s": round(result.elapsed_s, 3),
        "invariants": [{
            "name": p.name,
            "status": p.status.name.lower(),
            "reason": p.reason,
            "lemmas": list(p.lemmas),
            "failed": [{"kind": o.kind, "conjunct": o.conjunct, "action": o.action,
                        "status": o.status.name.lower()} for o in p.failed],
            "trace": _trace_json(p.trace),
            "inductive_invariant": lemma_declarations(p.name, p.invariant),
        } for p in result.invariants],
        "obligations": [{"kind": o.kind, "conjunct": o.conjunct, "action": o.action,
                         "status": o.status.name.lower(), "seconds": round(o.seconds, 4)}
                        for o in result.obligations],
        "notes": list(result.notes),
    }
