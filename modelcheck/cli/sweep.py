"""``modelcheck check SPEC --sweep NAME=V1,V2 ...``: one check per combination
of const values, and one table (configuration x property) at the end."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from modelcheck.cli.console import err_console, out_console
from modelcheck.cli.json_out import dumps, failure_json, outcome_json
from modelcheck.cli.options import CheckFlags, SweepAxis, build_options, choose_engine, sweep_configs
from modelcheck.cli.progress import ProgressDisplay
from modelcheck.cli.render import (print_run_error, print_write_errors, status_phrase,
                                   status_style)
from modelcheck.cli.runner import (InterruptWatch, Outcome, combined_exit_code, engine_that_ran,
                                   exit_code, load_model, run_engine, save_traces)
from modelcheck.errors import ModelcheckError, UsageError
from modelcheck.ir.nodes import Model

__all__ = ["run_sweep", "config_label"]


def config_label(axes: Sequence[SweepAxis], config: Mapping[str, str]) -> str:
    """``N=3 mode=manual``: the swept values of one configuration."""
    return " ".join(f"{a.name}={config[a.name]}" for a in axes)


def _load_config(spec: str, axes: Sequence[SweepAxis], config: Mapping[str, str]) -> Model:
    try:
        return load_model(spec, config)
    except UsageError as exc:
        # The front end words a bad value as a -D mistake; say which configuration.
        raise UsageError(f"sweep configuration {config_label(axes, config)}: {exc}",
                         hint=exc.hint) from None


def run_sweep(spec: str, axes: Sequence[SweepAxis], defines: Mapping[str, str],
              requested_engine: str | None, flags: CheckFlags, json_mode: bool,
              out_dir: str) -> int:
    """Run every configuration, print the table (or the JSON list), and
    return the exit code of the whole sweep.  Every configuration is compiled
    before the first search starts, so a bad value fails at once."""
    out, err = out_console(), err_console()
    configs = sweep_configs(axes, defines)
    try:
        models = [_load_config(spec, axes, config) for config in configs]
        options = [build_options(model, flags) for model in models]
        engine = choose_engine(requested_engine, flags, err)
    except ModelcheckError as exc:
        if json_mode:
            click.echo(dumps([failure_json(spec, requested_engine, defines, exc)]))
        raise
    outcomes: list[Outcome] = []
    interrupted = False
    for i, (config, model, opts) in enumerate(zip(configs, models, options), start=1):
        label = f"[{i}/{len(configs)}] {config_label(axes, config)}"
        try:
            with InterruptWatch() as watch, \
                    ProgressDisplay(err, label, enabled=not json_mode) as reporter:
                result = run_engine(model, engine, opts, reporter)
        except KeyboardInterrupt:
            # An engine that does not catch Ctrl-C itself: keep what finished.
            interrupted = True
            break
        except ModelcheckError as exc:
            if json_mode:
                click.echo(dumps(_outcomes_json(outcomes)
                                 + [failure_json(spec, engine, config, exc)]))
            raise
        outcome = Outcome(spec, model, engine_that_ran(engine, result), result)
        stem = f"{model.name}-{config_label(axes, config).replace(' ', '-')}"
        save_traces(outcome, out_dir, stem)
        outcomes.append(outcome)
        if watch.hit:
            interrupted = True
            break
    if json_mode:
        click.echo(dumps(_outcomes_json(outcomes)))
    else:
        print_sweep_table(out, spec, axes, configs, outcomes)
        if interrupted:
            out.print(Text(f"interrupted: {len(outcomes)} of {len(configs)} configurations "
                           "checked", style="yellow"))
    print_write_errors(err, [e for o in outcomes for e in o.write_errors])
    codes = [exit_code(o.result) for o in outcomes]
    if interrupted:
        codes.append(3)
    return combined_exit_code(codes)


def _outcomes_json(outcomes: Sequence[Outcome]) -> list[dict]:
    return [outcome_json(o.spec, o.model, o.engine, o.result, o.error_trace_file, o.write_errors)
            for o in outcomes]


def print_sweep_table(out: Console, spec: str, axes: Sequence[SweepAxis],
                      configs: Sequence[Mapping[str, str]], outcomes: Sequence[Outcome]) -> None:
    """Rows: configurations; columns: the swept consts, each property, states."""
    prop_names: list[str] = []
    for o in outcomes:
        for p in o.result.properties:
            if p.name not in prop_names:
                prop_names.append(p.name)
    engines = sorted({o.engine for o in outcomes})
    table = Table(title=Text(f"sweep of {spec} (engine {', '.join(engines) or '-'})"),
                  title_justify="left")
    for a in axes:
        table.add_column(a.name)
    for name in prop_names:
        table.add_column(name)
    table.add_column("states", justify="right")
    for config, o in zip(configs, outcomes):
        cells: list[Text] = [Text(config[a.name]) for a in axes]
        by_name = {p.name: p for p in o.result.properties}
        for name in prop_names:
            p = by_name.get(name)
            cells.append(Text("-") if p is None else Text(status_phrase(p), style=status_style(p)))
        cells.append(Text(f"{o.result.stats.distinct_states:,}"))
        table.add_row(*cells)
    out.print(table)
    for config, o in zip(configs, outcomes):
        if o.result.reason is not None:
            out.print(Text(f"{config_label(axes, config)}: search incomplete: {o.result.reason}",
                           style="yellow"))
        for p in o.result.properties:
            if p.trace_file:
                out.print(Text(f"{config_label(axes, config)}: {p.name}: {p.trace_file}"))
        if o.result.error is not None:
            out.print(Text(f"{config_label(axes, config)}: run-time error:"))
            print_run_error(out, o.model, o.result.error, o.error_trace_file)
