"""Verdict files: TOML tables of spec configurations and the verdict each
property must get.  This module reads and validates them; running the rows
is ``modelcheck.cli.verdicts``.

::

    [[row]]
    id = "CMQ-1"
    spec = "classic_mirrored_queue.mc"      # relative to the toml file
    description = "2 nodes, manual sync"    # optional
    consts = { ha_sync_mode = "manual" }    # optional
    engine = "reference"                    # optional
    no_deadlock = true                      # optional
    large = false                           # optional: runs only with --large
    stop_at_first = false                   # optional: end at the first violation (the
                                            # properties still open are then unknown)
    max_states = 100000                     # optional bounds: max_states, max_depth,
                                            # timeout (s), depth (bmc steps)
    counts = { distinct = 25, generated = 82, depth = 9 }
                                            # optional: the complete search's figures
                                            # (TLC's, where TLC counts the model)
    [[row.check]]
    property = "NoLostConfirmed"
    expect = "violated"                     # holds | violated | unknown | holds_up_to_bound
    steps = 9                               # optional: exact shortest trace length
    [[row.mutant]]                          # optional, only on a row that expects a property to hold
    removes = "promote-on-failure when-synced"   # the safety mechanism it switches off
    consts = { ha_promote_on_failure = "always" } # over the row's consts
    property = "NoLostConfirmed"            # optional: the held property it must violate
    steps = 5                               # optional (with property): its shortest trace length
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from modelcheck.cli.options import const_key
from modelcheck.diagnostics import did_you_mean
from modelcheck.engines import ENGINES
from modelcheck.engines.base import DEADLOCK, Status
from modelcheck.errors import UsageError

__all__ = ["Expectation", "Mutant", "Row", "read_verdict_file", "select_rows", "mutant_error"]

ROW_KEYS = ("id", "spec", "description", "consts", "engine", "no_deadlock", "large",
            "stop_at_first", "max_states", "max_depth", "timeout", "depth", "counts", "check", "mutant")
COUNT_KEYS = ("distinct", "generated", "depth")
CHECK_KEYS = ("property", "expect", "steps")
MUTANT_KEYS = ("removes", "consts", "property", "steps")
EXPECTS = tuple(s.value for s in Status)


@dataclass(frozen=True)
class Expectation:
    property: str
    expect: Status
    steps: int | None = None


@dataclass(frozen=True)
class Mutant:
    """The row's bounds with one safety mechanism switched off through its
    consts: a property the row expects to hold must then be violated, or the
    bounds are too small to show that the mechanism matters."""
    index: int                      # 1, 2, ... in the row's order
    removes: str                    # the mechanism it switches off, in words
    consts: dict[str, str] = field(hash=False)   # over the row's consts
    property: str | None = None     # the property it must violate; None: any the row holds
    steps: int | None = None        # with property: the exact shortest trace length
    line: int | None = None         # where its consts are written, for messages

    def name(self, row_id: str) -> str:
        """Names its trace files and its pytest item."""
        return f"{row_id}-mutant{self.index}"


@dataclass(frozen=True)
class Row:
    id: str
    file: str                       # the verdict file, as given
    spec: str                       # the spec path, resolved against the file's folder
    description: str
    consts: dict[str, str] = field(hash=False)
    checks: tuple[Expectation, ...]
    engine: str | None = None
    no_deadlock: bool = False
    large: bool = False
    stop_at_first: bool = False
    max_states: int | None = None
    max_depth: int | None = None
    timeout: float | None = None
    depth: int | None = None
    # expected figures of the complete search, (name, value) in COUNT_KEYS order
    counts: tuple[tuple[str, int], ...] = ()
    line: int | None = None         # where the row's id is written, for messages
    mutants: tuple[Mutant, ...] = ()

    @property
    def holds_names(self) -> tuple[str, ...]:
        """The properties the row expects to hold (a HOLDS row has one)."""
        return tuple(c.property for c in self.checks if c.expect is Status.HOLDS)


class _Locator:
    """Finds the line of a row (by its id) in the file's text: tomllib keeps no
    positions, and a message that points at the row saves a search."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def row_line(self, row_id: Any) -> int | None:
        pattern = re.compile(r"^\s*id\s*=\s*[\"']" + re.escape(str(row_id)) + r"[\"']")
        for i, line in enumerate(self.lines, start=1):
            if pattern.match(line):
                return i
        return None

    def key_line(self, row_id: Any, key: str, check: int | None = None,
                 table: str = "check") -> int | None:
        """The line of ``key = ...`` in the row, or in its ``check``-th (from 0)
        ``[[row.<table>]]`` table; None when it cannot be found."""
        start = self.row_line(row_id)
        if start is None:
            return None
        pattern = re.compile(r"^\s*" + re.escape(key) + r"\s*=")
        seen, current = -1, None
        for i in range(start, len(self.lines) + 1):
            line = self.lines[i - 1].strip()
            if i > start and line == "[[row]]":
                break
            if line.startswith("[[row.") and line.endswith("]]"):
                current = line[len("[[row."):-2].strip()
                if current == table:
                    seen += 1
            in_place = (current is None if check is None
                        else current == table and seen == check)
            if pattern.match(line) and in_place:
                return i
        return None

    def table_line(self, row_id: Any, table: str, n: int) -> int | None:
        """The line of the ``n``-th (from 0) ``[[row.<table>]]`` header of the row."""
        start = self.row_line(row_id)
        if start is None:
            return None
        seen = -1
        for i in range(start, len(self.lines) + 1):
            line = self.lines[i - 1].strip()
            if i > start and line == "[[row]]":
                break
            if line == f"[[row.{table}]]":
                seen += 1
                if seen == n:
                    return i
        return None

    def error(self, message: str, row_id: Any = None, index: int | None = None,
              hint: str | None = None, key: str | None = None,
              check: int | None = None, table: str = "check") -> UsageError:
        line = None
        if row_id is not None:
            line = ((self.key_line(row_id, key, check, table) if key else None)
                    or (self.table_line(row_id, table, check) if check is not None else None)
                    or self.row_line(row_id))
        where = f"{self.path}:{line}" if line else self.path
        what = f"row {row_id!r}" if row_id is not None else f"row {index}"
        text = f"{where}: {what}: {message}"
        if line:
            text += f"\n  {line} | {self.lines[line - 1].strip()}"
        return UsageError(text, hint=hint)


