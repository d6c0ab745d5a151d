# A kernel template, read as source text (kernel/source.py) and appended to every
# generated kernel module after the model's own functions; never imported.  Its
# free names (jit, jit_inline, W, NSYM, unpack, successors, the runtime's
# helpers...) are the generated module's: docs/engines/compiled.md "Kernels".

# ---------------------------------------------------------------- driver

@jit
def canon_row(rows, ri, U, S, out, sym):
    if NSYM == 0 or not sym:
        for w in range(W):
            out[w] = rows[ri, w]
    else:
        unpack(rows, ri, U)
        canon(U, S, out)


@jit_inline
def _evaluate_wanted(row, V, S, err, want, flags):
    """The invariants and sometimes still wanted, on ``row`` (into ``flags``):
    1 evaluated, 0 none is wanted, -1 a run-time error."""
    active = False
    for q in range(want.shape[0]):
        if want[q] != 0:
            active = True
    if not active:
        return 0
    unpack_props_row(row, V)
    if state_props(V, S, err, want, flags) < 0:
        return -1
    return 1


@jit_inline
def _settles(q, want, kinds, flags):
    """Whether the flags just evaluated settle property ``q``: an invariant
    false, or a sometimes true."""
    return want[q] != 0 and ((kinds[q] == 0 and flags[q] == 0)
                             or (kinds[q] == 1 and flags[q] != 0))


@jit_inline
def _check_new(row, V, S, err, want, kinds, flags, found, frows, stop_first):
    """Invariants and sometimes on a new state: 1 stop, 0 go on, -1 error."""
    r = _evaluate_wanted(row, V, S, err, want, flags)
    if r <= 0:
        return r
    stop = 0
    for q in range(want.shape[0]):
        if _settles(q, want, kinds, flags):
            want[q] = 0
            found[q] = 1
            for w in range(W):
                frows[q, w] = row[w]
            if kinds[q] == 0 and stop_first:
                stop = 1
    return stop


@jit_inline
def _check_outside(row, parent, post, a, V, S, err, want, kinds, flags, found, frows, frows2,
                   faid, stop_first):
    """Invariants and sometimes on ``row``, a state that fails a constraint
    (TLC checks it, then drops it).  It is in no table, so a hit keeps what
    rebuilds its trace: ``parent``, the stored state it was computed from,
    and ``post``, the successor as computed (before symmetry); for an
    initial state (``a`` < 0) both are the state itself.  1 stop, 0 go on,
    -1 error."""
    r = _evaluate_wanted(row, V, S, err, want, flags)
    if r <= 0:
        return r
    stop = 0
    for q in range(want.shape[0]):
        if _settles(q, want, kinds, flags):
            want[q] = 0
            found[q] = 2 if a >= 0 else 3
            faid[q] = a
            for w in range(W):
                frows[q, w] = parent[w]
                frows2[q, w] = post[w]
            if kinds[q] == 0 and stop_first:
                stop = 1
    return stop


@jit_inline
def _check_step(front, i, buf, j, a, U, V, S, err, want_step, sflags, found, faid, frows,
                frows2, nstate, stop_first):
    """Step invariants on the step front[i] -> buf[j] (action instance a):
    1 stop, 0 go on, -1 a run-time error (err filled in)."""
    nstep = want_step.shape[0]
    active = False
    for q in range(nstep):
        if want_step[q] != 0:
            active = True
    if not active:
        return 0
    unpack(buf, j, V)
    if step_props(U, V, S, err, want_step, sflags) < 0:
        err[3] = 3
        err[4] = i
        err[5] = j
        err[6] = a
        for w in range(W):
            err[8 + w] = buf[j, w]
        return -1
    halt = 0
    for q in range(nstep):
        if want_step[q] != 0 and sflags[q] == 0:
            want_step[q] = 0
            found[nstate + q] = 1
            faid[nstate + q] = a
            for w in range(W):
                frows[nstate + q, w] = front[i, w]
                frows2[nstate + q, w] = buf[j, w]
            if stop_first:
                halt = 1
    return halt


@jit_inline
def _outside(row, V, S, err):
    """Whether a state fails a constraint: 1 it does, 0 it is in the model,
    -1 a run-time error."""
    unpack_model_row(row, V)
    c = in_model(V, S, err)
    if c < 0:
        return -1
    return 1 - c


