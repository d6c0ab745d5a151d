"""Hypothesis strategies that write small, well-typed specs in our language.

The specs mix the constructs engines find hard (sets over model values, maps,
bounded sequences, options, picks, either, quantifiers, comprehensions) while
keeping every write in range, so that the state space is small (a few hundred
states) and every engine can be compared with the reference explorer on it.

Each spec also takes some of the optional features, so that no one spec
grows large: variants (a variant var, a capped set of them, ``match`` as a
statement and as an expression, ``is``), capped sets and bags of records,
a state ``constraint``, several updates of one map in one action, and
sparse collections: a set and a bag of capacity 2 over a record of 100,000
values, a set of capacity 2 over 0..99999 (the compiled engine holds these
as sorted element ranks, not bitsets).  Each action writes only a few of
their values, so they add few states.

Every spec may also use the newer constructs: sequence comprehensions,
``x in q``, ``elems``, ``last`` and ``index_of`` on the sequence, ``choose``
over a range, a set of model values or of records (always from a set that is
not empty, so never MC5008), ``pick each`` as an action's guard, and with
variants narrowing by case (``pick r: Req in net``, ``for w: Req in net`` in
``all``/``any``/``sum``/comprehensions/``choose``, ``if v is Req as r``,
``require v is Ack as a``).  ``specs(choose=False)`` leaves ``choose`` out,
for engines that decline it (Z3: "operation choose").

With ``specs(liveness=True)`` a spec also declares liveness properties of
every form (one with a parameter) and random ``fair weak``/``fair strong``
conditions on its actions (as a whole, per binding, one value, ``_``, for-
binders, groups as ``fair weak A0 | A1(_)``); ``liveness_decls`` and
``fair_decls`` draw them on their own, so a test can vary the fairness of
one spec (the compiled engine's kernel does not depend on it, so that costs
no new compile).
"""
from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

__all__ = ["specs", "FEATURES", "liveness_decls", "fair_decls"]

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

#: The optional features, and what each declares.
FEATURES = {
    "variant": ("type Msg = variant {\n    Req(t: 0..1, src: Node),\n    Ack(ok: bool),\n    Stop,\n}\n",
                {"v": ("Msg", "Stop"), "net": ("set[Msg, 2]", "{}")}),
    "records": ("type R = record { k: Node, c: 0..1 }\n",
                {"rs": ("set[R, 2]", "{}"), "bg": ("bag[R, 2]", "{}")}),
    "sparse": ("type Big = record { k: Node, w: 0..49999 }\n",
               {"bs": ("set[Big, 2]", "{}"), "bb": ("bag[Big, 2]", "{Big(k=node2, w=49999)}")}),
    "bigints": ("", {"ns": ("set[0..99999, 2]", "{99999}")}),
    "constraint": ("", {}),
    "multi": ("", {}),
}


@dataclass(frozen=True)
class _Ctx:
    """What an expression may name: the node (``n`` in an action, a node id
    in a property) and the features the spec declares."""
    node: str
    features: frozenset[str]

    def has(self, feature: str) -> bool:
        return feature in self.features


#: Not a FEATURES entry (it declares nothing): whether expressions may use ``choose``.
CHOOSE = "choose"


