"""Reading a trace file for the ``trace`` commands and the trace server:
with the types of its spec when the spec is known (given with ``--spec``, or
named in the file's ``#meta`` and found: ``trace.spec_source``), its consts
those the file records overridden by ``-D``, replayed first; without a spec,
values read by their shape (cli/trace_cmds.py's doc says more)."""
from __future__ import annotations

from collections.abc import Callable, Mapping, MutableSequence
from dataclasses import dataclass, field
from typing import Any, cast

from modelcheck.errors import UsageError
from modelcheck.ir.nodes import Model
from modelcheck.trace.itf import itf_header, itf_loop, itf_steps, open_itf
from modelcheck.trace.lasso import complete_loop_back, lasso_problem
from modelcheck.trace.replay import ReplayStream, behaviour_note
from modelcheck.trace.spec_source import find_spec, given_spec
from modelcheck.trace.trace import Step, Trace
from modelcheck.trace.view import KeptSteps, format_value

__all__ = ["SPEC_HINT", "LoadedTrace", "load_trace"]

#: What to do when the spec a trace names is not found.
SPEC_HINT = "give the spec with --spec PATH (and -D for its consts)"


@dataclass
class LoadedTrace:
    """A trace read from a file, with the model it was read by (None: read
    without types) and notes for the user (spec not found, does not replay)."""
    path: str
    trace: Trace
    model: Model | None
    notes: list[str] = field(default_factory=list)
    #: Why the spec the file names was not found (None: found, given, or
    #: the file names none); ``SPEC_HINT`` says what to do about it.
    missing_spec: str | None = None
    #: The consts the trace was made under, as text: the model's when read
    #: with one, else those the file records.
    consts: dict[str, str] = field(default_factory=dict)


def _const_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return str(value)
    if isinstance(value, Mapping) and set(value) == {"#bigint"}:
        return str(value["#bigint"])
    return None


def _recorded_consts(meta: Mapping[str, Any]) -> dict[str, str]:
    consts = meta.get("consts")
    if not isinstance(consts, Mapping):
        return {}
    out = {}
    for name, value in consts.items():
        text = _const_text(value)
        if text is not None:
            out[str(name)] = text
    return out


def _load_model(spec: str, recorded: Mapping[str, str], defines: Mapping[str, str]) -> Model:
    from modelcheck.cli.runner import load_model
    merged = {**recorded, **defines}
    try:
        return load_model(spec, merged)
    except UsageError:
        if not recorded:
            raise
        # consts recorded by another version of the spec: the -D values alone
        return load_model(spec, dict(defines))


def load_trace(path: str, spec: str | None = None, defines: Mapping[str, str] | None = None,
               *, need_model: bool = False,
               keep: Callable[[], KeptSteps] | None = None) -> LoadedTrace:
    """Read a trace file, with its spec's types when the spec is known (see
    the module doc).  Raises ``UsageError``/``CompileError`` for bad input,
    and ``UsageError`` when ``need_model`` and no spec is known or the trace
    does not fit it.  A bad trace file is a ``TraceFileError`` (a coded
    diagnostic at its place in the file, exit 2).  ``keep`` makes what
    holds the steps as they are read (default: a list of every step), so that
    a view of a long trace holds only what it shows."""
    defines = dict(defines or {})
    head, states, text = open_itf(path)
    meta = head.get("#meta") if isinstance(head, dict) and isinstance(head.get("#meta"), dict) else {}
    recorded = _recorded_consts(meta)
    notes: list[str] = []
    lookup = given_spec(meta, spec) if spec is not None else find_spec(meta, path)
    spec_path = lookup.path
    if lookup.changed:
        notes.append(f"the spec {spec_path} is not the text the trace was written from (it has "
                     f"changed since): read with the spec as it is now")
    model = None
    if spec_path is not None:
        if spec is not None:
            model = _load_model(spec_path, recorded, defines)
        else:
            try:
                model = _load_model(spec_path, recorded, defines)
            except UsageError as err:
                notes.append(f"read without types: the spec {spec_path} it names does not load ({err})")
            except Exception as err:  # a spec that no longer compiles: still show the trace
                notes.append(f"read without types: the spec {spec_path} it names does not compile "
                             f"({type(err).__name__})")
    if model is None and need_model:
        if lookup.missing is not None:
            raise UsageError(f"{path}: {lookup.missing}", hint=SPEC_HINT)
        raise UsageError(f"{path}: this needs the spec the trace is from",
                         hint="give it with --spec SPEC (and -D for its consts)")
    if lookup.missing is not None:
        notes.append(f"read without types: {lookup.missing}; {SPEC_HINT}")
    lasso = isinstance(head, dict) and head.get("loop") is not None
    # A lasso's cycle is checked whole, and its loop-back step needs the
    # state it returns to: every step of it is kept (lassos are short).
    keeper: Callable[[], MutableSequence[Step] | KeptSteps] = \
        keep if keep is not None and not lasso else list
    if model is not None:
        try:
            # Read, converted and replayed one state at a time: only the
            # steps ``keep`` keeps are held.
            trace = itf_header(head, model)
            replaying = ReplayStream(model, trace=trace)
            kept = keeper()
            for step in itf_steps(head, states, model, path, text):
                kept.append(replaying.feed(step))
            trace.steps = cast(list[Step], kept)
            itf_loop(head, trace, model, path, text)
        except UsageError as err:
            if spec is not None or need_model:
                raise
            notes.append(f"read without types: {err}")
            model = None
    if model is None:
        trace = itf_header(head, None)
        kept = keeper()
        for step in itf_steps(head, states, None, path, text):
            kept.append(step)
        trace.steps = cast(list[Step], kept)
        itf_loop(head, trace, None, path, text)
        return LoadedTrace(path, trace, None, notes, lookup.missing, {**recorded, **defines})
    result = replaying.result()
    note = behaviour_note(model, result)
    if note is not None:
        notes.append(note)
    elif trace.loop is not None:
        complete_loop_back(model, trace)
        problem = lasso_problem(model, trace)
        if problem is not None:
            notes.append(f"this lasso {problem}")
    consts = {name: format_value(value, t) for name, t, value in model.consts}
    return LoadedTrace(path, trace, model, notes, None, consts)
