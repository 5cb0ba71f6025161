"""Python reproduction of smsim's HBM copy path, with pluggable line-timing models.
Units: SM cycles, bytes. Deterministic given seed."""
import numpy as np, heapq
from data import MEAS, SIZES
LINE=128
RPORT=110.8          # l2_bytes_per_clk_sm_max
TMA_RATE=105.9; TMA_ISSUE=2
OV_COPY=None         # fixed cost of a copy-wait twin beyond the last line (set by calib)
OV_CHASE=None

BASE = {   # current engine
 'R':95.06, 'C':0.0, 'lat':703, 'J':122, 'dnear':0, 'dfar':0, 'hash':False,
 'ptail':0.0, 'tail_lo':0, 'tail_hi':0, 'P':0, 'A':0.0, 'Aserv':0.0, 'ov_copy':38.0, 'ov_chase':4.6,
 'ov_tma_loop':30.0, 'ov_ldg':10.0,
}
def parity(a):
    b=np.zeros_like(a)
    for s in (12,13,16,17,19): b ^= (a>>s)&1
    return b
class World:
    def __init__(s, seed): s.rng=np.random.default_rng(seed); s.pb={}
    def pagebit(s, a):
        pg=a>>21; out=np.empty_like(pg)
        for i,p in enumerate(pg.flat):
            if p not in s.pb: s.pb[p]=int(s.rng.integers(2))
            out.flat[i]=s.pb[p]
        return out
    def far(s,a): return parity(a)^s.pagebit(a)

def line_lat(p, w, addrs, first_of_page):
    """latency of each line (array) for a request whose lines are addrs (in request order)"""
    n=len(addrs); rng=w.rng
    lat=np.full(n, float(p['lat']))
    if p['hash']:
        f=w.far(addrs); lat += np.where(f==1, p['dfar'], p['dnear'])
    if p['J']>0: lat += rng.integers(-p['J'], p['J']+1, n)
    if p['ptail']>0:
        TP=p.get('TP',LINE)                 # tail drawn once per TP-byte page of the request
        pg=addrs//TP
        u,inv=np.unique(pg,return_inverse=True)
        t=rng.random(len(u))<p['ptail']
        v=t*rng.uniform(p['tail_lo'], p['tail_hi'], len(u))
        lat += v[inv]
    if p['A']: lat += p['A']*first_of_page
    return lat

def first_of_page(p, addrs):
    if not p['P']: return np.zeros(len(addrs))
    pg=addrs//p['P']
    f=np.ones(len(addrs)); f[1:]=(pg[1:]!=pg[:-1])
    return f

class Server:
    """token-bucket HBM share: sustained R, bursts at RPORT up to C bytes; plus the L2 port."""
    def __init__(s,p): s.R=p['R']; s.C=p['C']; s.Rb=p.get('Rb',RPORT); s.V=0.0; s.port=0.0
    def transfer(s,t,b,extra=0.0):
        s.V=max(s.V,t)+(b+extra)/s.R
        s.port=max(s.port,t)+b/s.Rb
        return max(s.port, s.V - s.C/s.R)

