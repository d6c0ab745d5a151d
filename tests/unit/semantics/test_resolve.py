"""Name resolution: imports, the one namespace, unknown and duplicate names."""
from __future__ import annotations

import pytest

from modelcheck.errors import CompileError
from modelcheck.semantics.names import model_value_index, resolve
from modelcheck.syntax.parser import parse


def resolve_text(source: str, path: str = "t.mc"):
    return resolve(parse(source, path), path, source)


def name_errors(source: str, path: str = "t.mc"):
    with pytest.raises(CompileError) as info:
        resolve_text(source, path)
    return info.value.diagnostics


def test_symbols_cover_every_kind_of_global():
    resolved = resolve_text("""module m
const N: 1..3 = 2
type Node = model(N)
type Ids = model {a, b}
type Color = enum {red, green}
var x: bool = true
def f() = true
action A() { x := f() }
invariant P: x
""")
    kinds = {name: s.kind for name, s in resolved.symbols.items()}
    assert kinds == {"N": "const", "Node": "type", "Ids": "type", "a": "model_value",
                     "b": "model_value", "Color": "type", "red": "enum_member",
                     "green": "enum_member", "x": "var", "f": "def", "A": "action",
                     "P": "property"}
    assert resolved.count_types == ("Node",)


def test_unknown_name_suggests_a_close_one():
    (d,) = name_errors("module m\nvar leader: bool = true\ninvariant P: leadr\n")
    assert d.code == "MC2001"
    assert d.message == "unknown name 'leadr'"
    assert d.hint == "did you mean 'leader'?"
    assert (d.span.line, d.span.col) == (3, 14)


def test_locals_are_suggested_too():
    (d,) = name_errors("module m\ninvariant P: all(nodee for node in {true})\n")
    assert d.hint == "did you mean 'node'?"


def test_all_unknown_names_of_a_phase_are_reported():
    diags = name_errors("module m\ninvariant P: a and b\ninvariant Q: c\n")
    assert [d.message for d in diags] == ["unknown name 'a'", "unknown name 'b'",
                                          "unknown name 'c'"]


def test_scopes_let_pick_and_for():
    resolve_text("""module m
var x: 0..3 = 0
action A(p: 0..3) {
    let y = p
    pick z in {y}
    x := z
}
invariant P: let w = x; all(v == w for v in {w} if v > 0)
""")
    diags = name_errors("""module m
var x: 0..3 = 0
action A() {
    if true { let y = 1 } else { }
    x := y
}
""")
    assert [d.message for d in diags] == ["unknown name 'y'"]


def test_a_for_clause_does_not_see_its_own_variable_in_its_domain():
    (d,) = name_errors("module m\ninvariant P: all(true for v in v)\n")
    assert d.message == "unknown name 'v'"


def test_duplicate_definition_points_at_the_first():
    (d,) = name_errors("module m\nvar x: bool = true\nconst x: 0..1 = 0\n")
    assert d.code == "MC2002"
    assert d.message == "'x' is already defined (as a state variable)"
    assert d.notes == ("first defined at t.mc:2:5",)


def test_enum_members_share_the_namespace():
    # members of two enums may share a name (the expected type decides:
    # tests/unit/semantics/test_typed_names.py); any other clash is MC2002
    resolved = resolve_text("module m\ntype A = enum {on, off}\ntype B = enum {off}\n", "t.mc")
    assert [m.decl.name for m in resolved.typed["off"]] == ["A", "B"]
    (d,) = name_errors("module m\ntype A = enum {on, off}\nconst off: bool = true\n")
    assert d.code == "MC2002" and "'off'" in d.message


def test_builtins_cannot_be_redefined():
    (d,) = name_errors("module m\ndef len(x: bool) = x\n")
    assert d.code == "MC2002" and "built-in" in d.message


def test_duplicate_parameter():
    (d,) = name_errors("module m\naction A(a: bool, a: bool) { }\n")
    assert d.code == "MC2002" and d.message == "parameter 'a' is declared twice"


