"""Small specs for the trace views and scenarios: a two-node store with a
network (lanes, messages, guards) and a nondeterministic counter."""
from __future__ import annotations

__all__ = ["MINI", "CHOICE"]

MINI = """\
module mini

type Node = model(2)
type Msg = record { src: Node, dst: Node, val: 0..1 }

var up: map[Node, bool] = {n: true for n in Node}
var store: map[Node, set[0..1]] = {n: {} for n in Node}
var net: set[Msg] = {}
var confirmed: set[0..1] = {}

action Write(n: Node, v: 0..1) {
    require up[n]
    require v not in store[n]
    store[n] := store[n] | {v}
    net := net | {Msg(src=n, dst=o, val=v) for o in Node if o != n}
}

action Deliver(m: Msg) {
    require m in net
    require up[m.dst]
    store[m.dst] := store[m.dst] | {m.val}
    net := net - {m}
}

action Crash(n: Node) {
    require up[n]
    up[n] := false
    store[n] := {}
}

action Restart(n: Node) {
    require not up[n]
    up[n] := true
}

action Confirm(v: 0..1) {
    require all(v in store[n] for n in Node)
    confirmed := confirmed | {v}
}

invariant NoLoss: all(any(v in store[n] for n in Node) for v in confirmed)
invariant AllUp: all(up[n] for n in Node) or len(confirmed) == 0
sometimes TwoConfirmed: len(confirmed) >= 2
step invariant NeverForget: confirmed <= confirmed'
"""

CHOICE = """\
module choice

var x: 0..4 = 0
var log: seq[0..3, 4] = []

action Step() {
    require x < 3
    either { x := x + 1 } or { x := x + 2 }
}

action Record() {
    pick v in {x % 4, 3}
    require len(log) < 4
    log := append(log, v)
}

invariant Small: x < 3
sometimes FirstIsThree: len(log) > 0 and head(log) == 3
"""
