"""The VS Code extension's TextMate grammar keeps up with the language: every
keyword, temporal word and built-in of the parser is coloured, and the
extension's manifest points at files that exist."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from modelcheck.lsp.navigate import CONTEXTUAL_WORDS
from modelcheck.semantics.names import BUILTINS
from modelcheck.syntax.parser import keywords

EXTENSION = Path(__file__).resolve().parents[2] / "editors" / "vscode"


def _grammar() -> dict:
    return json.loads((EXTENSION / "syntaxes" / "modelcheck.tmLanguage.json").read_text())


def _rules(grammar: dict) -> list[dict]:
    """Every rule with a ``match``, in the order the grammar tries them."""
    out: list[dict] = []

    def walk(rule: dict) -> None:
        if "include" in rule:
            walk(grammar["repository"][rule["include"].lstrip("#")])
        if "match" in rule:
            out.append(rule)
        for child in rule.get("patterns", []):
            walk(child)

    for rule in grammar["patterns"]:
        walk(rule)
    return out


def _scope_of(text: str) -> str | None:
    """The scope of the first rule that matches all of ``text`` (for a rule
    with captures, the scope of its first capture)."""
    for rule in _rules(_grammar()):
        match = re.compile(rule["match"]).match(text)
        if match and match.end() >= len(text.rstrip("(")):
            return rule.get("name") or rule["captures"]["1"]["name"]
    return None


#: Words coloured only where they are keywords: ``weak`` is a name elsewhere.
IN_CONTEXT = {"weak": "fair weak", "strong": "fair strong"}


@pytest.mark.parametrize("word", sorted(keywords() | set(CONTEXTUAL_WORDS)))
def test_every_keyword_is_coloured(word: str) -> None:
    scope = _scope_of(IN_CONTEXT.get(word, word))
    assert scope is not None and scope.split(".")[0] in ("keyword", "storage", "support",
                                                        "constant"), (word, scope)


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_builtin_is_coloured(name: str) -> None:
    assert _scope_of(name + "(") == "support.function.builtin.modelcheck"


@pytest.mark.parametrize(("text", "scope"), [
    ("# a comment", "comment.line.number-sign.modelcheck"),
    ("42", "constant.numeric.integer.modelcheck"),
    ("~>", "keyword.operator.temporal.modelcheck"),
    (":=", "keyword.operator.assignment.modelcheck"),
    ("..", "keyword.operator.range.modelcheck"),
])
def test_comments_numbers_and_operators(text: str, scope: str) -> None:
    assert _scope_of(text) == scope


def test_the_manifest_points_at_the_grammar() -> None:
    manifest = json.loads((EXTENSION / "package.json").read_text())
    [grammar] = manifest["contributes"]["grammars"]
    assert grammar["scopeName"] == _grammar()["scopeName"]
    assert (EXTENSION / grammar["path"]).is_file()
    [language] = manifest["contributes"]["languages"]
    assert language["extensions"] == [".mc"]
    json.loads((EXTENSION / language["configuration"]).read_text())
    assert (EXTENSION / manifest["main"]).is_file()
    assert manifest["contributes"]["configuration"]["properties"][
        "modelcheck.server.args"]["default"] == ["lsp"]
