"""``modelcheck conform``: run a spec's behaviours on the real system through
a driver (docs/conformance.md).  ``replay`` does a counterexample step by
step and says whether the system shows the same violation; ``walk`` runs
seeded random walks of the model and stops at the first step the system
does not conform at, writing both sides as trace files.

Exit codes: replay 0 reproduced, 1 not reproduced, 3 cannot tell; walk 0
every walk conformed, 1 a mismatch; 2 bad input (MC7xxx).
"""
from __future__ import annotations

import json
from collections.abc import Sequence

import click

from modelcheck.cli.console import out_console
from modelcheck.cli.options import parse_defines
from modelcheck.conform import load_driver, load_for_trace, random_walks, replay_trace
from modelcheck.conform.report import StepLog

__all__ = ["conform"]

_driver_option = click.option("--driver", "driver_ref", required=True, metavar="MODULE:CLASS",
                              help="The driver class for the system under test.")
_driver_opts = click.option("--driver-option", "driver_options", multiple=True,
                            metavar="NAME=VALUE", help="A keyword argument for the driver.")
_define_option = click.option("-D", "defines", multiple=True, metavar="NAME=VALUE",
                              help="Set a const of the spec.")


def _options(pairs: Sequence[str]) -> dict[str, str]:
    out = {}
    for raw in pairs:
        name, sep, value = raw.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"expected NAME=VALUE, got {raw!r}",
                                     param_hint="--driver-option")
        out[name.strip()] = value
    return out


def _show(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _print_log(log: Sequence[StepLog], with_expected: bool) -> None:
    console = out_console()
    for e in log:
        how = "do  " if e.driven else ("    " if e.index == 0 else "wait")
        mark = "ok" if e.agrees else "DIFFERS"
        console.print(f"{e.index:>3} {how} {e.label}  [{mark}]", markup=False, highlight=False)
        for k, v in e.observed.items():
            line = f"      real  {k} = {_show(v)}"
            if with_expected and e.expected is not None and e.expected.get(k) != v:
                line += f"   (trace: {_show(e.expected.get(k))})"
            console.print(line, markup=False, highlight=False)
        if e.note:
            console.print(f"      note: {e.note}", markup=False, highlight=False)


@click.group()
def conform() -> None:
    """Run a spec's behaviours on the real system (a driver per system)."""


@conform.command("replay")
@click.argument("spec", type=click.Path(exists=True, dir_okay=False))
@click.argument("trace_file", metavar="TRACE", type=click.Path(exists=True, dir_okay=False))
@_driver_option
@_driver_opts
@_define_option
def replay_cmd(spec: str, trace_file: str, driver_ref: str, driver_options: tuple[str, ...],
               defines: tuple[str, ...]) -> None:
    """Replay the counterexample TRACE of SPEC on the real system."""
    model, trace = load_for_trace(spec, trace_file, parse_defines(defines))
    driver = load_driver(driver_ref, _options(driver_options))
    report = replay_trace(model, trace, driver)
    _print_log(report.log, with_expected=True)
    verdict = {True: "REPRODUCED", False: "NOT REPRODUCED", None: "UNDETERMINED"}[report.reproduced]
    out_console().print(f"{verdict}: {report.reason}", markup=False, highlight=False)
    raise click.exceptions.Exit({True: 0, False: 1, None: 3}[report.reproduced])


@conform.command("walk")
@click.argument("spec", type=click.Path(exists=True, dir_okay=False))
@_driver_option
@_driver_opts
@_define_option
@click.option("--runs", default=10, show_default=True, type=click.IntRange(1))
@click.option("--depth", default=10, show_default=True, type=click.IntRange(0),
              help="Driven steps per walk at most.")
@click.option("--seed", default=0, show_default=True, type=int,
              help="Walk i uses the seed SEED+i.")
@click.option("--out", "out_dir", default="counterexamples", show_default=True,
              type=click.Path(file_okay=False), help="Folder for a mismatch's trace files.")
def walk_cmd(spec: str, driver_ref: str, driver_options: tuple[str, ...],
             defines: tuple[str, ...], runs: int, depth: int, seed: int, out_dir: str) -> None:
    """Random walks of SPEC's model on the real system."""
    from modelcheck.api import load
    model = load(spec, parse_defines(defines))
    driver = load_driver(driver_ref, _options(driver_options))
    report = random_walks(model, driver, runs=runs, depth=depth, seed=seed, out_dir=out_dir)
    console = out_console()
    for note in report.notes:
        console.print(f"note: {note}", markup=False, highlight=False)
    failed = report.failed
    if failed is None:
        steps = sum(len(r.log) - 1 for r in report.runs)
        stopped = sum(1 for r in report.runs if r.stopped is not None)
        past = f" ({stopped} stopped past the model's bounds)" if stopped else ""
        console.print(f"CONFORMS: {len(report.runs)} walks{past}, {steps} driven steps, seeds "
                      f"{seed}..{seed + len(report.runs) - 1}", markup=False, highlight=False)
        return
    _print_log(failed.log, with_expected=False)
    console.print(f"MISMATCH (seed {failed.seed}): {failed.problem}", markup=False,
                  highlight=False)
    for path in failed.files:
        console.print(f"written to {path}; see it with: modelcheck trace show {path}",
                      markup=False, highlight=False)
    raise click.exceptions.Exit(1)
