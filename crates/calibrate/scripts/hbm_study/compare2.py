"""The second study's comparison table (hbm_model.md): each family's fitted values,
2048 simulated copies per benchmark, three seeds. python3 compare2.py > compare2.out"""
import json
import numpy as np
from cur import CUR
import bank

FAMILIES = {
    'F3 as in the engine now (h100.toml)': dict(CUR),
    'F3 refit (coordinate descent, cd.py; cd_F3.out)': {**CUR, 'lat': 616, 'dfar': 181, 'tail_hi': 502, 'R': 98.1,
                                                         'dtma': 40.66},
    'F3 + tail_lo free (cd.py; cd_F3lo.out)': {**CUR, 'lat': 591, 'dfar': 185, 'J': 46, 'ptail': 0.06389,
                                                'tail_lo': 111, 'R': 98.71, 'Rb': 122.2, 'dtma': 20.47},
    'F4 bank/row + F3 draws (best_F4_maps.json)': {**CUR, **json.load(open('best_F4_maps.json'))},
    'F5 draws per domain (f5.out, iteration 160)': {**CUR, 'lat': 599, 'dfar': 200, 'J': 41, 'ptail': 0.1436,
                                                    'tail_lo': 0, 'tail_hi': 500, 'R': 98.81, 'C': 49031.0,
                                                    'Rb': 117.09, 'dtma': 20.57, 'D': 8},
}
NAMES = [f'lat.{k}.hbm.{s}KiB' for s in bank.SIZES for k in ('bulk', 'tma2d')]
for label, p in FAMILIES.items():
    errs = []
    for seed in (1, 2, 3):
        res = {n: bank.lat_bench(p, n.split('.')[1], int(n.split('.')[3][:-3]), 2048, seed)[0] for n in NAMES}
        errs.append([100 * (res[n] / bank.MEAS[n] - 1) for n in NAMES])
    e = np.array(errs)
    mx = np.abs(e).max(1); mean = np.abs(e).mean(1)
    within = (np.abs(e) <= 3).sum(1)
    i16 = NAMES.index('lat.bulk.hbm.16KiB'); i8 = NAMES.index('lat.bulk.hbm.8KiB')
    print(f'{label}\n   14 copies within 3%: {within.tolist()} of 14 (seeds 1..3); max |err| '
          f'{mx.round(2).tolist()}; mean |err| {mean.round(2).tolist()}\n'
          f'   bulk 16 KiB {e[:, i16].round(2).tolist()}%, bulk 8 KiB {e[:, i8].round(2).tolist()}%')
    print('   per benchmark (seed 1): ' + ' '.join(f'{n.split(".")[1][:2]}{n.split(".")[3]} {v:+.1f}'
                                                 for n, v in zip(NAMES, e[0])), flush=True)
