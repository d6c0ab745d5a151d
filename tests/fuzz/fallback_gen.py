"""The fuzzing tier's own small generators, used where the richer ones of
tests/property (``spec_extreme.extreme_specs``, ``itf_hostile.hostile_itf_documents``)
are not there: mutated specs for the front end, specs with extreme int ranges
and deep nesting for the engines, and hostile variants of real trace files.
Every generator is a pure function of its seed."""
from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

__all__ = ["mutated_specs", "extreme_specs", "hostile_itf_documents", "seed_specs"]

ROOT = Path(__file__).resolve().parents[2]

# Numbers at and past the edges the engines care about: 2^31, 2^53, 2^62,
# 2^63 (int64), 2^64, far past 64 bits, and a literal of thousands of digits.
EDGES = [0, 1, 2, 3, 7, 255, 65535, 65536, 2**31 - 1, 2**31, 2**53 + 1, 2**62, 2**63 - 1,
         2**63, 2**64, 10**20, 10**30]
TOKENS = ["module", "var", "const", "type", "action", "invariant", "require", "let", "if",
          "then", "else", "for", "in", "not", "and", "or", "=>", "{", "}", "(", ")", "[", "]",
          ":", ":=", "=", "==", "..", ",", ".", "'", "+", "-", "*", "//", "%", "|", "&",
          "model(", "set[", "map[", "seq[", "record {", "enum {", "option[", "len(", "min(",
          "max(", "all(", "any(", "\n", "\t", "#", "\"", "\\", "\x00", "é", "x", "N", "0..",
          "sometimes", "step", "symmetric", "true", "false"]


def seed_specs() -> list[tuple[str, str]]:
    """The shipped and test specs, the material mutations start from."""
    paths = sorted(ROOT.glob("specs/**/*.mc")) + sorted(ROOT.glob("tests/**/specs/*.mc"))
    return [(p.stem, p.read_text(encoding="utf-8")) for p in paths
            if p.stat().st_size < 200_000]


def _edge(rng: random.Random) -> int:
    n = rng.choice(EDGES) + rng.choice([-1, 0, 0, 1])
    return -n if rng.random() < 0.3 else n


def _mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 4)):
        i, j = sorted(rng.randrange(len(text) + 1) for _ in range(2))
        j = min(j, i + rng.choice([1, 3, 10, 60]))
        kind = rng.randrange(6)
        if kind == 0:
            text = text[:i] + text[j:]
        elif kind == 1:
            text = text[:i] + rng.choice(TOKENS) + text[i:]
        elif kind == 2:
            text = text[:i] + text[i:j] * rng.choice([2, 3, 50]) + text[i:]
        elif kind == 3:
            # Now and then a literal past Python's 4300-digit int-to-text limit.
            number = "9" * rng.choice([30, 4301, 5000]) if rng.random() < 0.05 else str(_edge(rng))
            text = text[:i] + number + text[j:]
        elif kind == 4:
            depth = rng.choice([50, 300, 2000])
            text = text[:i] + "(" * depth + "1" + ")" * depth + text[j:]
        else:
            k = rng.randrange(len(text) + 1)
            text = text[:i] + text[k:k + (j - i)] + text[j:]
    return text


def mutated_specs(seed: int, count: int) -> Iterator[tuple[str, str]]:
    rng = random.Random(seed)
    seeds = seed_specs()
    for n in range(count):
        name, text = rng.choice(seeds)
        yield f"mut-{seed}-{n}-{name}", _mutate(text, rng)


def _int_expr(rng: random.Random, names: list[str], depth: int) -> str:
    if depth <= 0 or rng.random() < 0.3:
        return rng.choice(names) if rng.random() < 0.6 else str(_edge(rng))
    a, b = _int_expr(rng, names, depth - 1), _int_expr(rng, names, depth - 1)
    return rng.choice([f"({a} + {b})", f"({a} - {b})", f"({a} * {b})", f"(-{a})",
                       f"({a} // {b})", f"({a} % {b})", f"min({a}, {b})", f"max({a}, {b})",
                       f"(if {a} < {b} then {a} else {b})"])


def _range(rng: random.Random) -> tuple[int, int]:
    lo, hi = sorted((_edge(rng), _edge(rng)))
    if rng.random() < 0.5:
        hi = lo + rng.choice([0, 1, 3])
    return lo, hi