def _int(draw, ctx, depth=0):
    n = ctx.node
    leaves = ["x", "y", "0", "1", "3", f"m[{n}]", "min(len(s), 3)", "len(q)",
              "(if len(q) > 0 then last(q) else 0)", "(if x in q then index_of(q, x).value else 3)",
              "len(elems(q))", "len([e for e in q if e != y])"]
    if ctx.has(CHOOSE):
        # never from an empty set: e == 3 always passes, node2 is always there
        leaves += ["choose(e for e in 0..3 if e >= y)", "choose((0..3) - {x})",
                   "choose(m[k] for k in Node if k in s or k == node2)"]
    if ctx.has("variant"):
        leaves += ["len(net)", "sum(w.t for w: Req in net)"]
        if ctx.has(CHOOSE):
            leaves += ["(if any(w is Req for w in net) then choose(w.t for w: Req in net) else 2)"]
    if ctx.has("records"):
        leaves += ["len(rs)", "len(bg)"]
        if ctx.has(CHOOSE):
            leaves += [f"choose(rs | {{R(k={n}, c=1)}}).c"]
    if ctx.has("sparse"):
        leaves += ["len(bs)", "len(bb)", f"count(bb, Big(k={n}, w=0))",
                   "sum(g.w // 5000 for g in bs)"]
    if ctx.has("bigints"):
        leaves += ["(if ns == {} then 0 else max(ns) // 33334)", "min(ns | {3}) % 4"]
    if depth >= 2:
        return draw(st.sampled_from(leaves))
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return f"({_int(draw, ctx, depth + 1)} + {_int(draw, ctx, depth + 1)}) % 4"
    if kind == 1:
        return f"min({_int(draw, ctx, depth + 1)}, {_int(draw, ctx, depth + 1)})"
    if kind == 2:
        return (f"(if {_bool(draw, ctx, depth + 1)} then {_int(draw, ctx, depth + 1)} "
                f"else {_int(draw, ctx, depth + 1)})")
    if kind == 3:
        return f"max({_int(draw, ctx, depth + 1)} - 1, 0)"
    if kind == 4 and ctx.has("variant"):
        return _match_expr(draw, ctx, depth)
    return draw(st.sampled_from(leaves))


def _match_expr(draw, ctx, depth):
    """An int from the case of v: the arms in one of the pattern forms."""
    other = _int(draw, ctx, depth + 1)
    return draw(st.sampled_from([
        f"(match v {{ Req as r => r.t + 1, Ack as a => (if a.ok then 3 else 2), Stop => {other} }})",
        f"(match v {{ Req as r => r.t, _ => {other} }})",
        f"(match v {{ Ack | Stop => {other}, Req => 2 }})",
    ]))


def _bool(draw, ctx, depth=0):
    n = ctx.node
    leaves = ["b", f"{n} in s", "is_some(o)", "len(q) == 2", "s == {}", f"o == some({n})",
              "x in q", "y not in q", "elems(q) <= {0, 1}", "index_of(q, y) == none",
              "[e for e in q if e > 0] == q"]
    if ctx.has(CHOOSE):
        leaves += [f"o == some(choose(s | {{{n}}}))"]
    if ctx.has("variant"):
        leaves += ["v is Stop", "not (v is Req)", "any(w is Req for w in net)",
                   "all(not (w is Ack) for w in net)", "v in net",
                   "all(w.t == 0 for w: Req in net)", f"any(w.src == {n} for w: Req in net)",
                   "any(w.ok for w: Ack in net)"]
    if ctx.has("records"):
        leaves += [f"any(w.k == {n} for w in rs)", f"count(bg, R(k={n}, c=0)) > 0",
                   "all(w.c == 0 for w in rs)"]
    if ctx.has("sparse"):
        leaves += [f"Big(k={n}, w=0) in bs", "any(g.w > 0 for g in bs)", "distinct(bb) <= bs",
                   "bs == {}", f"Big(k={n}, w=5000) not in bb", "all(g in bs for g in bb)",
                   "bs != distinct(bb)", "bs & distinct(bb) == {}"]
    if ctx.has("bigints"):
        leaves += ["25000 in ns", "ns != {99999}", "len(ns - {0, 99999}) > 0"]
    if depth >= 2:
        return draw(st.sampled_from(leaves))
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return (f"{_int(draw, ctx, depth + 1)} {draw(st.sampled_from(['<', '<=', '==', '!=']))} "
                f"{_int(draw, ctx, depth + 1)}")
    if kind == 1:
        return f"not ({_bool(draw, ctx, depth + 1)})"
    if kind == 2:
        return (f"({_bool(draw, ctx, depth + 1)} {draw(st.sampled_from(['and', 'or', '=>']))} "
                f"{_bool(draw, ctx, depth + 1)})")
    if kind == 3:
        return f"all(m[k] <= {draw(st.integers(0, K))} for k in Node)"
    if kind == 4:
        return f"any(k in s and m[k] > {draw(st.integers(0, K - 1))} for k in Node)"
    return draw(st.sampled_from(leaves))


