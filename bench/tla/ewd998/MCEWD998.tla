------------------------------ MODULE MCEWD998 ------------------------------
\* EWD998 with the bounds of its StateConstraint as constants (not in the
\* examples), for instances smaller than EWD998Small.cfg's.
EXTENDS EWD998
CONSTANTS MaxCounter, MaxPending, MaxQ
MCStateConstraint ==
  /\ \A i \in Node : counter[i] <= MaxCounter /\ pending[i] <= MaxPending
  /\ token.q <= MaxQ


\* Not in the examples: the spec without WF_vars(System) (Liveness fails).
SpecNoFair == Init /\ [][Next]_vars
=============================================================================
