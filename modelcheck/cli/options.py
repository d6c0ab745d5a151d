"""Command-line values turned into the objects the library takes: ``-D`` and
``--sweep`` pairs, the engine flags (-> ``CheckOptions``), and the default
engine.  Nothing here prints; bad input raises ``UsageError``."""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from modelcheck import api
from modelcheck.cli.runner import LATEST, STAMPED
from modelcheck.engines.base import DEADLOCK, CheckOptions
from modelcheck.engines.compiled.kernel.widths import FINGERPRINT_BITS
from modelcheck.diagnostics import did_you_mean
from modelcheck.errors import UsageError
from modelcheck.ir.nodes import Model

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["REFERENCE", "CheckFlags", "SweepAxis", "parse_defines", "parse_sweeps", "sweep_configs",
           "build_options", "default_engine", "const_key", "PositiveAmount", "POSITIVE",
           "trace_output", "choose_engine"]

#: The engine every run falls back to; it is always importable.
REFERENCE = "reference"


class PositiveAmount(click.ParamType):
    """A finite number above 0, for every option that takes seconds or
    mebibytes.  ``nan`` and ``inf`` are refused: compared with a bound, nan is
    never over it, so ``--timeout nan`` would quietly mean no timeout."""
    name = "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        try:
            amount = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(amount) or amount <= 0:
            self.fail(f"{value!r} is not a finite number above 0", param, ctx)
        return amount


#: The one type of --timeout, --checkpoint-every and --max-memory.
POSITIVE = PositiveAmount()


def trace_output(out: str, no_write: bool, latest: bool) -> tuple[str | None, str]:
    """``(folder, naming)`` for ``save_traces`` from ``--out``, ``--no-write``
    and ``--latest``: the folder is None when nothing is to be written."""
    if no_write and latest:
        raise UsageError("--no-write and --latest contradict each other",
                         hint="--latest names the trace files; --no-write writes none")
    return (None if no_write else out), (LATEST if latest else STAMPED)


def const_key(name: str) -> str:
    """The const name as the spec spells it: ``-`` on the command line reads as
    ``_`` (so ``-D ha-sync-mode=manual`` names ``ha_sync_mode``)."""
    return name.strip().replace("-", "_")


def parse_defines(pairs: Sequence[str]) -> dict[str, str]:
    """``["N=3", "ha-mode=all"]`` -> ``{"N": "3", "ha_mode": "all"}``.  The
    values stay text: the front end reads them by the const's declared type."""
    defines: dict[str, str] = {}
    for raw in pairs:
        name, sep, value = raw.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise UsageError(f"bad -D {raw!r}: expected NAME=VALUE", hint="for example: -D N=3")
        key = const_key(name)
        if key in defines:
            raise UsageError(f"-D {name.strip()} is given twice")
        defines[key] = value.strip()
    return defines


@dataclass(frozen=True)
class SweepAxis:
    """One ``--sweep NAME=V1,V2``: a const and the values it takes in turn."""
    name: str
    values: tuple[str, ...]


def parse_sweeps(pairs: Sequence[str], defines: dict[str, str]) -> list[SweepAxis]:
    axes: list[SweepAxis] = []
    for raw in pairs:
        name, sep, values_text = raw.partition("=")
        values = tuple(v.strip() for v in values_text.split(","))
        if not sep or not name.strip() or not all(values):
            raise UsageError(f"bad --sweep {raw!r}: expected NAME=V1,V2,...",
                             hint="for example: --sweep N=2,3,4")
        key = const_key(name)
        if key in defines:
            raise UsageError(f"{name.strip()} is given both with -D and with --sweep",
                             hint="a swept const takes each of its --sweep values in turn")
        if any(a.name == key for a in axes):
            raise UsageError(f"--sweep {name.strip()} is given twice",
                             hint="list every value in one --sweep NAME=V1,V2,...")
        if len(set(values)) != len(values):
            raise UsageError(f"--sweep {name.strip()} lists a value twice")
        axes.append(SweepAxis(key, values))
    return axes


