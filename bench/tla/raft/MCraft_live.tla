---------------------------- MODULE MCraft_live ----------------------------
\* MCraft with a temporal property for bench/liveness_vs_tlc.py: election
\* safety from some point on forever.  It holds (ElectionSafety is an
\* invariant), so TLC and modelcheck both check it over the whole state graph;
\* the figure measured is the cost of the liveness machinery on Raft.
EXTENDS MCraft

SafeForever == <>[]ElectionSafety
=============================================================================
