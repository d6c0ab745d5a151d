"""Small specs for the Spark engine's tests, each exercising one kind of result."""
from __future__ import annotations

from pathlib import Path

from modelcheck import api
from modelcheck.ir.nodes import Model

__all__ = ["EXAMPLES", "SOURCES", "load_example", "load_spec"]

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ["die_hard", "two_phase"]

SOURCES = {
    # A grid walk: a step invariant, a sometimes, an invariant that breaks deep.
    "grid": """
module grid
var x: 0..6 = 0
var y: 0..4 = 0
action Right() { require x < 6  x := x + 1 }
action Up(k: 1..2) { require y + k <= 4  y := y + k }
action Home() { require x == 6 and y == 4  x := 0  y := 0 }
step invariant Forward: x' >= x or x' == 0
step invariant NoJump: y' <= y + 1 or y' == 0
sometimes Corner: x == 6 and y == 0
sometimes Never: x == 7 - 1 and y == 5 - 2 and x + y == 10
invariant Small: x + y < 9
""",
    # Stops at x == 3: a deadlock, unless a terminal says it is fine.
    "stuck": """
module stuck
var x: 0..3 = 0
var flag: bool in {false, true}
action Inc() { require x < 3  x := x + 1 }
action Flip() { require x < 2  flag := not flag }
invariant Fine: x <= 3
""",
    "stuck_terminal": """
module stuck_terminal
var x: 0..3 = 0
action Inc() { require x < 3  x := x + 1 }
terminal Done: x == 3
""",
    # x := x + 1 writes 4 into 0..3: MC5001 after three steps.
    "overflow": """
module overflow
var x: 0..3 = 0
var y: 0..1 = 0
action Inc() { x := x + 1 }
action Toggle() { y := 1 - y }
""",
    # Nondeterminism inside actions: picks and either branches, a set variable.
    "tokens": """
module tokens
type Node = model(3)
var holders: set[Node] = {}
var moves: 0..4 = 0
action Grab(n: Node) {
    require n not in holders and moves < 4
    either { holders := holders | {n} } or { pick m in Node  holders := holders | {m} }
    moves := moves + 1
}
action Drop() {
    require len(holders) > 0
    pick n in holders
    holders := holders - {n}
}
invariant AtMostTwo: len(holders) <= 2
""",
}


def load_spec(name: str) -> Model:
    return api.load_source(SOURCES[name], path=f"<{name}>")


def load_example(name: str, **consts: str) -> Model:
    return api.load(str(ROOT / "specs" / "examples" / f"{name}.mc"), consts=consts or None)
