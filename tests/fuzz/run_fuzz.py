"""The fuzzing campaign behind ``make fuzz`` (and, small, the slow test tier).

Three parts, each input run as a real ``modelcheck`` command line in a worker
process (``fuzz_worker.py``) under a time limit:

1. front end: mutated specs through ``modelcheck parse``;
2. engines: generated specs with extreme int ranges and deep nesting (half
   from tests/property/spec_extreme.py, half small bounded ones of
   fallback_gen), checked by the reference explorer, BMC (depth 2) and, on a
   sample of those the reference could check, the compiled engine; each must agree with the reference or decline (a diagnostic, or
   an UNKNOWN with its reason).  Spark is left out: it starts a JVM per run;
3. trace files: hostile ITF documents through ``trace show``, ``html``,
   ``explain``, ``diff`` and ``replay``.

Every outcome is one of: answered, clean diagnostic (exit 2), unknown
(exit 3), internal error (exit 4 or a traceback), hang (over the limit) and
disagreement.  The last three must be zero: each case is written to the
failures folder (input, command, output) and the runner exits 1.

    python tests/fuzz/run_fuzz.py --specs 10000 --traces 1000 --seed 1
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests" / "property"))

import fallback_gen  # noqa: E402

MUST_BE_ZERO = ("internal", "hang", "disagreement")


def _generators():
    """The richer generators of tests/property when they are there, else ours."""
    try:
        from spec_extreme import extreme_specs  # type: ignore[import-not-found]
        extreme_from = "tests/property/spec_extreme.py"
    except ImportError:
        extreme_specs, extreme_from = fallback_gen.extreme_specs, "tests/fuzz/fallback_gen.py"
    try:
        from itf_hostile import hostile_itf_documents  # type: ignore[import-not-found]
        itf_from = "tests/property/itf_hostile.py"
    except ImportError:
        hostile_itf_documents, itf_from = None, "tests/fuzz/fallback_gen.py"
    return extreme_specs, extreme_from, hostile_itf_documents, itf_from


# ------------------------------------------------------------------ workers

class Hang(Exception):
    pass


class Worker:
    """A ``fuzz_worker.py`` process; killed and restarted after a hang."""

    def __init__(self, env: dict[str, str]):
        self.env, self.proc = env, None

    def _start(self) -> None:
        self.proc = subprocess.Popen([sys.executable, str(HERE / "fuzz_worker.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=self.env,
                                     cwd=str(ROOT), start_new_session=True)

    def run(self, argv: list[str], files: dict[str, str], limit_s: float) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        assert self.proc is not None and self.proc.stdin and self.proc.stdout
        try:
            self.proc.stdin.write(json.dumps({"argv": argv, "files": files}) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            return self._died()
        ready, _, _ = select.select([self.proc.stdout], [], [], limit_s)
        if not ready:
            self.stop()
            raise Hang
        line = self.proc.stdout.readline()
        if not line:
            return self._died()
        return json.loads(line)

    def _died(self) -> dict:
        code = self.proc.wait() if self.proc else None
        self.proc = None
        return {"rc": 4, "out": "", "err": f"Traceback: the worker process died (exit {code})"}

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        self.proc = None


# ------------------------------------------------------------------ outcomes

@dataclass
class Campaign:
    failures: Path
    counts: dict[str, Counter] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    last_tick: float = field(default_factory=time.monotonic)

    def count(self, part: str, outcome: str) -> None:
        self.counts.setdefault(part, Counter())[outcome] += 1
        if time.monotonic() - self.last_tick >= 30:
            # A long campaign says where it is, on stderr (the report is stdout).
            self.last_tick = time.monotonic()
            done = ", ".join(f"{p} {sum(c.values())}" for p, c in self.counts.items())
            print(f"fuzz: {done}; must-be-zero so far: {self.bad()}", file=sys.stderr,
                  flush=True)

    def fail(self, part: str, outcome: str, name: str, files: dict[str, str], detail: dict,
             instead_of: str | None = None) -> None:
        """Count and keep a failing input; ``instead_of``: the outcome it was
        counted as before it was found to disagree."""
        if instead_of is not None:
            self.counts[part][instead_of] -= 1
        self.count(part, outcome)
        folder = self.failures / f"{outcome}-{name}"
        folder.mkdir(parents=True, exist_ok=True)
        for fname, text in files.items():
            (folder / fname).write_text(text, encoding="utf-8")
        (folder / "what.json").write_text(json.dumps(detail, indent=1), encoding="utf-8")

    def bad(self) -> int:
        return sum(c[o] for c in self.counts.values() for o in MUST_BE_ZERO)


def classify(answer: dict) -> str:
    if answer["rc"] == 4 or "Traceback" in answer["err"] or "internal error" in answer["err"]:
        return "internal"
    return {0: "answered", 1: "answered", 2: "diagnostic", 3: "unknown"}.get(answer["rc"],
                                                                           "internal")


def run_one(campaign: Campaign, worker: Worker, part: str, name: str, argv: list[str],
            files: dict[str, str], limit_s: float) -> dict | None:
    """Run one command; count and keep it if it hung or failed internally."""
    try:
        answer = worker.run(argv, files, limit_s)
    except Hang:
        campaign.fail(part, "hang", name, files, {"argv": argv, "limit_s": limit_s})
        return None
    outcome = classify(answer)
    if outcome == "internal":
        campaign.fail(part, outcome, name, files, {"argv": argv, **answer})
        return None
    campaign.count(part, outcome)
    return answer


# ------------------------------------------------------------------ the parts

def front_end(campaign: Campaign, worker: Worker, seed: int, count: int, limit_s: float,
              deadline: float) -> None:
    for name, source in fallback_gen.mutated_specs(seed, count):
        if time.monotonic() > deadline:
            campaign.notes.append("front end: stopped at the time limit")
            return
        run_one(campaign, worker, "front end", name, ["parse", "{dir}/spec.mc"],
                {"spec.mc": source}, limit_s)


def _verdicts(answer: dict | None) -> dict | None:
    if answer is None or answer["rc"] not in (0, 1, 3):
        return None
    try:
        data = json.loads(answer["out"])
    except ValueError:
        return None
    return data


# How BMC says how deep it got ("holds up to depth 0 (timeout after 5 s ...)").
_BMC_REACHED = re.compile(r"holds up to depth (\d+)")


def disagreement(ref: dict, other: dict, engine: str, bound: int | None) -> str | None:
    """Where ``other`` contradicts the reference; None when they agree (or
    where one of them did not finish, which is no contradiction)."""
    for prop, r in ref["properties"].items():
        o = other["properties"].get(prop)
        if o is None:
            continue
        rs, os_ = r["status"], o["status"]
        if "unknown" in (rs, os_):
            continue
        if bound is not None:            # BMC: only what lies within the bound it reached
            reached = _BMC_REACHED.search(o.get("reason") or "")
            if reached is not None:
                bound = min(bound, int(reached.group(1)))
            if rs == "violated" and r["steps"] <= bound and os_ != "violated":
                return f"{prop}: reference violated in {r['steps']} steps, {engine} {os_}"
            if os_ == "violated" and (rs != "violated" or r["steps"] != o["steps"]) \
                    and (ref["complete"] or rs == "violated"):
                return f"{prop}: {engine} violated in {o['steps']} steps, reference {rs}"
            continue
        if not (ref["complete"] and other["complete"]) and "violated" not in (rs, os_):
            continue
        if (rs, r["steps"]) != (os_, o["steps"]):
            return f"{prop}: reference {rs} ({r['steps']} steps), {engine} {os_} ({o['steps']} steps)"
    if bound is None and ref["complete"] and other["complete"] \
            and ref["distinct_states"] != other["distinct_states"]:
        return (f"distinct states: reference {ref['distinct_states']}, "
                f"{engine} {other['distinct_states']}")
    return None


def _interleaved(*streams):
    """One item of each stream in turn, to the end of the longest."""
    iterators = [iter(s) for s in streams]
    while iterators:
        for it in list(iterators):
            try:
                yield next(it)
            except StopIteration:
                iterators.remove(it)


def engines(campaign: Campaign, workers: dict[str, Worker], extreme_specs, seed: int, count: int,
            limit_s: float, compiled_every: int, compiled_limit_s: float,
            deadline: float) -> None:
    check = ["check", "{dir}/spec.mc", "--json", "--out", "{dir}/out", "--max-states", "20000"]
    checked = 0                   # specs the reference could check (the compiled sample's base)
    for name, source in _interleaved(extreme_specs(seed, (count + 1) // 2),
                                     fallback_gen.extreme_specs(seed, count // 2)):
        if time.monotonic() > deadline:
            campaign.notes.append("engines: stopped at the time limit")
            return
        files = {"spec.mc": source}
        ref_answer = run_one(campaign, workers["main"], "engines: reference", name,
                             check + ["--engine", "reference", "--timeout", "5"], files, limit_s)
        ref = _verdicts(ref_answer)
        others = [("bmc", ["--engine", "bmc", "--depth", "2", "--timeout", "5"], 2,
                   workers["main"], limit_s)]
        if ref is not None:
            checked += 1
        if compiled_every and ref is not None and checked % compiled_every == 1 % compiled_every:
            others.append(("compiled", ["--engine", "compiled", "--timeout", "5"], None,
                           workers["compiled"],
                           compiled_limit_s))
        for engine, flags, bound, worker, limit in others:
            answer = run_one(campaign, worker, f"engines: {engine}", name, check + flags, files,
                             limit)
            if ref_answer is not None and answer is not None and ref_answer["rc"] == 2 \
                    and answer["rc"] in (0, 1) and engine == "compiled":
                campaign.fail(f"engines: {engine}", "disagreement", name, files,
                              {"why": "the reference stopped with a diagnostic, the compiled "
                                      "engine answered", "reference": ref_answer, engine: answer},
                              instead_of=classify(answer))
                continue
            other = _verdicts(answer)
            if ref is None or other is None:
                continue
            why = disagreement(ref, other, engine, bound)
            if why is not None:
                campaign.fail(f"engines: {engine}", "disagreement", name, files,
                              {"why": why, "reference": ref, engine: other},
                              instead_of=classify(answer))


def _base_traces(worker: Worker) -> list[tuple[str, str, str]]:
    """(spec name, spec text, trace text): real counterexamples to mutate."""
    bases = []
    for spec in sorted((ROOT / "specs" / "examples").glob("*.mc")):
        with tempfile.TemporaryDirectory() as out:
            worker.run(["check", str(spec), "--engine", "reference", "--out", out], {}, 120)
            for trace in sorted(Path(out).glob("*.itf.json")):
                bases.append((spec.name, spec.read_text(), trace.read_text()))
    return bases


def traces(campaign: Campaign, worker: Worker, hostile_itf_documents, seed: int, count: int,
           limit_s: float, deadline: float) -> None:
    bases = _base_traces(worker)
    if not bases:
        campaign.notes.append("trace files: no base trace could be written; part skipped")
        return
    rng = random.Random(seed)
    if hostile_itf_documents is None:
        documents = fallback_gen.hostile_itf_documents(seed, count, [b[2] for b in bases])
    else:
        documents = hostile_itf_documents(seed, count)
    for name, text in documents:
        if time.monotonic() > deadline:
            campaign.notes.append("trace files: stopped at the time limit")
            return
        spec_name, spec_text, base = rng.choice(bases)
        try:
            prop = json.loads(base)["#meta"]["property"]
        except (ValueError, KeyError, TypeError):
            prop = "P"
        files = {"t.itf.json": text, "base.itf.json": base, spec_name: spec_text}
        spec = ["--spec", "{dir}/" + spec_name]
        for command in (["trace", "show", "{dir}/t.itf.json"],
                        ["trace", "show", "{dir}/t.itf.json", *spec],
                        ["trace", "html", "{dir}/t.itf.json", "-o", "{dir}/t.html"],
                        ["trace", "explain", "{dir}/t.itf.json", "--invariant", prop, *spec],
                        ["trace", "diff", "{dir}/base.itf.json", "{dir}/t.itf.json", *spec],
                        ["replay", "{dir}/" + spec_name, "{dir}/t.itf.json", "--no-trace"]):
            run_one(campaign, worker, f"trace {command[1] if command[0] == 'trace' else 'replay'}",
                    name, command, files, limit_s)


# ------------------------------------------------------------------ main

def report(campaign: Campaign, extreme_from: str, itf_from: str, compiled_every: int,
           elapsed: float) -> str:
    outcomes = ["answered", "diagnostic", "unknown", *MUST_BE_ZERO]
    lines = [f"{'part':<22}{'tried':>8}" + "".join(f"{o:>14}" for o in outcomes)]
    for part, c in campaign.counts.items():
        lines.append(f"{part:<22}{sum(c.values()):>8}" + "".join(f"{c[o]:>14}" for o in outcomes))
    lines += [f"generators: specs {extreme_from}, traces {itf_from}",
              f"compiled engine: every {compiled_every}th generated spec that the reference could "
              f"check (each is a numba compile)"
              if compiled_every else "compiled engine: not run (--compiled-every 0)",
              "spark engine: not run (it starts a JVM per run; see tests/slow)",
              *campaign.notes, f"{elapsed:.0f} s; internal errors, hangs and disagreements "
                                f"must be 0: {campaign.bad()}"]
    if campaign.bad():
        lines.append(f"failing inputs written to {campaign.failures}/")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--specs", type=int, default=200, help="mutated specs for the front end")
    ap.add_argument("--extreme", type=int, default=None,
                    help="generated specs for the engines (default: specs // 10)")
    ap.add_argument("--traces", type=int, default=50, help="hostile trace files")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=float, default=10.0, help="seconds per input (a hang past it)")
    ap.add_argument("--compiled-every", type=int, default=50)
    ap.add_argument("--compiled-limit", type=float, default=120.0,
                    help="seconds per compiled-engine input, its numba compile included")
    ap.add_argument("--time", type=float, default=None, help="stop each part after this share "
                                                             "of seconds (the counts say where)")
    ap.add_argument("--failures", default=str(ROOT / ".fuzz-failures"))
    args = ap.parse_args(argv)
    extreme = args.specs // 10 if args.extreme is None else args.extreme
    campaign = Campaign(Path(args.failures))
    start = time.monotonic()
    cache = tempfile.mkdtemp(prefix="mcfuzz-cache-")
    env = dict(os.environ, XDG_CACHE_HOME=cache, PYTHONPATH=str(ROOT))
    workers = {"main": Worker(dict(env, FUZZ_WORKER_MEMORY_MIB="4096")), "compiled": Worker(env)}
    extreme_specs, extreme_from, hostile, itf_from = _generators()
    share = args.time / 3 if args.time else float("inf")
    try:
        front_end(campaign, workers["main"], args.seed, args.specs, args.limit,
                  time.monotonic() + share)
        engines(campaign, workers, extreme_specs, args.seed, extreme, args.limit,
                args.compiled_every, args.compiled_limit, time.monotonic() + share)
        traces(campaign, workers["main"], hostile, args.seed, args.traces, args.limit,
               time.monotonic() + share)
    finally:
        for worker in workers.values():
            worker.stop()
        shutil.rmtree(cache, ignore_errors=True)
    print(report(campaign, extreme_from, itf_from, args.compiled_every,
                 time.monotonic() - start))
    return 1 if campaign.bad() else 0


if __name__ == "__main__":
    sys.exit(main())