def _set(draw):
    return draw(st.sampled_from([
        "s | {n}", "s - {n}", "{}", "{k for k in Node if m[k] > 0}", "s & {n}", "Node - s",
    ]))


def _assignment(draw, ctx, var):
    if var in ("x", "y"):
        return f"{var} := {_int(draw, ctx)}"
    if var == "b":
        return f"b := {_bool(draw, ctx)}"
    if var == "s":
        return f"s := {_set(draw)}"
    if var == "m":
        if ctx.has("multi") and draw(st.booleans()):
            # Two parts of one map in one step; on n == node2 the later wins.
            return f"m[n] := {_int(draw, ctx)}\n    m[node2] := {_int(draw, ctx)}"
        return f"m[n] := {_int(draw, ctx)}"
    if var == "o":
        return draw(st.sampled_from(["o := some(n)", "o := none"]))
    if var == "v":
        return draw(st.sampled_from([
            "v := Req(t=min(x, 1), src=n)", f"v := Ack(ok={_bool(draw, ctx, 1)})", "v := Stop",
        ]))
    if var == "net":
        return draw(st.sampled_from([
            "require len(net) < 2\n    net := net | {v}",
            "net := net - {v}",
            "net := {w for w in net if not (w is Stop)}",
            "net := {w for w: Req in net if w.t == 0}",
            "require len(net) < 2\n    net := net | {Req(t=1, src=n)}",
        ]))
    if var == "rs":
        return draw(st.sampled_from([
            "require len(rs) < 2\n    rs := rs | {R(k=n, c=min(y, 1))}",
            "rs := {w for w in rs if w.k != n}",
        ]))
    if var == "bs":
        return draw(st.sampled_from([
            "require len(bs) < 2\n    bs := bs | {Big(k=n, w=min(x, 1) * 5000)}",
            "bs := bs - {Big(k=n, w=0)}",
            "bs := {g for g in bs if g.k != n}",
            "pick hs in bs\n    bs := bs - {hs}",
            "bs := bs & {Big(k=n, w=0), Big(k=node1, w=5000)}",
            "bs := distinct(bb) - bs",
        ]))
    if var == "bb":
        return draw(st.sampled_from([
            "require len(bb) < 2\n    bb := put(bb, Big(k=n, w=0))",
            "pick hb in bb\n    bb := take(bb, hb)",
            "bb := {}",
        ]))
    if var == "ns":
        return draw(st.sampled_from([
            "require len(ns) < 2\n    ns := ns | {min(x, 1) * 25000}",
            "ns := ns - {99999}",
            "ns := {v for v in ns if v != 0} | {}",
            "ns := {0, 99999} - ns",
        ]))
    if var == "bg":
        return draw(st.sampled_from([
            "require len(bg) < 2\n    bg := put(bg, R(k=n, c=min(x, 1)))",
            "pick g in bg\n    bg := take(bg, g)",
        ]))
    return draw(st.sampled_from([
        "require len(q) < 2\n    q := append(q, x)",
        "require len(q) > 0\n    q := tail(q)",
        "q := []",
        "q := [min(e + 1, 3) for e in q if e != x]",
        "q := [e for e in 0..1 if e != y]",
    ]))


