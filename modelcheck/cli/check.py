"""``modelcheck check`` and ``modelcheck parse``."""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
import time
from typing import Any

import click
from rich.console import Console
from rich.text import Text

from modelcheck.engines import ENGINES
from modelcheck.errors import ModelcheckError
from modelcheck.ir.nodes import Model
from modelcheck.cli.bounds_note import bounds_notes, known_violations
from modelcheck.cli.console import err_console, out_console
from modelcheck.cli.json_out import dumps, failure_json, outcome_json
from modelcheck.cli.options import (POSITIVE, CheckFlags, build_options, choose_engine, parse_defines,
                                    parse_sweeps, trace_output)
from modelcheck.cli.progress import ProgressDisplay
from modelcheck.cli.render import (consts_text, print_run_error, print_summary, print_traces,
                                   print_write_errors)
from modelcheck.cli.runner import (LATEST, PLAIN, STAMPED, Outcome, engine_that_ran, exit_code,
                                   load_model, run_engine, save_traces, trace_path)
from modelcheck.cli.render import status_phrase
from modelcheck.engines.base import PropertyResult, Status
from modelcheck.cli.trace_render import deadlock_hint
from modelcheck.trace.deadlock import is_deadlock_trace
from modelcheck.trace.store import write_trace

__all__ = ["check_cmd", "parse_cmd", "json_failure", "show_outcome",
           "model_summary", "DEFAULT_OUT"]

#: Where traces go unless --out says otherwise.
DEFAULT_OUT = "counterexamples"


@contextmanager
def json_failure(enabled: bool, spec: str, engine: str | None,
                 defines: Mapping[str, str]) -> Iterator[None]:
    """In --json mode, a spec or usage error still prints its one JSON object
    before it is rendered on stderr (by main) and turned into exit code 2."""
    try:
        yield
    except ModelcheckError as exc:
        if enabled:
            click.echo(dumps(failure_json(spec, engine, defines, exc)))
        raise


