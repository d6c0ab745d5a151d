"""Types the syntax tree does not hold: hover on ``let``, ``pick`` and
``match`` locals and on the values ``model(N)`` generates, and completion of
the fields after ``r.`` (positions are the compiler's: 1-based)."""
from __future__ import annotations

import pytest

from modelcheck.lsp.analysis import analyze
from modelcheck.lsp.navigate import completions, fields_at, hover, lookup

SPEC = """\
module m

const N: 1..4 = 2
type Node = model(N)
type Rec = record { term: 0..3, owner: Node }
type Msg = variant { Ping(from: Node, body: Rec), Stop }
var msgs: set[Msg] = {}
var logs: map[Node, Rec] = {n: Rec(term=0, owner=n) for n in Node}

def bump(r: Rec) -> 0..3 = let k = r.term; if k < 3 then k + 1 else k

action Go(x: Node) {
    let y = logs[x]
    pick m: Ping in msgs
    let t = match m { Ping as p => p.body.term, Stop => 0 }
    require y.term < 3 and x != node2
    logs[x] := Rec(term=bump(y), owner=m.from)
}
"""
PATH = "m.mc"


def _at(text: str, needle: str, line_hint: str, after: bool = False) -> tuple[int, int]:
    """1-based line and column of ``needle`` on the line with ``line_hint``
    (just after it with ``after``)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line_hint in line:
            col = line.index(needle) + 1
            return number, col + len(needle) if after else col
    raise AssertionError(line_hint)


@pytest.fixture(scope="module")
def analysis():
    result = analyze(SPEC, PATH)
    assert result.diagnostics == () and result.model is not None
    return result


def _code(analysis, line: int, col: int) -> str:
    found = hover(analysis, line, col)
    assert found is not None
    return found[0].split("\n")[1]


def test_hover_shows_the_types_of_let_pick_and_match_locals(analysis) -> None:
    assert _code(analysis, *_at(SPEC, "y", "require y")) == "let y: Rec {term: 0..3, owner: Node}"
    assert _code(analysis, *_at(SPEC, "t =", "let t")) == "let t: 0..3"
    # A pick narrowed to one case: the variant, and the case's fields.
    assert _code(analysis, *_at(SPEC, "m:", "pick m")) == \
        "pick m: Msg, case Ping {from: Node, body: Rec}"
    assert _code(analysis, *_at(SPEC, "p.body", "Ping as p")) == \
        "match p: Ping {from: Node, body: Rec}"
    # A def's let, from where the def is inlined.
    assert _code(analysis, *_at(SPEC, "k <", "def bump")) == "let k: 0..3"


def test_a_local_without_a_model_keeps_its_word(analysis) -> None:
    typed_wrong = SPEC.replace("require y.term < 3", "require y.term < true")
    wrong = analyze(typed_wrong, PATH, analysis)
    assert wrong.model is None
    assert _code(wrong, *_at(typed_wrong, "y", "require y")) == "let y"


def test_hover_and_definition_of_generated_model_values(analysis) -> None:
    where = _at(SPEC, "node2", "require y")
    text, span = hover(analysis, *where)
    assert "node2: Node" in text and "model value" in text
    assert (span.col, span.end_col - span.col) == (where[1], 5)
    decl, _ = lookup(analysis, *where)
    assert (decl.kind, decl.owner, decl.span.line) == ("model_value", "Node", 4)
    # Past the count (N = 2, from the last model that compiled) there is no such value.
    beyond = SPEC.replace("x != node2", "x != node3")
    assert lookup(analyze(beyond, PATH, analysis), *_at(beyond, "node3", "require y")) is None
    names = dict(completions(analysis, *_at(SPEC, "require", "require y")))
    assert names["node1"] == names["node2"] == "model_value" and "node3" not in names


def test_completion_after_a_dot_offers_the_fields(analysis) -> None:
    assert fields_at(analysis, *_at(SPEC, "y.", "require y", after=True)) == \
        [("term", "0..3"), ("owner", "Node")]
    # A pick narrowed to Ping reads Ping's fields; a match arm's binder too.
    assert fields_at(analysis, *_at(SPEC, "m.", "owner=m.from", after=True)) == \
        [("from", "Node"), ("body", "Rec")]
    assert dict(fields_at(analysis, *_at(SPEC, "p.body.", "Ping as p", after=True))) == \
        {"term": "0..3", "owner": "Node"}
    # Half a field written, a map read, a def's parameter.
    assert dict(fields_at(analysis, *_at(SPEC, "y.te", "require y", after=True)))["term"]
    line, col = _at(SPEC, "let y = logs[x]", "let y", after=True)
    partial = SPEC.replace("let y = logs[x]", "let y = logs[x].")
    assert dict(fields_at(analyze(partial, PATH, analysis), line, col + 1)) == \
        {"term": "0..3", "owner": "Node"}
    # Not after a dot: the names answer (None); a range's `..` is no field.
    assert fields_at(analysis, *_at(SPEC, "require", "require y", after=True)) is None
    assert fields_at(analysis, *_at(SPEC, "1..", "const N", after=True)) is None


def test_completion_of_fields_while_the_buffer_does_not_parse(analysis) -> None:
    half_typed = SPEC.replace("require y.term < 3 and x != node2", "require y.")
    broken = analyze(half_typed, PATH, analysis)
    assert broken.model is None and broken.last_model is analysis.model
    assert fields_at(broken, *_at(half_typed, "y.", "require y.", after=True)) == \
        [("term", "0..3"), ("owner", "Node")]
    # A variant not narrowed to a case: every case's fields, each with its case.
    picked = SPEC.replace("require y.term < 3 and x != node2", "pick w in msgs\n    require w == w")
    before = analyze(picked, PATH, analysis)
    assert before.model is not None
    unnarrowed = picked.replace("require w == w", "require w.")
    got = fields_at(analyze(unnarrowed, PATH, before),
                    *_at(unnarrowed, "w.", "require w", after=True))
    assert ("from", "Node (Ping)") in got and ("body", "Rec (Ping)") in got
    # Nothing known about the name: no fields, rather than every name.
    unknown = SPEC.replace("require y.term < 3 and x != node2", "require zz.")
    assert fields_at(analyze(unknown, PATH, analysis),
                     *_at(unknown, "zz.", "require zz", after=True)) == []


PICK_EACH = """\
module pe

type Node = model(2)
var votes: set[Node] = {}
var peers: map[Node, set[Node]] = {n: {} for n in Node}

action Quorum() {
    pick each x in Node: y in peers[x] if y != x
    votes := votes | {node1}
}

action Grow(n: Node, m: Node) {
    peers[n] := peers[n] | {m}
}
"""


def test_pick_each_names_its_element_and_witness_inside_the_statement() -> None:
    found = analyze(PICK_EACH, "pe.mc")
    assert found.diagnostics == () and found.model is not None
    # On the filter: each name goes to its binder, typed from the model.
    line, col = _at(PICK_EACH, "y != x", "pick each")
    for name, at in (("y", col), ("x", col + len("y != "))):
        decl, _ = lookup(found, line, at)
        assert (decl.name, decl.owner, decl.span.line) == (name, "pick", line)
    line, col = _at(PICK_EACH, "x in", "pick each")
    assert _code(found, line, col) == "pick x: Node"
    assert "x" in dict(completions(found, *_at(PICK_EACH, "peers[x]", "pick each")))
    # After the statement neither names anything.
    after = dict(completions(found, *_at(PICK_EACH, "votes :=", "votes :=")))
    assert "x" not in after and "y" not in after
