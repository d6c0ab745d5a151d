-------------------------------- MODULE MCPaxos -------------------------------
\* The examples' MCPaxos.tla (Inv1..Inv4 are the conjuncts of Inv), with the
\* instance in constants: Ballot is 0..MaxBallot, Quorum the majorities.
EXTENDS Paxos, FiniteSets
CONSTANT MaxBallot
MCBallot == 0..MaxBallot
MCQuorum == {Q \in SUBSET Acceptor : 2 * Cardinality(Q) > Cardinality(Acceptor)}

Inv1 == Inv!1
Inv2 == Inv!2
Inv3 == Inv!3
Inv4 == Inv!4
=============================================================================
