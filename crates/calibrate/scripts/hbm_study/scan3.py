"""Structure scan for F6 by slow shares (post-flush and settled), f6_a's other values, desc 110:
for each (sgrp, ssub, K, subhash) the best (q_post, r) for the 14 post-flush shares, then the
best q_set for the 14 settled shares. python3 scan3.py > scan3.out"""
import json, itertools, numpy as np
import sim3
from shares import shares
from data import pooled, load
P = {**sim3.START, **json.load(open('f6_a.json')), 'desc': 110.0}
MP = {}; MS = {}
for kind in ('bulk', 'tma2d'):
    for k in sim3.SIZES:
        n = f'lat.{kind}.hbm.{k}KiB'
        MP[(kind, k)] = shares(pooled(n), k)
        MS[(kind, k)] = shares(np.concatenate([np.array(load(f)[n]['reps']) for f in sim3.SETTLED]), k)


def sh(p, st):
    return {(kind, k): shares(sim3.lat_copies(p, kind, k, 512, 1, st), k) for kind in ('bulk', 'tma2d') for k in sim3.SIZES}


def err(m, M):
    return np.sqrt(np.mean([(m[x] - M[x]) ** 2 for x in M]))


res = []
for sgrp, ssub, K, hsh in itertools.product((15, 16, 17), (8, 9, 10, 11), (4, 8, 16), (0, 1)):
    best = None
    for q, r in itertools.product((0.5, 0.6, 0.7, 0.85), (0.15, 0.25, 0.35, 0.5)):
        p = {**P, 'sgrp': sgrp, 'ssub': ssub, 'K': K, 'subhash': hsh, 'q_post': q, 'r': r}
        e = err(sh(p, 'post'), MP)
        if best is None or e < best[0]:
            best = (e, q, r)
    e, q, r = best
    bs = None
    for qs in (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5):
        p = {**P, 'sgrp': sgrp, 'ssub': ssub, 'K': K, 'subhash': hsh, 'q_post': qs, 'r': r}
        es = err(sh(p, 'post'), MS)
        if bs is None or es < bs[0]:
            bs = (es, qs)
    res.append((e, sgrp, ssub, K, hsh, q, r, bs[0], bs[1]))
    print(f'sgrp {sgrp} ssub {ssub} K {K:2d} hash {hsh}: post rms {e:.3f} (q {q}, r {r}); settled rms {bs[0]:.3f} (q_set {bs[1]})', flush=True)
res.sort()
print('best 8 by post-flush rms:')
for x in res[:8]:
    print(x)
