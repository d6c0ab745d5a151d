/* Two-phase commit (TwoPhase.tla; specs/examples/two_phase.mc) in Promela,
 * for bench/twophase_vs_spin.py.  One process whose loop offers every action
 * instance as a d_step, so SPIN stores exactly one state per model state (the
 * loop head): its "states stored" equals our distinct count.  Compile with
 * gcc -E -P -x c -DN=<resource managers> two_phase.pml > tp.pml (N from 1 to
 * 12; SPIN's own preprocessor lacks function-like macros), then spin -a tp.pml.
 *
 * State per resource manager: rmState (0 working, 1 prepared, 2 committed,
 * 3 aborted), tmPrepared, and whether its Prepared message was sent; the
 * transaction manager's state (0 init, 1 committed, 2 aborted); the Commit
 * and Abort messages.  The invariant Consistent is asserted after every step
 * (and holds initially), as the model checkers check it on every state. */

#ifndef N
#define N 3
#endif

#if N > 0
#define RM0(M) M(0)
#else
#define RM0(M)
#endif
#if N > 1
#define RM1(M) M(1)
#else
#define RM1(M)
#endif
#if N > 2
#define RM2(M) M(2)
#else
#define RM2(M)
#endif
#if N > 3
#define RM3(M) M(3)
#else
#define RM3(M)
#endif
#if N > 4
#define RM4(M) M(4)
#else
#define RM4(M)
#endif
#if N > 5
#define RM5(M) M(5)
#else
#define RM5(M)
#endif
#if N > 6
#define RM6(M) M(6)
#else
#define RM6(M)
#endif
#if N > 7
#define RM7(M) M(7)
#else
#define RM7(M)
#endif
#if N > 8
#define RM8(M) M(8)
#else
#define RM8(M)
#endif
#if N > 9
#define RM9(M) M(9)
#else
#define RM9(M)
#endif
#if N > 10
#define RM10(M) M(10)
#else
#define RM10(M)
#endif
#if N > 11
#define RM11(M) M(11)
#else
#define RM11(M)
#endif
#define FOR_EACH_RM(M) RM0(M) RM1(M) RM2(M) RM3(M) RM4(M) RM5(M) RM6(M) RM7(M) RM8(M) RM9(M) RM10(M) RM11(M)

byte rmState[N];
bit tmPrepared[N];
bit msgPrepared[N];
byte tmState;
bit msgCommit;
bit msgAbort;

/* per-RM terms as object-like macros: the C preprocessor does not expand
   FOR_EACH_RM again inside its own expansion */