@jit
def admit(rows, start, keys, tags, tstates, meta, nxt, ctr, want, kinds, opts,
          found, frows, U, S, V, crow, err, flags, frows2, faid):
    """Initial states: count, store (those in the model), check.  (status,
    row reached)."""
    for i in range(start, rows.shape[0]):
        if meta[1] >= opts[5]:
            return 1, i
        if ctr[1] >= nxt.shape[0]:
            return 2, i
        canon_row(rows, i, U, S, crow, opts[2] != 0)
        key = fingerprint(crow) ^ SIGN
        if NCONS > 0 and table_insert(keys, tags, tstates, meta, key, 0, crow, False) == -2:
            o = _outside(crow, V, S, err)
            if o < 0:
                err[3] = 5
                err[4] = i
                return 4, i
            if o > 0:
                ctr[0] += 1
                r = _check_outside(crow, rows[i], rows[i], -1, V, S, err, want, kinds, flags,
                                   found, frows, frows2, faid, opts[3] != 0)
                if r < 0:
                    err[3] = 4
                    err[4] = i
                    return 4, i
                if r > 0:
                    return 5, i + 1
                continue
        if opts[4] >= 0 and meta[1] >= opts[4]:
            if table_insert(keys, tags, tstates, meta, key, 0, crow, False) == -2:
                ctr[0] += 1
                return 6, i
            ctr[0] += 1
            continue
        res = table_insert(keys, tags, tstates, meta, key, 0, crow, True)
        if res == -1:
            return 1, i
        ctr[0] += 1
        if res == 1:
            for w in range(W):
                nxt[ctr[1], w] = crow[w]
            ctr[1] += 1
            r = _check_new(crow, V, S, err, want, kinds, flags, found, frows, opts[3] != 0)
            if r < 0:
                err[3] = 4
                err[4] = i
                for w in range(W):
                    err[8 + w] = crow[w]
                return 4, i
            if r > 0:
                return 5, i + 1
    return 0, rows.shape[0]


@jit_inline
def _count_found(found):
    n = 0
    for q in range(found.shape[0]):
        if found[q] != 0:
            n += 1
    return n


@jit
def explore_chunk(front, start, stop, keys, tags, tstates, meta, nxt, ctr,
                  act_counts, act_of, want, kinds, want_step, opts,
                  found, frows, frows2, faid, U, P, S, V, buf, bufaid, cbuf, ckeys, err, flags,
                  sflags, rkeys, rrows):
    """Expand ``front[start:stop]`` (``_explore_rows``); (status, row reached).

    With ``opts[8]`` > 0 (and ``opts`` at least 14 long) it may go on past
    the end of the level, at most ``opts[8]`` levels: where ``stop`` is the
    level's end (``opts[13]``, its rows ``front[:opts[13]]``), the level is
    done, and the next one (``nxt[:ctr[1]]``) is not empty, fits in
    ``front`` (its whole buffer), has fewer rows than ``opts[9]`` (when
    that is > 0), and the level found nothing new (``found`` has as many
    finds as ``opts[10]``, the count when the level began), the next level
    is copied to ``front`` and expanded too, while fewer than ``opts[11]``
    rows have been expanded in this call.  ``opts[12]`` returns the levels
    crossed, ``opts[13]`` the rows of the level the row reached is in.
    Every level is expanded exactly as one call per level would: a level
    boundary changes nothing but the arrays' roles, so the depth, counts
    and finds are those of the search in Python, level by level."""
    if opts.shape[0] < 14 or opts[8] <= 0:
        return _explore_rows(front, start, stop, keys, tags, tstates, meta, nxt, ctr,
                             act_counts, act_of, want, kinds, want_step, opts, found, frows,
                             frows2, faid, U, P, S, V, buf, bufaid, cbuf, ckeys, err, flags,
                             sflags, rkeys, rrows)
    opts[12] = 0
    n = opts[13]
    budget = opts[11]
    lo = start
    hi = stop
    while True:
        status, reached = _explore_rows(front, lo, hi, keys, tags, tstates, meta, nxt, ctr,
                                        act_counts, act_of, want, kinds, want_step, opts,
                                        found, frows, frows2, faid, U, P, S, V, buf, bufaid,
                                        cbuf, ckeys, err, flags, sflags, rkeys, rrows)
        budget -= reached - lo
        if status != 0 or hi < n:
            return status, reached
        m = ctr[1]
        if (opts[12] >= opts[8] or m == 0 or m > front.shape[0] or budget <= 0
                or (opts[9] > 0 and m >= opts[9]) or _count_found(found) != opts[10]):
            return 0, n
        for r in range(m):
            for w in range(W):
                front[r, w] = nxt[r, w]
        ctr[1] = 0
        opts[12] += 1
        opts[13] = m
        n = m
        lo = 0
        hi = m
        if budget < m:
            hi = budget


