"""Hostile ITF trace files, for the trace commands' fuzz tier.

``hostile_itf_documents(seed, count)`` yields (name, JSON text) pairs: first a
fixed list of known-bad shapes (deep nesting, unknown actions, floats, huge
integers, wrong types, missing fields, truncated JSON), then random mutations
of real traces (tests/unit/trace/data and a die_hard counterexample as
modelcheck writes it).  Same seed, same documents.  Every trace command must
answer each with exit 0 or 2 (a coded diagnostic), in bounded time.
"""
from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["hostile_itf_documents", "base_traces", "trace_commands", "good_trace_text",
           "DIE_HARD_SPEC"]

ROOT = Path(__file__).resolve().parents[2]
DIE_HARD_SPEC = ROOT / "specs" / "examples" / "die_hard.mc"
_DATA = ROOT / "tests" / "unit" / "trace" / "data"

#: A die_hard counterexample to NotFour as modelcheck writes it (short form).
_DIE_HARD = {
    "#meta": {"format": "ITF", "source": str(DIE_HARD_SPEC), "generated-by": "modelcheck",
              "spec": "die_hard", "property": "NotFour", "kind": "counterexample", "consts": {}},
    "vars": ["small", "big"],
    "states": [{"#meta": {"index": i, **({"action": a, "params": {}} if a else {})},
                "small": s, "big": b}
               for i, (a, s, b) in enumerate([(None, 0, 0), ("FillBig", 0, 5),
                                              ("BigToSmall", 3, 2), ("EmptySmall", 0, 2),
                                              ("BigToSmall", 2, 0), ("FillBig", 2, 5),
                                              ("BigToSmall", 3, 4)])],
}

# Raw JSON text a Python value cannot stand for: put in as a placeholder
# string, then substituted in the dumped text.
_RAW = {
    "@inf@": "1e400", "@ninf@": "-1e400", "@nan@": "NaN", "@infinity@": "Infinity",
    "@bigfloat@": "1e308", "@frac@": "2.5", "@digits@": "9" * 5000, "@negdigits@": "-" + "7" * 4400,
}


def base_traces() -> list[tuple[str, dict[str, Any]]]:
    """The real traces the mutations start from."""
    out = [("die_hard", copy.deepcopy(_DIE_HARD))]
    for path in sorted(_DATA.glob("*.itf.json")):
        out.append((path.name.split(".")[0], json.loads(path.read_text(encoding="utf-8"))))
    return out


def _text(doc: Any) -> str:
    text = json.dumps(doc)
    for placeholder, raw in _RAW.items():
        text = text.replace(json.dumps(placeholder), raw)
    for depth in (50, 199, 250, 2000):
        text = text.replace(f'"@nest{depth}@"', _nest(depth))
    return text


def _nest(depth: int, inner: str = "0") -> str:
    return "[" * depth + inner + "]" * depth


def _with_value(doc: dict, state: int, var: str, value: Any) -> dict:
    out = copy.deepcopy(doc)
    out["states"][state][var] = value
    return out


