"""Command-line values -> library inputs: -D, --sweep, CheckOptions, default engine."""
from __future__ import annotations

import sys

import pytest

from modelcheck.cli.options import (CheckFlags, build_options, default_engine, parse_defines,
                                    parse_sweeps, sweep_configs)
from modelcheck.errors import UsageError
from modelcheck.ir import nodes as ir
from modelcheck.ir.types import BOOL


def _model() -> ir.Model:
    true = ir.Const(True, BOOL)
    props = (ir.Property("Safe", ir.PropertyKind.INVARIANT, true),
             ir.Property("Reach", ir.PropertyKind.SOMETIMES, true))
    return ir.Model("m", (), (), (), (), props, ())


def test_defines_are_split_and_dashes_read_as_underscores():
    assert parse_defines(["N=3", "ha-sync-mode=when-synced", " M = 2 "]) == {
        "N": "3", "ha_sync_mode": "when-synced", "M": "2"}


@pytest.mark.parametrize("raw", ["N", "=3", "N=", "N= "])
def test_define_without_name_or_value_is_a_usage_error_with_a_hint(raw):
    with pytest.raises(UsageError) as err:
        parse_defines([raw])
    assert "NAME=VALUE" in str(err.value)
    assert err.value.hint == "for example: -D N=3"


def test_define_given_twice_is_refused_even_spelled_differently():
    with pytest.raises(UsageError, match="given twice"):
        parse_defines(["ha-mode=all", "ha_mode=exactly"])


def test_sweeps_parse_and_combine_first_axis_slowest():
    axes = parse_sweeps(["N=2,3", "mode=a, b"], {"K": "1"})
    assert [(a.name, a.values) for a in axes] == [("N", ("2", "3")), ("mode", ("a", "b"))]
    assert sweep_configs(axes, {"K": "1"}) == [
        {"K": "1", "N": "2", "mode": "a"}, {"K": "1", "N": "2", "mode": "b"},
        {"K": "1", "N": "3", "mode": "a"}, {"K": "1", "N": "3", "mode": "b"}]


@pytest.mark.parametrize("raws, defines, message", [
    (["N"], {}, "expected NAME=V1,V2"),
    (["N=2,,3"], {}, "expected NAME=V1,V2"),
    (["N=2", "N=3"], {}, "given twice"),
    (["N=2,2"], {}, "lists a value twice"),
    (["N=2,3"], {"N": "4"}, "both with -D and with --sweep"),
])
def test_bad_sweeps_are_usage_errors(raws, defines, message):
    with pytest.raises(UsageError, match=message):
        parse_sweeps(raws, defines)


def test_flags_map_onto_check_options():
    flags = CheckFlags(properties=("Safe",), deadlock=False, max_states=10, max_depth=4,
                       timeout_s=1.5, simulate=3, depth=7, seed=9, exact=True, symmetry=False,
                       checkpoint_dir="ck", checkpoint_every_s=5.0, resume_dir="rs",
                       dump_kernel="k.py", k=2, lemmas=("Reach",), master="local[2]",
                       partitions=4, spark_threshold=100, verbose=True, workers=3)
    o = build_options(_model(), flags)
    assert (o.invariants, o.deadlock, o.max_states, o.max_depth, o.timeout_s) == \
        (("Safe",), False, 10, 4, 1.5)
    # --depth bounds both simulation runs and bmc
    assert (o.simulate, o.sim_depth, o.depth, o.seed) == (3, 7, 7, 9)
    assert (o.exact, o.symmetry, o.checkpoint_dir, o.checkpoint_every_s, o.resume_dir,
            o.dump_kernel) == (True, False, "ck", 5.0, "rs", "k.py")
    assert (o.k, o.lemmas, o.master, o.partitions, o.spark_threshold, o.verbose) == \
        (2, ("Reach",), "local[2]", 4, 100, True)
    assert o.workers == 3


def test_flags_not_given_keep_the_option_defaults():
    o = build_options(_model(), CheckFlags())
    assert o.invariants is None and o.deadlock is True
    assert (o.sim_depth, o.depth, o.checkpoint_every_s, o.k) == (100, None, 300.0, 1)