def _const_text(value: Any) -> str:
    # TOML booleans are written as the language writes them.
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _typed(loc: _Locator, row_id: Any, key: str, value: Any, kinds: tuple[type, ...],
           what: str, check: int | None = None, table: str = "check") -> Any:
    ok = isinstance(value, kinds) and not (bool not in kinds and isinstance(value, bool))
    if not ok:
        raise loc.error(f"'{key}' must be {what}, not {value!r}", row_id, key=key, check=check,
                        table=table)
    return value


def _read_check(loc: _Locator, row_id: Any, n: int, raw: Any) -> Expectation:
    if not isinstance(raw, dict):
        raise loc.error("each [[row.check]] must be a table", row_id)
    for key in raw:
        if key not in CHECK_KEYS:
            raise loc.error(f"unknown key '{key}' in [[row.check]]", row_id, key=key, check=n,
                            hint=did_you_mean(key, CHECK_KEYS)
                            or "a check has: " + ", ".join(CHECK_KEYS))
    if "property" not in raw or "expect" not in raw:
        raise loc.error("each [[row.check]] needs 'property' and 'expect'", row_id,
                        key="property" if "property" in raw else "expect", check=n)
    name = _typed(loc, row_id, "property", raw["property"], (str,), "a property name", n)
    expect = _typed(loc, row_id, "expect", raw["expect"], (str,), "a verdict", n)
    if expect not in EXPECTS:
        raise loc.error(f"'expect' must be one of {', '.join(EXPECTS)}, not {expect!r}", row_id,
                        key="expect", check=n, hint=did_you_mean(expect, EXPECTS))
    steps = raw.get("steps")
    if steps is not None:
        _typed(loc, row_id, "steps", steps, (int,), "a number of steps", n)
        if steps < 0:
            raise loc.error("'steps' must be 0 or more", row_id, key="steps", check=n)
    return Expectation(name, Status(expect), steps)


