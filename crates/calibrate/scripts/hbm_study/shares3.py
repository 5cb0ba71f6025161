"""slow shares by size, measured (post-flush pooled; settled pooled) against sim3 (python3 shares3.py P.json [k=v ...])"""
import sys, json, numpy as np
import sim3
from shares import shares
from data import pooled, load
p = {**sim3.START, **json.load(open(sys.argv[1]))}
for kv in sys.argv[2:]:
    k, v = kv.split('='); p[k] = float(v)
for st in ('post', 'set'):
    for kind in ('bulk', 'tma2d'):
        meas = []; mod = []
        for k in sim3.SIZES:
            n = f'lat.{kind}.hbm.{k}KiB'
            m = pooled(n) if st == 'post' else np.concatenate([np.array(load(f)[n]['reps']) for f in sim3.SETTLED])
            meas.append(shares(m, k)); mod.append(shares(sim3.lat_copies(p, kind, k, 2048, 1, st), k))
        print(f'{st:4s} {kind:5s} meas ' + ' '.join(f'{x:.2f}' for x in meas) + ' | model ' + ' '.join(f'{x:.2f}' for x in mod))
