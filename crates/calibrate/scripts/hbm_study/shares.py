"""Slow/fast shares by size: measured against a model (bank.lat_bench)."""
import numpy as np
from data import pooled
import bank
TH_FAST = {8: 960, 16: 1040, 32: 1170, 64: 1430}
TH_SLOW = {1: 950, 2: 980, 4: 1000}


def shares(sample, kib):
    if kib in TH_FAST:
        return 1 - (sample < TH_FAST[kib]).mean()
    return (sample > TH_SLOW[kib]).mean()


def table(p, n=1024, kinds=('bulk', 'tma2d')):
    out = []
    for kind in kinds:
        row = []
        for kib in (1, 2, 4, 8, 16, 32, 64):
            name = f'lat.{kind}.hbm.{kib}KiB'
            m, s = bank.lat_bench(p, kind, kib, n)
            meas = pooled(name)
            row.append(f'{kib}K {shares(meas, kib):.2f}/{shares(s, kib):.2f} {100*(m/np.median(meas)-1):+.1f}%')
        out.append(kind + ': ' + ' | '.join(row))
    return '\n'.join(out)
