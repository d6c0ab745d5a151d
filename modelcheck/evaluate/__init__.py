"""The meaning of the IR: one floor below every engine and below ``trace/``.

``evaluator`` (expressions, actions, states: the reference semantics that
every engine is checked against and every trace is replayed under), with
its ``ops`` and ``ranges``, and ``temporal`` (what a liveness property and a
fairness condition mean).  It imports the IR, ``diagnostics``, ``errors``
and ``behaviour``; nothing of ``engines/``, ``trace/`` or the front end.
"""
__all__: list[str] = []
