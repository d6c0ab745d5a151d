"""Liveness on the compiled engine: the state graph recorded during the
search (``graph``; its edges coded for the analysis in ``edges``), its
strongly connected components (``scc``) and the fair lasso built from one
(``lasso``).  It uses the safety search and the
temporal meaning of the IR (``modelcheck.evaluate.temporal``).
"""
__all__: list[str] = []
