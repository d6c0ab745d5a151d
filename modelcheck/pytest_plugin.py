"""The pytest plugin (entry point ``pytest11``): the rows of a verdict file
as test items, so that a spec's expected verdicts run in the CI that runs its
other tests::

    pytest specs/verdicts.toml                  # a file named on the command line
    pytest specs/verdicts.toml -k CMQ-1         # one row

A ``.toml`` file is collected when it is named on the command line, or when
it matches a pattern of the ``modelcheck_verdicts`` ini option (``modelcheck_verdicts =
*verdicts*.toml`` collects them while pytest walks its folders).  Nothing else
is collected, so a project's own ``pytest`` run is unchanged by installing
modelcheck.  Each row runs as ``modelcheck verdicts`` runs it
(``modelcheck.cli.verdicts``: the same options, engine and trace files), and a
row that differs fails with a line for each difference.

Imports of modelcheck are made on use: pytest loads this plugin in every run
of every project where modelcheck is installed.
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from modelcheck.cli.verdict_file import Mutant, Row

__all__ = ["pytest_addoption", "pytest_configure", "pytest_collect_file", "VerdictFile",
           "VerdictRow", "VerdictMutant", "RowMismatch", "BoundsTooSmall", "INI_PATTERNS"]

#: The ini option that lists the file patterns to collect in folders.
INI_PATTERNS = "modelcheck_verdicts"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("modelcheck", "modelcheck verdict files")
    group.addoption("--modelcheck-engine", default=None, metavar="ENGINE",
                    help="Engine for verdict rows that name none (default: the default "
                         "engine of `modelcheck check`).")
    group.addoption("--modelcheck-large", action="store_true", default=False,
                    help="Also run the verdict rows marked large = true.")
    group.addoption("--modelcheck-out", default="counterexamples", metavar="DIR",
                    help="Folder for the traces of verdict rows (default: counterexamples).")
    parser.addini(INI_PATTERNS, type="args", default=[],
                  help="Patterns of verdict files to collect from folders (for example "
                       "*verdicts*.toml); a .toml named on the command line is always collected.")


def pytest_configure(config: pytest.Config) -> None:
    engine = config.getoption("modelcheck_engine")
    if engine is not None:
        from modelcheck.diagnostics import did_you_mean
        from modelcheck.engines import ENGINES
        if engine not in ENGINES:
            hint = did_you_mean(engine, ENGINES) or "engines: " + ", ".join(ENGINES)
            raise pytest.UsageError(f"--modelcheck-engine: unknown engine {engine!r} ({hint})")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".toml":
        return None
    patterns = parent.config.getini(INI_PATTERNS)
    if parent.session.isinitpath(file_path) or any(file_path.match(p) for p in patterns):
        return VerdictFile.from_parent(parent, path=file_path)
    return None


class RowMismatch(AssertionError):
    """A verdict row whose results differ from its expectations."""


class BoundsTooSmall(pytest.PytestWarning):
    """A mutant of a HOLDS row holds: the row's bounds do not show that the
    mechanism it removes matters."""


class VerdictFile(pytest.File):
    """A verdict file: one item per row, large rows skipped unless
    ``--modelcheck-large``.  A file that does not read (bad TOML, an unknown
    key, a duplicate id) is a collection error with the command line's message."""

    def collect(self) -> Any:
        from modelcheck.cli.verdict_file import read_verdict_file, select_rows
        from modelcheck.errors import ModelcheckError
        try:
            rows = read_verdict_file(str(self.path))
            select_rows(rows, (), large=True)          # refuses a duplicate id
        except ModelcheckError as exc:
            raise self.CollectError(_error_text(exc)) from None
        large = self.config.getoption("modelcheck_large")
        for row in rows:
            items: list[pytest.Item] = [VerdictRow.from_parent(self, name=row.id, row=row)]
            items += [VerdictMutant.from_parent(self, name=m.name(row.id), row=row, mutant=m)
                      for m in row.mutants]
            for item in items:
                if row.large and not large:
                    item.add_marker(pytest.mark.skip(reason=f"{row.id} is a large row: "
                                                            "run with --modelcheck-large"))
                yield item


class VerdictRow(pytest.Item):
    """One row: its spec loaded with its consts, checked by its engine (or
    ``--modelcheck-engine``, or the default engine), its traces written into
    ``--modelcheck-out``, its verdicts and figures compared with the row's."""

    def __init__(self, *, row: Row, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.row = row

    def _engine(self) -> str:
        from modelcheck import api
        engine = self.row.engine or self.config.getoption("modelcheck_engine")
        if engine is None:
            engine, notice = api.default_engine()
            if notice:
                self.user_properties.append(("notice", notice))
        self.user_properties.append(("engine", engine))
        return str(engine)

    def _out(self) -> str:
        return str(Path(self.config.invocation_params.dir) / self.config.getoption("modelcheck_out"))

    def runtest(self) -> None:
        from rich.console import Console
        from modelcheck.cli.verdicts import check_row, load_row, row_mismatches
        model = load_row(self.row)
        engine = self._engine()
        # Nothing is shown while a row runs: pytest owns the terminal.
        quiet = Console(file=io.StringIO())
        done = check_row(self.row, model, engine, self._out(), quiet, self.row.id, False)
        problems = row_mismatches(done)
        if problems:
            ran = done.outcome.result.engine
            head = f"verdict row {self.row.id} ({ran} engine) not as expected:"
            raise RowMismatch("\n".join([head] + [f"  {line}" for line in problems]))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str | Any:
        from modelcheck.errors import ModelcheckError
        if isinstance(excinfo.value, RowMismatch):
            return str(excinfo.value)
        if isinstance(excinfo.value, ModelcheckError):
            return f"verdict row {self.row.id}:\n{_error_text(excinfo.value)}"
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = self.row.line - 1 if self.row.line else None
        return self.path, line, f"verdict row {self.row.id}"


class VerdictMutant(VerdictRow):
    """One mutant of a HOLDS row: the row's bounds with a mechanism switched
    off, which should be violated.  One that holds passes with a
    ``BoundsTooSmall`` warning; a run-time error, or a trace of another
    length than ``steps``, fails."""

    def __init__(self, *, mutant: Mutant, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mutant = mutant

    def runtest(self) -> None:
        import warnings
        from rich.console import Console
        from modelcheck.cli.mutants import check_mutant, held_properties, load_mutant
        from modelcheck.cli.verdicts import load_row, mutant_mismatch
        held = held_properties(self.row, load_row(self.row))
        model = load_mutant(self.row, self.mutant, held)
        quiet = Console(file=io.StringIO())
        done = check_mutant(self.row, self.mutant, held, model, self._engine(), self._out(),
                            quiet, self.name, False)
        if not done.ok:
            ran = done.outcome.result.engine
            raise RowMismatch(f"mutant {self.name} of verdict row {self.row.id} ({ran} engine) "
                              f"not as expected:\n  {mutant_mismatch(done)}")
        if not done.shown:
            warnings.warn(BoundsTooSmall(
                f"verdict row {self.row.id}: bounds too small to show {self.mutant.removes} "
                f"({self.name} holds)"))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = self.mutant.line - 1 if self.mutant.line else None
        return self.path, line, f"mutant {self.name} of verdict row {self.row.id}"


def _error_text(exc: Exception) -> str:
    from modelcheck.cli.render import render_error
    return render_error(exc)
