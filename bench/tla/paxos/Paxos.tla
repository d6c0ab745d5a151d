-------------------------------- MODULE Paxos -------------------------------
(***************************************************************************)
(* Paxos without explicit leaders or learners: Lamport's Paxos.tla from    *)
(* github.com/tlaplus/Examples, specifications/Paxos (MIT licence), made   *)
(* self-contained for TLC here.  The original EXTENDS Integers and         *)
(* instantiates Voting, which EXTENDS TLAPS and instantiates Consensus     *)
(* (which needs the TLAPS library's FiniteSetTheorems): only proofs use    *)
(* those modules, so the definitions of Voting that Inv reads             *)
(* (VotedFor, ShowsSafeAt, VotesSafe, OneValuePerBallot, ...) are copied   *)
(* below under Voting's names, with Voting's variables replaced as         *)
(* V == INSTANCE Voting replaces them (votes by the state function votes,  *)
(* maxBal by maxBal), and Ballot is a constant (MCBallot) instead of Nat.  *)
(* The actions, Init and Inv are Paxos.tla's, unchanged.  The figures of   *)
(* MCPaxos.cfg equal the examples manifest's (25 distinct, 82 generated,   *)
(* depth 9), which checks the copy.                                        *)
(***************************************************************************)
EXTENDS Integers
-----------------------------------------------------------------------------
CONSTANT Value, Acceptor, Quorum, Ballot, None

ASSUME QuorumAssumption == /\ \A Q \in Quorum : Q \subseteq Acceptor
                           /\ \A Q1, Q2 \in Quorum : Q1 \cap Q2 # {}

Message ==      [type : {"1a"}, bal : Ballot]
           \cup [type : {"1b"}, acc : Acceptor, bal : Ballot,
                 mbal : Ballot \cup {-1}, mval : Value \cup {None}]
           \cup [type : {"2a"}, bal : Ballot, val : Value]
           \cup [type : {"2b"}, acc : Acceptor, bal : Ballot, val : Value]
-----------------------------------------------------------------------------
VARIABLE maxBal, maxVBal, maxVal, msgs

vars == <<maxBal, maxVBal, maxVal, msgs>>

TypeOK == /\ maxBal \in [Acceptor -> Ballot \cup {-1}]
          /\ maxVBal \in [Acceptor -> Ballot \cup {-1}]
          /\ maxVal \in [Acceptor -> Value \cup {None}]
          /\ msgs \subseteq Message

Init == /\ maxBal = [a \in Acceptor |-> -1]
        /\ maxVBal = [a \in Acceptor |-> -1]
        /\ maxVal = [a \in Acceptor |-> None]
        /\ msgs = {}

Send(m) == msgs' = msgs \cup {m}

Phase1a(b) == /\ Send([type |-> "1a", bal |-> b])
              /\ UNCHANGED <<maxBal, maxVBal, maxVal>>

Phase1b(a) == /\ \E m \in msgs :
                  /\ m.type = "1a"
                  /\ m.bal > maxBal[a]
                  /\ maxBal' = [maxBal EXCEPT ![a] = m.bal]
                  /\ Send([type |-> "1b", acc |-> a, bal |-> m.bal,
                            mbal |-> maxVBal[a], mval |-> maxVal[a]])
              /\ UNCHANGED <<maxVBal, maxVal>>

Phase2a(b, v) ==
  /\ ~ \E m \in msgs : m.type = "2a" /\ m.bal = b
  /\ \E Q \in Quorum :
        LET Q1b == {m \in msgs : /\ m.type = "1b"
                                 /\ m.acc \in Q
                                 /\ m.bal = b}
            Q1bv == {m \in Q1b : m.mbal \geq 0}
        IN  /\ \A a \in Q : \E m \in Q1b : m.acc = a
            /\ \/ Q1bv = {}
               \/ \E m \in Q1bv :
                    /\ m.mval = v
                    /\ \A mm \in Q1bv : m.mbal \geq mm.mbal
  /\ Send([type |-> "2a", bal |-> b, val |-> v])
  /\ UNCHANGED <<maxBal, maxVBal, maxVal>>

Phase2b(a) == \E m \in msgs : /\ m.type = "2a"
                              /\ m.bal \geq maxBal[a]
                              /\ maxBal' = [maxBal EXCEPT ![a] = m.bal]
                              /\ maxVBal' = [maxVBal EXCEPT ![a] = m.bal]
                              /\ maxVal' = [maxVal EXCEPT ![a] = m.val]
                              /\ Send([type |-> "2b", acc |-> a,
                                       bal |-> m.bal, val |-> m.val])

Next == \/ \E b \in Ballot : \/ Phase1a(b)
                             \/ \E v \in Value : Phase2a(b, v)
        \/ \E a \in Acceptor : Phase1b(a) \/ Phase2b(a)

Spec == Init /\ [][Next]_vars
----------------------------------------------------------------------------
votes == [a \in Acceptor |->
           {<<m.bal, m.val>> : m \in {mm \in msgs: /\ mm.type = "2b"
                                                   /\ mm.acc = a }}]

\* Voting's definitions, as V == INSTANCE Voting gives them.
V_VotedFor(a, b, v) == <<b, v>> \in votes[a]
V_DidNotVoteAt(a, b) == \A v \in Value : ~ V_VotedFor(a, b, v)
V_CannotVoteAt(a, b) == /\ maxBal[a] > b
                        /\ V_DidNotVoteAt(a, b)
V_NoneOtherChoosableAt(b, v) ==
   \E Q \in Quorum :
     \A a \in Q : V_VotedFor(a, b, v) \/ V_CannotVoteAt(a, b)
V_SafeAt(b, v) == \A c \in 0..(b-1) : V_NoneOtherChoosableAt(c, v)
V_VotesSafe == \A a \in Acceptor, b \in Ballot, v \in Value :
                 V_VotedFor(a, b, v) => V_SafeAt(b, v)
V_OneValuePerBallot ==
    \A a1, a2 \in Acceptor, b \in Ballot, v1, v2 \in Value :
       V_VotedFor(a1, b, v1) /\ V_VotedFor(a2, b, v2) => (v1 = v2)
V_ShowsSafeAt(Q, b, v) ==
  /\ \A a \in Q : maxBal[a] \geq b
  /\ \E c \in -1..(b-1) :
      /\ (c # -1) => \E a \in Q : V_VotedFor(a, c, v)
      /\ \A d \in (c+1)..(b-1), a \in Q : V_DidNotVoteAt(a, d)
V_TypeOK == /\ votes \in [Acceptor -> SUBSET (Ballot \X Value)]
            /\ maxBal \in [Acceptor -> Ballot \cup {-1}]
V_Inv == V_TypeOK /\ V_VotesSafe /\ V_OneValuePerBallot

Inv == /\ TypeOK
       /\ \A a \in Acceptor : IF maxVBal[a] = -1
                                THEN maxVal[a] = None
                                ELSE <<maxVBal[a], maxVal[a]>> \in votes[a]
       /\ \A m \in msgs :
             /\ (m.type = "1b") => /\ maxBal[m.acc] \geq m.bal
                                   /\ (m.mbal \geq 0) =>
                                       <<m.mbal, m.mval>> \in votes[m.acc]
             /\ (m.type = "2a") => /\ \E Q \in Quorum :
                                         V_ShowsSafeAt(Q, m.bal, m.val)
                                   /\ \A mm \in msgs : /\ mm.type = "2a"
                                                       /\ mm.bal = m.bal
                                                       => mm.val = m.val
       /\ V_Inv
============================================================================
