"""Third study (hbm_model.md): F6, slow windows per (group, sub-domain) with common random
numbers, and a per-row cost for tensor copies.

A line's latency is F3's (lat + dfar if far + uniform jitter in +-J; `dtma` for TMA-seen
lines) plus its slow delay. The slow delay (F6):
  group = mix((addr >> sgrp) ^ salt) % G        (G = 0: every granule its own group)
  sub   = (addr >> ssub) % K                    (subhash: mix((addr >> ssub) ^ salt2) % K)
  per request, a group is "in a window" with probability q (q_post right after an L2
  flush, q_set when settled); each (group, sub) the request touches in a window group is
  slow with probability r, and then all its lines wait lo + (hi - lo) * u.
So a contiguous copy saturates at q once it covers the K subs, while a tensor copy's rows
4 KiB apart reach a new group every 2^sgrp bytes of extent.
Per-row cost (tensor copies): row y's lines leave no earlier than y * trow, and every
tensor line pays drow more latency.
All draws are hashes of (seed, copy, key), so the objective is deterministic for a seed
(common random numbers) and smooth in q, r, lo, hi.
Units: SM cycles, bytes.
"""
import heapq
import numpy as np
from data import load, pooled, SIZES, MEAS

LINE = 128
TMA_RATE = 105.9
TMA_ISSUE = 2
RPORT = 110.8
M64 = np.uint64(0xFFFFFFFFFFFFFFFF)

SETTLED = ['h100-20261124T035641Z.json', 'h100-20261124T035732Z.json', 'h100-20261124T035740Z.json']
MEAS_SET = {}
for _k in SIZES:
    for _kind in ('bulk', 'tma2d'):
        _n = f'lat.{_kind}.hbm.{_k}KiB'
        MEAS_SET[_n] = float(np.median(np.concatenate([np.array(load(f)[_n]['reps']) for f in SETTLED])))
COPIES = [f'lat.{kind}.hbm.{k}KiB' for k in SIZES for kind in ('bulk', 'tma2d')]
# the measured 40th and 60th percentiles (band=1: the fit also matches the distribution
# around the median, so that the model's median does not sit on a step between modes)
MEAS_Q = {(n, qq): float(np.percentile(pooled(n), qq)) for n in COPIES for qq in (40, 60)}


