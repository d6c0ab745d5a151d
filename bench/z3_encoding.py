"""Benchmark of the Z3 encoding choices (modelcheck/engines/z3/encoding.py).

Each case runs bounded model checking (or PDR) under the default encoding,
the baseline measured first in this same run, and then under each variant
that changes one choice; it prints the time of each and its ratio to the
baseline (above 1: slower than the default).  Every run must reach the same
verdicts as the baseline, or the script stops with an error.

    .venv/bin/python bench/z3_encoding.py            # the small and medium cases
    .venv/bin/python bench/z3_encoding.py --quick    # the small ones
    .venv/bin/python bench/z3_encoding.py --large    # and the quorum queue (an hour)
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

from modelcheck import api
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.z3.encoding import EncodingOptions
from modelcheck.engines.z3.pdr import PDR_ENCODING, pdr

ROOT = Path(__file__).resolve().parents[1]

QUICK, DEFAULT, LARGE = 0, 1, 2

#: (name, spec, consts, steps, size)
BMC_CASES = [
    ("die_hard", "specs/examples/die_hard.mc", {}, 8, QUICK),
    ("two_phase N=3", "specs/examples/two_phase.mc", {}, 10, QUICK),
    ("two_phase N=4", "specs/examples/two_phase.mc", {"N": "4"}, 10, DEFAULT),
    ("classic_mirrored_queue", "specs/classic_mirrored_queue.mc", {}, 6, QUICK),
    ("classic_mirrored_queue M=2 manual_ack", "specs/classic_mirrored_queue.mc",
     {"M": "2", "consumer_ack_mode": "manual_ack"}, 8, DEFAULT),
    # minutes per variant (ints=int: much longer)
    ("quorum_queue", "specs/quorum_queue.mc", {}, 6, LARGE),
]

#: (name, spec, consts, invariant, size)
PDR_CASES = [
    ("two_phase Consistent", "specs/examples/two_phase.mc", {}, "Consistent", QUICK),
    ("classic_mirrored_queue when_synced", "specs/classic_mirrored_queue.mc",
     {"ha_promote_on_failure": "when_synced"}, "NoLostConfirmed", DEFAULT),
]

BASELINE = EncodingOptions()
VARIANTS = [
    ("sets=bools (one boolean per element)", replace(BASELINE, sets="bools")),
    ("ints=int (Z3 integers)", replace(BASELINE, ints="int")),
    ("params=choice (parameters as unknowns)", replace(BASELINE, params="choice")),
    ("solver=fresh (new solver per depth)", replace(BASELINE, solver="fresh")),
]
PDR_VARIANTS = [
    ("ints=int, sets=bools", EncodingOptions(ints="int", sets="bools")),
    ("ints=int, sets=bv", EncodingOptions(ints="int", sets="bv")),
]


def _bmc(model, steps: int, encoding: EncodingOptions) -> tuple[float, dict]:
    options = CheckOptions(depth=steps, deadlock=False, extra={"z3_encoding": encoding})
    t0 = time.perf_counter()
    result = api.check(model, engine="bmc", options=options)
    elapsed = time.perf_counter() - t0
    if result.error is not None:
        raise SystemExit(f"run-time error in the benchmark spec: {result.error}")
    return elapsed, {p.name: (p.status, p.steps) for p in result.properties}


def _pdr(model, invariant: str, encoding: EncodingOptions, timeout: float) -> tuple[float, str]:
    t0 = time.perf_counter()
    result = pdr(model, [invariant], timeout=timeout, encoding=encoding, verify=False)
    return time.perf_counter() - t0, result.get(invariant).status.value


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the small cases")
    parser.add_argument("--large", action="store_true", help="also the quorum queue")
    parser.add_argument("--pdr-timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    print("BMC: time (s) and ratio to the default encoding "
          f"(ints={BASELINE.ints}, sets={BASELINE.sets}, params={BASELINE.params}, "
          f"solver={BASELINE.solver}); above 1 is slower")
    limit = QUICK if args.quick else LARGE if args.large else DEFAULT
    for name, spec, consts, steps, size in BMC_CASES:
        if size > limit:
            continue
        model = api.load(str(ROOT / spec), consts=consts)
        base_s, base_verdicts = _bmc(model, steps, BASELINE)
        print(f"\n{name}, {steps} steps: default {base_s:.2f} s")
        for label, variant in VARIANTS:
            t, verdicts = _bmc(model, steps, variant)
            if verdicts != base_verdicts:
                raise SystemExit(f"{name}: {label} disagrees with the default: "
                                 f"{verdicts} != {base_verdicts}")
            print(f"  {label:<42} {t:8.2f} s  x{t / base_s:6.2f}")
    print(f"\nPDR (Spacer): time (s) and ratio to its default encoding "
          f"(ints={PDR_ENCODING.ints}, sets={PDR_ENCODING.sets}); timeout {args.pdr_timeout:g} s")
    for name, spec, consts, invariant, size in PDR_CASES:
        if size > limit:
            continue
        model = api.load(str(ROOT / spec), consts=consts)
        base_s, base_status = _pdr(model, invariant, PDR_ENCODING, args.pdr_timeout)
        print(f"\n{name}: default {base_s:.2f} s ({base_status})")
        for label, variant in PDR_VARIANTS:
            t, status = _pdr(model, invariant, variant, args.pdr_timeout)
            print(f"  {label:<42} {t:8.2f} s  x{t / base_s:6.2f} ({status})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