def _read_mutant(loc: _Locator, row_id: str, n: int, raw: Any, row_consts: dict[str, str],
                 holds: tuple[str, ...]) -> Mutant:
    def error(message: str, key: str | None = None, hint: str | None = None) -> UsageError:
        return loc.error(f"mutant {n + 1}: {message}", row_id, key=key, check=n,
                         table="mutant", hint=hint)

    if not isinstance(raw, dict):
        raise error("each [[row.mutant]] must be a table")
    for key in raw:
        if key not in MUTANT_KEYS:
            raise error(f"unknown key '{key}' in [[row.mutant]]", key=key,
                        hint=did_you_mean(key, MUTANT_KEYS)
                        or "a mutant has: " + ", ".join(MUTANT_KEYS))
    if not holds:
        raise error("the row expects no property to hold, so there is nothing a mutant "
                    "could show", hint="a mutant belongs to a row with a check "
                                       "expect = \"holds\"")
    removes = raw.get("removes")
    if not isinstance(removes, str) or not removes.strip():
        raise error("needs 'removes': the safety mechanism it switches off, in words",
                    key="removes" if "removes" in raw else None)
    consts = raw.get("consts")
    if not isinstance(consts, dict) or not consts:
        raise error("needs 'consts': a table of the consts that switch the mechanism off",
                    key="consts" if "consts" in raw else None)
    for name, value in consts.items():
        if isinstance(value, float) or not isinstance(value, (str, int, bool)):
            raise error(f"const '{name}' must be a number, true or false, or a name, "
                        f"not {value!r}", key="consts")
    texts = {const_key(k): _const_text(v) for k, v in consts.items()}
    if all(row_consts.get(k) == v for k, v in texts.items()):
        raise error("its consts are the row's own: it switches nothing off", key="consts")
    name = raw.get("property")
    if name is not None:
        _typed(loc, row_id, "property", name, (str,), "a property name", n, "mutant")
        if name not in holds:
            raise error(f"property {name!r} is not one the row expects to hold", key="property",
                        hint=did_you_mean(name, holds) or "the row holds: " + ", ".join(holds))
    steps = raw.get("steps")
    if steps is not None:
        _typed(loc, row_id, "steps", steps, (int,), "a number of steps", n, "mutant")
        if steps < 0:
            raise error("'steps' must be 0 or more", key="steps")
        if name is None:
            raise error("'steps' needs 'property': the trace whose length it is", key="steps")
    line = loc.key_line(row_id, "consts", n, "mutant") or loc.table_line(row_id, "mutant", n)
    return Mutant(index=n + 1, removes=removes.strip(), consts=texts, property=name,
                  steps=steps, line=line)


def mutant_error(row: Row, mutant: Mutant, message: str, hint: str | None = None) -> UsageError:
    """An error about a mutant found once its spec is loaded (an unknown
    const, a value of the wrong type), at the line of its consts."""
    lines: list[str] = []
    try:
        lines = Path(row.file).read_text(encoding="utf-8").splitlines()
    except OSError:
        pass
    line = mutant.line
    where = f"{row.file}:{line}" if line else row.file
    text = f"{where}: row {row.id!r}: mutant {mutant.index}: {message}"
    if line and line <= len(lines):
        text += f"\n  {line} | {lines[line - 1].strip()}"
    return UsageError(text, hint=hint)


