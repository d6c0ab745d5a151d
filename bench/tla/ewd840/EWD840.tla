------------------------------- MODULE EWD840 -------------------------------
(***************************************************************************)
(* Dijkstra's termination detection on a ring (EWD 840), by Stephan Merz:  *)
(* specifications/ewd840/EWD840.tla of github.com/tlaplus/Examples (MIT),  *)
(* with the refinement TDSpec (INSTANCE SyncTerminationDetection) and the  *)
(* proofs left out, and SpecNoFair added for the violated side.            *)
(***************************************************************************)
EXTENDS Naturals

CONSTANT N
ASSUME NAssumption == N \in Nat \ {0}

VARIABLES active, color, tpos, tcolor

Node == 0 .. N-1
Color == {"white", "black"}

TypeOK ==
  /\ active \in [Node -> BOOLEAN]    \* status of nodes (active or passive)
  /\ color \in [Node -> Color]       \* color of nodes
  /\ tpos \in Node                   \* token position
  /\ tcolor \in Color                \* token color

(* Initially the token is black. The other variables may take
   any "type-correct" values. *)
Init ==
  /\ active \in [Node -> BOOLEAN]
  /\ color \in [Node -> Color]
  /\ tpos \in Node
  /\ tcolor = "black"

InitiateProbe ==
  /\ tpos = 0
  /\ tcolor = "black" \/ color[0] = "black"
  /\ tpos' = N-1
  /\ tcolor' = "white"
  /\ active' = active
  /\ color' = [color EXCEPT ![0] = "white"]

PassToken(i) ==
  /\ tpos = i
  /\ ~ active[i] \/ color[i] = "black" \/ tcolor = "black"
  /\ tpos' = i-1
  /\ tcolor' = IF color[i] = "black" THEN "black" ELSE tcolor
  /\ active' = active
  /\ color' = [color EXCEPT ![i] = "white"]

(* token passing actions controlled by the termination detection algorithm *)
System == InitiateProbe \/ \E i \in Node \ {0} : PassToken(i)

SendMsg(i) ==
  /\ active[i]
  /\ \E j \in Node \ {i} :
        /\ active' = [active EXCEPT ![j] = TRUE]
        /\ color' = [color EXCEPT ![i] = IF j>i THEN "black" ELSE @]
  /\ UNCHANGED <<tpos, tcolor>>

Deactivate(i) ==
  /\ active[i]
  /\ active' = [active EXCEPT ![i] = FALSE]
  /\ UNCHANGED <<color, tpos, tcolor>>

(* actions performed by the underlying algorithm *)
Environment == \E i \in Node : SendMsg(i) \/ Deactivate(i)

Next == System \/ Environment

vars == <<active, color, tpos, tcolor>>

Spec == Init /\ [][Next]_vars /\ WF_vars(System)

(* Not in the examples: the same system without fairness. *)
SpecNoFair == Init /\ [][Next]_vars

-----------------------------------------------------------------------------

terminationDetected ==
  /\ tpos = 0 /\ tcolor = "white"
  /\ color[0] = "white" /\ ~ active[0]

TerminationDetection ==
  terminationDetected => \A i \in Node : ~ active[i]

(* Liveness property: termination is eventually detected. *)
Liveness ==
  (\A i \in Node : ~ active[i]) ~> terminationDetected

(* Not in the examples: every node eventually terminates.  Nothing forces
   a node to stop sending, so it is violated under Spec. *)
AllTerminate == <>(\A i \in Node : ~ active[i])

(* Dijkstra's inductive invariant *)
Inv ==
  \/ \A i \in Node : tpos < i => ~ active[i]
  \/ \E j \in 0 .. tpos : color[j] = "black"
  \/ tcolor = "black"
=============================================================================
