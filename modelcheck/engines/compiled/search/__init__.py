"""The safety search over packed states: one core (``serial``) and several
(``parallel``, with ``claims`` for the shared table and ``shards`` for the
sharded one), checkpoints (``checkpoint``), counterexamples rebuilt from the
table (``rebuild``) and run-time errors re-run under the reference semantics
(``faults``).  It drives the kernels (``../kernels``) and imports nothing of
liveness or of the engine above it.
"""
__all__: list[str] = []
