import numpy as np
from data import load, pooled
from shares import shares
F=['h100-20261124T035603Z.json','h100-20261124T035641Z.json','h100-20261124T035732Z.json','h100-20261124T035740Z.json']
for kind in ('bulk','tma2d'):
    print(kind,'pooled', [round(float(shares(pooled(f'lat.{kind}.hbm.{k}KiB'),k)),2) for k in (1,2,4,8,16,32,64)])
    for f in F:
        print(kind,f[14:21], [round(float(shares(np.array(load(f)[f'lat.{kind}.hbm.{k}KiB']['reps']),k)),2) for k in (1,2,4,8,16,32,64)])
# slow share by position in launch (post-flush pooled + 035603)
for kind in ('bulk','tma2d'):
  for k in (4,8,16):
    x=np.concatenate([pooled(f'lat.{kind}.hbm.{k}KiB'), np.array(load(F[0])[f'lat.{kind}.hbm.{k}KiB']['reps'])])
    r=x.reshape(-1,16)
    s=np.array([shares(r[:,i],k) for i in range(16)])
    print(kind,k,'by position', s.round(2).tolist())
    xs=np.concatenate([np.array(load(f)[f'lat.{kind}.hbm.{k}KiB']['reps']) for f in F[1:]]).reshape(-1,16)
    print(kind,k,'settled pos', np.array([shares(xs[:,i],k) for i in range(16)]).round(2).tolist())