def _arm_body(draw, ctx, free, binder):
    """One match arm's statements: a guard on the bound fields, or an
    assignment to a variable the rest of the action leaves alone."""
    uses = {"r": ["r.t"], "a": ["(if a.ok then 1 else 0)"]}.get(binder, [])
    ints = [i for i in ("x", "y") if i in free]
    choice = draw(st.integers(0, 2))
    if choice == 0 and ints:
        value = draw(st.sampled_from(uses)) if uses else _int(draw, ctx, 1)
        return f"{draw(st.sampled_from(ints))} := {value}"
    if choice == 1 and "b" in free:
        return "b := a.ok" if binder == "a" else f"b := {_bool(draw, ctx, 1)}"
    guard = {"r": "r.src == n or r.t == 0", "a": "a.ok or x > 0"}.get(binder, _bool(draw, ctx, 1))
    return f"require {guard}"


def _match_stmt(draw, ctx, subject, free):
    """A match statement on ``subject`` in one of the pattern forms."""
    form = draw(st.integers(0, 2))
    if form == 0:
        arms = [("Req as r", "r"), ("Ack as a", "a"), ("Stop", None)]
    elif form == 1:
        arms = [("Req as r", "r"), ("_", None)]
    else:
        arms = [("Ack | Stop", None), ("Req as r", "r")]
    text = [f"match {subject} {{"]
    for pattern, binder in arms:
        text.append(f"        {pattern} {{ {_arm_body(draw, ctx, free, binder)} }}")
    return "\n".join(text) + "\n    }"


def _action(draw, ctx, names, index):
    assigned = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
    free = [v for v in names if v not in assigned]
    lines = []
    if draw(st.booleans()):
        lines.append(f"require {_bool(draw, ctx)}")
    if draw(st.integers(0, 3)) == 0:
        # a witness for each element: a guard, one outcome per combination
        lines.append(draw(st.sampled_from([
            "pick each k in s: u in 0..3 if u == m[k] or u == x",
            "pick each k in Node: u in 0..1 if u <= m[k]",
            "pick each e in q: u in 0..3 if u >= e and u <= y",
            "pick each k in s: u in 0..3 if u < m[k]",
        ])))
    shape = draw(st.integers(0, 7 if ctx.has("variant") else 3))
    if shape == 1:
        # nondeterministic choice among the members of a set
        lines.append("pick p in s")
        lines.append("require p != n or b")
    body = [_assignment(draw, ctx, v) for v in assigned]
    if shape == 2 and len(body) >= 1:
        other = [_assignment(draw, ctx, v) for v in assigned]
        lines.append("either {\n    " + "\n    ".join(body) + "\n    } or {\n    "
                     + "\n    ".join(other) + "\n    }")
    elif shape == 3:
        lines.append(f"if {_bool(draw, ctx)} {{\n    " + "\n    ".join(body) + "\n    }")
    elif shape == 4:
        lines.extend(body)
        lines.append(_match_stmt(draw, ctx, "v", free))
    elif shape == 5:
        # a message taken from the network, read by its case
        lines.append("pick e in net")
        lines.extend(body)
        lines.append(_match_stmt(draw, ctx, "e", free))
    elif shape == 6:
        # narrowed to one case: r reads Req's fields
        lines.append("pick r: Req in net")
        lines.extend(body)
        lines.append(_arm_body(draw, ctx, free, "r"))
    elif shape == 7:
        # narrowed by a test, and by a require for the rest of the block
        lines.extend(body)
        lines.append(f"if v is Req as r {{\n        {_arm_body(draw, ctx, free, 'r')}\n    }} "
                     f"else {{\n        require v is Ack as a\n        "
                     f"{_arm_body(draw, ctx, free, 'a')}\n    }}")
    else:
        lines.extend(body)
    return f"action A{index}(n: Node) {{\n    " + "\n    ".join(lines) + "\n}\n"


