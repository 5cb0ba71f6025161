"""F6 fit: random walk then coordinate descent (python3 run_f6.py NAME START.json k=v ...)"""
import sys, json
import numpy as np
import sim3, fit3
name, start = sys.argv[1], sys.argv[2]
p = {**sim3.START, **json.load(open(start))}
for kv in sys.argv[3:]:
    k, v = kv.split('=')
    p[k] = v if k in ('seeds', 'fixed') else int(float(v)) if k in fit3.INT else float(v)
SPACE = {'q_post': (0.05, 1, 0.04), 'r': (0.02, 1, 0.03), 'lo': (0, 300, 15), 'hi': (100, 900, 25),
         'lat': (450, 750, 6), 'dfar': (50, 350, 8), 'J': (0, 150, 6), 'dtma': (0, 150, 5),
         'R': (85, 110, 0.6), 'Rb': (100, 160, 2), 'C': (0, 120000, 4000), 'trow': (0, 3, 0.15)}
log = lambda s: print(s, flush=True)
seeds = tuple(int(x) for x in str(p.pop('seeds', '1')).split('+'))
for k in str(p.pop('fixed', '')).split('+'):
    SPACE.pop(k, None)
p, l = fit3.search(p, SPACE, iters=int(p.pop('iters', 150)), seeds=seeds, log=log)
p, l = fit3.descend(p, list(SPACE), seeds=seeds, log=log, sweeps=2)
json.dump(p, open(f'f6_{name}.json', 'w'), indent=1)
for s in (1, 2, 3):
    res, err = sim3.evaluate(p, 2048, s, True, True)
    print(f'--- seed {s}, 2048 copies'); print(sim3.table(res, err), flush=True)
