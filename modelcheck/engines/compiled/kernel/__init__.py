"""What runs inside a kernel: compiled by numba or translated to C.

``runtime`` (fingerprints, bit tricks) and ``table`` (the seen-state table)
are real modules a kernel imports; ``templates/`` holds the model-independent
search loops, appended to each generated module as text (``source``).  The
Python modules beside them (``driver``, ``par_driver``, ``claim_driver``,
``live_driver``) name the codes those loops return and the slots of the
arrays they share.  Everything here imports only numpy, numba and ``../reps``.
"""
__all__: list[str] = []
