import sys
from fit import *
TP=int(sys.argv[1])
p=dict(BASE); p.update(json.load(open(sys.argv[3])) if len(sys.argv)>3 else {})
p.update(hash=True, TP=TP); p.setdefault('dtma',40.0); p['dtma']=float(p.get('dtma',40.0))
space={'lat':(500,700,8),'dfar':(120,260,8),'J':(0,120,8),'ptail':(0,0.5,0.02),'tail_lo':(0,400,25),'tail_hi':(50,900,30),'R':(85,110,1.0),'C':(0,131072,6000),'Rb':(100,200,4),'dtma':(0,100,8)}
best,bl=search(p,space,iters=int(sys.argv[2]),seed=TP+7,nc=384)
json.dump(best,open(f'best_f3_TP{TP}.json','w'))
l,res,err=loss(best,2048); print(table(res,err))
