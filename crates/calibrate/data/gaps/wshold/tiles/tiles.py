"""Per-tile timeline of wshold/tiles/'s runs: `python3 tiles.py RUN-wstile.txt.gz`.
For each case and kernel (`tile`: every party of a tile clocked; `tilens`: without the
bulk store; `c0` the validation layout, `c1` the store buffer and mbarriers at 128 KiB),
medians over tiles 16..47 and the launches, cycles relative to the tile's empty
completion (E0: the last compute warp's empty arrive done): each compute warp's
segments and its tail (fence + c_full arrive), held when over 150; the load warp's
empty return and copy issue, the copies' landing complete (warp 2), the store warp's
c_full return, store issue and read wait; and which warp arrives last on c_full."""
import gzip, sys, collections, statistics, re
med = lambda xs: statistics.median(xs) if xs else float('nan')
spans = collections.defaultdict(list)
cw = collections.defaultdict(dict); ld = collections.defaultdict(dict)
st = collections.defaultdict(dict); ob = collections.defaultdict(dict)
for l in (gzip.open(sys.argv[1], 'rt') if sys.argv[1].endswith('.gz') else open(sys.argv[1])):
    if l.startswith('#'): print(l.strip()); continue
    f = l.split(); name, lab = re.match(r'(.*\.tiles_\d+)-(.*)', f[0]).groups(); rep = int(f[1])
    if len(f) == 3: spans[(name, lab)].append(int(f[2])); continue
    k = (name, lab, rep); kind = f[2]
    if kind == 'cw': cw[k][(int(f[3]), int(f[4]))] = list(map(int, f[5:13]))
    elif kind == 'ld': ld[k][int(f[3])] = list(map(int, f[4:6]))
    elif kind == 'st': st[k][int(f[3])] = list(map(int, f[4:7]))
    elif kind == 'ob': ob[k][int(f[3])] = int(f[4])
M = 1 << 32
d = lambda a, b: (a - b + M // 2) % M - M // 2   # a - b on the 32-bit clock
segn = ['wait', 'adds', 'arrive', 'c_empty', 'sts', 'fence', 'c_full']
for (name, lab) in sorted(spans):
    print(f'## {name} {lab}: span median {med(spans[(name, lab)]):.0f}')
    if lab == 'plain': continue
    rows = collections.defaultdict(list); last = collections.Counter(); n = 0
    for k in [k for k in cw if k[0] == name and k[1] == lab]:
        for t in range(16, 47):
            r = {w: cw[k].get((w, t)) for w in range(4, 8)}
            nx = {w: cw[k].get((w, t + 1)) for w in range(4, 8)}
            if any(v is None for v in r.values()) or any(v is None for v in nx.values()): continue
            e0 = max([r[w][3] for w in r], key=lambda x: d(x, r[4][3]))
            for w in r:
                v = r[w]
                for j in range(1, 8): rows[(w, segn[j - 1])].append(d(v[j], v[j - 1]))
                rows[(w, 'head')].append(d(nx[w][0], v[7]))
                rows[(w, 'tail')].append(d(v[7], v[5]))
                rows[(w, 'held')].append(1 if d(v[7], v[5]) > 150 else 0)
                for j, nm in [(3, 'at empty'), (4, 'at c_empty'), (5, 'at sts'), (6, 'at fence'), (7, 'at c_full')]:
                    rows[(w, nm)].append(d(v[j], e0))
            a = max(range(4, 8), key=lambda w: d(r[w][7], r[4][7])); last[a] += 1; n += 1
            # the load warp's tile t + NLB copies go out after tile t's empty completes
            nlb = int(re.search(r'nlb_(\d+)', name).group(1))
            if t + nlb in ld[k]:
                e, i = ld[k][t + nlb]; rows[('ld', 'empty ret')].append(d(e, e0)); rows[('ld', 'issued')].append(d(i, e0))
            if t + nlb in ob[k]: rows[('ob', 'landed')].append(d(ob[k][t + nlb], e0))
            if t in st[k]:
                f_, s_, r_ = st[k][t]
                rows[('st', 'c_full ret')].append(d(f_, e0)); rows[('st', 'issued')].append(d(s_, e0)); rows[('st', 'read')].append(d(r_, e0))
    for w in range(4, 8):
        seg = ' '.join(f'{s} {med(rows[(w, s)]):.0f}' for s in segn + ['head'])
        at = ' '.join(f'{s} {med(rows[(w, s)]):.0f}' for s in ['at c_empty', 'at sts', 'at fence', 'at c_full'])
        print(f'  w{w} {seg} | tail {med(rows[(w, "tail")]):.0f} held {sum(rows[(w, "held")])}/{len(rows[(w, "held")])} | from E0: {at}')
    print('  load: ' + ' '.join(f'{s} {med(rows[("ld", s)]):.0f}' for s in ['empty ret', 'issued']) +
          f' | landed {med(rows[("ob", "landed")]):.0f} | store: ' + ' '.join(f'{s} {med(rows[("st", s)]):.0f}' for s in ['c_full ret', 'issued', 'read']))
    print(f'  last on c_full: ' + ' '.join(f'w{w} {last[w]}/{n}' for w in range(4, 8)))