def _options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The options of ``check``, in the order --help lists them."""
    decorators = [
        click.argument("spec", type=click.Path(exists=True, dir_okay=False)),
        click.option("-D", "--define", "defines", multiple=True, metavar="NAME=VALUE",
                     help="Set a const (repeatable); '-' in names and values reads as '_'."),
        click.option("--property", "--invariant", "properties", multiple=True, metavar="NAME",
                     help="Check only this property, of any kind (repeatable); 'deadlock' "
                          "names the deadlock check. Default: every property and deadlock."),
        click.option("--engine", type=click.Choice(list(ENGINES)), default=None,
                     help="Engine to run. Default: auto (compiled; the reference explorer "
                          "answers while a new kernel compiles), reference if numba is missing."),
        click.option("--json", "json_mode", is_flag=True,
                     help="Print one JSON object on stdout and nothing else (see docs/cli.md)."),
        click.option("--max-states", type=click.IntRange(min=1), metavar="N",
                     help="Stop after N distinct states (the result is then unknown)."),
        click.option("--max-depth", type=click.IntRange(min=1), metavar="N",
                     help="Explore N levels at most (initial states are level 1)."),
        click.option("--timeout", type=POSITIVE, metavar="S",
                     help="Stop after S seconds (the result is then unknown)."),
        click.option("--no-deadlock", is_flag=True, help="Do not report deadlocks."),
        click.option("--stop-at-first", is_flag=True,
                     help="End the search at the first violation of any property (TLC's "
                          "default); the properties still open are then unknown."),
        click.option("--simulate", type=click.IntRange(min=1), metavar="N",
                     help="Random simulation: N runs (reference engine)."),
        click.option("--depth", type=click.IntRange(min=0), metavar="D",
                     help="Step bound of --simulate runs and of the bmc engine."),
        click.option("--seed", type=int, default=0, show_default=True, metavar="S",
                     help="Random seed of --simulate."),
        click.option("--out", type=click.Path(file_okay=False), default=DEFAULT_OUT,
                     show_default=True, help="Folder for counterexample and witness traces."),
        click.option("--latest", is_flag=True,
                     help="Name each trace <model>-<property>-latest.itf.json, replacing the "
                          "previous run's, instead of adding a time-stamped file."),
        click.option("--no-write", is_flag=True,
                     help="Write no trace files (traces are still printed)."),
        click.option("--sweep", "sweeps", multiple=True, metavar="NAME=V1,V2",
                     help="Check every combination of these const values (repeatable)."),
        click.option("--exact", is_flag=True,
                     help="[compiled] Store whole states instead of fingerprints."),
        click.option("--fingerprint-bits", type=int, default=64, show_default=True,
                     metavar="BITS",
                     help="[compiled] Width of the fingerprints states are told apart by: "
                          "64, 96 or 128 (a second hash word in each slot: 8 bytes a state "
                          "more, a collision 2^32 or 2^64 times less likely)."),
        click.option("--no-symmetry", is_flag=True,
                     help="[compiled, spark, reference] Do not reduce symmetric types."),
        click.option("--checkpoint", type=click.Path(file_okay=False), metavar="DIR",
                     help="[compiled, spark] Write checkpoints to DIR."),
        click.option("--checkpoint-every", type=POSITIVE,
                     metavar="S", help="[compiled, spark] Seconds between checkpoints (default 300)."),
        click.option("--resume", type=click.Path(exists=True, file_okay=False), metavar="DIR",
                     help="[compiled, spark] Resume from the checkpoint in DIR."),
        click.option("--dump-kernel", type=click.Path(dir_okay=False), metavar="FILE",
                     help="[compiled] Write the generated kernel source to FILE."),
        click.option("--kernel-backend", type=click.Choice(["auto", "c", "numba"]), default=None,
                     help="[compiled] What builds the kernel: c (the system's C compiler), "
                          "numba, or auto (default: c when gcc or cc is on the PATH; "
                          "$MODELCHECK_KERNEL_BACKEND)."),
        click.option("--workers", type=click.IntRange(min=0), metavar="N",
                     help="[compiled] Search threads (default, and 0: every core). A search "
                          "goes parallel at a wide level after its first second on one."),
        click.option("--max-memory", type=POSITIVE, metavar="MIB",
                     help="[compiled] Stop (unknown) rather than grow the state table past "
                          "MIB mebibytes (with --preallocate: the whole search's memory)."),
        click.option("--preallocate", is_flag=True,
                     help="[compiled] Size the state table once, at the start, from "
                          "--max-memory (else the memory at hand), for a run too large to "
                          "grow it; a run that fills it stops (unknown). Its slots hold "
                          "the keys alone: every level is kept on disk (--frontier-dir) "
                          "for the traces."),
        click.option("--frontier-dir", type=click.Path(file_okay=False), metavar="DIR",
                     help="[compiled] Where a large level streams to disk (default $TMPDIR)."),
        click.option("--frontier-memory", type=POSITIVE, metavar="MIB",
                     help="[compiled] Mebibytes a level may take in memory before it streams "
                          "to disk (default 512)."),
        click.option("--k", type=click.IntRange(min=1), metavar="K",
                     help="[z3] k of k-induction (default 1)."),
        click.option("--lemma", "lemmas", multiple=True, metavar="NAME",
                     help="[z3] Use this invariant as a lemma (repeatable)."),
        click.option("--master", metavar="URL", help="[spark] Spark master URL."),
        click.option("--partitions", type=click.IntRange(min=1), metavar="N",
                     help="[spark] Number of partitions."),
        click.option("--spark-threshold", type=click.IntRange(min=0), metavar="N",
                     help="[spark] Frontier size from which a level runs on Spark."),
        click.option("--verbose", is_flag=True, help="Engine-specific detail on stderr."),
        click.option("-q", "--quiet", is_flag=True,
                     help="Print the verdicts and the files written, not each trace in full."),
    ]
    for decorator in reversed(decorators):
        f = decorator(f)
    return f


def _flags(kw: dict[str, Any]) -> CheckFlags:
    return CheckFlags(
        properties=tuple(kw["properties"]), deadlock=not kw["no_deadlock"],
        max_states=kw["max_states"], max_depth=kw["max_depth"], timeout_s=kw["timeout"],
        simulate=kw["simulate"], depth=kw["depth"], seed=kw["seed"], exact=kw["exact"],
        fingerprint_bits=kw["fingerprint_bits"], symmetry=not kw["no_symmetry"],
        checkpoint_dir=kw["checkpoint"],
        checkpoint_every_s=kw["checkpoint_every"], resume_dir=kw["resume"],
        dump_kernel=kw["dump_kernel"], k=kw["k"], lemmas=tuple(kw["lemmas"]),
        master=kw["master"], partitions=kw["partitions"],
        spark_threshold=kw["spark_threshold"], verbose=kw["verbose"], workers=kw["workers"],
        stop_on_first=kw["stop_at_first"], extra=_extra(kw))


def _extra(kw: dict[str, Any]) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if kw["max_memory"] is not None:
        extra["max_memory_mib"] = kw["max_memory"]
    if kw["preallocate"]:
        extra["preallocate"] = True
    if kw["frontier_dir"] is not None:
        extra["frontier_dir"] = kw["frontier_dir"]
    if kw["frontier_memory"] is not None:
        extra["frontier_memory_mib"] = kw["frontier_memory"]
    if kw["kernel_backend"] is not None:
        extra["kernel_backend"] = kw["kernel_backend"]
    return extra


@click.command("check")
@_options
@click.pass_context
def check_cmd(ctx: click.Context, **kw: Any) -> None:
    """Check the properties of SPEC: every invariant, step invariant and
    sometimes, and deadlock (or only those --property names).

    Exit code: 0 all hold, 1 a property violated, 2 bad input or a spec
    error, 3 unknown (a bound, timeout or Ctrl-C), 4 internal error (a bug
    in modelcheck)."""
    out, err = out_console(), err_console()
    spec: str = kw["spec"]
    json_mode: bool = kw["json_mode"]
    flags = _flags(kw)
    engine: str | None = kw["engine"]
    with json_failure(json_mode, spec, engine, {}):
        defines = parse_defines(kw["defines"])
        axes = parse_sweeps(kw["sweeps"], defines)
        out_dir, naming = trace_output(kw["out"], kw["no_write"], kw["latest"])
    if axes:
        # A sweep's trace names carry the configuration, not the time.
        from modelcheck.cli.sweep import run_sweep
        ctx.exit(run_sweep(spec, axes, defines, engine, flags, json_mode, out_dir))
    with json_failure(json_mode, spec, engine, defines):
        model = load_model(spec, defines)
        options = build_options(model, flags)
        # Chosen once the spec loaded, so a spec error is not preceded by an engine note.
        engine = choose_engine(engine, flags, err)
        early = None if json_mode else EarlyTraces(err, model, out_dir, naming)
        with ProgressDisplay(err, enabled=not json_mode, on_found=early) as reporter:
            result = run_engine(model, engine, options, reporter)
    outcome = Outcome(spec, model, engine_that_ran(engine, result), result)
    save_traces(outcome, out_dir, model.name, naming, early=early.files if early else None)
    if json_mode:
        click.echo(dumps(outcome_json(spec, model, outcome.engine, result,
                                      outcome.error_trace_file, outcome.write_errors)))
    else:
        show_outcome(out, outcome, reporter.notes, quiet=kw["quiet"])
        # A property that holds here but that the verdict file beside the
        # spec knows violated at other bounds (bounds_note.py): say so.
        for line in bounds_notes(spec, defines, known_violations(spec, model, defines, result)):
            out.print(line)
    # After the verdict: a trace that could not be written does not change it.
    print_write_errors(err, outcome.write_errors)
    ctx.exit(exit_code(result))


class EarlyTraces:
    """``Reporter.found``: a counterexample (or witness) the engine settled
    while its search goes on for other properties is written at once and
    said on ``err``, with what is still open; ``files`` (by property name)
    are then kept by ``save_traces``, not written again."""

    def __init__(self, err: Console, model: Model, out_dir: str | None, naming: str) -> None:
        self.err = err
        self.model = model
        self.out_dir = out_dir
        self.naming = naming
        self.files: dict[str, str] = {}

    def __call__(self, prop: PropertyResult, open_names: tuple[str, ...]) -> None:
        where = ""
        if self.out_dir is not None and prop.trace is not None:
            stamp = {PLAIN: None, STAMPED: time.strftime("%Y%m%dT%H%M%S"), LATEST: LATEST}
            path = trace_path(self.out_dir, self.model.name, prop.name, stamp[self.naming])
            try:
                written = str(write_trace(prop.trace, self.model, path.parent, path.name,
                                          fresh=self.naming == STAMPED))
            except OSError:
                written = None      # said again, with the reason, when the run ends
            if written is not None:
                self.files[prop.name] = written
                where = f", written to {written}"
        still = ", ".join(open_names)
        verb = "is" if len(open_names) == 1 else "are"
        hint = (" (--stop-at-first ends it at the first violation)"
                if prop.status is Status.VIOLATED else "")
        self.err.print(Text(f"found: {prop.name} {status_phrase(prop)}{where}; the search goes "
                            f"on because {still} {verb} still open{hint}"))


def show_outcome(out: Console, outcome: Outcome, notes_shown: list[str], *,
                 quiet: bool = False) -> None:
    """The summary, then each trace step by step, then a run-time error.
    ``quiet``: the summary (its lines name the files written) and the
    error's message, no trace in full."""
    model, result = outcome.model, outcome.result
    print_summary(out, model, outcome.engine, result, outcome.spec, notes_shown)
    if not quiet:
        print_traces(out, model, result)
    if result.error is not None:
        out.print()
        print_run_error(out, model, result.error, None if quiet else outcome.error_trace_file,
                        with_trace=not quiet)
        if quiet and outcome.error_trace_file:
            out.print(Text(f"written to {outcome.error_trace_file}", style="dim"))
    if quiet and any(p.trace is not None for p in result.properties):
        out.print(Text("traces not shown (--quiet): modelcheck trace show FILE shows one",
                       style="dim"))
        for p in result.properties:
            if p.trace is not None and is_deadlock_trace(p.trace):
                out.print(deadlock_hint(p.trace_file))


def model_summary(model: Model) -> str:
    """``die_hard: 2 variables, 6 actions, 1 property, 0 terminals; consts (none)``."""
    def count(items: tuple[Any, ...], one: str, many: str) -> str:
        return f"{len(items)} {one if len(items) == 1 else many}"
    return (f"{model.name}: {count(model.vars, 'variable', 'variables')}, "
            f"{count(model.actions, 'action', 'actions')}, "
            f"{count(model.properties, 'property', 'properties')}, "
            f"{count(model.terminals, 'terminal', 'terminals')}; "
            f"consts {consts_text(model.consts)}")


@click.command("parse")
@click.argument("spec", type=click.Path(exists=True, dir_okay=False))
@click.option("-D", "--define", "defines", multiple=True, metavar="NAME=VALUE",
              help="Set a const (repeatable).")
def parse_cmd(spec: str, defines: tuple[str, ...]) -> None:
    """Compile SPEC and report its diagnostics; check nothing.  On success,
    print a one-line summary of the spec."""
    model = load_model(spec, parse_defines(defines))
    out_console().print(model_summary(model))
