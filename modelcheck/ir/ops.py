"""The one enum of built-in operations.  Engines dispatch on these; nothing
else in the IR names an operation by string."""
from __future__ import annotations

import enum

__all__ = ["Op", "RANGE_QUESTIONS"]


class Op(enum.Enum):
    # arithmetic on ints (DIV floors, MOD is Python's %; both fail on zero: MC5002)
    ADD = "+"
    SUB = "-"
    MUL = "*"
    DIV = "//"
    MOD = "%"
    NEG = "neg"
    MIN = "min"            # min(a, b) on ints
    MAX = "max"            # max(a, b) on ints
    # comparison (EQ/NE on any type; the orderings on ints only)
    EQ = "=="
    NE = "!="
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    # boolean
    AND = "and"            # n-ary, short-circuit
    OR = "or"              # n-ary, short-circuit
    NOT = "not"
    IMPLIES = "=>"
    # sets
    IN = "in"              # elem in set / elem in bag (count > 0)
    UNION = "|"
    INTER = "&"
    DIFF = "set-"
    SUBSET = "<=set"       # a subset of or equal to b
    RANGE = ".."           # lo..hi as a set of ints (empty if lo > hi)
    SET_MIN = "setmin"     # min of a non-empty int set (MC5006 if empty)
    SET_MAX = "setmax"
    LEN = "len"            # set cardinality, sequence length, bag size
    CHOOSE = "choose"      # the smallest element of a non-empty set in the canonical
                           # order of its element type (values.order_key); MC5008 if empty
    # maps (total)
    MAP_GET = "map[]"
    MAP_SET = "map-with"   # MAP_SET(m, k, v): m with [k] = v
    # sequences (0-based)
    SEQ_GET = "seq[]"      # MC5003 if out of range
    SEQ_SET = "seq-with"   # SEQ_SET(s, i, v); MC5003 if out of range
    APPEND = "append"      # the result may exceed the target's capacity: checked on write
    CONCAT = "++"
    HEAD = "head"          # MC5003 on empty
    TAIL = "tail"          # MC5003 on empty
    SLICE = "slice"        # SLICE(s, i, j) = s[i:j], Python semantics, clamped
    # tuples
    TUPLE_GET = "tuple[]"  # second arg is a Const int
    # options
    SOME = "some"
    IS_SOME = "is_some"
    IS_NONE = "is_none"
    OPT_GET = "value"      # MC5004 on none
    # bags (multisets)
    BAG_ADD = "put"        # put(b, x): one more x
    BAG_REMOVE = "take"    # take(b, x): one fewer x; MC5005 if x not in b
    BAG_COUNT = "count"    # count(b, x)
    BAG_DISTINCT = "distinct"  # the set of elements with count > 0


#: What a range ``lo..hi`` answers from its bounds, never being built: the
#: constant folder and every engine answer these by arithmetic, so
#: ``len(0..10**21)`` is one subtraction (see ``nodes.asks_a_range``).
RANGE_QUESTIONS = frozenset({Op.LEN, Op.IN, Op.SET_MIN, Op.SET_MAX})
