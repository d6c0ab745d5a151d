"""The specs against a real RabbitMQ 3.10 cluster (docs/conformance.md,
"The RabbitMQ drivers"): random walks of the HOLDS rows, and replays of the
counterexamples a driver can cause.  Not part of the test run: it takes
hours at 50 walks a row.

    .venv/bin/python bench/conform_rabbitmq.py walks [--runs 50] [--depth 6] [--row ID ...]
    .venv/bin/python bench/conform_rabbitmq.py replays [--row ID ...]
    make rabbit-conform-walks RUNS=50        # the same, through make (mk/rabbit.mk)

walks: for every row of specs/verdicts.toml whose NoLostConfirmed check is
"holds" (the large rows, the -net rows and the rows a driver cannot run left
out, each with its reason), RUNS seeded random walks of at most DEPTH driven
steps on one cluster, reset between walks.  Rows named with --row are walked
whatever their checks and size: a -net row is driven as the row without
-net (AppendEntries messages are the broker's own, waited for).  --budget S:
no walk of a row begins S seconds after the row's start.  A row stops at its
first mismatch (its traces go to --out).  replays: each counterexample a driver
can cause, found again by `check` on the spec as it is now (so that a spec
being changed does not leave a stale trace), replayed on a fresh cluster;
--shipped replays the committed counterexamples/ROW-PROP.itf.json instead
(large rows, whose `check` takes long), --row R --property P any row's.

Each line gives the row, walks run and conformed (or the replay's verdict),
and the wall time; --json writes them all.  Wall times depend on the
machine (a broker node takes a few seconds to start).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import modelcheck  # noqa: E402
from modelcheck.conform import load_for_trace, random_walks, replay_trace  # noqa: E402
from modelcheck.conform.driver import ConformError  # noqa: E402

SPECS = {"classic_mirrored_queue.mc": "modelcheck.conform.examples.rabbitmq:RabbitMQDriver",
         "quorum_queue.mc": "modelcheck.conform.examples.rabbitmq_quorum:QuorumQueueDriver"}

#: counterexample rows a driver can cause on the broker: (row, property).
#: The others (mutants of mechanisms RabbitMQ has, QQ-2's unsafe commit
#: rule, liveness) are listed with their reason in docs/conformance.md.
REPLAYS = [("CMQ-1", "NoLostConfirmed"), ("CMQ-2", "NoLostConfirmed"),
           ("CMQ-4", "NoLostConfirmed"), ("CMQ-6", "NoLostConfirmed"),
           ("CMQ-7-ignore", "NoLostConfirmed"), ("CMQ-7-autoheal", "NoLostConfirmed"),
           ("CMQ-7-pause_minority", "NoLostConfirmed"),
           ("CMQ-7-pause_minority-2", "NoLostConfirmed"),
           ("CMQ-8", "NoDuplicateDelivery"), ("CMQ-8", "NoAckedRedelivery"),
           ("CMQ-9", "NoAutoAckLoss"), ("CMQ-exactly", "NoLostConfirmed"),
           ("CMQ-forget", "NoLostConfirmed"), ("CMQ-disk", "NoLostConfirmed"),
           ("CMQ-force_boot", "NoLostConfirmed"), ("CMQ-nodes", "LeaderOnListedNode"),
           ("QQ-3", "NoLostConfirmed"), ("QQ-5", "NoPolicyDrop"),
           ("QQ-4", "ConsumedWithNodeDown"), ("QQ-1-membership", "MembershipChanged"),
           ("QQ-5-dlx", "DeadLettered"), ("CMQ-channel-join", "NoLostConfirmed"),
           ("QQ-wipe", "NoLostConfirmed"), ("QQ-dlx-at-most-once", "NoLostDeadLetter"),
           ("QQ-poison", "NoPolicyDrop"), ("QQ-dlx", "DeadLettered")]


#: Counterexamples whose shortest trace needs a timing window the driver
#: cannot hit (a partition between a publish and the mirror's copy of it),
#: replayed as the spec's other order, which needs none: the partition
#: first, then the publish the minority leader confirms alone.  Each is a
#: behaviour of the row (checked by the reference semantics as it is built).
SCRIPTED = {
    "CMQ-7-ignore": [("Partition", {"s": frozenset({1})}), ("Publish", {"m": 1, "l": 1}),
                     ("Confirm", {"m": 1, "l": 1}), ("Heal", {"w": False})],
    "CMQ-7-autoheal": [("Partition", {"s": frozenset({1})}), ("Publish", {"m": 1, "l": 1}),
                       ("Confirm", {"m": 1, "l": 1}), ("Heal", {"w": False})],
    # CMQ-large's shortest trace is CMQ-7-ignore's (the partition between
    # the publish and the mirrors' copy), with 3 nodes and a consumer.
    "CMQ-large": [("Partition", {"s": frozenset({1})}), ("Publish", {"m": 1, "l": 1}),
                  ("Confirm", {"m": 1, "l": 1}), ("Heal", {"w": False})],
}


def scripted_trace(model, steps, prop: str):
    """The behaviour of ``model`` taking ``steps`` (each instance's first
    outcome) from its first initial state, as a counterexample of ``prop``."""
    from modelcheck.conform.belief import PathNode
    from modelcheck.evaluate.evaluator import Evaluator
    from modelcheck.trace.paths import path_steps
    from modelcheck.trace.trace import Trace
    ev = Evaluator(model)
    node = PathNode(ev.initial_states()[0], None, None, ())
    for action, params in steps:
        params_t = tuple(sorted(params.items()))
        nxt = ev.outcomes(action, params_t, node.state)
        if not nxt:
            raise RuntimeError(f"{action}{params} is not enabled in the scripted trace")
        node = PathNode(nxt[0], node, action, params_t)
    if ev.check_property(prop, node.state):
        raise RuntimeError(f"the scripted trace does not violate {prop}")
    trace = Trace(model.name, path_steps(ev, node.path()), kind="counterexample")
    trace.property_name = prop
    return trace


def rows() -> list[dict]:
    return tomllib.loads((ROOT / "specs" / "verdicts.toml").read_text())["row"]


def driver_for(spec: str, **options):
    from modelcheck.conform.driver import load_driver
    return load_driver(SPECS[spec], options)


def why_not_walked(row: dict, named: bool = False) -> str | None:
    """Why a HOLDS row is left out of the walks, or None.  A row named with
    --row is walked even when large or -net (the driver drives a -net row as
    the row without -net; the messages are the broker's own, waited for)."""
    from modelcheck.conform.examples.rabbitmq import unsupported as cmq_unsupported
    from modelcheck.conform.examples.rabbitmq_quorum import unsupported as qq_unsupported
    if row.get("large") and not named:
        return "large (the model's side of a step is too big for a walk)"
    if (row["id"].endswith("-net") or "-net-" in row["id"]) and not named:
        return "the same broker run as the row without -net (only the model's messaging differs)"
    consts = row.get("consts", {})
    why = (cmq_unsupported if row["spec"].startswith("classic") else qq_unsupported)(consts)
    return why


def walk_rows(selected: list[str] | None) -> list[dict]:
    out = []
    for row in rows():
        if row.get("spec") not in SPECS:
            continue
        if selected and row["id"] not in selected:
            continue
        # A row named with --row is walked whatever its checks claim (a walk
        # compares every observation with the model); the others need a
        # NoLostConfirmed that holds.
        if not selected and not any(c.get("property") == "NoLostConfirmed"
                                    and c.get("expect") == "holds"
                                    for c in row.get("check", [])):
            continue
        out.append(row)
    return out


def cmd_walks(args) -> list[dict]:
    results = []
    for row in walk_rows(args.row):
        why = why_not_walked(row, named=bool(args.row))
        if why:
            results.append({"row": row["id"], "skipped": why})
            print(f"{row['id']:<28} skipped: {why}", flush=True)
            continue
        model = modelcheck.load(ROOT / "specs" / row["spec"], row.get("consts", {}))
        driver = driver_for(row["spec"])
        t0 = time.monotonic()
        try:
            report = random_walks(model, driver, runs=args.runs, depth=args.depth,
                                  seed=args.seed, out_dir=Path(args.out) / row["id"],
                                  budget_s=args.budget)
        except ConformError as err:
            results.append({"row": row["id"], "error": str(err),
                            "wall_s": round(time.monotonic() - t0, 1)})
            print(f"{row['id']:<28} driver error: {err}", flush=True)
            continue
        wall = time.monotonic() - t0
        ran = len(report.runs)
        ok = sum(1 for r in report.runs if r.problem is None)
        steps = sum(len(r.log) - 1 for r in report.runs)
        res = {"row": row["id"], "runs": ran, "conformed": ok, "steps": steps,
               "wall_s": round(wall, 1), "notes": report.notes[:5]}
        if report.failed is not None:
            res["mismatch"] = report.failed.problem
            res["files"] = [str(f) for f in (report.failed.files or [])]
        results.append(res)
        print(f"{row['id']:<28} {ok}/{ran} walks conformed, {steps} steps, {wall:.0f} s"
              + (f"; MISMATCH {report.failed.problem}" if report.failed else ""), flush=True)
    return results


def fresh_trace(row: dict, prop: str, out: Path) -> Path:
    """The row's trace for ``prop``, found by `check` on the spec as it is now."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "modelcheck", "check", str(ROOT / "specs" / row["spec"]),
           "--property", prop, "--engine", "reference", "--no-deadlock", "--out", str(out)]
    for k, v in row.get("consts", {}).items():
        cmd += ["-D", f"{k}={str(v).lower() if isinstance(v, bool) else v}"]
    subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    found = sorted(out.glob(f"*-{prop}-*.itf.json"))
    if not found:
        raise RuntimeError(f"check found no trace of {prop} for {row['id']}")
    return found[-1]


def cmd_replays(args) -> list[dict]:
    by_id = {r["id"]: r for r in rows()}
    results = []
    todo = list(REPLAYS) + [(rid + ":scripted", "NoLostConfirmed") for rid in SCRIPTED]
    if args.row and args.property:
        todo = [(rid, p) for rid in args.row for p in args.property]
    for rid, prop in todo:
        if args.row and rid not in args.row:
            continue
        row = by_id[rid.split(":")[0]]
        t0 = time.monotonic()
        try:
            if rid.endswith(":scripted"):
                model = modelcheck.load(ROOT / "specs" / row["spec"], row.get("consts", {}))
                trace = scripted_trace(model, SCRIPTED[row["id"]], prop)
            else:
                shipped = ROOT / "counterexamples" / f"{rid}-{prop}.itf.json"
                trace_path = shipped if args.shipped and shipped.exists() else \
                    fresh_trace(row, prop, Path(args.out) / rid)
                model, trace = load_for_trace(ROOT / "specs" / row["spec"], trace_path)
            report = replay_trace(model, trace, driver_for(row["spec"]))
        except (ConformError, RuntimeError) as err:
            results.append({"row": rid, "property": prop, "error": str(err),
                            "wall_s": round(time.monotonic() - t0, 1)})
            print(f"{rid:<20} {prop:<22} ERROR: {err}", flush=True)
            continue
        wall = time.monotonic() - t0
        verdict = {True: "REPRODUCED", False: "NOT REPRODUCED", None: "UNDECIDED"}[report.reproduced]
        results.append({"row": rid, "property": prop, "verdict": verdict,
                        "reason": report.reason, "steps": len(trace.steps) - 1,
                        "wall_s": round(wall, 1),
                        "log": [{"step": e.label, "agrees": e.agrees, "note": e.note}
                                for e in report.log]})
        print(f"{rid:<20} {prop:<22} {verdict}: {report.reason} ({wall:.0f} s)", flush=True)
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["walks", "replays"])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--row", action="append")
    ap.add_argument("--property", action="append",
                    help="replays: these properties of the --row rows (rows not in REPLAYS)")
    ap.add_argument("--budget", type=float,
                    help="walks: seconds per row after which no walk begins")
    ap.add_argument("--shipped", action="store_true",
                    help="replays: the committed counterexamples/ROW-PROP.itf.json where "
                         "there is one, instead of finding it again (large rows)")
    ap.add_argument("--out", default=tempfile.mkdtemp(prefix="mc-conform-bench-"))
    ap.add_argument("--json")
    args = ap.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    results = cmd_walks(args) if args.what == "walks" else cmd_replays(args)
    print(f"total {time.monotonic() - t0:.0f} s; traces under {args.out}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
