"""Hypothesis strategies that write small, well-typed specs in our language.

The specs mix the constructs engines find hard (sets over model values, maps,
bounded sequences, options, picks, either, quantifiers, comprehensions) while
keeping every write in range, so that the state space is small (a few hundred
states) and every engine can be compared with the reference explorer on it.
"""
from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["specs"]

K = 3  # ints are 0..K

VARS = {
    "x": ("0..3", "0"),
    "y": ("0..3", "1"),
    "b": ("bool", "false"),
    "s": ("set[Node]", "{}"),
    "m": ("map[Node, 0..3]", "{k: 0 for k in Node}"),
    "q": ("seq[0..3, 2]", "[]"),
    "o": ("option[Node]", "none"),
}


def _int(draw, depth=0):
    leaves = ["x", "y", "0", "1", "3", "m[n]", "min(len(s), 3)", "len(q)"]
    if depth >= 2:
        return draw(st.sampled_from(leaves))
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return f"({_int(draw, depth + 1)} + {_int(draw, depth + 1)}) % 4"
    if kind == 1:
        return f"min({_int(draw, depth + 1)}, {_int(draw, depth + 1)})"
    if kind == 2:
        return f"(if {_bool(draw, depth + 1)} then {_int(draw, depth + 1)} else {_int(draw, depth + 1)})"
    if kind == 3:
        return f"max({_int(draw, depth + 1)} - 1, 0)"
    return draw(st.sampled_from(leaves))


def _bool(draw, depth=0):
    leaves = ["b", "n in s", "is_some(o)", "len(q) == 2", "s == {}", "o == some(n)"]
    if depth >= 2:
        return draw(st.sampled_from(leaves))
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return f"{_int(draw, depth + 1)} {draw(st.sampled_from(['<', '<=', '==', '!=']))} {_int(draw, depth + 1)}"
    if kind == 1:
        return f"not ({_bool(draw, depth + 1)})"
    if kind == 2:
        return f"({_bool(draw, depth + 1)} {draw(st.sampled_from(['and', 'or', '=>']))} {_bool(draw, depth + 1)})"
    if kind == 3:
        return f"all(m[k] <= {draw(st.integers(0, K))} for k in Node)"
    if kind == 4:
        return f"any(k in s and m[k] > {draw(st.integers(0, K - 1))} for k in Node)"
    return draw(st.sampled_from(leaves))


def _set(draw):
    return draw(st.sampled_from([
        "s | {n}", "s - {n}", "{}", "{k for k in Node if m[k] > 0}", "s & {n}", "Node - s",
    ]))


def _assignment(draw, var):
    if var in ("x", "y"):
        return f"{var} := {_int(draw)}"
    if var == "b":
        return f"b := {_bool(draw)}"
    if var == "s":
        return f"s := {_set(draw)}"
    if var == "m":
        return f"m[n] := {_int(draw)}"
    if var == "o":
        return draw(st.sampled_from(["o := some(n)", "o := none"]))
    return draw(st.sampled_from([
        "require len(q) < 2\n    q := append(q, x)",
        "require len(q) > 0\n    q := tail(q)",
        "q := []",
    ]))


def _action(draw, index):
    assigned = draw(st.lists(st.sampled_from(sorted(VARS)), min_size=1, max_size=3, unique=True))
    lines = []
    if draw(st.booleans()):
        lines.append(f"require {_bool(draw)}")
    shape = draw(st.integers(0, 3))
    if shape == 1:
        # nondeterministic choice among the members of a set
        lines.append("pick p in s")
        lines.append("require p != n or b")
    body = [_assignment(draw, v) for v in assigned]
    if shape == 2 and len(body) >= 1:
        other = [_assignment(draw, v) for v in assigned]
        lines.append("either {\n    " + "\n    ".join(body) + "\n    } or {\n    "
                     + "\n    ".join(other) + "\n    }")
    elif shape == 3:
        lines.append(f"if {_bool(draw)} {{\n    " + "\n    ".join(body) + "\n    }")
    else:
        lines.extend(body)
    return f"action A{index}(n: Node) {{\n    " + "\n    ".join(lines) + "\n}\n"


@st.composite
def specs(draw):
    """A small complete spec: one model-value type, all VARS, 2-4 actions,
    one invariant and one sometimes property."""
    symmetric = "symmetric " if draw(st.booleans()) else ""
    parts = ["module generated\n", f"{symmetric}type Node = model(2)\n"]
    for name, (typ, init) in VARS.items():
        parts.append(f"var {name}: {typ} = {init}\n")
    for i in range(draw(st.integers(2, 4))):
        parts.append(_action(draw, i))
    parts.append(f"invariant Inv: {_bool(draw).replace('n in s', 'node1 in s').replace('m[n]', 'm[node1]').replace('some(n)', 'some(node2)')}\n")
    parts.append(f"sometimes Reach: {_bool(draw).replace('n in s', 'node2 in s').replace('m[n]', 'm[node2]').replace('some(n)', 'some(node1)')}\n")
    return "".join(parts)
