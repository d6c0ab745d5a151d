"""When ``check`` says a property holds but the verdict file beside the spec
knows a violation of it under the same settings at other bounds.

A spec's defaults are small, so that an ad-hoc run is quick; small enough,
often, that a loss the spec can show needs more crashes, messages or nodes
than they allow.  The verdict file next to the spec (``verdicts.toml`` in the
spec's folder, docs/cli.md "Verdict files") already records which consts
show which violation, in its rows and their mutants.  After a run, for each
property that holds, the rows of that file for the same spec that expect the
property to be violated are compared with the run's consts:

* a const that is no int (a bool, an enum member: a policy, a mode, a
  switch) is a *setting*: the row must have the run's value;
* an int const is a *bound* (nodes, messages, crashes, terms, capacities):
  the row may differ, and the ones that differ are what the note lists.

Only consts that the row or the run sets are compared (one neither sets is
the spec's default in both).  A row that agrees on every setting and differs
in some bound means the bounds of the run are too small to show what the row
shows: ``check`` prints a note naming the row and the ``-D`` values that
reproduce it.  Nothing is searched: the verdict file is read and the spec
compiled once more with its defaults, nothing else (so a run's result and
exit code never change).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text

from modelcheck.engines.base import CheckResult, Status
from modelcheck.ir.nodes import Model
from modelcheck.ir.types import IntType, Type

__all__ = ["KnownViolation", "known_violations", "bounds_notes", "VERDICT_FILE"]

#: The verdict file a spec's folder may hold.
VERDICT_FILE = "verdicts.toml"
#: How many rows one note lists.
MOST_ROWS = 3


@dataclass(frozen=True)
class KnownViolation:
    """Row ``row`` (a mutant: ``CMQ-3-mutant1``) of ``file`` expects
    ``property`` violated (in ``steps`` steps, when recorded) with the run's
    settings and the bounds ``bounds`` (name, value as text) instead of the
    run's."""
    property: str
    row: str
    file: str
    bounds: tuple[tuple[str, str], ...]
    steps: int | None
    #: the run's values of ``bounds``, in the same order
    here: tuple[str, ...] = ()
    #: how many of ``bounds`` the row lowers rather than raises
    lowered: int = 0


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def known_violations(spec: str, model: Model, defines: Mapping[str, str],
                     result: CheckResult) -> list[KnownViolation]:
    """The rows of the verdict file beside ``spec`` that violate a property
    the run found to hold, with the same settings (module doc); [] when there
    is no such file or it cannot be read."""
    holds = {p.name for p in result.properties if p.status is Status.HOLDS}
    beside = Path(spec).parent / VERDICT_FILE
    if not holds or not beside.is_file():
        return []
    from modelcheck.cli.options import const_key
    from modelcheck.cli.runner import load_model
    from modelcheck.cli.verdict_file import read_verdict_file
    from modelcheck.errors import ModelcheckError
    from modelcheck.semantics.consts import parse_const_value
    try:
        rows = read_verdict_file(str(beside))
        defaults = model if not defines else load_model(spec, {})
    except ModelcheckError:
        return []
    target = Path(spec).resolve()
    types: dict[str, Type] = {name: t for name, t, _ in model.consts}
    run_values = model.const_values
    default_values = defaults.const_values
    given = {const_key(k) for k in defines}
    found: list[KnownViolation] = []
    for row in rows:
        if Path(row.spec).resolve() != target:
            continue
        cases: list[tuple[str, dict[str, str], str, int | None]] = [
            (row.id, row.consts, c.property, c.steps)
            for c in row.checks if c.expect is Status.VIOLATED and c.property in holds]
        row_holds = [c.property for c in row.checks if c.expect is Status.HOLDS]
        for m in row.mutants:
            prop = m.property or (row_holds[0] if len(row_holds) == 1 else None)
            if prop in holds:
                cases.append((f"{row.id}-mutant{m.index}", {**row.consts, **m.consts}, prop,
                              m.steps if m.property else None))
        for name, consts, prop, steps in cases:
            bounds = _bounds(consts, given, types, run_values, default_values, parse_const_value)
            if bounds:
                here = tuple(_text(run_values[n]) for n, _ in bounds)
                lowered = sum(1 for (n, v) in bounds if int(v) < int(run_values[n]))
                found.append(KnownViolation(prop, name, str(beside), bounds, steps, here, lowered))
    return found


def _bounds(consts: Mapping[str, str], given: set[str], types: Mapping[str, Type],
            run_values: Mapping[str, Any], default_values: Mapping[str, Any],
            parse: Any) -> tuple[tuple[str, str], ...] | None:
    """The bounds (int consts) in which the row differs from the run, in the
    spec's order; None when a setting differs, a const is unknown, or
    nothing differs."""
    from modelcheck.errors import ModelcheckError
    differ: list[tuple[str, str]] = []
    for name in [n for n in types if n in consts or n in given]:
        t = types[name]
        try:
            row_value = parse(consts[name], t, name) if name in consts else default_values[name]
        except (ModelcheckError, KeyError):
            return None
        if row_value == run_values.get(name):
            continue
        if not isinstance(t, IntType) or isinstance(row_value, bool):
            return None         # another setting: the row says nothing about this run's
        differ.append((name, _text(row_value)))
    if any(name not in types for name in consts):
        return None             # a const this version of the spec does not have
    return tuple(differ) or None


def bounds_notes(spec: str, defines: Mapping[str, str], known: list[KnownViolation]) -> list[Text]:
    """The notes ``check`` prints: per property, the rows (fewest differing
    bounds first) and a command that runs the first one's bounds."""
    out: list[Text] = []
    by_prop: dict[str, list[KnownViolation]] = {}
    for k in known:
        by_prop.setdefault(k.property, []).append(k)
    for prop, rows in by_prop.items():
        # rows that only raise bounds first, then the fewest changes, the shortest trace
        rows.sort(key=lambda k: (k.lowered, len(k.bounds), k.steps if k.steps is not None else 1 << 30))
        file = rows[0].file
        head = Text("note: ", style="bold yellow")
        head.append(f"{prop} holds at these bounds, but {file} has "
                    f"{'a row' if len(rows) == 1 else 'rows'} with the same settings and other "
                    f"bounds that violate{'s' if len(rows) == 1 else ''} it: these bounds are too "
                    f"small to show it")
        out.append(head)
        for k in rows[:MOST_ROWS]:
            where = ", ".join(f"{n}={v} (here {h})" for (n, v), h in zip(k.bounds, k.here))
            steps = f" in {k.steps} step{'s' if k.steps != 1 else ''}" if k.steps is not None else ""
            out.append(Text(f"  {k.row}, {where}: violated{steps}"))
        if len(rows) > MOST_ROWS:
            out.append(Text(f"  ... and {len(rows) - MOST_ROWS} more", style="dim"))
        consts = dict(defines)
        consts.update(dict(rows[0].bounds))
        command = " ".join(["modelcheck check", spec] + [f"-D {n}={v}" for n, v in consts.items()])
        out.append(Text(f"  try: {command}", style="dim"))
    return out
