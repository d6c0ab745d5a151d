"""Code generation: the IR of a model as a kernel module's source text.

``module.generate`` writes one Python module (numba's subset of it) per model
and options: the state layout (``layout``), how values are words (``../reps``),
the model's actions, properties and symmetry as functions, followed by the
kernel templates (``../kernel``).  It reads the IR and the representation
only; it imports nothing of the search, the cache or the backends.
"""
__all__: list[str] = []