def _read_row(loc: _Locator, folder: Path, index: int, raw: Any) -> Row:
    if not isinstance(raw, dict):
        raise loc.error("each [[row]] must be a table", index=index)
    row_id = raw.get("id")
    if not isinstance(row_id, str) or not row_id:
        raise loc.error("needs an 'id' (a non-empty string)", index=index)
    for key in raw:
        if key not in ROW_KEYS:
            raise loc.error(f"unknown key '{key}'", row_id, key=key,
                            hint=did_you_mean(key, ROW_KEYS) or "a row has: " + ", ".join(ROW_KEYS))
    if "spec" not in raw:
        raise loc.error("needs a 'spec' (a path relative to the verdict file)", row_id)
    spec = _typed(loc, row_id, "spec", raw["spec"], (str,), "a path")
    consts = _typed(loc, row_id, "consts", raw.get("consts", {}), (dict,), "a table")
    engine = raw.get("engine")
    if engine is not None and engine not in ENGINES:
        raise loc.error(f"unknown engine {engine!r}", row_id, key="engine",
                        hint=did_you_mean(str(engine), ENGINES)
                        or "engines: " + ", ".join(ENGINES))
    checks_raw = raw.get("check", [])
    if not isinstance(checks_raw, list) or not checks_raw:
        raise loc.error("needs at least one [[row.check]]", row_id)
    checks = tuple(_read_check(loc, row_id, n, c) for n, c in enumerate(checks_raw))
    seen: set[str] = set()
    for c in checks:
        if c.property in seen:
            raise loc.error(f"property {c.property!r} is checked twice", row_id)
        seen.add(c.property)
    no_deadlock = _typed(loc, row_id, "no_deadlock", raw.get("no_deadlock", False), (bool,),
                         "true or false")
    if no_deadlock and DEADLOCK in seen:
        raise loc.error("checks 'deadlock' but sets no_deadlock = true", row_id)
    bounds: dict[str, Any] = {}
    for key, kinds, what in (("max_states", (int,), "a number"), ("max_depth", (int,), "a number"),
                             ("timeout", (int, float), "a number of seconds"),
                             ("depth", (int,), "a number of steps")):
        if key in raw:
            bounds[key] = _typed(loc, row_id, key, raw[key], kinds, what)
    row_consts = {const_key(k): _const_text(v) for k, v in consts.items()}
    mutants_raw = raw.get("mutant", [])
    if not isinstance(mutants_raw, list):
        raise loc.error("'mutant' must be [[row.mutant]] tables", row_id, key="mutant")
    holds = tuple(c.property for c in checks if c.expect is Status.HOLDS)
    mutants = tuple(_read_mutant(loc, row_id, n, m, row_consts, holds)
                    for n, m in enumerate(mutants_raw))
    return Row(
        id=row_id, file=loc.path, spec=str(folder / spec), counts=_read_counts(loc, row_id, raw),
        description=str(raw.get("description", "")),
        consts=row_consts, mutants=mutants,
        checks=checks, engine=engine, no_deadlock=no_deadlock,
        large=_typed(loc, row_id, "large", raw.get("large", False), (bool,), "true or false"),
        stop_at_first=_typed(loc, row_id, "stop_at_first", raw.get("stop_at_first", False),
                             (bool,), "true or false"),
        line=loc.row_line(row_id), **bounds)


def _read_counts(loc: _Locator, row_id: str, raw: dict) -> tuple[tuple[str, int], ...]:
    counts = _typed(loc, row_id, "counts", raw.get("counts", {}), (dict,), "a table")
    for key, value in counts.items():
        if key not in COUNT_KEYS:
            raise loc.error(f"unknown count '{key}'", row_id, key="counts",
                            hint=did_you_mean(key, COUNT_KEYS) or "counts: " + ", ".join(COUNT_KEYS))
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise loc.error(f"count '{key}' must be a number, 0 or more", row_id, key="counts")
    return tuple((key, counts[key]) for key in COUNT_KEYS if key in counts)


def read_verdict_file(path: str) -> list[Row]:
    """Every row of one verdict file, validated; the spec paths are resolved
    against the file's folder (and not opened yet)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read verdict file {path}: {exc.strerror or exc}") from None
    loc = _Locator(path, text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None
    rows_raw = data.get("row")
    if not isinstance(rows_raw, list) or not rows_raw:
        raise UsageError(f"{path}: no [[row]] tables", hint="see docs/cli.md, 'Verdict files'")
    extra = [k for k in data if k != "row"]
    if extra:
        raise UsageError(f"{path}: unknown top-level key '{extra[0]}'",
                         hint="a verdict file holds only [[row]] tables")
    folder = Path(path).parent
    return [_read_row(loc, folder, i, raw) for i, raw in enumerate(rows_raw, start=1)]


def select_rows(rows: list[Row], only: tuple[str, ...], large: bool) -> tuple[list[Row], list[Row]]:
    """(rows to run, large rows skipped).  Row ids must be unique across the
    files; ``--only`` names rows (a named large row runs without --large)."""
    seen: dict[str, Row] = {}
    for row in rows:
        if row.id in seen:
            first = seen[row.id]
            raise UsageError(f"row id {row.id!r} appears twice ({first.file} and {row.file})",
                             hint="row ids name trace files, so they must be unique")
        seen[row.id] = row
    for wanted in only:
        if wanted not in seen:
            raise UsageError(f"--only {wanted}: no row of that id",
                             hint=did_you_mean(wanted, seen) or "ids: " + ", ".join(seen))
    if only:
        return [r for r in rows if r.id in only], []
    chosen = [r for r in rows if large or not r.large]
    skipped = [r for r in rows if r.large and not large]
    return chosen, skipped
