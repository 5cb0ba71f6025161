"""Families beyond F3 (hbm_model.md, "Second study"): a DRAM bank/row state model (F4)
and correlated slow-access draws (F5), on top of sim.py's F3 (near/far hash, jitter,
token bucket, dtma).

F4, bank/row: every line maps to a bank, bank = mix(addr >> gshift) % NB (a random hash,
so rows of all addresses compete for all banks; linear=True: (addr >> gshift) % NB, so
that copies of consecutive blocks meet the rows their predecessors opened), and to a row,
addr >> rshift. A bank serves its lines in request order. A line to the row the bank has
open is a hit: the bank is busy tB cycles, and if an earlier request opened the row the
line saves dhit (the request's own lines of one row are the calibrated case). Any other
row is a conflict: the line pays dconf more (precharge + activate) and the bank is busy
tRC; a row idle for more than tclose cycles has closed (a miss: dmiss more; tclose = 0:
rows never close). The state persists across the copies of one launch (lat_bench: 16
copies; map_seq: the whole walk); after an L2 flush every bank has a foreign row open.
The per-1 KiB-chunk slow-access draw of F3 can be kept (ptail) or turned off (ptail=0),
to see whether conflicts alone make the slow copies.

F5, correlated slow draws: the slow-access draw of a request is made per (request,
domain) instead of per chunk, domain = mix(chunk) % D: chunks of one copy in the same
domain share a draw (a refresh of a bank group or channel the copy waits for once), so
the slow share saturates with copy size (bulk copies measure 13, 19, 31, 49, 55, 60, 63%
slow at 1..64 KiB) instead of 1 - (1 - p)^chunks.

Units: SM cycles, bytes.
"""
import numpy as np
from sim import (LINE, TMA_ISSUE, TMA_RATE, World, copy_lines, MEAS, SIZES,
                 chase, bw_tma, bw_ldg, parity)


def mix(x):
    """splitmix64 finalizer on a uint64 array (a fixed address hash)."""
    z = (x.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15))
    with np.errstate(over='ignore'):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


class Banks:
    def __init__(s, p, rng):
        s.NB = int(p.get('NB', 1)); s.open = {}; s.free = {}; s.last = {}
        s.p = p; s.rng = rng; s.req = 0; s.opener = {}

    def flush(s):
        # after the flush every bank has one of the flush buffer's rows open
        s.open = {}; s.free = {}; s.last = {}; s.opener = {}

    def serve_all(s, banks, rows, ts):
        """lines reaching banks `banks` (rows `rows`) at times `ts`, in request order:
        each line's extra delay (waiting for its bank, plus a conflict's or a miss's
        extra latency)."""
        p = s.p; op = s.open; fr = s.free; la = s.last
        tB = p['tB']; tRC = p['tRC']; tclose = p['tclose']; dconf = p['dconf']; dmiss = p['dmiss']
        dhit = p.get('dhit', 0.0)
        out = np.empty(len(ts))
        s.req += 1
        for i, (bk, row, t) in enumerate(zip(banks, rows, ts)):
            f = fr.get(bk)
            start = t if f is None or f < t else f
            o = op.get(bk, -1)          # -1: a foreign (the flush's) row is open
            if o != -1 and tclose > 0 and start - la[bk] > tclose:
                o = -2                  # closed by the idle timeout: a miss
            if o == row:
                # a row an earlier request opened saves dhit; the request's own lines
                # of one row are the calibrated case (0)
                extra = 0.0 if s.opener.get(bk) == s.req else -dhit; busy = tB
            elif o == -2:
                extra = dmiss; busy = tRC
            else:
                extra = dconf; busy = tRC
            if o != row:
                s.opener[bk] = s.req
            op[bk] = row; fr[bk] = start + busy; la[bk] = start
            out[i] = start - t + extra
        return out


def base_lat(p, w, addrs):
    """F3's per-line latency (lat + far + jitter) plus slow draws per chunk (F3) or
    per domain (F5)."""
    rng = w.rng; n = len(addrs)
    lat = np.full(n, float(p['lat']))
    lat += np.where(parity(addrs) ^ w.pagebit(addrs), p['dfar'], 0.0)
    if p['J'] > 0:
        lat += rng.integers(-p['J'], p['J'] + 1, n)
    if p['ptail'] > 0:
        ch = addrs // p.get('TP', 1024)
        if p.get('D', 0):
            key = (mix(ch) % np.uint64(int(p['D']))).astype(np.int64)
        else:
            key = ch
        u, inv = np.unique(key, return_inverse=True)
        t = rng.random(len(u)) < p['ptail']
        v = t * rng.uniform(p['tail_lo'], p['tail_hi'], len(u))
        lat += v[inv]
    return lat


