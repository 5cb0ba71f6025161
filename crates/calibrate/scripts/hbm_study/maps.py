import numpy as np
from data import *
m=load('h100-20261123T230828Z.json')
def par(a):
    b=0
    for s in (12,13,16,17,19): b^=(a>>s)&1
    return b
def classes(name, thr):
    p=m[name]['params']; r=np.array(m[name]['reps']); n=len(r)
    addr=p['arena_offset_bytes']+np.arange(n,dtype=np.int64)*p['step_bytes']
    h=par(addr); slow=(r>thr).astype(int)
    page=addr>>21
    far=np.zeros(n,int)
    for pg in np.unique(page):
        s=page==pg
        bit=int(np.mean(h[s]^slow[s])>0.5)
        far[s]=h[s]^bit
    return addr,r,far
if __name__=='__main__':
    for name,thr in [('map.hbm.line.step_4KiB',700),('map.hbm.line.step_128B',700),('map.hbm.1KiB.step_1KiB',760)]:
        a,r,f=classes(name,thr)
        for c in (0,1):
            x=r[f==c]; print(name,'far' if c else 'near',len(x),np.percentile(x,[5,10,25,50,75,90,95,99]).round(0), 'agree',np.mean((r>thr)==f).round(3))
    # per-size maps with classes of 4KiB blocks from the 1KiB map
    a1,r1,f1=classes('map.hbm.1KiB.step_1KiB',760)
    for kib in [2,4,8,16,32,64]:
        name=f'map.hbm.{kib}KiB.step_{kib}KiB.in_1KiB_map'
        r=np.array(m[name]['reps']); print(name, len(r), 'median',np.median(r), np.percentile(r,[10,25,75,90]).round(0))
        if kib<=4:
            fb=f1.reshape(-1,kib)[:,0]
            for c in (0,1): print('   class',c,np.median(r[fb==c]), np.percentile(r[fb==c],[10,25,75,90]).round(0))