#if N > 0
#define ABORTED0 rmState[0] == 3 ||
#define COMMITTED0 rmState[0] == 2 ||
#define PREPARED0 tmPrepared[0] &&
#else
#define ABORTED0
#define COMMITTED0
#define PREPARED0
#endif
#if N > 1
#define ABORTED1 rmState[1] == 3 ||
#define COMMITTED1 rmState[1] == 2 ||
#define PREPARED1 tmPrepared[1] &&
#else
#define ABORTED1
#define COMMITTED1
#define PREPARED1
#endif
#if N > 2
#define ABORTED2 rmState[2] == 3 ||
#define COMMITTED2 rmState[2] == 2 ||
#define PREPARED2 tmPrepared[2] &&
#else
#define ABORTED2
#define COMMITTED2
#define PREPARED2
#endif
#if N > 3
#define ABORTED3 rmState[3] == 3 ||
#define COMMITTED3 rmState[3] == 2 ||
#define PREPARED3 tmPrepared[3] &&
#else
#define ABORTED3
#define COMMITTED3
#define PREPARED3
#endif
#if N > 4
#define ABORTED4 rmState[4] == 3 ||
#define COMMITTED4 rmState[4] == 2 ||
#define PREPARED4 tmPrepared[4] &&
#else
#define ABORTED4
#define COMMITTED4
#define PREPARED4
#endif
#if N > 5
#define ABORTED5 rmState[5] == 3 ||
#define COMMITTED5 rmState[5] == 2 ||
#define PREPARED5 tmPrepared[5] &&
#else
#define ABORTED5
#define COMMITTED5
#define PREPARED5
#endif
#if N > 6
#define ABORTED6 rmState[6] == 3 ||
#define COMMITTED6 rmState[6] == 2 ||
#define PREPARED6 tmPrepared[6] &&
#else
#define ABORTED6
#define COMMITTED6
#define PREPARED6
#endif
#if N > 7
#define ABORTED7 rmState[7] == 3 ||
#define COMMITTED7 rmState[7] == 2 ||
#define PREPARED7 tmPrepared[7] &&
#else
#define ABORTED7
#define COMMITTED7
#define PREPARED7
#endif
#if N > 8
#define ABORTED8 rmState[8] == 3 ||
#define COMMITTED8 rmState[8] == 2 ||
#define PREPARED8 tmPrepared[8] &&
#else
#define ABORTED8
#define COMMITTED8
#define PREPARED8
#endif
#if N > 9
#define ABORTED9 rmState[9] == 3 ||
#define COMMITTED9 rmState[9] == 2 ||
#define PREPARED9 tmPrepared[9] &&
#else
#define ABORTED9
#define COMMITTED9
#define PREPARED9
#endif
#if N > 10
#define ABORTED10 rmState[10] == 3 ||
#define COMMITTED10 rmState[10] == 2 ||
#define PREPARED10 tmPrepared[10] &&
#else
#define ABORTED10
#define COMMITTED10
#define PREPARED10
#endif
#if N > 11
#define ABORTED11 rmState[11] == 3 ||
#define COMMITTED11 rmState[11] == 2 ||
#define PREPARED11 tmPrepared[11] &&
#else
#define ABORTED11
#define COMMITTED11
#define PREPARED11
#endif
#define ANY_ABORTED (ABORTED0 ABORTED1 ABORTED2 ABORTED3 ABORTED4 ABORTED5 ABORTED6 ABORTED7 ABORTED8 ABORTED9 ABORTED10 ABORTED11 0)
#define ANY_COMMITTED (COMMITTED0 COMMITTED1 COMMITTED2 COMMITTED3 COMMITTED4 COMMITTED5 COMMITTED6 COMMITTED7 COMMITTED8 COMMITTED9 COMMITTED10 COMMITTED11 0)
#define ALL_PREPARED (PREPARED0 PREPARED1 PREPARED2 PREPARED3 PREPARED4 PREPARED5 PREPARED6 PREPARED7 PREPARED8 PREPARED9 PREPARED10 PREPARED11 1)
/* Consistent: no RM aborted while another committed */
#define CONSISTENT (!(ANY_ABORTED && ANY_COMMITTED))

#define TM_RCV_PREPARED(i) :: d_step { tmState == 0 && msgPrepared[i] -> tmPrepared[i] = 1; assert(CONSISTENT) }
#define RM_PREPARE(i) :: d_step { rmState[i] == 0 -> rmState[i] = 1; msgPrepared[i] = 1; assert(CONSISTENT) }
#define RM_CHOOSE_TO_ABORT(i) :: d_step { rmState[i] == 0 -> rmState[i] = 3; assert(CONSISTENT) }
#define RM_RCV_COMMIT(i) :: d_step { msgCommit -> rmState[i] = 2; assert(CONSISTENT) }
#define RM_RCV_ABORT(i) :: d_step { msgAbort -> rmState[i] = 3; assert(CONSISTENT) }

active proctype TwoPhase()
{
end:
    do
    FOR_EACH_RM(TM_RCV_PREPARED)
    :: d_step { tmState == 0 && ALL_PREPARED -> tmState = 1; msgCommit = 1; assert(CONSISTENT) }
    :: d_step { tmState == 0 -> tmState = 2; msgAbort = 1; assert(CONSISTENT) }
    FOR_EACH_RM(RM_PREPARE)
    FOR_EACH_RM(RM_CHOOSE_TO_ABORT)
    FOR_EACH_RM(RM_RCV_COMMIT)
    FOR_EACH_RM(RM_RCV_ABORT)
    od
}
