import sys, json
from fit import *
def run(p, label):
    res,err=evaluate(p,2048,bw=True)
    print(f'## {label}\n'); print('```'); print(table(res,err)); print('```')
    # what the engine's current twin (mean of 16 copies 4 MiB apart) would read: spread over 8 seeds
    print('\nengine twin statistic (mean of 16 copies, 8 seeds: min..max) vs the median model value:')
    print('```')
    for kib in SIZES:
        for kind in ('bulk','tma2d'):
            m=[lat_bench(p,kind,kib,16,seed=s,stat=np.mean)[0] for s in range(8)]
            n=f'lat.{kind}.hbm.{kib}KiB'
            print(f'{n:24s} twin-mean {min(m):7.1f}..{max(m):7.1f} ({100*(min(m)/MEAS[n]-1):+.1f}..{100*(max(m)/MEAS[n]-1):+.1f}%)')
    print('```')
if __name__=='__main__':
    p=dict(BASE); run(p,'F0: current engine model (reproduction)')
    for f in sys.argv[1:]:
        q=dict(BASE); q.update(json.load(open(f))); run(q, f)
