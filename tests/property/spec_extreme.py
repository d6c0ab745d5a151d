"""Small but extreme specs, for the property tests and the fuzzing tier.

``extreme_specs(seed, count)`` yields ``(name, source)`` pairs: int ranges with
bounds near +-2**63, beyond 2**64 and up to 5,000-digit literals, huge
``model(N)``, huge ranges inside len/in/min/max/all/any/sum and set
comprehensions, expressions nested hundreds or thousands of levels deep, and
the shipped specs (specs/, specs/examples/) with tokens deleted, duplicated,
swapped or replaced by huge numbers.  The same seed gives the same specs.

``extreme_spec(rng)`` writes one spec from a ``random.Random`` (Hypothesis's
``st.randoms()`` drives it in tests/property/test_extreme_specs.py), and
``classify`` runs one through the front end and the reference explorer and
says how it ended.  Anything but an answer or a coded diagnostic is raised.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from modelcheck.diagnostics import render_diagnostic
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.reference import ReferenceEngine
from modelcheck.errors import CompileError, UsageError
from modelcheck.pipeline import load_source

__all__ = ["extreme_specs", "extreme_spec", "classify", "EXTREME_INTS", "SHIPPED_SPECS"]

ROOT = Path(__file__).resolve().parents[2]

#: Shipped specs, as text (mutation seeds).
SHIPPED_SPECS = tuple((p.stem, p.read_text(encoding="utf-8"))
                      for p in sorted((ROOT / "specs").glob("*.mc"))
                      + sorted((ROOT / "specs" / "examples").glob("*.mc")))

#: Integer literals at the edges: int64, uint64, the literal limit and past it.
EXTREME_INTS = ("0", "1", "65535", "65536", "65537", "1048577",
                str(2 ** 31), str(2 ** 62), str(2 ** 63 - 1), str(2 ** 63), str(2 ** 64 - 1),
                str(2 ** 64), str(2 ** 64 + 1), str(10 ** 21), str(2 ** 127),
                str(2 ** 128 - 1), str(2 ** 128), "9" * 40, "7" * 5000)

# One token of the language, for mutations (as tests/property/test_parser_hypothesis.py).
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|:=|==|!=|<=|>=|=>|//|\.\.|->|\S")


def _int(rng: random.Random, signed: bool = True) -> str:
    text = rng.choice(EXTREME_INTS)
    return f"-{text}" if signed and text != "0" and rng.random() < 0.4 else text


def _int_range(rng: random.Random) -> str:
    header = "module extreme_range\n"
    lo, hi = _int(rng), _int(rng)
    op = rng.choice(["x + 1", "x - 1", "-x", "x * 2", "x * x", "x // 3", "x % 7",
                     "min(x, 0) - 1", "max(x, 0) + 1"])
    return (header + f"var x: {lo}..{hi} = {rng.choice([lo, hi])}\n"
            f"action A() {{\n    require x != {rng.choice([lo, hi, '0'])}\n    x := {op}\n}}\n"
            f"invariant I: x >= {lo} and x <= {hi}\n")


def _model_type(rng: random.Random) -> str:
    n = rng.choice(["0", "1", "3", "65536", "65537"] + list(EXTREME_INTS[6:]))
    prop = rng.choice(["len(Node) > 0", "all(is_some(o) or true for n in Node)", "true"])
    return (f"module extreme_model\ntype Node = model({n})\nvar o: option[Node] = none\n"
            f"invariant I: {prop}\n")


def _range_question(rng: random.Random) -> str:
    lo, hi = _int(rng), _int(rng)
    r = f"({lo} + x)..({hi})" if rng.random() < 0.3 else f"{lo}..{hi}"
    prop = rng.choice([
        f"len({r}) >= 0", f"x in {r}", f"min({r}) <= max({r})",
        f"all(i >= {lo} for i in {r})", f"any(i == x for i in {r})",
        f"sum(i for i in {r}) != 7", f"len({{i % 3 for i in {r}}}) <= 3",
        f"len(({r}) | {{x}}) > 0", f"({r}) == {{x}}",
    ])
    return ("module extreme_question\nvar x: 0..1 = 0\naction A() { x := 1 - x }\n"
            f"invariant P: {prop}\n")


def _deep(rng: random.Random) -> str:
    depth = rng.choice([50, 119, 121, 200, 1000, 2000])
    leaf = "x"
    kind = rng.choice(["parens", "if", "neg", "plus", "not", "call"])
    if kind == "parens":
        expr = "(" * depth + leaf + ")" * depth
    elif kind == "if":
        expr = "if x == 0 then " * depth + leaf + " else 1" * depth
    elif kind == "neg":
        expr = "-" * depth + leaf
    elif kind == "plus":
        expr = "(x + " * depth + leaf + ")" * depth
    elif kind == "not":
        expr = "not " * depth + "(x == 0)"
        return (f"module extreme_deep\nvar x: 0..1 = 0\naction A() {{ x := 1 - x }}\n"
                f"invariant I: {expr} or true\n")
    else:
        expr = "min(x, " * depth + leaf + ")" * depth
    return (f"module extreme_deep\nvar x: 0..1 = 0\naction A() {{ x := 1 - x }}\n"
            f"invariant I: {expr} >= -100000000\n")


def _mutated(rng: random.Random) -> str:
    _, text = rng.choice(SHIPPED_SPECS)
    tokens = _TOKEN.findall(re.sub(r"#[^\n]*", "", text))
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(tokens))
        kind = rng.choice(["delete", "duplicate", "swap", "huge", "huge"])
        if kind == "delete":
            del tokens[i]
        elif kind == "duplicate":
            tokens.insert(i, tokens[i])
        elif kind == "swap" and i + 1 < len(tokens):
            tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
        else:
            numbers = [j for j, t in enumerate(tokens) if t.isdigit()]
            tokens[rng.choice(numbers) if numbers else i] = _int(rng, signed=False)
    return " ".join(tokens)


_KINDS: tuple[tuple[str, Callable[[random.Random], str]], ...] = (
    ("int_range", _int_range), ("model_type", _model_type),
    ("range_question", _range_question), ("deep", _deep), ("mutated", _mutated))


def extreme_spec(rng: random.Random) -> tuple[str, str]:
    """One extreme spec: (kind, source)."""
    kind, write = rng.choice(_KINDS)
    return kind, write(rng)


def extreme_specs(seed: int, count: int) -> Iterator[tuple[str, str]]:
    """``count`` extreme specs, named ``<kind>-<seed>-<i>``; deterministic in ``seed``."""
    rng = random.Random(seed)
    for i in range(count):
        kind, source = extreme_spec(rng)
        yield f"{kind}-{seed}-{i}", source


def classify(source: str, max_states: int = 50, timeout_s: float = 2.0) -> str:
    """How the front end and the reference explorer end on ``source``:
    ``"answer"`` (a result, complete or not), ``"diagnostic"`` (MC1xxx-MC4xxx
    at compile time, or a usage error) or ``"runtime"`` (an MC5xxx error).
    Any other exception propagates: that is the bug a caller looks for."""
    try:
        model = load_source(source, "extreme.mc")
    except CompileError as err:
        assert err.diagnostics
        for d in err.diagnostics:
            assert re.fullmatch(r"MC[1-4]\d{3}", d.code), d
            text = err.sources.get(d.span.file) if d.span else None
            assert render_diagnostic(d, text).startswith(f"error[{d.code}]")
        return "diagnostic"
    except UsageError:
        return "diagnostic"
    options = CheckOptions(max_states=max_states, timeout_s=timeout_s)
    result = ReferenceEngine().check(model, options)
    if result.error is not None:
        diag = result.error.diagnostic
        assert re.fullmatch(r"MC5\d{3}", diag.code), diag
        assert render_diagnostic(diag, source).startswith(f"error[{diag.code}]")
        return "runtime"
    return "answer"