@jit_inline
def _candidates(front, i, buf, lo, k, keys, tags, meta, V, S, cbuf, ckeys, rkeys, rrows, sym,
                exact, rmask):
    """The keys of row i's successors ``buf[lo:lo + k]`` into ``ckeys``, with
    a prefetch of each one's home slot, so that the cache misses of the k
    lookups overlap.  Most successors are duplicates, and most of those are
    cheap to tell without the table: a self-loop is its own pre-state
    (stored: the frontier holds representatives), and a state reached again
    a few rows later (the two orders of commuting actions) is still in the
    small cache of recent keys, ``rkeys``, which holds only keys already in
    the table.  Both get the key SIGN: "known, no lookup"."""
    for j in range(lo, lo + k):
        if same_slots(buf[j], 0, front[i], 0, W):
            ckeys[j] = SIGN
            continue
        if not sym:
            h = fingerprint_at(buf, j)
            crow = buf[j]
        else:
            canon_row(buf, j, V, S, cbuf[j], True)
            h = fingerprint_at(cbuf, j)
            crow = cbuf[j]
        key = h ^ SIGN
        r = key & rmask
        if rkeys[r] == key and (not exact or same_slots(rrows[r], 0, crow, 0, W)):
            ckeys[j] = SIGN
            continue
        ckeys[j] = key
        # The tag's slot too: a new state writes it, and a store that
        # misses the cache stalled the insert as long as the probe did.
        home = home_of(key, meta[0])
        prefetch(keys, home)
        if tags.shape[0] != 0:
            prefetch(tags, home)


