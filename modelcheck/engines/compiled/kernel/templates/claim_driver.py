# A kernel template, read as source text (kernel/source.py) and appended to every
# generated kernel module after the model's own functions; never imported.  Its
# free names (jit, jit_inline, W, NSYM, unpack, successors, the runtime's
# helpers...) are the generated module's: docs/engines/compiled.md "Kernels".

# ---------------------------------------------------------------- parallel search, one table

@jit
def side_put(side, key, pos):
    """Enter ``key`` with ``pos`` in the chunk's side table (search/claims.py
    ``Claims.side``: pairs of key (SIGN: empty) and position, never full:
    it has twice the room of the claims)."""
    mask = (side.shape[0] >> 1) - 1
    h = key & mask
    while True:
        if atomic_cas(side, 2 * h, SIGN, key) == SIGN:
            atomic_store(side, 2 * h + 1, pos)
            return
        h = (h + 1) & mask


@jit
def side_at(side, key):
    """Where ``key``'s position is in the side table, once its row has
    entered it (it stored the key's slot just before: a short wait)."""
    mask = (side.shape[0] >> 1) - 1
    while True:
        h = key & mask
        while True:
            k = atomic_load(side, 2 * h)
            if k == key:
                return 2 * h + 1
            if k == SIGN:
                break
            h = (h + 1) & mask


@jit
def claim_insert(keys, tags, side, meta, key, pos):
    """Store ``key`` for the row at ``pos`` (row + 1) unless an earlier row
    has it: (1 stored, 2 taken over from a later row, 0 known (stored before
    the chunk, or by this row or an earlier one), -1 the probe ran off the
    spare tail (grow the table); the slot).  The position of the row that
    holds a FRESH key is in the slot's tag, or, in a table without tags
    (parents on disk), in the chunk's side table under the key."""
    n = keys.shape[0]
    i = home_of(key, meta[0])
    fkey = key | FRESH
    tagged = tags.shape[0] != 0
    while i < n:
        k = atomic_load(keys, i)
        if k == SIGN:
            k = atomic_cas(keys, i, SIGN, fkey)
            if k == SIGN:
                if tagged:
                    atomic_store(tags, i, pos)
                else:
                    side_put(side, key, pos)
                return 1, i
        if k == key:
            return 0, i
        if k == fkey:
            # stored by another row in this chunk: its position comes right after
            if tagged:
                return _take_over(tags, i, pos), i
            return _take_over(side, side_at(side, key), pos), i
        i += 1
    return -1, i


@jit
def _take_over(arr, at, pos):
    """The position ``arr[at]`` lowered to ``pos`` if that is earlier: 2, or
    0 when an earlier row holds it (waiting for its row to write it)."""
    t = np.int64(atomic_load(arr, at))
    while t == 0:
        t = np.int64(atomic_load(arr, at))
    while pos < t:
        old = np.int64(atomic_cas(arr, at, t, pos))
        if old == t:
            return 2
        t = old
    return 0


BUDGET_TAKE = 256


@jit
def _take_budget(budget):
    """Up to BUDGET_TAKE entries from the workers' common budget (taken a
    block at a time: one atomic step per block, not per entry), 0 when it
    is spent."""
    while True:
        have = atomic_load(budget, 0)
        if have <= 0:
            return 0
        take = BUDGET_TAKE if have > BUDGET_TAKE else have
        if atomic_cas(budget, 0, have, have - take) == have:
            return take


@jit
def claim_present(keys, meta, key):
    """Whether the table holds ``key``, stored in this chunk or before."""
    n = keys.shape[0]
    i = home_of(key, meta[0])
    fkey = key | FRESH
    while i < n:
        k = atomic_load(keys, i)
        if k == SIGN:
            return False
        if k == key or k == fkey:
            return True
        i += 1
    return False


@jit
def _claim_note(m, kind, key, i, j, a, crow, post, ckeys, crowi, cj, caid, crows, cposts,
                ckind, chit, hit):
    ckeys[m] = key
    crowi[m] = i
    cj[m] = j
    caid[m] = a
    copy_slots(crows[m], 0, crow, 0, W)
    if kind == 2:
        copy_slots(cposts[m], 0, post, 0, W)
    ckind[m] = kind
    chit[m] = hit


@jit
def _claim_hit(crow, V, S, err, want, kinds, flags):
    """1 when the wanted properties settle on ``crow``, -1 an error, else 0."""
    r = _evaluate_wanted(crow, V, S, err, want, flags)
    if r < 0:
        return -1
    if r > 0:
        for q in range(want.shape[0]):
            if _settles(q, want, kinds, flags):
                return 1
    return 0