def mix(x):
    z = x.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over='ignore'):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def hu(*keys):
    """a uniform in [0, 1) per element, a hash of the keys (uint64 arrays or ints)."""
    h = np.uint64(0x12345)
    with np.errstate(over='ignore'):
        for k in keys:
            h = mix(np.asarray(k, dtype=np.uint64) ^ (h * np.uint64(0x9E3779B97F4A7C15)))
    return (h >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def parity(a):
    b = np.zeros_like(a)
    for s in (12, 13, 16, 17, 19):
        b ^= (a >> s) & 1
    return b


def far(a, seed):
    return (parity(a) ^ (mix((a >> 21).astype(np.uint64) ^ np.uint64(seed * 7919)) & np.uint64(1)).astype(np.int64))


def slow_delay(p, a, req, seed, q):
    """the slow delay of lines `a` (int64 array, any shape) of requests `req` (same shape)"""
    au = a.astype(np.uint64)
    salt = np.uint64(seed * 1000003 + 17)
    G = int(p['G'])
    g = mix((au >> np.uint64(int(p['sgrp']))) ^ salt)
    if G:
        g = g % np.uint64(G)
    K = int(p['K'])
    if p.get('subhash', 0):
        s = mix((au >> np.uint64(int(p['ssub']))) ^ salt ^ np.uint64(99)) % np.uint64(K)
    else:
        s = (au >> np.uint64(int(p['ssub']))) % np.uint64(K)
    r = req.astype(np.uint64)
    win = hu(seed, 1, r, g) < q
    key = g * np.uint64(K + 1) + s
    slow = hu(seed, 2, r, key) < p['r']
    v = p['lo'] + (p['hi'] - p['lo']) * hu(seed, 3, r, key)
    return np.where(win & slow, v, 0.0)


def line_lat(p, a, req, seed, q, tma=True):
    lat = p['lat'] + p['dfar'] * far(a, seed) + p['J'] * (2 * hu(seed, 4, req.astype(np.uint64), a) - 1)
    lat = lat + slow_delay(p, a, req, seed, q)
    if not tma:
        lat = lat - p['dtma']
    return lat


def copy_addrs(kind, kib, ncopies):
    """[ncopies, nlines] line addresses in issue order, and each line's row (tensor)"""
    c = np.arange(ncopies, dtype=np.int64)
    k = c // 16; r = c % 16
    size = kib * 1024
    if kind == 'bulk':
        base = (512 << 20) + k * 65536 + r * (4 << 20)
        off = np.arange(size // LINE, dtype=np.int64) * LINE
        row = np.zeros(len(off), dtype=np.int64)
    else:
        base = (512 << 20) + (k % 16) * 256 + (k // 16) * (1 << 20) + r * (4 << 20)
        rows = size // 256
        off = (np.arange(rows, dtype=np.int64)[:, None] * 4096 + np.array([0, 128])[None, :]).ravel()
        row = np.repeat(np.arange(rows, dtype=np.int64), 2)
    base = base + (c // 1024) * (1 << 30)
    return base[:, None] + off[None, :], row


def lat_copies(p, kind, kib, ncopies=2048, seed=1, state='post'):
    a, row = copy_addrs(kind, kib, ncopies)
    q = p['q_post'] if state == 'post' else p['q_set']
    req = np.broadcast_to(np.arange(ncopies, dtype=np.int64)[:, None] + seed * 1000000 + kib * 10000000
                          + (kind == 'tma2d') * 100000000, a.shape)
    lat = line_lat(p, a, req, seed, q)
    n = a.shape[1]
    kk = np.arange(1, n + 1)
    slot = np.maximum(kk * LINE / p['Rb'], kk * LINE / p['R'] - p['C'] / p['R'])
    if kind == 'tma2d':
        slot = np.maximum(slot, row * p.get('trow', 0.0))
        lat = lat + p.get('drow', 0.0)
    t = (slot[None, :] + lat).max(1)
    tma = TMA_ISSUE + n * LINE / TMA_RATE
    t = np.maximum(t, tma) + p['ov_copy']
    if kind == 'tma2d' and p.get('desc', 0):
        # the first tensor copy of each launch of 16 fetches the tensor map (measured:
        # the first copy of a launch is 102 to 126 cycles slower at every size)
        t = t + p['desc'] * (np.arange(ncopies) % 16 == 0)
    return t


def qc(p):
    """the chase's and the streams' window probability: tie=1 uses q_post (one state, as the engine)"""
    return p['q_post'] if p.get('tie', 0) else p['q_chase']


def chase(p, n=4000, seed=2):
    a = np.arange(n, dtype=np.int64) * ((1 << 20) + 128)
    req = np.arange(n, dtype=np.int64) + 7 * 10**9
    lat = line_lat(p, a, req, seed, qc(p), tma=False)
    return float((lat + LINE / min(p['R'], RPORT)).mean() + p['ov_chase'])


class Server:
    def __init__(s, p):
        s.R = p['R']; s.C = p['C']; s.Rb = p['Rb']; s.V = 0.0; s.port = 0.0

    def transfer(s, t, b):
        s.V = max(s.V, t) + b / s.R
        s.port = max(s.port, t) + b / s.Rb
        return max(s.port, s.V - s.C / s.R)


def bw_tma(p, stages=4, chunk=32768, ncopies=64, seed=3):
    srv = Server(p); tma_free = 0.0; done_times = []; t = 0.0
    for i in range(ncopies):
        if i >= stages:
            t = done_times[i - stages] + p['ov_tma_loop']
        start = max(tma_free, t); tma_free = start + TMA_ISSUE + chunk / TMA_RATE
        a = (1 << 30) + i * chunk + np.arange(chunk // LINE, dtype=np.int64) * LINE
        lat = line_lat(p, a, np.full(len(a), 5 * 10**9 + i), seed, qc(p))
        d = max(max(srv.transfer(start, LINE) + l for l in lat), tma_free) + 35
        done_times.append(d)
    lo, hi = 16, ncopies
    return (hi - lo) * chunk / (done_times[hi - 1] - done_times[lo - 1])


def bw_ldg(p, chains=256, per=512, rounds=24, seed=4):
    srv = Server(p)
    h = [(i / 4, i) for i in range(chains)]
    heapq.heapify(h); done = []; total = chains * rounds; issued = 0; last = 0.0
    alla = (2 << 30) + np.arange(total * per // LINE, dtype=np.int64) * LINE
    allreq = np.repeat(np.arange(total, dtype=np.int64), per // LINE) + 6 * 10**9
    alllat = line_lat(p, alla, allreq, seed, qc(p), tma=False).reshape(total, per // LINE)
    while issued < total:
        t, i = heapq.heappop(h)
        t = max(t, last + 4.0); last = t
        d = max(srv.transfer(t, LINE) + l for l in alllat[issued])
        issued += 1; done.append(d)
        heapq.heappush(h, (d + p['ov_ldg'], i))
    done = np.sort(np.array(done)); n = len(done)
    a, b = n // 3, n - 1
    return (b - a) * per / (done[b] - done[a])


def evaluate(p, ncopies=2048, seed=1, bw=True, settled=False):
    res = {}; band = {}
    for n in COPIES:
        kind = n.split('.')[1]; kib = int(n.split('.')[3][:-3])
        x = lat_copies(p, kind, kib, ncopies, seed, 'post')
        res[n] = float(np.median(x))
        if p.get('band', 0):
            for qq in (40, 60):
                band[f'q{qq}.{n}'] = 100 * (np.percentile(x, qq) / MEAS_Q[(n, qq)] - 1)
    res['lat.ldg.ld.fp_64MiB'] = chase(p, seed=seed + 1)
    if bw:
        res['bw.tma.hbm.one_sm'] = bw_tma(p, seed=seed + 2)
        res['bw.hbm.one_sm'] = bw_ldg(p, seed=seed + 3)
    err = {k: 100 * (v / MEAS[k] - 1) for k, v in res.items()}
    err.update(band)
    if settled:
        for n in COPIES:
            kind = n.split('.')[1]; kib = int(n.split('.')[3][:-3])
            k = 'set.' + n
            res[k] = float(np.median(lat_copies(p, kind, kib, ncopies, seed, 'set')))
            err[k] = 100 * (res[k] / MEAS_SET[n] - 1)
    return res, err


def meas_of(k):
    return MEAS_SET[k[4:]] if k.startswith('set.') else MEAS[k]


def table(res, err):
    out = []
    for k in res:
        if k.startswith('q'):
            continue
        out.append(f'{k:30s} meas {meas_of(k):8.2f} model {res[k]:8.2f} err {err[k]:+6.2f}%')
    c = [abs(err[k]) for k in COPIES if k in err]
    core = [abs(v) for k, v in err.items() if not k.startswith('set.')]
    out.append(f'14 copies: max {max(c):.2f} mean {np.mean(c):.2f} within3 {sum(x <= 3 for x in c)}; '
               f'17: max {max(core):.2f}')
    s = [abs(v) for k, v in err.items() if k.startswith('set.')]
    if s:
        out.append(f'settled 14: max {max(s):.2f} mean {np.mean(s):.2f} within3 {sum(x <= 3 for x in s)}')
    return '\n'.join(out)


# starting point: the engine's F3 values (cur.py) where they carry over
START = dict(lat=613, dfar=183, J=47, dtma=18.0, R=97.49, Rb=123.0, C=44491.0,
             ov_copy=38.0, ov_chase=4.6, ov_tma_loop=30.0, ov_ldg=10.0,
             G=0, sgrp=16, K=8, ssub=10, subhash=0, q_post=0.6, q_set=0.3, q_chase=0.3, r=0.3,
             lo=7, hi=500, trow=0.0, drow=0.0)
