"""The labels on the trace page's message arrows, as a sequence diagram writes
them: the variant case and its key fields (``Replicate idx=1``), the two
ends left out (the arrow shows them).

A message gets several labels, longest first, so that the diagram
(``modelcheck.trace.svg``) can take the longest that fits between its lanes
without running into another: every field, then fewer fields (scalars
before collections), then the case alone, then the case cut short with an
ellipsis.  The full message stays in the step's panel and the arrow's tooltip.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from modelcheck.ir.types import BoolType, EnumType, IntType, ModelType, RecordType, VariantType
from modelcheck.ir.values import Variant
from modelcheck.trace.view import format_value

__all__ = ["message_labels", "action_labels", "shorten", "MAX_LABEL"]

#: The longest label offered, before the diagram's own fitting.
MAX_LABEL = 40
#: The shortest cut of a name worth showing ("Repl…").
_MIN_CUT = 3


def shorten(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, an ellipsis marking a cut."""
    if len(text) <= width:
        return text
    return text[:max(width - 1, 0)] + "…" if width > _MIN_CUT else ""


def _field_types(value: Any, elem_type: Any) -> Mapping[str, Any]:
    if isinstance(value, Variant) and isinstance(elem_type, VariantType):
        try:
            return dict(elem_type.case_type(value.tag).fields)
        except KeyError:
            return {}
    if isinstance(elem_type, RecordType):
        return dict(elem_type.fields)
    return {}


def _scalar(t: Any, v: Any) -> bool:
    if t is not None:
        return isinstance(t, (IntType, BoolType, EnumType, ModelType))
    return isinstance(v, (int, bool, str))


def message_labels(value: Any, ends: tuple[str, str], elem_type: Any) -> tuple[str, ...]:
    """The labels of a network message ``value`` whose fields ``ends`` name
    its sender and receiver, longest first."""
    fields = value.value if isinstance(value, Variant) else value
    if not isinstance(fields, Mapping):
        return _cuts(format_value(value, elem_type))
    head = value.tag if isinstance(value, Variant) else getattr(elem_type, "name", None) or ""
    types = _field_types(value, elem_type)
    rest = [(k, v) for k, v in fields.items() if k not in ends]
    # scalars first: an index or a term says more in a few characters than a log
    rest.sort(key=lambda kv: not _scalar(types.get(kv[0]), kv[1]))
    words = [f"{k}={format_value(v, types.get(k))}" for k, v in rest]
    out: list[str] = []
    for keep in range(len(words), -1, -1):
        text = " ".join(([head] if head else []) + words[:keep])
        if text and len(text) <= MAX_LABEL and text not in out:
            out.append(text)
    if not out:
        out.append(shorten(head or words[0], MAX_LABEL))
    return tuple(out) + tuple(c for c in _cuts(out[-1]) if c not in out)


def action_labels(action: str) -> tuple[str, ...]:
    """The labels of a message an action passes straight across: its name."""
    return _cuts(action)


def _cuts(text: str) -> tuple[str, ...]:
    """``text`` and shorter cuts of it, down to a few characters."""
    out = [shorten(text, MAX_LABEL)]
    for width in (24, 16, 12, 9, 6, 4):
        cut = shorten(text, width)
        if cut and cut not in out and len(cut) < len(out[-1]):
            out.append(cut)
    return tuple(out)
