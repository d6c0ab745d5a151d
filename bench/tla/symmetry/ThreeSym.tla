--------------------------- MODULE ThreeSym ---------------------------
(* The TLA+ twin of tests/unit/compiled/specs/three_sym.mc: servers
   replicate key/value writes carried by a bag of records into nested maps
   keyed by two symmetric types and valued by the third.  An option is a
   set of at most one value; the bag is a function to counts (Bags).        *)
EXTENDS Naturals, Bags, TLC

CONSTANTS Server, Key, Val
VARIABLES store, net, written
vars == <<store, net, written>>

Init == /\ store = [s \in Server |-> [k \in Key |-> {}]]
        /\ net = EmptyBag
        /\ written = {}

Write(s, k, v) == /\ store[s][k] = {}
                  /\ BagCardinality(net) < 2
                  /\ store' = [store EXCEPT ![s][k] = {v}]
                  /\ written' = written \cup {<<k, v>>}
                  /\ net' = net (+) SetToBag({[to |-> s, key |-> k, val |-> v, hops |-> 0]})

Forward(t) == \E m \in BagToSet(net) :
                  /\ m.to # t
                  /\ m.hops < 3
                  /\ net' = (net (-) SetToBag({m}))
                              (+) SetToBag({[m EXCEPT !.to = t, !.hops = m.hops + 1]})
                  /\ UNCHANGED <<store, written>>

Deliver == \E m \in BagToSet(net) :
               /\ net' = net (-) SetToBag({m})
               /\ store' = [store EXCEPT ![m.to][m.key] = {m.val}]
               /\ UNCHANGED written

Next == \/ \E s \in Server, k \in Key, v \in Val : Write(s, k, v)
        \/ \E t \in Server : Forward(t)
        \/ Deliver

Sym == Permutations(Server) \cup Permutations(Key) \cup Permutations(Val)

Known == \A s \in Server, k \in Key : \A v \in store[s][k] : <<k, v>> \in written
=============================================================================
