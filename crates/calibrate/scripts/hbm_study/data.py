import json, numpy as np
import os
D=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'data') + '/'
CLEAN=['h100-20261123T230737Z.json','h100-20261123T230803Z.json']
PRIMARY='h100-20261123T012202Z.json'
_cache={}
def load(f):
    if f not in _cache: _cache[f]={b['name']:b for b in json.load(open(D+f))['benchmarks']}
    return _cache[f]
def pooled(name):
    return np.concatenate([np.array(load(f)[name]['reps']) for f in CLEAN])
SIZES=[1,2,4,8,16,32,64]
MEAS={}
for k in SIZES:
    for kind in ['bulk','tma2d']:
        MEAS[f'lat.{kind}.hbm.{k}KiB']=float(np.median(pooled(f'lat.{kind}.hbm.{k}KiB')))
MEAS['bw.hbm.one_sm']=97.8; MEAS['bw.tma.hbm.one_sm']=90.19; MEAS['lat.ldg.ld.fp_64MiB']=687.72