@jit
def _explore_rows(front, start, stop, keys, tags, tstates, meta, nxt, ctr,
                  act_counts, act_of, want, kinds, want_step, opts,
                  found, frows, frows2, faid, U, P, S, V, buf, bufaid, cbuf, ckeys, err, flags,
                  sflags, rkeys, rrows):
    """Expand ``front[start:stop]``: successors, deadlock, step invariants,
    new states stored in the table and appended to ``nxt``, invariants and
    sometimes checked on them.  (status, row reached)."""
    nstate = want.shape[0]
    nstep = want_step.shape[0]
    sym = NSYM > 0 and opts[2] != 0
    dl = nstate + nstep
    exact = meta[2] != 0
    rmask = rkeys.shape[0] - 1
    # One row ahead: the next row's successors and their prefetches are
    # computed before this row's lookups, into the other half of ``buf``,
    # so that a row's table slots arrive while the row before is stored
    # (a row's own prefetches came too late for its lookups).  Only an
    # expansion's scratch (U, P, S, the half of buf) is written early, and
    # nothing of the row being stored reads it: not with step invariants
    # (they read U) or symmetry (cbuf holds the row's representatives),
    # which go a row at a time.  A row that ends the call (a find, a fault,
    # a full table) leaves the next row's expansion unused: the next call
    # computes it again.  Every filter before the table only answers
    # "seen" for keys in the table, so a key computed a row early (before
    # this row's inserts reach ``rkeys``) is looked up, with the same answer.
    half = buf.shape[0] // 2
    ahead = nstep == 0 and not sym and half > 0
    lo = 0          # where the row's successors are in buf, bufaid and ckeys
    kn = -1         # the next row's count, computed a row early (-1: not)
    for i in range(start, stop):
        if meta[1] >= opts[5]:
            return 1, i
        peeked = kn >= 0
        if peeked:
            k = kn
            kn = -1
        elif ahead:
            lo = 0
            k = successors(front, i, U, P, S, buf[0:half], bufaid[0:half], err)
        else:
            k = successors(front, i, U, P, S, buf, bufaid, err)
        if k == -2:
            return 3, i
        if k < 0:
            err[3] = 1
            err[4] = i
            return 4, i
        if ctr[1] + k > nxt.shape[0]:
            return 2, i
        ptag = (fingerprint_at(front, i) >> TAG_SHIFT) & TAG_MASK
        ctr[0] += k
        if k == 0 and opts[0] != 0 and found[dl] == 0:
            t = is_terminal(U, S, err)
            if t < 0:
                err[3] = 2
                err[4] = i
                return 4, i
            if t == 0:
                found[dl] = 1
                for w in range(W):
                    frows[dl, w] = front[i, w]
                if opts[3] != 0:
                    return 5, i + 1
        if not peeked:
            _candidates(front, i, buf, lo, k, keys, tags, meta, V, S, cbuf, ckeys, rkeys, rrows,
                        sym, exact, rmask)
        nlo = half - lo
        if ahead and i + 1 < stop:
            kn = successors(front, i + 1, U, P, S, buf[nlo:nlo + half],
                            bufaid[nlo:nlo + half], err)
            if kn < 0:
                kn = -1     # computed again, its fault reported, at its turn
            else:
                _candidates(front, i + 1, buf, nlo, kn, keys, tags, meta, V, S, cbuf, ckeys,
                            rkeys, rrows, sym, exact, rmask)
        for j in range(k):
            jb = lo + j
            a = bufaid[jb]
            act_counts[act_of[a]] += 1
            if nstep > 0:
                c = _check_step(front, i, buf, jb, a, U, V, S, err, want_step, sflags, found,
                                faid, frows, frows2, nstate, opts[3] != 0)
                if c < 0:
                    return 4, i
                if c > 0:
                    return 5, i + 1
            key = ckeys[jb]
            if key == SIGN:
                continue
            crow = cbuf[jb] if sym else buf[jb]
            allow = opts[1] != 0
            # A state outside the model is never stored: one not in the table
            # is checked against the constraints, as the reference does.
            if NCONS > 0 and table_insert(keys, tags, tstates, meta, key, ptag, crow,
                                          False) == -2:
                o = _outside(crow, V, S, err)
                if o != 0:
                    if o < 0:
                        err[3] = 5
                    else:
                        if not allow:
                            # past the depth bound nothing new is checked
                            continue
                        o = _check_outside(crow, front[i], buf[jb], a, V, S, err, want, kinds,
                                           flags, found, frows, frows2, faid, opts[3] != 0)
                        if o == 0:
                            continue
                        if o > 0:
                            return 5, i + 1
                        err[3] = 4
                    err[4] = i
                    err[5] = j
                    err[6] = a
                    for w in range(W):
                        err[8 + w] = crow[w]
                    return 4, i
            if allow and opts[4] >= 0 and meta[1] >= opts[4]:
                if table_insert(keys, tags, tstates, meta, key, ptag, crow, False) == -2:
                    return 6, i
                continue
            res = table_insert(keys, tags, tstates, meta, key, ptag, crow, allow)
            if res == -1:
                # The table is full mid-row: undo this row's counts, grow, redo it.
                ctr[0] -= k
                for jj in range(j + 1):
                    act_counts[act_of[bufaid[lo + jj]]] -= 1
                return 1, i
            if res == -2:
                ctr[2] = 1
                continue
            r = key & rmask
            rkeys[r] = key
            if exact:
                copy_slots(rrows[r], 0, crow, 0, W)
            if res == 1:
                for w in range(W):
                    nxt[ctr[1], w] = crow[w]
                ctr[1] += 1
                r = _check_new(crow, V, S, err, want, kinds, flags, found, frows, opts[3] != 0)
                if r < 0:
                    err[3] = 4
                    err[4] = i
                    err[5] = j
                    err[6] = a
                    for w in range(W):
                        err[8 + w] = crow[w]
                    return 4, i
                if r > 0:
                    return 5, i + 1
        if kn >= 0:
            lo = nlo
    return 0, stop


@jit
def expand_batch(rows, start, succ, parent, aid, U, P, S, buf, bufaid, err, m0):
    """Successors of ``rows[start:]`` into succ/parent/aid from row m0.
    (status, row reached, rows written): status 0 done, 2 succ is full,
    3 buf is too small, 4 run-time error at the row reached."""
    m = m0
    for i in range(start, rows.shape[0]):
        k = successors(rows, i, U, P, S, buf, bufaid, err)
        if k == -2:
            return 3, i, m
        if k < 0:
            err[3] = 1
            err[4] = i
            return 4, i, m
        if m + k > succ.shape[0]:
            return 2, i, m
        for j in range(k):
            for w in range(W):
                succ[m, w] = buf[j, w]
            parent[m] = i
            aid[m] = bufaid[j]
            m += 1
    return 0, rows.shape[0], m


