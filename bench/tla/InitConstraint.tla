---- MODULE InitConstraint ----
\* Two of the four initial states fail the constraint: TLC checks them and
\* does not store or explore them.
EXTENDS Naturals
VARIABLES x, y
Init == x \in {0, 10} /\ y \in {0, 1}
Next == x < 12 /\ x' = x + 1 /\ UNCHANGED y
Bound == x < 3
Small == x < 20
NotTen == x # 10
====
