"""The C backend: a generated kernel module translated to one C file and
built by the system's compiler (gcc or $CC), loaded with ctypes.  numba is the
fallback where no compiler is found or a construct is not translated.

``types`` (C types of values and entry points), ``infer`` (a function's types,
inferred as numba does), ``translate`` (a function as C), ``program`` (a whole
module, with the runtime it imports), ``build`` (the compiler run), ``cache``
(where libraries live; light: no numpy).  It reads the kernel room as source
text and imports nothing of the search.
"""
__all__: list[str] = []