def test_unknown_property_gets_a_did_you_mean_hint():
    with pytest.raises(UsageError) as err:
        build_options(_model(), CheckFlags(properties=("Saf",)))
    assert "--property Saf" in str(err.value)
    assert err.value.hint == "did you mean 'Safe'?"


def test_unrelated_lemma_lists_the_declared_properties():
    with pytest.raises(UsageError) as err:
        build_options(_model(), CheckFlags(lemmas=("Zzzzzz",)))
    assert err.value.hint == "the spec declares: Safe, Reach"


def test_naming_properties_checks_only_those_and_deadlock_only_when_named():
    o = build_options(_model(), CheckFlags(properties=("Safe",)))
    assert (o.invariants, o.deadlock) == (("Safe",), False)
    o = build_options(_model(), CheckFlags(properties=("Reach", "deadlock")))
    assert (o.invariants, o.deadlock) == (("Reach",), True)
    # deadlock alone: no declared property at all, not every one
    o = build_options(_model(), CheckFlags(properties=("deadlock",)))
    assert (o.invariants, o.deadlock) == ((), True)


def test_deadlock_named_and_refused_at_once_is_a_usage_error():
    with pytest.raises(UsageError, match="contradict"):
        build_options(_model(), CheckFlags(properties=("deadlock",), deadlock=False))


def test_deadlock_is_not_a_lemma_name():
    with pytest.raises(UsageError) as err:
        build_options(_model(), CheckFlags(lemmas=("deadlock",)))
    assert "--no-deadlock" in err.value.hint


def test_default_engine_falls_back_to_reference_with_a_notice(monkeypatch):
    # A module that fails to import stands for a compiled engine that is missing or broken.
    monkeypatch.setitem(sys.modules, "modelcheck.engines.compiled.engine", None)
    engine, notice = default_engine()
    assert engine == "reference"
    assert notice.startswith("the compiled engine is not available (")
    assert notice.endswith("; using the reference engine")


def test_default_engine_asks_the_compiled_engine_whether_it_can_run(monkeypatch):
    import types
    fake = types.ModuleType("modelcheck.engines.compiled.engine")
    fake.available = lambda: (False, "no LLVM here")
    monkeypatch.setitem(sys.modules, "modelcheck.engines.compiled.engine", fake)
    assert default_engine() == (
        "reference", "the compiled engine is not available (no LLVM here); using the reference engine")
    fake.available = lambda: True
    assert default_engine() == ("auto", None)


@pytest.mark.parametrize("engine, flags, notes", [
    ("reference", CheckFlags(workers=4),
     ["--workers is read by --engine compiled; --engine reference ignores it"]),
    ("reference", CheckFlags(checkpoint_dir="ck"),
     ["--checkpoint is read by --engine compiled and --engine spark; "
      "--engine reference ignores it"]),
    ("bmc", CheckFlags(extra={"max_memory_mib": 512.0, "preallocate": True}),
     ["--max-memory is read by --engine compiled; --engine bmc ignores it",
      "--preallocate is read by --engine compiled; --engine bmc ignores it"]),
    ("compiled", CheckFlags(master="local[2]", partitions=4),
     ["--master is read by --engine spark; --engine compiled ignores it",
      "--partitions is read by --engine spark; --engine compiled ignores it"]),
    ("auto", CheckFlags(k=2, lemmas=("Inv",)),
     ["--k is for `modelcheck prove`; check ignores it",
      "--lemma is for `modelcheck prove`; check ignores it"]),
    ("spark", CheckFlags(workers=2, checkpoint_dir="ck", spark_threshold=0), [
        "--workers is read by --engine compiled; --engine spark ignores it"]),
    ("auto", CheckFlags(workers=2, checkpoint_dir="ck", dump_kernel="k.py"), []),
    ("reference", CheckFlags(), []),
])
def test_a_flag_the_engine_does_not_read_is_said_to_be_ignored(engine, flags, notes):
    from modelcheck.cli.options import ignored_flags
    assert ignored_flags(engine, flags) == notes


def test_the_note_comes_before_the_run(mc):
    run = mc("check", "specs/examples/die_hard.mc", "--engine", "reference", "--workers", "2",
             "--no-write", "-q")
    assert run.exit_code == 1
    assert "note: --workers is read by --engine compiled; --engine reference ignores it" \
        in run.stderr
