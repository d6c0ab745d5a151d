------------------------------- MODULE EWD998 -------------------------------
(***************************************************************************)
(* Markus Kuppe's and Stephan Merz's EWD998.tla of github.com/tlaplus/     *)
(* Examples (specifications/ewd998): Safra's termination detection on a    *)
(* ring (EWD 998).  Made self-contained for TLC: Sum is defined here       *)
(* instead of with the community modules' FoldFunctionOnSet (Functions,    *)
(* SequencesExt and Randomization are not extended), and the refinement    *)
(* TD!Spec (AsyncTerminationDetection) is left out.  The rest is the       *)
(* original, comments shortened.                                           *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANT N
ASSUME NAssumption == N \in Nat \ {0} \* At least one node.

Node == 0 .. N-1
Color == {"white", "black"}
Token == [pos : Node, q : Int, color : Color]

VARIABLES
 active,     \* activation status of nodes
 color,      \* color of nodes
 counter,    \* nb of sent messages - nb of rcvd messages per node
 pending,    \* nb of messages in transit to node
 token       \* token structure

vars == <<active, color, counter, pending, token>>

TypeOK ==
  /\ active \in [Node -> BOOLEAN]
  /\ color \in [Node -> Color]
  /\ counter \in [Node -> Int]
  /\ pending \in [Node -> Nat]
  /\ token \in Token
------------------------------------------------------------------------------

Init ==
  (* EWD840 but nodes *)
  /\ active \in [Node -> BOOLEAN]
  /\ color \in [Node -> Color]
  (* Rule 0 *)
  /\ counter = [i \in Node |-> 0] \* c properly initialized
  /\ pending = [i \in Node |-> 0]
  /\ token \in [ pos: Node, q: {0}, color: {"black"} ]

InitiateProbe ==
  (* Rules 1 + 5 + 6 *)
  /\ token.pos = 0
  /\ \* previous round not conclusive if:
     \/ token.color = "black"
     \/ color[0] = "black"
     \/ counter[0] + token.q > 0
  /\ token' = [pos |-> N-1, q |-> 0, color |-> "white"]
  /\ color' = [ color EXCEPT ![0] = "white" ]
  /\ UNCHANGED <<active, counter, pending>>

PassToken(i) ==
  (* Rules 2 + 4 + 7 *)
  /\ ~ active[i] \* If machine i is active, keep the token.
  /\ token.pos = i
  /\ token' = [pos |-> token.pos - 1,
               q |-> token.q + counter[i],
               color |-> IF color[i] = "black" THEN "black" ELSE token.color]
  /\ color' = [ color EXCEPT ![i] = "white" ]
  /\ UNCHANGED <<active, counter, pending>>

System == \/ InitiateProbe
          \/ \E i \in Node \ {0} : PassToken(i)

-----------------------------------------------------------------------------

SendMsg(i) ==
  /\ active[i]
  (* Rule 0 *)
  /\ counter' = [counter EXCEPT ![i] = @ + 1]
  /\ \E j \in Node \ {i} : pending' = [pending EXCEPT ![j] = @ + 1]
  /\ UNCHANGED <<active, color, token>>

RecvMsg(i) ==
  /\ pending[i] > 0
  /\ pending' = [pending EXCEPT ![i] = @ - 1]
  (* Rule 0 *)
  /\ counter' = [counter EXCEPT ![i] = @ - 1]
  (* Rule 3 *)
  /\ color' = [ color EXCEPT ![i] = "black" ]
  /\ active' = [ active EXCEPT ![i] = TRUE ]
  /\ UNCHANGED <<token>>

Deactivate(i) ==
  /\ active[i]
  /\ active' = [active EXCEPT ![i] = FALSE]
  /\ UNCHANGED <<color, counter, pending, token>>

Environment == \E i \in Node : SendMsg(i) \/ RecvMsg(i) \/ Deactivate(i)

-----------------------------------------------------------------------------

Next ==
  System \/ Environment

Spec == Init /\ [][Next]_vars /\ WF_vars(System)

-----------------------------------------------------------------------------

StateConstraint ==
  /\ \A i \in Node : counter[i] <= 3 /\ pending[i] <= 3
  /\ token.q <= 9

-----------------------------------------------------------------------------

terminationDetected ==
  /\ token.pos = 0
  /\ token.color = "white"
  /\ token.q + counter[0] = 0
  /\ color[0] = "white"
  /\ ~ active[0]

(***************************************************************************)
(* Sum of the values f[x], for x \in S \subseteq DOMAIN f (the original:   *)
(* FoldFunctionOnSet(+, 0, f, S)).                                         *)
(***************************************************************************)
Sum(f, S) ==
  LET SumOf[T \in SUBSET S] ==
        IF T = {} THEN 0
        ELSE LET x == CHOOSE x \in T : TRUE IN f[x] + SumOf[T \ {x}]
  IN  SumOf[S]

B == Sum(pending, Node)

Termination ==
  /\ \A i \in Node : ~ active[i]
  /\ B = 0

TerminationDetection ==
  terminationDetected => Termination

Rng(a,b) == { i \in Node: a <= i /\ i <= b }

Inv ==
  /\ P0:: B = Sum(counter, Node)
  /\ \/ P1:: /\ \A i \in Rng(token.pos+1, N-1): active[i] = FALSE
             /\ IF token.pos = N-1
                THEN token.q = 0
                ELSE token.q = Sum(counter, Rng(token.pos+1,N-1))
     \/ P2:: Sum(counter, Rng(0, token.pos)) + token.q > 0
     \/ P3:: \E i \in Rng(0, token.pos) : color[i] = "black"
     \/ P4:: token.color = "black"

Liveness ==
  Termination ~> terminationDetected
=============================================================================