@jit
def expand_owned(front, ffp, start, dtab, dslot, out, ofp, nsucc, acts, ctr, opts, U, P, S, V,
                 buf, bufaid, cbuf, ckeys, err):
    """Successors of ``front[start:]`` (fingerprints ``ffp``) without their
    duplicates, for a partitioned search (the Spark engine's expand): each
    distinct successor (its representative under symmetry when
    ``opts[0]``) once in ``out``/``ofp`` from row ``ctr[1]``, in the order
    of first occurrence, with the smallest parent fingerprint (unsigned)
    among its duplicates in the open-addressing table ``dtab`` (pairs key,
    parent, at least twice ``out``'s rows, a power of two; ``dslot`` gives
    each row's pair).  A successor equal to its own pre-state is left out:
    the pre-state is stored, so an owner would drop it.  ``nsucc[i]`` gets
    row i's successors, ``acts`` the action instances taken, ``ctr[0]`` the
    successors generated.  (status, row reached): 0 done, 2 ``out`` is full
    (a flush: the caller takes the rows, clears the table and calls again
    from the row reached; with no row taken, ``out`` is too small), 3
    ``buf`` is too small, 4 a run-time error at the row reached.  One pass
    a successor: the fingerprint, the prefetch of its slot with its row's
    others, the probe (the bucket passes, the marks and the blocks of the
    Spark engine's ``owner_split`` in one)."""
    sym = NSYM > 0 and opts[0] != 0
    mask = dtab.shape[0] // 2 - 1
    for i in range(start, front.shape[0]):
        k = successors(front, i, U, P, S, buf, bufaid, err)
        if k == -2:
            return 3, i
        if k < 0:
            err[3] = 1
            err[4] = i
            return 4, i
        if ctr[1] + k > out.shape[0]:
            return 2, i
        nsucc[i] = k
        ctr[0] += k
        for j in range(k):
            acts[bufaid[j]] += 1
            if same_slots(buf[j], 0, front[i], 0, W):
                ckeys[j] = 0
                continue
            if sym:
                canon_row(buf, j, V, S, cbuf[j], True)
                h = fingerprint_at(cbuf, j)
            else:
                h = fingerprint_at(buf, j)
            ckeys[j] = h
            prefetch(dtab, 2 * (h & mask))
        pf = ffp[i]
        for j in range(k):
            h = ckeys[j]
            if h == 0:
                continue
            s = h & mask
            while True:
                g = dtab[2 * s]
                if g == 0:
                    dtab[2 * s] = h
                    dtab[2 * s + 1] = pf
                    d = ctr[1]
                    dslot[d] = s
                    ofp[d] = h
                    if sym:
                        for w in range(W):
                            out[d, w] = cbuf[j, w]
                    else:
                        for w in range(W):
                            out[d, w] = buf[j, w]
                    ctr[1] = d + 1
                    break
                if g == h:
                    if (pf ^ SIGN) < (dtab[2 * s + 1] ^ SIGN):
                        dtab[2 * s + 1] = pf
                    break
                s = (s + 1) & mask
    return 0, front.shape[0]


@jit
def props_batch(rows, U, S, err, want, flags):
    """State-property columns for each row; -1 - row on a run-time error."""
    for i in range(rows.shape[0]):
        unpack(rows, i, U)
        if state_props(U, S, err, want, flags[i]) < 0:
            return -1 - i
    return 0


@jit
def constraints_batch(rows, U, S, err, out):
    """Whether each row is in the model (satisfies every constraint); -1 - row
    on a run-time error."""
    for i in range(rows.shape[0]):
        unpack(rows, i, U)
        c = in_model(U, S, err)
        if c < 0:
            return -1 - i
        out[i] = c
    return 0


@jit
def terminal_batch(rows, U, S, err, out):
    for i in range(rows.shape[0]):
        unpack(rows, i, U)
        t = is_terminal(U, S, err)
        if t < 0:
            return -1 - i
        out[i] = t
    return 0


@jit
def steps_batch(pre, post, U, V, S, err, want, flags):
    for i in range(pre.shape[0]):
        unpack(pre, i, U)
        unpack(post, i, V)
        if step_props(U, V, S, err, want, flags[i]) < 0:
            return -1 - i
    return 0


@jit
def canon_batch(rows, out, perms, U, S, sym):
    """Representatives of the rows, and the permutation that maps each row to
    it (the identity when ``sym`` is off)."""
    for i in range(rows.shape[0]):
        canon_row(rows, i, U, S, out[i], sym)
        if NSYM > 0 and sym:
            for q in range(NPERM):
                perms[i, q] = S[PERM_OFF + q]
        else:
            for q in range(NPERM):
                perms[i, q] = q - PERM_START[q]


@jit
def permute_batch(rows, perms, out, U, S):
    """Each row with its symmetric types renamed by the permutations in perms."""
    for i in range(rows.shape[0]):
        unpack(rows, i, U)
        for q in range(NPERM):
            S[PERM_OFF + q] = perms[i, q]
        permute(U, S, out[i])
