------------------------------- MODULE MCraft -------------------------------
\* The model of raft.tla that specs/examples/raft.mc translates: the bounds as
\* one TLC CONSTRAINT (every currentTerm <= MaxTerm, every log length <=
\* MaxLogLen, at most MaxMsgs messages in flight counting copies) and the three
\* safety invariants, which raft.tla does not state.
EXTENDS raft

CONSTANTS MaxTerm, MaxLogLen, MaxMsgs

\* raft.tla removes a message by lowering its count, and leaves a count of 0
\* (or below: WithoutMessage goes on subtracting) in DOMAIN messages, where
\* Receive, DuplicateMessage and DropMessage still pick it.  A bag has no such
\* ghost entries, and with them the state space has no bound (counts fall
\* without end under any bound on their sum), so each .cfg replaces
\* WithoutMessage by this one, which removes the last copy as the Bags module's
\* (-) does.  DOMAIN messages is then the set of messages in flight.
MCWithoutMessage(m, msgs) ==
    IF m \in DOMAIN msgs THEN
        IF msgs[m] = 1 THEN [x \in DOMAIN msgs \ {m} |-> msgs[x]]
        ELSE [msgs EXCEPT ![m] = msgs[m] - 1]
    ELSE
        msgs

\* raft.tla's messages is a function from message to count: the bag's size is
\* the sum of the counts.
RECURSIVE SumCounts(_)
SumCounts(S) == IF S = {} THEN 0
                ELSE LET m == CHOOSE x \in S : TRUE
                     IN messages[m] + SumCounts(S \ {m})

Bounds == /\ \A i \in Server : currentTerm[i] <= MaxTerm
          /\ \A i \in Server : Len(log[i]) <= MaxLogLen
          /\ SumCounts(DOMAIN messages) <= MaxMsgs

\* At most one leader is elected in a term.
ElectionSafety == \A e, f \in elections : e.eterm = f.eterm => e.eleader = f.eleader

\* Two logs with an entry of the same term at the same index agree up to it.
LogMatching ==
    \A i, j \in Server :
        \A n \in 1..Len(log[i]) :
            (n <= Len(log[j]) /\ log[i][n].term = log[j][n].term)
                => SubSeq(log[i], 1, n) = SubSeq(log[j], 1, n)

\* Servers never apply different entries at one index: entries both have
\* committed (and both still hold) are equal.
StateMachineSafety ==
    \A i, j \in Server :
        \A n \in 1..Len(log[i]) :
            (n <= commitIndex[i] /\ n <= commitIndex[j] /\ n <= Len(log[j]))
                => log[i][n] = log[j][n]
=============================================================================