def slots(p, n, t0=0.0):
    """token bucket for n lines issued at t0 on an idle server (as sim.copy_fast)."""
    k = np.arange(1, n + 1)
    V = k * LINE / p['R']
    return t0 + np.maximum(k * LINE / p['Rb'], V - p['C'] / p['R'])


def copy_time(p, w, addrs, banks=None, t0=0.0):
    lat = base_lat(p, w, addrs)
    sl = slots(p, len(addrs), t0)
    if banks is not None and p.get('bank', False):
        a = addrs.astype(np.uint64)
        g = a >> np.uint64(int(p['gshift']))
        if p.get('linear', False):       # bank = the granule's low bits (no hash)
            b = (g % np.uint64(int(p['NB']))).astype(np.int64)
        else:
            b = (mix(g) % np.uint64(int(p['NB']))).astype(np.int64)
        r = (addrs >> int(p['rshift'])).astype(np.int64)
        done = sl + lat
        done += banks.serve_all(b.tolist(), r.tolist(), sl.tolist())
    else:
        done = sl + lat
    tma = t0 + TMA_ISSUE + len(addrs) * LINE / TMA_RATE
    return max(done.max(), tma) - t0


def lat_bench(p, kind, kib, ncopies=2048, seed=1):
    """the lat_bulk / lat_tma2d protocol: launches of 16 copies 4 MiB apart, one after
    another, an L2 flush (foreign rows open) before each launch."""
    w = World(seed); size = kib * 1024; out = []
    banks = Banks(p, w.rng)
    for c in range(ncopies):
        k = c // 16; r = c % 16
        if r == 0:
            banks.flush(); t = 0.0
        if kind == 'bulk':
            base = (512 << 20) + k * 65536 + r * (4 << 20)
        else:
            base = (512 << 20) + (k % 16) * 256 + (k // 16) * (1 << 20) + r * (4 << 20)
        base += (c // 1024) * (1 << 30)
        d = copy_time(p, w, copy_lines(kind, size, base), banks, t)
        out.append(d)
        t += d + p['ov_copy'] + 30
    out = np.array(out) + p['ov_copy']
    return float(np.median(out)), out


def map_seq(p, kib, n=None, seed=5, skip_cycles=40000):
    """a map case: one launch, copies of kib KiB one after another at consecutive
    addresses (the in_1KiB_map cases), after one flush; median of the copies after
    skip_cycles (the measured maps' early copies are slower: hbm_model.md)."""
    w = World(seed); size = kib * 1024
    n = n or max(64, min(1024, (16 << 20) // size))
    banks = Banks(p, w.rng); banks.flush()
    t = 0.0; out = []; ts = []
    base0 = 469762048
    for i in range(n):
        a = base0 + i * size + np.arange(size // LINE, dtype=np.int64) * LINE
        d = copy_time(p, w, a, banks, t)
        out.append(d + p['ov_copy']); ts.append(t)
        t += d + p['ov_copy'] + 30
    out = np.array(out); ts = np.array(ts)
    late = out[ts >= skip_cycles] if (ts >= skip_cycles).sum() > 16 else out
    return float(np.median(late))


# the maps' medians after the first 40k cycles (clean flush file h100-20261123T230828Z.json)
MAP_LATE = {1: 830.0, 2: 859.0, 4: 884.0, 8: 914.0, 16: 983.0, 32: 1113.0, 64: 1397.0}


def evaluate(p, ncopies=2048, bw=True, maps=False, seed=1):
    res = {}
    for kib in SIZES:
        for kind in ('bulk', 'tma2d'):
            res[f'lat.{kind}.hbm.{kib}KiB'] = lat_bench(p, kind, kib, ncopies, seed)[0]
    res['lat.ldg.ld.fp_64MiB'] = chase(p)
    if bw:
        res['bw.tma.hbm.one_sm'] = bw_tma(p); res['bw.hbm.one_sm'] = bw_ldg(p)
    err = {k: 100 * (v / MEAS[k] - 1) for k, v in res.items()}
    if maps:
        for kib in (1, 4, 8, 16, 64):
            k = f'map.seq.{kib}KiB'
            res[k] = map_seq(p, kib)
            err[k] = 100 * (res[k] / MAP_LATE[kib] - 1)
    return res, err


def table(res, err):
    lines = []
    for k in res:
        m = MEAS.get(k, MAP_LATE.get(int(k.split('.')[2][:-3]), 0) if k.startswith('map') else 0)
        lines.append(f'{k:26s} meas {m:8.2f} model {res[k]:8.2f} err {err[k]:+6.2f}%')
    lat = [abs(err[k]) for k in err if k.startswith('lat.b') or k.startswith('lat.t')]
    core = [abs(v) for k, v in err.items() if not k.startswith('map')]
    lines.append(f'14 copy latencies: max {max(lat):.2f} mean {np.mean(lat):.2f}; '
                 f'17: max {max(core):.2f} mean {np.mean(core):.2f}')
    return '\n'.join(lines)
