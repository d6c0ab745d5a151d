"""Scenario files: a short list of actions to replay against a spec.

Text scenarios (``*.scenario``, grammar ``grammar/scenario.lark``) hold one
step a line, ``Action(param=value, ...)``, with ``#`` comments, ``const NAME =
value`` lines before the first step (the configuration, as ``-D`` gives it)
and ``expect`` lines::

    expect NoConfirmedLoss violated [at step 5]
    expect QueueAvailable holds
    expect infeasible [at step 4]

JSON scenarios hold the same, ``{"const": {...}, "expect": [...], "steps":
[{"action": "Crash", "params": {"n": "node1"}}]}``, or are ITF traces whose
states record the action taken.  Values are read by the declared type of the
parameter they are given for (``bind``), so a scenario is parsed once and
checked against the model that its consts configure.

Diagnostics: MC1101 scenario syntax, MC1102 a ``const`` line after a step,
MC2101 unknown action, property or const, MC3101 unknown, missing or repeated
parameter, MC3102 a value that does not fit its parameter's type.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from modelcheck.diagnostics import Diagnostic, Span, did_you_mean
from modelcheck.errors import CompileError
from modelcheck.ir.nodes import Action, Model
from modelcheck.ir.types import (BagType, BoolType, EnumType, IntType, MapType, ModelType,
                                 OptionType, RecordType, SeqType, SetType, TupleType, Type,
                                 VariantType, render_type)
from modelcheck.ir.values import FrozenDict, Variant, domain, render_value
from modelcheck.trace.itf_json import loads_itf

__all__ = ["Lit", "ScenarioStep", "ConstLine", "Expectation", "Scenario", "BoundStep",
           "parse_scenario", "scenario_from_json", "load_scenario", "bind", "grammar_text"]


@dataclass(frozen=True)
class Lit:
    """A value as written: ``kind`` is int, bool, none, name, some, record,
    set, map, seq or tuple; ``value`` the int, bool or name; ``items`` the
    parts (record fields and map entries are ``(key, Lit)`` pairs, the key a
    field name or a Lit)."""
    kind: str
    value: Any = None
    items: tuple[Any, ...] = ()
    span: Span | None = None


@dataclass(frozen=True)
class ScenarioStep:
    action: str
    args: tuple[tuple[str, Lit, Span | None], ...]
    span: Span | None


@dataclass(frozen=True)
class ConstLine:
    name: str
    value: str
    span: Span | None


@dataclass(frozen=True)
class Expectation:
    """``expect P violated|holds`` (``name`` = P) or ``expect feasible|
    infeasible`` (``name`` None); ``at_step``: the step it should happen at."""
    name: str | None
    outcome: str
    at_step: int | None
    span: Span | None

    def text(self) -> str:
        where = f" at step {self.at_step}" if self.at_step is not None else ""
        return f"expect {self.name + ' ' if self.name else ''}{self.outcome}{where}"


@dataclass(frozen=True)
class Scenario:
    """``lasso``: for an ITF lasso (a liveness counterexample), its loop
    index; its loop-back step, if it has one, is then the last of ``steps``
    (replayed like the others, it must lead back to the state at ``lasso``),
    and ``about`` names the property and its binding (``#meta.instance``).
    ``recorded``: the file is an ITF trace, whose states the replay compares
    with what its actions give (``source`` holds them)."""
    path: str
    source: str
    consts: tuple[ConstLine, ...]
    expectations: tuple[Expectation, ...]
    steps: tuple[ScenarioStep, ...]
    lasso: int | None = None
    about: tuple[str | None, str | None] = (None, None)
    recorded: bool = False


@dataclass(frozen=True)
class BoundStep:
    """A scenario step checked against the model: its parameters as IR values,
    in the action's declaration order."""
    action: str
    params: tuple[tuple[str, Any], ...]
    span: Span | None


# ------------------------------------------------------------------ text scenarios

def grammar_text() -> str:
    """The scenario grammar: the wheel's copy, else ``grammar/`` of the checkout."""
    packaged = resources.files("modelcheck").joinpath("_grammar", "scenario.lark")
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    return (Path(__file__).resolve().parents[2] / "grammar" / "scenario.lark").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(grammar_text(), parser="lalr", propagate_positions=True, maybe_placeholders=True)


_WORDS = {"NAME": "a name", "SIGNED_INT": "a number", "_NL": "the end of the line",
          "$END": "the end of the file", "CONST_NAME": "a const name", "CONST_VALUE": "a value",
          "COMMA": "','", "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'",
          "LBRACE": "'{'", "RBRACE": "'}'", "EQUAL": "'='", "COLON": "':'", "_AT": "'at'",
          "_STEP": "'step'"}
_VALUE_START = {"SIGNED_INT", "NAME", "TRUE", "FALSE", "NONE", "SOME", "LPAR", "LSQB", "LBRACE"}


def _expected_words(expected: set[str]) -> str:
    names = set(expected)
    words: list[str] = []
    if _VALUE_START <= names:
        words.append("a value")
        names -= _VALUE_START
    for name in sorted(names):
        words.append(_WORDS.get(name, f"'{name.lower()}'"))
    if len(words) <= 1:
        return words[0] if words else "something else"
    return ", ".join(words[:-1]) + " or " + words[-1]


def _syntax_error(err: UnexpectedInput, source: str, path: str) -> Diagnostic:
    line, col = max(1, err.line), max(1, err.column)
    if isinstance(err, UnexpectedCharacters):
        char = source[err.pos_in_stream] if err.pos_in_stream < len(source) else "?"
        message = f"unexpected character {char!r}"
        expected = set(err.allowed or ())
        width = 1
    elif isinstance(err, UnexpectedEOF):
        message = "the scenario ends in the middle of a line"
        expected = set(err.expected or ())
        width = 1
    else:
        assert isinstance(err, UnexpectedToken)
        tok = err.token
        found = "end of line" if tok.type == "_NL" else \
            "end of file" if tok.type == "$END" else repr(str(tok))
        message = f"unexpected {found}"
        expected = set(err.expected or ())
        try:
            # the states LALR merged may list more than can really come next
            expected = set(err.interactive_parser.accepts()) or expected
        except Exception:  # noqa: BLE001 - only a finer message is lost
            pass
        width = max(1, len(str(tok))) if tok.type not in ("_NL", "$END") else 1
        if tok.type == "CONST_VALUE" and "CONST_VALUE" not in expected:
            # the lexer's fallback took the rest of the line as one token
            message, width = f"unexpected character {str(tok)[0]!r}", 1
        if "_NL" in expected:
            expected.discard("$END")
    hint = None
    if expected:
        message += f": expected {_expected_words(expected)}"
    if "RPAR" in expected and isinstance(err, UnexpectedToken) and err.token.type == "_NL":
        hint = "a step is written on one line: Action(param=value, ...)"
    return Diagnostic("MC1101", message, Span(path, line, col, line, col + width), hint=hint)


def _span(path: str, node: Tree | Token) -> Span | None:
    meta = node if isinstance(node, Token) else node.meta
    if getattr(meta, "line", None) is None:
        return None
    return Span(path, meta.line, meta.column, meta.end_line, meta.end_column)


def parse_scenario(source: str, path: str) -> Scenario:
    """Parse a text scenario.  Raises ``CompileError`` (MC1101, MC1102)."""
    try:
        tree = _parser().parse(source if source.endswith("\n") else source + "\n")
    except UnexpectedInput as err:
        raise CompileError([_syntax_error(err, source, path)], {path: source}) from None
    consts: list[ConstLine] = []
    expectations: list[Expectation] = []
    steps: list[ScenarioStep] = []
    problems: list[Diagnostic] = []
    for line in tree.children:
        if not isinstance(line, Tree):
            continue
        span = _span(path, line)
        if line.data == "const_line":
            name, value = line.children
            if steps:
                problems.append(Diagnostic("MC1102", "a const line after the first step", span,
                                           hint="put the const lines at the top of the scenario"))
            consts.append(ConstLine(str(name), str(value).strip(), span))
        elif line.data == "expect_property":
            name, verdict, at = line.children
            expectations.append(Expectation(str(name), str(verdict.children[0]),
                                            int(at) if at is not None else None, span))
        elif line.data == "expect_feasibility":
            verdict, at = line.children
            expectations.append(Expectation(None, str(verdict.children[0]),
                                            int(at) if at is not None else None, span))
        else:
            name, args = line.children
            steps.append(ScenarioStep(str(name), _args(path, args), span))
    if problems:
        raise CompileError(problems, {path: source})
    return Scenario(path, source, tuple(consts), tuple(expectations), tuple(steps))


def _args(path: str, args: Tree | None) -> tuple[tuple[str, Lit, Span | None], ...]:
    if args is None:
        return ()
    out = []
    for arg in args.children:
        name, value = arg.children
        out.append((str(name), _lit(path, value), _span(path, name)))
    return tuple(out)


def _lit(path: str, node: Tree | Token) -> Lit:
    span = _span(path, node)
    if isinstance(node, Token):  # a parenthesised value is its token
        return Lit("name", str(node), (), span)
    kind = node.data
    kids = [c for c in node.children if c is not None]
    if kind == "int_value":
        return Lit("int", int(kids[0]), (), span)
    if kind in ("true_value", "false_value"):
        return Lit("bool", kind == "true_value", (), span)
    if kind == "none_value":
        return Lit("none", None, (), span)
    if kind == "name_value":
        return Lit("name", str(kids[0]), (), span)
    if kind == "some_value":
        return Lit("some", None, (_lit(path, kids[0]),), span)
    if kind == "record_value":
        fields = tuple((name, lit) for name, lit, _ in _args(path, node.children[1]))
        return Lit("record", str(kids[0]), fields, span)
    if kind == "map_value":
        return Lit("map", None, tuple((_lit(path, item.children[0]), _lit(path, item.children[1]))
                                      for item in kids), span)
    if kind in ("set_value", "seq_value", "tuple_value"):
        return Lit(kind.split("_")[0], None, tuple(_lit(path, k) for k in kids), span)
    return _lit(path, kids[0]) if kids else Lit("none", None, (), span)


# ------------------------------------------------------------------ JSON scenarios

def _json_lit(v: Any, span: Span | None) -> Lit:
    """A JSON value (ITF encodings included) as a Lit, read by type later."""
    if isinstance(v, bool):
        return Lit("bool", v, (), span)
    if isinstance(v, int):
        return Lit("int", v, (), span)
    if isinstance(v, str):
        return Lit("name", v, (), span)
    if v is None:
        return Lit("none", None, (), span)
    if isinstance(v, list):
        return Lit("seq", None, tuple(_json_lit(x, span) for x in v), span)
    if isinstance(v, dict):
        if "#bigint" in v:
            return Lit("int", int(v["#bigint"]), (), span)
        if "#set" in v:
            return Lit("set", None, tuple(_json_lit(x, span) for x in v["#set"]), span)
        if "#tup" in v:
            return Lit("tuple", None, tuple(_json_lit(x, span) for x in v["#tup"]), span)
        if "#map" in v:
            return Lit("map", None, tuple((_json_lit(k, span), _json_lit(x, span))
                                          for k, x in v["#map"]), span)
        if "#some" in v:
            return Lit("some", None, (_json_lit(v["#some"], span),), span)
        if "tag" in v and "value" in v and set(v) <= {"tag", "value"}:
            # Quint's sum types: Some(x) / None
            if v["tag"] == "None":
                return Lit("none", None, (), span)
            if v["tag"] == "Some":
                return Lit("some", None, (_json_lit(v["value"], span),), span)
            # Any other variant: a case without fields (or an enum member,
            # as Quint writes them) is its name, a case with fields a record
            # named by its case, as the text form writes them.
            if isinstance(v["tag"], str) and v["value"] in ({"#tup": []}, {}):
                return Lit("name", v["tag"], (), span)
            if isinstance(v["tag"], str) and isinstance(v["value"], dict):
                return Lit("record", v["tag"], tuple((k, _json_lit(x, span))
                                                     for k, x in v["value"].items()), span)
        return Lit("record", None, tuple((k, _json_lit(x, span)) for k, x in v.items()
                                         if not k.startswith("#")), span)
    raise ValueError(f"unsupported JSON value {v!r}")


def scenario_from_json(source: str, path: str) -> Scenario:
    """A JSON scenario, or an ITF trace whose states name their actions
    (``#meta``: ``action`` and ``params``, or Quint's ``mbt::actionTaken`` and
    ``mbt::nondetPicks``).  Raises ``CompileError`` (MC1101)."""
    whole = Span(path, 1, 1, 1, 2)
    # Bad JSON, deep nesting and numbers ITF cannot hold are refused here as
    # for any trace file (MC1201, MC1202, MC3202), before recursive code runs.
    data = loads_itf(source, path)
    try:
        if isinstance(data, dict) and "states" in data:
            return _from_itf(data, path, source, whole)
        raw_steps = data.get("steps", []) if isinstance(data, dict) else data
        consts = tuple(ConstLine(str(k), str(v).lower() if isinstance(v, bool) else str(v), whole)
                       for k, v in (data.get("const", {}) if isinstance(data, dict) else {}).items())
        expectations = []
        for e in (data.get("expect", []) if isinstance(data, dict) else []):
            outcome = e.get("outcome") or e.get("verdict")
            expectations.append(Expectation(e.get("property"), str(outcome), e.get("at_step"), whole))
        steps = []
        for raw in raw_steps:
            params = raw.get("params", {}) or {}
            steps.append(ScenarioStep(str(raw["action"]),
                                      tuple((k, _json_lit(v, whole), whole) for k, v in params.items()),
                                      whole))
        for e in expectations:
            if e.outcome not in (("violated", "holds") if e.name else ("feasible", "infeasible")):
                raise ValueError(f"bad expectation outcome {e.outcome!r}")
            if e.at_step is not None and (not isinstance(e.at_step, int) or isinstance(e.at_step, bool)):
                raise ValueError(f"at_step must be a step number, not {e.at_step!r}")
            if e.name is not None and not isinstance(e.name, str):
                raise ValueError(f"a property is named by a string, not {e.name!r}")
    except (AttributeError, KeyError, TypeError, ValueError) as err:
        raise CompileError([Diagnostic(
            "MC1101", f"not a scenario: {err}", whole,
            hint='expected {"const": {...}, "expect": [{"property": P, "outcome": "violated"}], '
                 '"steps": [{"action": A, "params": {...}}]} or an ITF trace')], {path: source}) from None
    return Scenario(path, source, consts, tuple(expectations), tuple(steps))


def _from_itf(data: dict, path: str, source: str, whole: Span) -> Scenario:
    steps = []
    loop = data.get("loop")
    head = data.get("#meta") if isinstance(data.get("#meta"), dict) else {}
    if loop is not None:
        if isinstance(loop, bool) or not isinstance(loop, int) or not 0 <= loop < len(data["states"]):
            raise ValueError(f"the loop index {loop!r} is not the index of a state")
        back = head.get("loop-back")
        if back is None and loop < len(data["states"]) - 1:
            raise ValueError("the lasso does not record the step back to its cycle (#meta.loop-back)")
        if back is not None:
            # The loop-back step is replayed like any other, as the last.
            data = {**data, "states": [*data["states"], {"#meta": back}]}
    for i, state in enumerate(data["states"][1:], start=1):
        meta = state.get("#meta", {}) if isinstance(state, dict) else {}
        action = meta.get("action") or state.get("mbt::actionTaken")
        params = meta.get("params") if "action" in meta else state.get("mbt::nondetPicks", {})
        if not action:
            raise ValueError(f"state {i} does not record the action taken; "
                             "use `modelcheck trace show --spec` to replay such traces")
        if isinstance(params, list):
            params = dict(params)
        lits = []
        for k, v in (params or {}).items():
            if isinstance(v, dict) and v.get("tag") == "None":
                continue  # a Quint nondet pick that did not happen
            lits.append((k, _json_lit(v, whole), whole))
        steps.append(ScenarioStep(str(action), tuple(lits), whole))
    prop, instance = head.get("property"), head.get("instance")
    return Scenario(path, source, (), (), tuple(steps), loop,
                    (prop if isinstance(prop, str) else None,
                     instance if isinstance(instance, str) else None), recorded=True)


def load_scenario(path: str | Path) -> Scenario:
    """Read a scenario file: JSON when it ends in ``.json``, text otherwise.
    Raises ``OSError`` if it cannot be read, ``CompileError`` if it is bad."""
    p = Path(path)
    try:
        source = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise CompileError([Diagnostic("MC1101", f"{path}: not UTF-8 text: {err.reason} at byte "
                                       f"{err.start}", None)]) from None
    if p.suffix == ".json" or source.lstrip().startswith(("{", "[")):
        return scenario_from_json(source, str(path))
    return parse_scenario(source, str(path))


# ------------------------------------------------------------------ binding to a model

def _hint(word: str, choices: list[str], what: str) -> str | None:
    return did_you_mean(word, choices, what)


class _Binder:
    def __init__(self) -> None:
        self.problems: list[Diagnostic] = []

    def bad(self, lit: Lit, message: str, hint: str | None = None) -> None:
        self.problems.append(Diagnostic("MC3102", message, lit.span, hint=hint))

    def value(self, lit: Lit, t: Type) -> Any:
        """``lit`` as a value of ``t``, or None after recording a problem."""
        want = render_type(t)
        if isinstance(t, OptionType):
            if lit.kind == "none":
                return None
            return self.value(lit.items[0] if lit.kind == "some" else lit, t.elem)
        if isinstance(t, BoolType):
            if lit.kind == "bool":
                return lit.value
        elif isinstance(t, IntType):
            if lit.kind == "int":
                if not t.lo <= lit.value <= t.hi:
                    self.bad(lit, f"{lit.value} is outside {want}")
                return lit.value
        elif isinstance(t, (EnumType, ModelType)):
            if lit.kind == "name":
                if lit.value not in t.members:
                    self.bad(lit, f"'{lit.value}' is not a value of {t.name}",
                             _hint(lit.value, list(t.members), f"the values of {t.name} are"))
                return lit.value
        elif isinstance(t, (SetType, SeqType, BagType)) and lit.kind in ("set", "seq"):
            elems = [self.value(x, t.elem) for x in lit.items]
            if isinstance(t, SetType):
                if t.capacity is not None and len(set(elems)) > t.capacity:
                    self.bad(lit, f"{len(set(elems))} elements do not fit {want}")
                return frozenset(elems)
            if len(elems) > t.capacity:
                self.bad(lit, f"{len(elems)} elements do not fit {want}")
            if isinstance(t, SeqType):
                return tuple(elems)
            counts: dict[Any, int] = {}
            for e in elems:
                counts[e] = counts.get(e, 0) + 1
            return FrozenDict(counts)
        elif isinstance(t, TupleType) and lit.kind in ("tuple", "seq"):
            if len(lit.items) != len(t.elems):
                self.bad(lit, f"expected {len(t.elems)} elements for {want}, got {len(lit.items)}")
                return None
            return tuple(self.value(x, et) for x, et in zip(lit.items, t.elems))
        elif isinstance(t, RecordType) and lit.kind == "record":
            return self.record(lit, t)
        elif isinstance(t, MapType) and lit.kind in ("map", "record"):
            return self.map(lit, t)
        elif isinstance(t, VariantType) and lit.kind in ("name", "record") and lit.value is not None:
            return self.variant(lit, t)
        self.bad(lit, f"expected a value of type {want}", _example(t))
        return None

    def variant(self, lit: Lit, t: VariantType) -> Any:
        """``Case(f=v, ...)``, or ``Case`` for a case without fields."""
        cases = [case for case, _ in t.cases]
        if lit.value not in cases:
            self.bad(lit, f"'{lit.value}' is not a case of {t.name}",
                     _hint(lit.value, cases, f"the cases of {t.name} are"))
            return None
        payload = t.case_type(lit.value)
        if lit.kind == "name":
            if payload.fields:
                self.bad(lit, f"the case {lit.value} of {t.name} has fields", _example(payload))
                return None
            return Variant(lit.value, FrozenDict())
        fields = self.record(lit, payload)
        return None if fields is None else Variant(lit.value, fields)

    def record(self, lit: Lit, t: RecordType) -> Any:
        if lit.value is not None and t.name is not None and lit.value != t.name:
            self.bad(lit, f"expected a {t.name} record, not {lit.value}(...)")
            return None
        given = dict(lit.items)
        names = [n for n, _ in t.fields]
        for name in given:
            if name not in names:
                self.bad(lit, f"{t.name or 'the record'} has no field '{name}'",
                         _hint(name, names, "its fields are"))
        missing = [n for n in names if n not in given]
        if missing:
            self.bad(lit, f"missing field{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                          f"of {t.name or 'the record'}", "a record gives every field")
            return None
        return FrozenDict((n, self.value(given[n], ft)) for n, ft in t.fields)

    def map(self, lit: Lit, t: MapType) -> Any:
        out: dict[Any, Any] = {}
        for key, val in lit.items:
            k = self.value(key if isinstance(key, Lit) else Lit("name", key, (), lit.span), t.key)
            out[k] = self.value(val, t.value)
        missing = [k for k in domain(t.key) if k not in out]
        if missing:
            self.bad(lit, "a map gives a value for every key; missing: "
                     + ", ".join(render_value(t.key, k) for k in missing))
        return FrozenDict(out)


def _example(t: Type) -> str | None:
    if isinstance(t, (EnumType, ModelType)):
        return f"one of: {', '.join(t.members[:8])}"
    if isinstance(t, RecordType) and t.name:
        return f"for example {t.name}(" + ", ".join(f"{n}=..." for n, _ in t.fields) + ")"
    if isinstance(t, VariantType) and t.cases:
        case, payload = t.cases[0]
        first = case if not payload.fields else \
            f"{case}(" + ", ".join(f"{n}=..." for n, _ in payload.fields) + ")"
        return f"one of its cases, for example {first}"
    return None


def bind(scenario: Scenario, model: Model) -> list[BoundStep]:
    """Check every step and expectation against ``model``: known action,
    exactly its parameters, values of their types, known properties.  Raises
    ``CompileError`` with every problem found."""
    binder = _Binder()
    problems = binder.problems
    actions = {a.name: a for a in model.actions}
    bound: list[BoundStep] = []
    for step in scenario.steps:
        action = actions.get(step.action)
        if action is None:
            problems.append(Diagnostic("MC2101", f"unknown action '{step.action}'", step.span,
                                       hint=_hint(step.action, list(actions), "the actions are")))
            continue
        bound.append(BoundStep(action.name, _bind_params(binder, step, action), step.span))
    props = {p.name: p for p in model.properties}
    for e in scenario.expectations:
        if e.name is not None and e.name not in props:
            problems.append(Diagnostic("MC2101", f"unknown property '{e.name}'", e.span,
                                       hint=_hint(e.name, list(props), "the properties are")))
        if e.at_step is not None and not 0 <= e.at_step <= len(scenario.steps):
            problems.append(Diagnostic("MC2101", f"step {e.at_step} is not a step of this scenario "
                                       f"(it has {len(scenario.steps)})", e.span))
    if problems:
        raise CompileError(problems, {scenario.path: scenario.source})
    return bound


def _bind_params(binder: _Binder, step: ScenarioStep, action: Action) -> tuple[tuple[str, Any], ...]:
    problems = binder.problems
    declared = {p.name: p for p in action.params}
    given: dict[str, Lit] = {}
    for name, lit, span in step.args:
        if name not in declared:
            problems.append(Diagnostic(
                "MC3101", f"{action.name} has no parameter '{name}'", span or step.span,
                hint=_hint(name, list(declared), "its parameters are")
                or f"{action.name} takes no parameters"))
        elif name in given:
            problems.append(Diagnostic("MC3101", f"parameter '{name}' is given twice", span or step.span))
        else:
            given[name] = lit
    missing = [p for p in action.params if p.name not in given]
    if missing:
        problems.append(Diagnostic(
            "MC3101", f"{action.name} needs {', '.join(p.name for p in missing)}", step.span,
            hint=f"{action.name}("
                 + ", ".join(f"{p.name}: {render_type(p.type)}" for p in action.params) + ")"))
        return ()
    return tuple((p.name, binder.value(given[p.name], p.type)) for p in action.params)