def sweep_configs(axes: Sequence[SweepAxis], defines: dict[str, str]) -> list[dict[str, str]]:
    """Every combination of the swept values (the first axis varies slowest),
    each merged over the fixed ``-D`` values."""
    configs = []
    for combo in itertools.product(*(a.values for a in axes)):
        config = dict(defines)
        config.update({a.name: v for a, v in zip(axes, combo)})
        configs.append(config)
    return configs


@dataclass(frozen=True)
class CheckFlags:
    """The search flags of ``modelcheck check`` as given (None: not given).
    ``properties`` are the ``--property`` names (empty: every property)."""
    properties: tuple[str, ...] = ()
    deadlock: bool = True
    max_states: int | None = None
    max_depth: int | None = None
    timeout_s: float | None = None
    simulate: int | None = None
    depth: int | None = None
    seed: int = 0
    exact: bool = False
    fingerprint_bits: int = 64
    symmetry: bool = True
    checkpoint_dir: str | None = None
    checkpoint_every_s: float | None = None
    resume_dir: str | None = None
    dump_kernel: str | None = None
    k: int | None = None
    lemmas: tuple[str, ...] = ()
    master: str | None = None
    partitions: int | None = None
    spark_threshold: int | None = None
    verbose: bool = False
    workers: int | None = None
    stop_on_first: bool = False
    extra: dict[str, object] = field(default_factory=dict)


def _check_property_names(model: Model, names: Sequence[str], flag: str,
                          deadlock_ok: bool = False) -> None:
    known = [p.name for p in model.properties] + [t.name for t in model.temporals]
    for name in names:
        if name in known or (deadlock_ok and name == DEADLOCK):
            continue
        if name == DEADLOCK:
            raise UsageError(f"{flag} {DEADLOCK}: deadlock is not a declared property",
                             hint="deadlock is checked unless --no-deadlock is given")
        hint = did_you_mean(name, known + ([DEADLOCK] if deadlock_ok else []))
        if hint is None:
            hint = ("the spec declares: " + ", ".join(known)) if known else \
                "the spec declares no properties"
        raise UsageError(f"{flag} {name}: no property of that name in {model.name}", hint=hint)


def _selection(flags: CheckFlags) -> tuple[tuple[str, ...] | None, bool]:
    """``(invariants, deadlock)`` of ``CheckOptions``: with no ``--property``
    every property and deadlock (unless ``--no-deadlock``); with some, only
    those, and deadlock only when ``deadlock`` is one of them."""
    if not flags.properties:
        return None, flags.deadlock
    if DEADLOCK in flags.properties and not flags.deadlock:
        raise UsageError("--property deadlock and --no-deadlock contradict each other",
                         hint="drop one of them")
    return tuple(n for n in flags.properties if n != DEADLOCK), DEADLOCK in flags.properties


def _check_fingerprint_bits(flags: CheckFlags) -> None:
    bits = flags.fingerprint_bits
    if bits not in FINGERPRINT_BITS:
        raise UsageError(f"--fingerprint-bits {bits}: not a fingerprint width",
                         hint="use 64, 96 or 128")
    if bits != 64 and flags.exact:
        raise UsageError(f"--fingerprint-bits {bits} and --exact contradict each other "
                         f"(--exact compares whole states, not fingerprints)",
                         hint="drop one of them")


def build_options(model: Model, flags: CheckFlags) -> CheckOptions:
    """``CheckOptions`` for ``model`` from the command-line flags; property and
    lemma names are checked against the spec here, before any search starts."""
    _check_fingerprint_bits(flags)
    _check_property_names(model, flags.properties, "--property", deadlock_ok=True)
    _check_property_names(model, flags.lemmas, "--lemma")
    invariants, deadlock = _selection(flags)
    options = CheckOptions(
        invariants=invariants,
        deadlock=deadlock,
        max_states=flags.max_states,
        max_depth=flags.max_depth,
        timeout_s=flags.timeout_s,
        simulate=flags.simulate,
        seed=flags.seed,
        exact=flags.exact,
        fingerprint_bits=flags.fingerprint_bits,
        symmetry=flags.symmetry,
        checkpoint_dir=flags.checkpoint_dir,
        resume_dir=flags.resume_dir,
        dump_kernel=flags.dump_kernel,
        depth=flags.depth,
        lemmas=tuple(flags.lemmas),
        master=flags.master,
        partitions=flags.partitions,
        spark_threshold=flags.spark_threshold,
        verbose=flags.verbose,
        workers=flags.workers,
        stop_on_first=flags.stop_on_first,
        extra=dict(flags.extra),
    )
    # --depth is the one step bound of both simulation and bmc; the fields
    # keep their own defaults when it is not given.
    if flags.depth is not None:
        options.sim_depth = flags.depth
    if flags.checkpoint_every_s is not None:
        options.checkpoint_every_s = flags.checkpoint_every_s
    if flags.k is not None:
        options.k = flags.k
    return options