def _fixed() -> Iterator[tuple[str, str]]:
    d = _DIE_HARD
    good = json.dumps(d)
    for depth in (900, 10_000, 100_000):
        yield f"deep-value-{depth}", good.replace('"big": 2', f'"big": {_nest(depth)}', 1)
        yield f"deep-meta-{depth}", good[:-1] + f', "junk": {_nest(depth)}}}'
    yield "deep-objects-5000", good[:-1] + ', "junk": ' + '{"a": ' * 5000 + "0" + "}" * 5000 + "}"
    unknown = copy.deepcopy(d)
    unknown["states"][2]["#meta"]["action"] = "BigToSmal"
    yield "unknown-action", json.dumps(unknown)
    for key in ("@inf@", "@ninf@", "@nan@", "@infinity@", "@bigfloat@", "@frac@", "@digits@",
                "@negdigits@"):
        yield f"number-{key.strip('@')}", _text(_with_value(d, 2, "big", key))
    yield "bigint-5000", json.dumps(_with_value(d, 2, "big", {"#bigint": "1" * 5000}))
    yield "bigint-not-digits", json.dumps(_with_value(d, 2, "big", {"#bigint": "12x"}))
    yield "bigint-not-string", json.dumps(_with_value(d, 2, "big", {"#bigint": [1]}))
    yield "param-float", _text({**d, "states": d["states"][:2] + [
        {**d["states"][2], "#meta": {"index": 2, "action": "BigToSmall", "params": {"p": "@inf@"}}}]})
    for name, value in (("string", "four"), ("null", None), ("list", [1]), ("set", {"#set": 4}),
                        ("map", {"#map": [[1]]}), ("tup", {"#tup": "x"}), ("bool", True),
                        ("variant", {"tag": 5, "value": {"#tup": []}}), ("huge-int", 2 ** 70)):
        yield f"wrong-type-{name}", json.dumps(_with_value(d, 3, "small", value))
    no_var = copy.deepcopy(d)
    del no_var["states"][1]["big"]
    yield "missing-variable", json.dumps(no_var)
    yield "missing-states", json.dumps({"#meta": d["#meta"], "vars": d["vars"]})
    yield "states-not-list", json.dumps({**d, "states": {"0": 1}})
    yield "state-not-object", json.dumps({**d, "states": [1, 2]})
    yield "empty-states", json.dumps({**d, "states": []})
    yield "vars-not-strings", json.dumps({**d, "vars": [1, None]})
    yield "meta-not-object", json.dumps({**d, "#meta": [1]})
    yield "meta-odd-values", json.dumps({**d, "#meta": {**d["#meta"], "property": [1],
                                                        "kind": {"a": 1}, "spec": 5, "source": 7}})
    yield "action-not-string", json.dumps(_meta_action(d, 2, 7))
    yield "params-not-object", json.dumps(_meta_action(d, 2, "BigToSmall", params=[1, 2]))
    yield "top-level-list", "[1, 2, 3]"
    yield "top-level-number", "42"
    yield "empty-file", ""
    yield "not-json", "this is not a trace"
    yield "truncated", good[: len(good) // 2]
    yield "lone-surrogate", good.replace('"FillBig"', '"\\ud800"', 1)
    yield "unterminated-string-escapes", '{"states": ["' + '\\"' * 20_000


def _meta_action(doc: dict, state: int, action: Any, params: Any = None) -> dict:
    out = copy.deepcopy(doc)
    out["states"][state]["#meta"] = {"index": state, "action": action,
                                     "params": {} if params is None else params}
    return out


_HOSTILE_VALUES: list[Any] = [
    "@inf@", "@nan@", "@bigfloat@", "@frac@", "@digits@", {"#bigint": "9" * 5000},
    {"#bigint": "oops"}, "text", None, [], {}, {"#set": 5}, {"#set": [[1], {"a": 1}]},
    {"#map": [[1]]}, {"#map": 3}, {"#tup": "a"}, {"tag": "Some"}, {"tag": "None", "value": 1},
    True, -1, 2 ** 64, -(2 ** 63) - 1, "rm1", {"#unserializable": [1]},
]


def _paths(doc: Any) -> list[tuple]:
    """Every JSON path in ``doc`` (iteratively)."""
    out: list[tuple] = []
    stack: list[tuple[tuple, Any]] = [((), doc)]
    while stack:
        path, node = stack.pop()
        out.append(path)
        if isinstance(node, dict):
            stack.extend((path + (k,), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((path + (i,), v) for i, v in enumerate(node))
    return out


def _mutate(rng: random.Random, doc: Any) -> str:
    doc = copy.deepcopy(doc)
    how = rng.randrange(6)
    paths = [p for p in _paths(doc) if p]
    if how <= 2 and paths:
        path = rng.choice(paths)
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        if how == 0:
            parent[path[-1]] = copy.deepcopy(rng.choice(_HOSTILE_VALUES))
        elif how == 1 and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = f"@nest{rng.choice((50, 199, 250, 2000))}@"
        return _text(doc)
    text = _text(doc)
    if how == 3:
        return text[: rng.randrange(len(text) + 1)]
    if how == 4 and text:
        i = rng.randrange(len(text))
        return text[:i] + rng.choice('{}[]",:0-e.\\ x') + text[i + 1:]
    actions = [s for s in doc.get("states", []) if isinstance(s, dict)
               and isinstance(s.get("#meta"), dict) and "action" in s["#meta"]] \
        if isinstance(doc, dict) and isinstance(doc.get("states"), list) else []
    if actions:
        state = rng.choice(actions)
        state["#meta"]["action"] = rng.choice(["Explode", "", "FillBig ", "fillbig", 3, None])
    return _text(doc)


def hostile_itf_documents(seed: int = 0, count: int = 200) -> Iterator[tuple[str, str]]:
    """``count`` hostile trace files as (name, JSON text): the fixed shapes
    first, then random mutations of the base traces (see the module doc)."""
    n = 0
    for name, text in _fixed():
        if n == count:
            return
        yield name, text
        n += 1
    rng = random.Random(seed)
    bases = base_traces()
    while n < count:
        base_name, doc = rng.choice(bases)
        yield f"mutant-{seed}-{n}-{base_name}", _mutate(rng, doc)
        n += 1


def good_trace_text() -> str:
    """A good die_hard trace file's text (the other side of ``trace diff``)."""
    return json.dumps(_DIE_HARD)


def trace_commands(doc: str, good: str, html_out: str) -> list[list[str]]:
    """The command lines (for ``modelcheck``) that read the trace file ``doc``:
    every trace command, with and without the spec.  ``good`` is a good trace
    file (``good_trace_text``), ``html_out`` where ``trace html`` may write.
    Each must exit 0, 1 (explain: never fails; diff: differ; replay:
    infeasible) or 2 (a coded diagnostic)."""
    spec = str(DIE_HARD_SPEC)
    return [
        ["trace", "show", doc],
        ["trace", "show", doc, "--spec", spec],
        ["trace", "html", doc, "-o", html_out],
        ["trace", "explain", doc, "--invariant", "NotFour", "--spec", spec],
        ["trace", "diff", good, doc],
        ["replay", spec, doc, "--no-trace"],
    ]
