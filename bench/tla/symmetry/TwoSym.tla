---------------------------- MODULE TwoSym ----------------------------
(* The TLA+ twin of tests/unit/compiled/specs/two_sym.mc: clients lock keys
   and hand them on, and a log remembers who held what.  An option of a
   client is a set of at most one client.  Both types are symmetric.        *)
EXTENDS TLC

CONSTANTS Client, Key
VARIABLES owner, phase, wants, log
vars == <<owner, phase, wants, log>>

Init == /\ owner = [k \in Key |-> {}]
        /\ phase = [k \in Key |-> "free"]
        /\ wants = [c \in Client |-> {}]
        /\ log = {}

Want(c, k) == /\ k \notin wants[c]
              /\ owner[k] # {c}
              /\ wants' = [wants EXCEPT ![c] = @ \cup {k}]
              /\ UNCHANGED <<owner, phase, log>>

Grab(c, k) == /\ k \in wants[c]
              /\ owner[k] = {}
              /\ phase[k] # "done"
              /\ owner' = [owner EXCEPT ![k] = {c}]
              /\ phase' = [phase EXCEPT ![k] = "held"]
              /\ wants' = [wants EXCEPT ![c] = @ \ {k}]
              /\ log' = log \cup {<<c, k>>}

Pass(c, d, k) == /\ owner[k] = {c}
                 /\ k \in wants[d]
                 /\ c # d
                 /\ owner' = [owner EXCEPT ![k] = {d}]
                 /\ wants' = [wants EXCEPT ![d] = @ \ {k}]
                 /\ log' = log \cup {<<d, k>>}
                 /\ UNCHANGED phase

Finish(c, k) == /\ owner[k] = {c}
                /\ owner' = [owner EXCEPT ![k] = {}]
                /\ phase' = [phase EXCEPT ![k] = "done"]
                /\ UNCHANGED <<wants, log>>

Next == \E c \in Client, k \in Key :
            \/ Want(c, k)
            \/ Grab(c, k)
            \/ \E d \in Client : Pass(c, d, k)
            \/ Finish(c, k)

Sym == Permutations(Client) \cup Permutations(Key)

OneOwner == \A k \in Key : owner[k] = {} \/ phase[k] = "held"
Logged == \A k \in Key : \A c \in owner[k] : <<c, k>> \in log
=============================================================================
