"""Coordinate descent (as the engine's fit step 4) on fit2.loss, common random numbers
(fixed seeds), so the objective is deterministic.
python3 cd.py NAME START.json|cur 'param,param,...' [maps] [set k=v ...]"""
import sys, json
import numpy as np
from cur import CUR
import bank, fit2

INT = {'lat', 'dfar', 'J', 'NB', 'gshift', 'rshift', 'D', 'tail_lo', 'tail_hi', 'C'}


def descend(p, names, nc=512, maps=False, sweeps=3, log=print):
    best = fit2.loss(p, nc, True, maps)[0]
    log(f'start {best:.3f}')
    for sw in range(sweeps):
        before = best
        for k in names:
            x0 = p[k]
            step = max(1.0, round(abs(x0) * 0.1)) if k in INT else max(abs(x0) * 0.1, 1e-3)
            while True:
                moved = False
                for cand in (p[k] - step, p[k] + step):
                    if cand < 0:
                        continue
                    q = dict(p); q[k] = int(round(cand)) if k in INT else cand
                    l = fit2.loss(q, nc, True, maps)[0]
                    if l < best - 1e-9:
                        best, p, moved = l, q, True
                        log(f'  {k} -> {q[k]:.4g}: {best:.3f}')
                        break
                if not moved:
                    if (k in INT and step <= 1) or (k not in INT and step <= abs(p[k]) * 0.01):
                        break
                    step = max(1.0, round(step / 2)) if k in INT and step > 1 else step / 2
                    if k in INT and step < 1:
                        break
        if best >= before - 1e-9:
            break
    return p, best


if __name__ == '__main__':
    name, start, names = sys.argv[1], sys.argv[2], sys.argv[3].split(',')
    rest = sys.argv[4:]
    maps = 'maps' in rest
    p = dict(CUR) if start == 'cur' else {**CUR, **json.load(open(start))}
    for kv in rest:
        if '=' in kv:
            k, v = kv.split('=')
            p[k] = type(CUR.get(k, 1.0))(float(v)) if k in CUR else float(v)
    p, best = descend(p, names, maps=maps)
    json.dump(p, open(f'cd_{name}.json', 'w'))
    l, res, err = fit2.loss(p, 2048, True, True)
    print(f'cd_{name}.json loss(512) {best:.3f} loss(2048) {l:.3f}')
    print(bank.table(res, err), flush=True)