def test_unknown_type_and_value_used_as_type():
    diags = name_errors("module m\ntype Node = model(2)\nvar x: Nod = node1\nvar y: x = 1\n")
    assert [(d.code, d.message) for d in diags] == [
        ("MC2003", "unknown type 'Nod'"), ("MC2003", "'x' is a state variable, not a type")]
    assert diags[0].hint == "did you mean 'Node'?"


def test_primed_name_must_be_a_state_variable():
    (d,) = name_errors("module m\nconst N: 0..1 = 0\nstep invariant S: N' == N\n")
    assert d.message == "unknown state variable 'N'"


def test_unknown_function():
    (d,) = name_errors("module m\ninvariant P: lenn({1}) == 1\n")
    assert d.message == "unknown function 'lenn'" and d.hint == "did you mean 'len'?"


def test_model_values_of_counted_types_are_known_by_their_form():
    assert model_value_index("node12", "Node") == 12
    assert model_value_index("node0", "Node") is None
    assert model_value_index("node", "Node") is None
    assert model_value_index("nodes1", "Node") is None
    resolve_text("module m\ntype Node = model(2)\nvar x: Node = node2\n")


# ------------------------------------------------------------------ imports

def test_import_joins_the_namespace(tmp_path):
    (tmp_path / "common.mc").write_text("module common\ntype Node = model(2)\n"
                                        "const K: 0..3 = 1\ndef two() = 2\n")
    main = tmp_path / "main.mc"
    source = "module main\nimport common\nvar x: Node = node1\ninvariant P: two() > K\n"
    resolved = resolve_text(source, str(main))
    assert {"Node", "K", "two", "x", "P"} <= set(resolved.symbols)
    assert [p for p, _ in resolved.sources] == [str(main), str(tmp_path / "common.mc")]
    assert [type(i).__name__ for i in resolved.items][:3] == ["TypeDecl", "ConstDecl",
                                                              "DefDecl"]


def test_import_loaded_once_through_two_paths(tmp_path):
    (tmp_path / "base.mc").write_text("module base\nconst K: 0..3 = 1\n")
    (tmp_path / "a.mc").write_text("module a\nimport base\n")
    (tmp_path / "b.mc").write_text("module b\nimport base\n")
    resolved = resolve_text("module main\nimport a\nimport b\n", str(tmp_path / "main.mc"))
    assert sum(1 for n, s in resolved.symbols.items() if n == "K") == 1


def test_missing_import(tmp_path):
    (d,) = name_errors("module main\nimport nothere\n", str(tmp_path / "main.mc"))
    assert d.code == "MC2004"
    assert d.message == "cannot find 'nothere.mc' for 'import nothere'"


def test_import_cycle(tmp_path):
    (tmp_path / "a.mc").write_text("module a\nimport b\n")
    (tmp_path / "b.mc").write_text("module b\nimport a\n")
    main = tmp_path / "a.mc"
    (d,) = name_errors(main.read_text(), str(main))
    assert d.code == "MC2005"
    assert d.message == "import cycle: a.mc -> b.mc -> a.mc"


def test_imported_file_may_hold_only_types_consts_defs(tmp_path):
    (tmp_path / "lib.mc").write_text("module lib\nvar x: bool = true\n"
                                     "action A() { }\ninvariant P: true\n")
    diags = name_errors("module main\nimport lib\n", str(tmp_path / "main.mc"))
    assert [d.code for d in diags] == ["MC4006"] * 3
    assert diags[0].message == ("an imported file may hold only type, const and def "
                                "declarations, not a state variable")


def test_syntax_error_in_an_imported_file_is_reported_with_its_source(tmp_path):
    (tmp_path / "lib.mc").write_text("module lib\nconst K: 0..1 = )\n")
    with pytest.raises(CompileError) as info:
        resolve_text("module main\nimport lib\n", str(tmp_path / "main.mc"))
    (d,) = info.value.diagnostics
    assert d.code == "MC1001" and d.span.file == str(tmp_path / "lib.mc")
    assert str(tmp_path / "lib.mc") in info.value.sources


def test_clash_with_an_imported_name(tmp_path):
    (tmp_path / "lib.mc").write_text("module lib\nconst K: 0..1 = 0\n")
    (d,) = name_errors("module main\nimport lib\nvar K: bool = true\n",
                       str(tmp_path / "main.mc"))
    assert d.code == "MC2002"