@jit
def claim_expand(front, start, stop, j0, keys, tags, side, meta, budget, ckeys, cslot, crowi, cj,
                 caid, crows, cposts, ckind, chit, m0, rowk, rown, term, opts, want, kinds, U, P, S,
                 V, buf, bufaid, cbuf, skeys, err, flags, rkeys, act_of, wact, wstat):
    """Successors of front[start:stop] (the first row from successor j0),
    stored in the shared table, the claims from m0 on: (status, row reached,
    successor reached, claims, entries stored).  Status CLAIM_*: a full
    claim list, a too small successor buffer, the table's budget spent or
    its tail passed stop the worker where it is, to go on
    from there; a run-time error in a row's successors stops it at that row
    (rowk -1).  ``budget[0]``: the entries the workers may still store
    together before the table grows.  rowk[i]: successors of row i; rown[i]: its claims; term[i]:
    is_terminal of a row without successors (-1 an error); chit: 1 when the
    wanted properties at the chunk's start settle on the state, -1 an error
    (the settling pass evaluates both again); wstat[0]: a successor cut by
    the depth bound.

    With state constraints a successor not in the table is checked against
    them before it is stored, as explore_chunk does; an outside state is
    never stored, and leaves an entry (ckind 2, its successor as computed in
    cposts) only where it settles a property or fails; a constraint that
    fails to evaluate (ckind 5) stops the worker there."""
    sym = NSYM > 0 and opts[2] != 0
    allow = opts[1] != 0
    rmask = rkeys.shape[0] - 1
    m = m0
    ins = 0
    left = 0
    first = j0
    for i in range(start, stop):
        k = successors(front, i, U, P, S, buf, bufaid, err)
        if k == -2:
            return 3, i, first, m, ins
        if k < 0:
            rowk[i] = -1
            return 5, i, 0, m, ins
        if first == 0:
            rowk[i] = k
            rown[i] = 0
            if k == 0:
                term[i] = is_terminal(U, S, err) if opts[0] != 0 else 1
                continue
        if m + k > crows.shape[0]:
            return 2, i, first, m, ins
        # keys first, with a prefetch of each home slot (as explore_chunk)
        for j in range(first, k):
            if same_slots(buf[j], 0, front[i], 0, W):
                skeys[j] = SIGN
                continue
            if sym:
                canon_row(buf, j, V, S, cbuf[j], True)
                key = fingerprint_at(cbuf, j) ^ SIGN
            else:
                key = fingerprint_at(buf, j) ^ SIGN
            if rkeys[key & rmask] == key:
                skeys[j] = SIGN
                continue
            skeys[j] = key
            prefetch(keys, home_of(key, meta[0]))
        for j in range(first, k):
            key = skeys[j]
            if key != SIGN and NCONS > 0 and not claim_present(keys, meta, key):
                crow = cbuf[j] if sym else buf[j]
                o = _outside(crow, V, S, err)
                if o < 0:
                    _claim_note(m, 5, key, i, j, bufaid[j], crow, crow, ckeys, crowi, cj, caid,
                                crows, cposts, ckind, chit, 0)
                    rown[i] += 1
                    return 5, i, j, m + 1, ins
                if o > 0:
                    key = SIGN
                    if allow:
                        hit = _claim_hit(crow, V, S, err, want, kinds, flags)
                        if hit != 0:
                            _claim_note(m, 2, SIGN, i, j, bufaid[j], crow, buf[j], ckeys, crowi,
                                        cj, caid, crows, cposts, ckind, chit, hit)
                            m += 1
                            rown[i] += 1
            if key != SIGN and allow:
                if left == 0:
                    left = _take_budget(budget)
                    if left == 0:
                        return 4, i, j, m, ins
                res, slot = claim_insert(keys, tags, side, meta, key, i + 1)
                if res < 0:
                    return 6, i, j, m, ins
                if res == 1:
                    ins += 1
                    left -= 1
                rkeys[key & rmask] = key
                if res > 0:
                    crow = cbuf[j] if sym else buf[j]
                    _claim_note(m, 1, key, i, j, bufaid[j], crow, crow, ckeys, crowi, cj, caid,
                                crows, cposts, ckind, chit,
                                _claim_hit(crow, V, S, err, want, kinds, flags))
                    cslot[m] = slot
                    m += 1
                    rown[i] += 1
            elif key != SIGN and not claim_present(keys, meta, key):
                wstat[0] = 1
            wact[act_of[bufaid[j]]] += 1
        first = 0
    return 0, stop, 0, m, ins


