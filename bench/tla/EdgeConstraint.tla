---- MODULE EdgeConstraint ----
\* x = 2's only successor, 3, fails the constraint; 3 itself has no successor.
\* TLC reports no deadlock: 2 has a successor, and 3 is never explored.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 3 /\ x' = x + 1
Bound == x <= 2
TypeOK == x \in 0..3
====