@st.composite
def liveness_decls(draw, features=frozenset()):
    """One or two liveness declarations over the spec's variables."""
    forms = [
        lambda: f"eventually {_bool(draw, _Ctx('node1', features), 1)}",
        lambda: (f"{_bool(draw, _Ctx('node2', features), 1)} leads to "
                 f"{_bool(draw, _Ctx('node2', features), 1)}"),
        lambda: f"always eventually {_bool(draw, _Ctx('node1', features), 1)}",
        lambda: f"eventually always {_bool(draw, _Ctx('node1', features), 1)}",
    ]
    out = []
    for i, form in enumerate(draw(st.lists(st.sampled_from(forms), min_size=1, max_size=2))):
        out.append(f"liveness L{i}: {form()}\n")
    if draw(st.booleans()):
        # one property per binding of k
        out.append(f"liveness Each(k: Node): {_bool(draw, _Ctx('k', features), 1)} leads to "
                   f"{_bool(draw, _Ctx('k', features), 1)}\n")
    return "".join(out)


@st.composite
def fair_decls(draw, actions: int):
    """Zero to three fairness conditions on actions A0..A{actions-1}, each
    with one parameter n: Node."""
    out = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["weak", "strong"]))
        if draw(st.integers(0, 3)) == 0:
            # a group: one condition on several actions together
            first, second = (f"A{draw(st.integers(0, actions - 1))}" for _ in range(2))
            group = draw(st.sampled_from([
                f"{first} | {second}", f"{first} | {second}(_)", f"{first}(node1) | {second}",
                f"{first}(k) | {second}(k) for k in Node", f"{first}(_) | {second}(node2)",
            ]))
            out.append(f"fair {kind} {group}\n")
            continue
        name = f"A{draw(st.integers(0, actions - 1))}"
        args = draw(st.sampled_from(["", "(*)", "(_)", "(node1)", "(node2)", "(k) for k in Node",
                                     "(k) for k in Node if k != node1"]))
        out.append(f"fair {kind} {name}{args}\n")
    return "".join(out)


@st.composite
def specs(draw, liveness: bool = False, choose: bool = True):
    """A small complete spec: one model-value type, all VARS and those of its
    features, 2-4 actions, one invariant and one sometimes property (and,
    with ``liveness``, liveness properties and fairness).  ``choose=False``
    keeps ``choose`` out of its expressions."""
    features = frozenset(draw(st.sets(st.sampled_from(sorted(FEATURES)), max_size=2)))
    if liveness and draw(st.booleans()):
        # A constraint's cut steps still enable their action: worth drawing often.
        features |= {"constraint"}
    symmetric = "symmetric " if draw(st.booleans()) else ""
    parts = ["module generated\n", f"{symmetric}type Node = model(2)\n"]
    declared = dict(VARS)
    for feature in sorted(features):
        types, more = FEATURES[feature]
        parts.append(types)
        declared.update(more)
    for name, (typ, init) in declared.items():
        parts.append(f"var {name}: {typ} = {init}\n")
    if choose:
        features = features | {CHOOSE}
    in_action = _Ctx("n", features)
    names = sorted(declared)
    actions = draw(st.integers(2, 4))
    for i in range(actions):
        parts.append(_action(draw, in_action, names, i))
    parts.append(f"invariant Inv: {_bool(draw, _Ctx('node1', features))}\n")
    parts.append(f"sometimes Reach: {_bool(draw, _Ctx('node2', features))}\n")
    if "constraint" in features:
        bound = draw(st.sampled_from(["x + y <= 4", "len(q) < 2", "not (x == 3 and b)"]))
        parts.append(f"constraint Bound: {bound}\n")
        if draw(st.booleans()):
            parts.append(f"constraint Extra: {_bool(draw, _Ctx('node1', features))}\n")
    if liveness:
        if draw(st.booleans()):
            # A counter going round: a cycle every behaviour may take, which
            # fairness (on it, or on an action it enables and disables) is
            # then about; random actions seldom make one.
            parts.append(f"action A{actions}(n: Node) {{\n    require n == node1 or b\n"
                         f"    x := (x + 1) % 4\n}}\n")
            actions += 1
        parts.append(draw(liveness_decls(features)))
        parts.append(draw(fair_decls(actions)))
    return "".join(parts)
