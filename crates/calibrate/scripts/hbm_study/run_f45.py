"""python3 run_f45.py FAMILY ITERS [MAPS]: search F4 (bank/row, + F3's chunk draws),
F4n (bank/row, no chunk draws) or F5 (slow draws per domain) from the engine's values;
writes best_FAMILY.json and prints the 2048-copy table."""
import sys, json
from cur import CUR
import bank, fit2
fam = sys.argv[1]; iters = int(sys.argv[2]); maps = len(sys.argv) > 3 and sys.argv[3] == 'maps'
p = dict(CUR)
base = {'lat': (500, 700, 8), 'dfar': (120, 260, 8), 'J': (0, 120, 8), 'ptail': (0, 0.5, 0.02),
        'tail_lo': (0, 400, 25), 'tail_hi': (50, 900, 30), 'R': (85, 110, 1.0), 'C': (0, 131072, 6000),
        'Rb': (100, 200, 4), 'dtma': (0, 100, 8)}
space = dict(base)
if fam.startswith('F4'):
    p.update(bank=True, NB=512, gshift=10, rshift=14, dconf=40.0, dmiss=20.0, tB=6.0, tRC=90.0,
             tclose=2000.0)
    space.update(NB=(8, 4096, 200), gshift=(7, 13, 1), rshift=(10, 22, 1), dconf=(0.0, 300.0, 15.0),
                 dmiss=(0.0, 200.0, 10.0), tB=(0.0, 40.0, 3.0), tRC=(0.0, 400.0, 20.0),
                 tclose=(0.0, 20000.0, 1000.0))
    if fam == 'F4n':
        p['ptail'] = 0.0
        for k in ('ptail', 'tail_lo', 'tail_hi'):
            space.pop(k)
elif fam == 'F3r':
    pass
elif fam == 'F5':
    p.update(D=8, ptail=0.13)
    space.update(D=(1, 256, 6))
best, bl = fit2.search(p, space, iters=iters, seed=11, nc=384, maps=maps)
out = f'best_{fam}{"_maps" if maps else ""}.json'
json.dump(best, open(out, 'w'))
l, res, err = fit2.loss(best, 2048, True, True)
print(out); print(bank.table(res, err))
