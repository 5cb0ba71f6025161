import sys
from fit import *
TP=int(sys.argv[1])
p=dict(BASE); p.update(hash=True, lat=585, dfar=188, J=20, ptail=0.1, tail_lo=100, tail_hi=500, R=98, C=32768, Rb=128, TP=TP)
space={'lat':(500,700,10),'dfar':(120,260,10),'J':(0,120,10),'ptail':(0,0.5,0.03),'tail_lo':(0,400,30),'tail_hi':(50,900,40),'R':(85,110,1.5),'C':(0,131072,8000),'Rb':(100,200,6)}
best,bl=search(p,space,iters=int(sys.argv[2]),seed=TP,nc=384)
json.dump(best,open(f'best_f2_TP{TP}.json','w'))
l,res,err=loss(best,2048); print(table(res,err))
