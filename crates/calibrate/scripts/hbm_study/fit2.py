"""Random-walk least-max search (as fit.py) over bank.py's families."""
import sys, json, numpy as np
import bank


def loss(p, nc=384, bw=True, maps=False, wmap=0.5):
    res, err = bank.evaluate(p, nc, bw, maps)
    core = np.array([v for k, v in err.items() if not k.startswith('map')])
    l = np.max(np.abs(core)) + 0.5 * np.mean(np.abs(core))
    if maps:
        mp = np.array([v for k, v in err.items() if k.startswith('map')])
        l += wmap * np.mean(np.abs(mp))
    return l, res, err


def search(p, space, iters=150, seed=0, nc=384, maps=False, log=None):
    rng = np.random.default_rng(seed)
    best = dict(p); bl, _, _ = loss(best, nc, True, maps)
    print('start', round(bl, 3), flush=True)
    for it in range(iters):
        q = dict(best)
        for k in rng.choice(list(space), size=rng.integers(1, 3), replace=False):
            lo, hi, step = space[k]
            v = q[k] + rng.normal() * step
            q[k] = int(np.clip(round(v), lo, hi)) if isinstance(p[k], int) else float(np.clip(v, lo, hi))
        l, _, _ = loss(q, nc, True, maps)
        if l < bl:
            bl, best = l, q
            print(it, round(bl, 3), {k: round(best[k], 4) for k in space}, flush=True)
    return best, bl