def copy_lines(kind, size, base):
    if kind=='bulk': return base+np.arange(size//LINE,dtype=np.int64)*LINE
    rows=size//256
    r=base+np.arange(rows,dtype=np.int64)[:,None]*4096+np.array([0,128])[None,:]
    return r.ravel()

def one_copy(p,w,addrs,t=0.0,srv=None):
    srv=srv or Server(p)
    fop=first_of_page(p,addrs)
    lat=line_lat(p,w,addrs,fop)
    done=np.empty(len(addrs))
    for i,a in enumerate(addrs):
        done[i]=srv.transfer(t,LINE,p['Aserv']*fop[i])+lat[i]
    return done.max()

def copy_fast(p,w,addrs):
    """idle server, all lines issued at 0: vectorized"""
    fop=first_of_page(p,addrs)
    lat=line_lat(p,w,addrs,fop)
    n=len(addrs); k=np.arange(1,n+1)
    V=(k*LINE+p['Aserv']*np.cumsum(fop))/p['R']
    slot=np.maximum(k*LINE/p.get('Rb',RPORT), V-p['C']/p['R'])
    tma=TMA_ISSUE+n*LINE/TMA_RATE
    return max((slot+lat).max(), tma)

def lat_bench(p, kind, kib, ncopies=2048, seed=1, stat=np.median):
    w=World(seed); size=kib*1024; out=[]
    for c in range(ncopies):
        k=c//16; r=c%16
        if kind=='bulk': base=(512<<20)+k*65536+r*(4<<20)
        else: base=(512<<20)+(k%16)*256+(k//16)*(1<<20)+r*(4<<20)
        base += (c//1024)*(1<<30)  # the second file: other physical pages (fresh page bits)
        out.append(copy_fast(p,w,copy_lines(kind,size,base)))
    out=np.array(out)+p['ov_copy']
    return stat(out), out

def chase(p, n=4000, seed=2):
    w=World(seed); a=(np.arange(n,dtype=np.int64)*((1<<20)+128))
    lat=line_lat(p,w,a,np.ones(n))
    return (lat + LINE/min(p['R'],RPORT)).mean()+p['ov_chase']-p.get('dtma',0)

def bw_tma(p, stages=4, chunk=32768, ncopies=64, seed=3):
    w=World(seed); srv=Server(p); tma_free=0.0
    comp=[]; t_issue=[0.0]*stages
    addr=0
    done_times=[]
    pending=[]
    t=0.0
    for i in range(ncopies):
        if i>=stages: t=done_times[i-stages]+p['ov_tma_loop']
        start=max(tma_free,t); tma_free=start+TMA_ISSUE+chunk/TMA_RATE
        a=(1<<30)+i*chunk+np.arange(chunk//LINE,dtype=np.int64)*LINE
        d=max(one_copy(p,w,a,start,srv), tma_free)+32+3
        done_times.append(d)
    lo,hi=16,ncopies
    return (hi-lo)*chunk/(done_times[hi-1]-done_times[lo-1])

def bw_ldg(p, chains=256, per=512, rounds=24, seed=4):
    """32 warps x 8 LDG.E.128 (512 B = 4 lines each); each reissued when it completes"""
    w=World(seed); srv=Server(p)
    h=[(i*1.0/4,i) for i in range(chains)]  # issue times staggered (1 line/clk L1)
    heapq.heapify(h); nxt=0; done=[]; cnt=0; total=chains*rounds
    issued=0; last_issue=0.0
    while issued<total:
        t,i=heapq.heappop(h)
        t=max(t,last_issue+4*1.0); last_issue=t   # L1: one line per clock
        a=(2<<30)+issued*per+np.arange(per//LINE,dtype=np.int64)*LINE
        fop=first_of_page(p,a); lat=line_lat(p,w,a,fop)
        d=max(srv.transfer(t,LINE,p['Aserv']*fop[j])+lat[j] for j in range(len(a)))-p.get('dtma',0)
        issued+=1; done.append(d)
        heapq.heappush(h,(d+p['ov_ldg'],i))
    done=np.sort(np.array(done)); n=len(done)
    a,b=n//3, n-1
    return (b-a)*per/(done[b]-done[a])

def evaluate(p, ncopies=2048, bw=True, verbose=False):
    res={}
    for kib in SIZES:
        for kind in ('bulk','tma2d'):
            res[f'lat.{kind}.hbm.{kib}KiB']=lat_bench(p,kind,kib,ncopies)[0]
    res['lat.ldg.ld.fp_64MiB']=chase(p)
    if bw:
        res['bw.tma.hbm.one_sm']=bw_tma(p); res['bw.hbm.one_sm']=bw_ldg(p)
    err={k:100*(v/MEAS[k]-1) for k,v in res.items()}
    return res,err

def table(res,err):
    lines=[]
    for k in res: lines.append(f'{k:26s} meas {MEAS[k]:8.2f} model {res[k]:8.2f} err {err[k]:+6.2f}%')
    lat=[abs(err[k]) for k in err if k.startswith('lat.b') or k.startswith('lat.t')]
    alle=[abs(v) for v in err.values()]
    lines.append(f'14 copy latencies: max {max(lat):.2f} mean {np.mean(lat):.2f}; all: max {max(alle):.2f} mean {np.mean(alle):.2f}')
    return '\n'.join(lines)
