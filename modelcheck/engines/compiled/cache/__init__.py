"""Kernels kept between runs: the on-disk kernel cache and its index
(``kcache``), what a kernel is built from (``plan_key``), the builds in the
background (``background``, ``precompile``) and the table sizes remembered
from earlier runs (``sizes``).  It may import code generation (to name a
kernel) and the C backend's light ``c.cache``; not the search.
"""
__all__: list[str] = []