def extreme_specs(seed: int, count: int) -> Iterator[tuple[str, str]]:
    """Small state spaces (a step counter bounds every run) over extreme int
    ranges, with nested arithmetic in updates and invariants."""
    rng = random.Random(seed)
    for n in range(count):
        lines = [f"module ext_{n}", "var k: 0..3 = 0"]
        names, ranges = [], {}
        for v in range(rng.randint(1, 3)):
            lo, hi = _range(rng)
            init = rng.choice([lo, hi])
            lines.append(f"var v{v}: {lo}..{hi} = {init}")
            names.append(f"v{v}")
            ranges[f"v{v}"] = (lo, hi, init)
        if rng.random() < 0.3:
            lo, hi = _range(rng)
            lines.append(f"const C: {lo}..{hi} = {rng.choice([lo, hi])}")
            names.append("C")
        variables = [x for x in names if x != "C"]
        for a in range(rng.randint(1, 3)):
            target = rng.choice(variables)
            expr = _int_expr(rng, names, rng.randint(0, 4))
            if rng.random() < 0.8:
                # Mostly kept in range, so runs get past the first write; the
                # extreme intermediates are computed all the same.
                lo, hi, init = ranges[target]
                expr = f"(if {expr} >= {lo} and {expr} <= {hi} then {expr} else {init})"
            lines.append(f"action A{a}() {{ require k < 3\n  k := k + 1\n  {target} := {expr} }}")
        for p in range(rng.randint(1, 2)):
            left, right = _int_expr(rng, names, 3), _int_expr(rng, names, 2)
            op = rng.choice(["<", "<=", "==", "!=", ">", ">="])
            lines.append(f"invariant P{p}: {left} {op} {right} or k == {rng.randint(0, 3)}")
        yield f"ext-{seed}-{n}", "\n".join(lines) + "\n"


def _deep(depth: int) -> object:
    value: object = 0
    for _ in range(depth):
        value = [value]
    return value


def _hostile(doc: dict, rng: random.Random) -> str:
    states = doc.get("states") or [{}]
    state = rng.choice(states)
    var = rng.choice([k for k in state if k != "#meta"] or ["x"])
    kind = rng.randrange(12)
    if kind == 0:
        depth = rng.choice([900, 10_000, 100_000])
        return '{"states": [{"x": ' + "[" * depth + "]" * depth + "}]}"
    if kind == 1:
        state[var] = _deep(rng.choice([50, 900]))
    elif kind == 2:
        state[var] = {"#bigint": "9" * rng.choice([20, 5000])}
    elif kind == 3:
        # json.dumps refuses ints past 4300 digits: spliced in as text.
        state[var] = "__BIG__"
        return json.dumps(doc).replace('"__BIG__"', "9" * rng.choice([19, 5000]))
    elif kind == 4:
        state[var] = rng.choice([1e308, -1e308, 0.5])
    elif kind == 5:
        state.setdefault("#meta", {})["action"] = rng.choice(["NoSuchAction", "<script>", ""])
    elif kind == 6:
        state.setdefault("#meta", {})["params"] = {"zz": rng.choice([None, [], {"#set": 1}])}
    elif kind == 7:
        del states[rng.randrange(len(states))]
    elif kind == 8:
        state[var] = rng.choice([None, True, "str", {"#map": [[1]]}, {"#set": {}}, {"#tup": 3}])
    elif kind == 9:
        doc["#meta"] = rng.choice([None, [], {"consts": {"N": 10**30}}, {"source": "/etc/passwd"}])
    elif kind == 10:
        doc["vars"] = rng.choice([None, ["x"] * 3, [1, 2]])
    else:
        text = json.dumps(doc)
        return text[:rng.randrange(len(text))]
    return json.dumps(doc)


def hostile_itf_documents(seed: int, count: int,
                          bases: list[str] | None = None) -> Iterator[tuple[str, str]]:
    """Hostile variants of the trace files in ``bases`` (JSON texts)."""
    rng = random.Random(seed)
    bases = bases or []
    for n in range(count):
        doc = json.loads(rng.choice(bases)) if bases else {"states": [{"x": 1}]}
        yield f"itf-{seed}-{n}", _hostile(doc, rng)