@jit
def claim_fix(keys, tags, side, meta, front, ckeys, cslot, crowi, ckind, lo, moved, hi, valid):
    """Claims lo..hi of one worker: valid[c] 1 for a claim whose slot still
    holds its row, which then gets its parent's tag and loses FRESH.  Each
    slot has one valid claim, and only it writes the slot: it clears FRESH
    before it writes the tag, and the others read the tag before the key, so
    none of them takes the parent's tag for its row.  The entries of outside
    states (which are never stored) are all valid.  Claims before ``moved``
    were made before the table last grew: their slots are found again.
    Without tags the row's position is the side table's, which nothing
    writes in this phase."""
    n = keys.shape[0]
    cap = meta[0]
    tagged = tags.shape[0] != 0
    for c in range(lo, hi):
        ahead = c + PREFETCH_AHEAD
        if ahead < hi and ckind[ahead] == 1:
            if ahead >= moved:
                if tagged:
                    prefetch(tags, cslot[ahead])
                prefetch(keys, cslot[ahead])
            else:
                prefetch(keys, home_of(ckeys[ahead], cap))
        if ckind[c] != 1:
            valid[c] = 1
            continue
        key = ckeys[c]
        fkey = key | FRESH
        valid[c] = 0
        if c >= moved:
            i = cslot[c]
        else:
            i = home_of(key, cap)
            while i < n:
                k = atomic_load(keys, i)
                if k == fkey or k == key:
                    break
                i += 1
        pos = crowi[c] + 1
        if not tagged:
            if side[side_at(side, key)] == pos:
                valid[c] = 1
                atomic_store(keys, i, key)
            continue
        if np.int64(atomic_load(tags, i)) != pos or atomic_load(keys, i) != fkey:
            continue
        valid[c] = 1
        atomic_store(keys, i, key)
        atomic_store(tags, i, (fingerprint_at(front, crowi[c]) >> TAG_SHIFT) & TAG_MASK)


@jit
def claim_settle(front, wstart, wend, cap, stop, rowk, rown, term, valid, crows, cposts, ckind,
                 cj, caid, chit, nxt, ctr, sres, want, kinds, opts, found, frows, frows2, faid,
                 U, P, S, V, buf, bufaid, err, flags):
    """The rows wstart[w]..wend[w] of each worker w in the serial order, from
    the rows' counts and the valid claims (worker w's from w*cap): (status,
    row reached) as explore_chunk returns them.  Stopped early, sres holds
    the row and how many of its successors the serial search had counted
    per action (claim_count_actions)."""
    nstate = want.shape[0]
    stop_first = opts[3] != 0
    active = _any_wanted(want)
    for w in range(wstart.shape[0] - 1):
        c = w * cap
        for i in range(wstart[w], wend[w]):
            k = rowk[i]
            sres[0] = i
            sres[1] = 0
            r = _settle_row(front, i, k, term, ctr, found, frows, nstate, opts, U, P, S, buf,
                            bufaid, err)
            if r == 4:
                return 4, i
            if r == 5:
                return 5, i + 1
            for _ in range(rown[i]):
                if valid[c] == 0:
                    c += 1
                    continue
                sres[1] = cj[c] + 1
                if ckind[c] == 5:
                    par_outside(crows[c], V, S, err)
                    err[3] = 5
                    _settle_fault(err, i, cj[c], caid[c], crows[c])
                    return 4, i
                if ckind[c] == 1:
                    if opts[4] >= 0 and ctr[3] >= opts[4]:
                        return 6, i
                    ctr[3] += 1
                    for x in range(W):
                        nxt[ctr[1], x] = crows[c, x]
                    ctr[1] += 1
                if chit[c] != 0 and active:
                    # an outside state (2) or a new one (1) that may settle
                    # a property: evaluated again with the wants of now
                    r = _evaluate_wanted(crows[c], V, S, err, want, flags)
                    if r < 0:
                        err[3] = 4
                        _settle_fault(err, i, cj[c], caid[c], crows[c])
                        return 4, i
                    if r > 0:
                        settled = _par_found(crows[c], front[i], cposts[c], caid[c], ckind[c],
                                             want, kinds, flags, found, frows, frows2, faid,
                                             stop_first)
                        active = _any_wanted(want)
                        if settled != 0:
                            return 5, i + 1
                c += 1
    return 0, stop


@jit
def claim_count_actions(front, start, row, nj, U, P, S, buf, bufaid, err, act_of, act_counts):
    """Add to the per-action counts the steps of rows start..row-1 and the
    first ``nj`` of row ``row``: where the serial search stopped inside a
    chunk.  0, or -1 when ``buf`` is too small."""
    for i in range(start, row + 1):
        k = successors(front, i, U, P, S, buf, bufaid, err)
        if k == -2:
            return -1
        if i == row:
            k = min(k, nj)
        for j in range(k):
            act_counts[act_of[bufaid[j]]] += 1
    return 0
