"""``heap.settle``, between the searches of one process: what is garbage is
collected, what is alive is set aside from later collections, and what is
set aside is still freed when its last reference goes."""
from __future__ import annotations

import subprocess
import sys

_CHILD = """
import gc, weakref
from modelcheck.cli.heap import settle

class Node:
    pass

def cycle():
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a

gc.disable()                    # only settle collects here
dead = weakref.ref(cycle())     # unreachable, but a cycle: only a collection frees it
kept = cycle()
plain = Node()
plain_ref = weakref.ref(plain)
before = gc.get_freeze_count()
settle()
assert dead() is None, "the cycle left behind was not collected"
assert gc.get_freeze_count() > before, "nothing was set aside"
assert not any(o is kept for o in gc.get_objects()), "what is alive is not set aside"
collected_now = gc.collect()
assert kept.other.other is kept, "what is alive stays alive"
del plain
assert plain_ref() is None, "an object set aside is freed by its last reference"
print("ok", collected_now)
"""


def test_settle_collects_the_garbage_and_sets_the_living_aside():
    # In a process of its own: gc.freeze() is for the whole process.
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "ok"
    # A full collection after settle walks none of what was set aside.
    assert int(out.stdout.split()[1]) == 0
