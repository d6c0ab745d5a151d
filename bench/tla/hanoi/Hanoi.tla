---------------------------- MODULE Hanoi ----------------------------
(* The Towers of Hanoi with each disk's peg as the state: the twin of    *)
(* specs/examples/hanoi.mc, for TLC's counts (bench/billion.py).  The   *)
(* TLA+ Examples' Hanoi.tla keeps each peg as a bit vector of its disks; *)
(* the configurations, 3^N, are the same.                                *)
EXTENDS Naturals

CONSTANT N

Disks == 0 .. N - 1
Pegs == 0 .. 2

VARIABLE peg

Init == peg = [d \in Disks |-> 0]

\* No smaller disk on d's peg, and none on p.
FreeToMove(d, p) == \A e \in Disks : e < d => (peg[e] # peg[d] /\ peg[e] # p)

Move(d, p) == /\ peg[d] # p
              /\ FreeToMove(d, p)
              /\ peg' = [peg EXCEPT ![d] = p]

Next == \E d \in Disks, p \in Pegs : Move(d, p)

Spec == Init /\ [][Next]_peg

NotSolved == ~(\A d \in Disks : peg[d] = 2)
=============================================================================