#: The flags only some engines read: each with the engines that read it
#: ("auto" runs the compiled engine, or the reference explorer while a kernel
#: compiles; none: ``prove``'s) and whether ``CheckFlags`` has it.  Given to
#: another engine, a flag would change nothing: ``ignored_flags`` says so
#: rather than let a run without checkpoints look like one with them.
_COMPILED = frozenset({"auto", "compiled"})
_KERNELS = frozenset({"auto", "compiled", "spark"})
_SPARK = frozenset({"spark"})
_ENGINE_FLAGS: tuple[tuple[str, frozenset[str], Callable[[CheckFlags], bool]], ...] = (
    ("--workers", _COMPILED, lambda f: f.workers is not None),
    ("--max-memory", _COMPILED, lambda f: f.extra.get("max_memory_mib") is not None),
    ("--preallocate", _COMPILED, lambda f: bool(f.extra.get("preallocate"))),
    ("--frontier-dir", _COMPILED, lambda f: f.extra.get("frontier_dir") is not None),
    ("--frontier-memory", _COMPILED, lambda f: f.extra.get("frontier_memory_mib") is not None),
    ("--dump-kernel", _KERNELS, lambda f: f.dump_kernel is not None),
    ("--kernel-backend", _KERNELS, lambda f: f.extra.get("kernel_backend") is not None),
    ("--checkpoint", _KERNELS, lambda f: f.checkpoint_dir is not None),
    ("--checkpoint-every", _KERNELS, lambda f: f.checkpoint_every_s is not None),
    ("--master", _SPARK, lambda f: f.master is not None),
    ("--partitions", _SPARK, lambda f: f.partitions is not None),
    ("--spark-threshold", _SPARK, lambda f: f.spark_threshold is not None),
    ("--k", frozenset(), lambda f: f.k is not None),
    ("--lemma", frozenset(), lambda f: bool(f.lemmas)),
)


def ignored_flags(engine: str, flags: CheckFlags) -> list[str]:
    """A note for each flag given that ``engine`` does not read."""
    notes = []
    for flag, readers, given in _ENGINE_FLAGS:
        if not given(flags) or engine in readers:
            continue
        if not readers:
            notes.append(f"{flag} is for `modelcheck prove`; check ignores it")
        else:
            named = " and ".join(f"--engine {r}" for r in sorted(readers - {"auto"}))
            notes.append(f"{flag} is read by {named}; --engine {engine} ignores it")
    return notes


def default_engine() -> tuple[str, str | None]:
    """The engine used when ``--engine`` is not given, and a one-line notice
    when it falls back: ``modelcheck.api.default_engine``, the one choice
    that ``modelcheck.check()`` makes too."""
    return api.default_engine()


def choose_engine(requested: str | None, flags: CheckFlags, err: Console) -> str:
    """The engine to run: the one asked for, else the reference engine for a
    simulation, else the default engine (with a notice when it falls back)."""
    if flags.simulate is not None:
        if requested not in (None, REFERENCE):
            raise UsageError(f"--simulate runs on the reference engine, not {requested}",
                             hint="drop --engine, or drop --simulate for an exhaustive check")
        return REFERENCE
    if requested is None:
        requested, notice = default_engine()
        if notice:
            err.print(f"note: {notice}")
    for note in ignored_flags(requested, flags):
        err.print(f"note: {note}")
    return requested
