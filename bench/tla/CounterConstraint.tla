---- MODULE CounterConstraint ----
\* A counter the constraint bounds at 5; it steps by 1 or 2, so 6 and 7 are
\* generated (and checked) but never stored.  x = 7 breaks NotSeven only there.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = x + 1 \/ x' = x + 2
Bound == x <= 5
NotSeven == x # 7
AtMostSeven == x <= 7
====
