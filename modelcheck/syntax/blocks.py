"""Which '{' a broken spec left open.

When a '}' is missing, LALR notices only where the next declaration starts
(or at the end of the file), or, where the '}' meant for an outer block
closes an inner one, somewhere further in.  Neither place says which block
is open.  This module scans the braces of the declaration around the error,
names each block by its construct (``action 'Inc'``, ``the 'if'``, ``the
match arm 'Ping'``) and uses the indentation, which the parser ignores, to tell which
'}' went to the wrong block.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Block", "Unclosed", "unclosed_block", "line_col"]

_TOKEN = re.compile(r"#[^\n]*|[{}()\[\]]|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|:=|==|!=|<=|>=|=>|\S")

# After one of these a '{' starts a value (a set, map or comprehension), not a block.
_VALUE_BEFORE = frozenset({"=", ":=", ",", ":", "=>", "==", "!=", "<=", ">=", "<", ">", "+",
                           "-", "*", "//", "%", "|", "&", "..", "and", "not", "in", "then",
                           "with", "require", "let", "return", ";"})
_TYPE_BRACES = ("enum", "variant", "record", "model")

# Markers in a level's token list: a block that closed, a bracketed value.
_BLOCK_END = "}"
_VALUE = "(...)"
_MATCH = "the 'match'"


@dataclass(frozen=True)
class Block:
    """One '{': where it is, what it opens (``action 'Inc'``, ``the 'if'``; None
    for a value such as a set literal) and the indentation of its line."""
    offset: int
    owner: str | None
    indent: int

    def describe(self, text: str) -> str:
        line, col = line_col(text, self.offset)
        what = f"the block of {self.owner}" if self.owner else "the '{'"
        return f"{what} opened at line {line}, column {col}"


@dataclass(frozen=True)
class Unclosed:
    """The block to close (``block``); ``closer``, the offset of the '}' that
    closed it although it is indented as the outer block ``meant_for``;
    ``outer``, blocks around it that are open too."""
    block: Block
    closer: int | None = None
    meant_for: Block | None = None
    outer: tuple[Block, ...] = ()


def line_col(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of ``offset`` in ``text``."""
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


def _indent(text: str, offset: int) -> int:
    start = text.rfind("\n", 0, offset) + 1
    line = text[start:offset]
    return len(line) - len(line.lstrip(" \t"))


def _first_on_line(text: str, offset: int) -> bool:
    return text[text.rfind("\n", 0, offset) + 1:offset].strip() == ""


def _owner(recent: list[str], parent: str | None) -> str | None:
    """What a '{' opens, from the tokens before it on its own level."""
    if not recent:
        return None
    last = recent[-1]
    if last == "or":
        return "the 'or' branch" if len(recent) > 1 and recent[-2] == _BLOCK_END else None
    if last == "else":
        return "the 'else'" if len(recent) > 1 and recent[-2] == _BLOCK_END else None
    if last == "either":
        return "the 'either'"
    if last in _TYPE_BRACES:
        named = [recent[i + 1] for i in range(len(recent) - 1) if recent[i] == "type"]
        return f"{last} '{named[-1]}'" if named else f"the '{last}'"
    if last in _VALUE_BEFORE:
        return None
    if parent == _MATCH:
        arm = [t for t in recent if t != _BLOCK_END]
        return f"the match arm '{arm[0]}'" if arm else None
    for i in range(len(recent) - 1, -1, -1):
        word = recent[i]
        if word == _BLOCK_END:
            break
        if word == "action" and i + 1 < len(recent):
            return f"action '{recent[i + 1]}'"
        if word == "match":
            return _MATCH
        if word == "if":
            return "the 'else if'" if i > 0 and recent[i - 1] == "else" else "the 'if'"
    return None


def _scan(text: str, start: int, end: int) -> tuple[list[Block], Unclosed | None]:
    """The blocks still open at ``end``, and the first block closed by a '}'
    indented as an outer one."""
    # Each level: its '{' (or '(' / '['), the Block for a '{', and its tokens.
    stack: list[tuple[str, Block | None, list[str]]] = [("", None, [])]
    misled: Unclosed | None = None
    for match in _TOKEN.finditer(text, start, end):
        tok = match.group()
        if tok.startswith("#"):
            continue
        recent = stack[-1][2]
        if tok == "{":
            parent = stack[-1][1]
            block = Block(match.start(), _owner(recent, parent.owner if parent else None),
                          _indent(text, match.start()))
            stack.append(("{", block, []))
        elif tok in "([":
            stack.append((tok, None, []))
        elif tok in ")]}":
            opener = {")": "(", "]": "[", "}": "{"}[tok]
            if not any(level[0] == opener for level in stack[1:]):
                continue        # a stray closer: the parser reports it
            while stack[-1][0] != opener:
                stack.pop()
            _, block, _ = stack.pop()
            if block is not None and block.owner is not None:
                outer = [level[1] for level in stack if level[1] is not None]
                if (misled is None and _first_on_line(text, match.start())
                        and _indent(text, match.start()) < block.indent):
                    meant = [b for b in outer if b.indent == _indent(text, match.start())]
                    misled = Unclosed(block, match.start(), meant[-1] if meant else None)
                stack[-1][2][:] = [_BLOCK_END]
            else:
                stack[-1][2].append(_VALUE)
        else:
            recent.append(tok)
    return [level[1] for level in stack if level[1] is not None], misled


def unclosed_block(text: str, start: int, end: int) -> Unclosed | None:
    """The block of ``text[start:end]`` (one declaration) that is not closed,
    or None when every '{' there has its '}'.  A '}' indented less than the
    line of the '{' it closes points at the block really left open;
    otherwise it is the innermost block open at ``end``."""
    still_open, misled = _scan(text, start, end)
    if not still_open:
        return None
    if misled is not None:
        return misled
    return Unclosed(still_open[-1], outer=tuple(reversed(still_open[:-1])))
