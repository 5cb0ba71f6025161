import numpy as np
from data import load, pooled
F=['h100-20261124T035603Z.json','h100-20261124T035641Z.json','h100-20261124T035732Z.json','h100-20261124T035740Z.json']
Q=[10,25,40,50,60,75,90]
for kind in ('bulk','tma2d'):
  for kib in (1,2,4,8,16,32,64):
    n=f'lat.{kind}.hbm.{kib}KiB'
    print(n, 'pooled', np.percentile(pooled(n),Q).round(0).tolist())
    for f in F:
        r=np.array(load(f)[n]['reps'])
        print('   ',f[14:21], np.percentile(r,Q).round(0).tolist())
