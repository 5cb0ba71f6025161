import sys, json, numpy as np, time
from sim import *
def loss(p, nc=512, bw=True):
    res,err=evaluate(p,nc,bw)
    e=np.array(list(err.values()))
    return np.max(np.abs(e))+0.5*np.mean(np.abs(e)), res, err
def search(p, space, iters=200, seed=0, nc=512, bw=True):
    rng=np.random.default_rng(seed)
    best=dict(p); bl,_,_=loss(best,nc,bw)
    for it in range(iters):
        q=dict(best)
        for k in rng.choice(list(space), size=rng.integers(1,3), replace=False):
            lo,hi,step=space[k]
            v=q[k]+rng.normal()*step
            q[k]=float(np.clip(v,lo,hi)) if not isinstance(p[k],int) else int(np.clip(round(v),lo,hi))
        l,_,_=loss(q,nc,bw)
        if l<bl: bl,best=l,q; print(it, round(bl,2), {k:round(best[k],3) for k in space}, flush=True)
    return best,bl
