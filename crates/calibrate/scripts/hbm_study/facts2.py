"""The second study's data checks (hbm_model.md, "Second study"): python3 facts2.py"""
import numpy as np
from data import load, pooled
from maps import m, classes

print('## slow-chunk events in the one-line maps (clean flush file)')
for name in ['map.hbm.line.step_4KiB', 'map.hbm.line.step_128B']:
    a, r, f = classes(name, 700)
    t = r > np.where(f == 0, 700, 880)
    cond = [round(float(t[k:][t[:-k]].mean()), 3) for k in range(1, 9)]
    ex = (r - np.where(f == 0, np.median(r[f == 0]), np.median(r[f == 1])))[t]
    print(f'{name}: P(slow) {t.mean():.3f}; P(slow at copy i+k | slow at i), k=1..8: {cond}')
    h, e = np.histogram(ex, bins=np.arange(50, 551, 50))
    print(f'   excess of the slow ones over their class median, per 50 cycles from 50: {h.tolist()}')

print('\n## do slow 1 KiB chunks make the 2..8 KiB copies of the same addresses slow?')
a1, r1, f1 = classes('map.hbm.1KiB.step_1KiB', 760)
ra = np.array(m['map.hbm.1KiB.step_1KiB.again']['reps'])
t1 = r1 > np.where(f1 == 0, 760, 950); t1b = ra > np.where(f1 == 0, 760, 950)
print(f'1 KiB map: slow {t1.mean():.3f} and {t1b.mean():.3f}; slow in both runs {(t1 & t1b).mean():.3f} '
      f'(independent: {t1.mean() * t1b.mean():.3f})')
for k, thr in ((2, None), (4, None), (8, 960)):
    r = np.array(m[f'map.hbm.{k}KiB.step_{k}KiB.in_1KiB_map']['reps']); n = len(r)
    T = t1[:n * k].reshape(n, k).any(1); Tb = t1b[:n * k].reshape(n, k).any(1)
    ff = f1[:n * k].reshape(n, k)[:, 0]
    slow = r > (np.where(ff == 0, 700 + (k == 4) * 30, 900 + (k == 4) * 40) if thr is None else thr)
    print(f'{k} KiB copies: slow {slow.mean():.2f}; where a chunk was slow in both 1 KiB runs '
          f'{slow[T & Tb].mean():.2f}, where none was {slow[~T & ~Tb].mean():.2f}')

print('\n## the maps: first 40k cycles after the flush against the rest (copy medians)')
for f in ['h100-20261123T230828Z.json', 'h100-20261123T230430Z.json']:
    d = load(f)
    for k in (8, 16, 32, 64):
        r = np.array(d[f'map.hbm.{k}KiB.step_{k}KiB.in_1KiB_map']['reps'])
        e = np.cumsum(r) < 40000
        print(f'{f} {k:2d} KiB: first {e.sum()} copies {np.median(r[e]):7.1f}, '
              f'the other {(~e).sum()} {np.median(r[~e]):7.1f}')

print('\n## slow share by size (pooled clean-flush copies): bulk, tensor')
TH_FAST = {8: 960, 16: 1040, 32: 1170, 64: 1430}
TH_SLOW = {1: 950, 2: 980, 4: 1000}
for kind in ('bulk', 'tma2d'):
    s = []
    for kib in (1, 2, 4, 8, 16, 32, 64):
        x = pooled(f'lat.{kind}.hbm.{kib}KiB')
        s.append(round(float(1 - (x < TH_FAST[kib]).mean() if kib in TH_FAST else (x > TH_SLOW[kib]).mean()), 2))
    print(kind, s)
