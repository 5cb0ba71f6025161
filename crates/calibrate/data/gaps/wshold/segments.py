"""Per-tile segment cycles of wshold/'s runs: `python3 segments.py RUN-wsacc.txt.gz`.
For each case (tile, NLB, NSB) and kernel (`acc`: the validation loop with eight clock
reads a tile in each compute warp; `ns`: the same without the bulk store; `c0` the
validation layout, `c1` the store buffer at 128 KiB), each compute warp's segment sums at
64 tiles less those at 32, over 32 (the steady tile), medians over the launches; `held`
the tiles (of 64) whose fence + c_full arrive took over 150 cycles and their mean;
`span/tile` the same difference of the CTA's span (`plain`: the validation kernel)."""
import gzip
import sys, collections, statistics, re
rows = collections.defaultdict(list); spans = collections.defaultdict(list)
for l in (gzip.open(sys.argv[1], 'rt') if sys.argv[1].endswith('.gz') else open(sys.argv[1])):
    f = l.split()
    if l.startswith('#'): print(l.strip()); continue
    name, lab = re.match(r'(.*\.tiles_\d+)-(.*)', f[0]).groups()
    if len(f) == 3: spans[(name, lab)].append(int(f[2])); continue
    rep, cta, warp = map(int, f[1:4]); v = list(map(int, f[4:17]))
    rows[(name, lab, warp)].append(v)
med = lambda xs: statistics.median(xs) if xs else float('nan')
names = sorted({k[0].rsplit('.tiles_', 1)[0] for k in spans})
segn = ['wait', 'adds', 'arrive', 'c_empty', 'sts', 'fence', 'c_full', 'head']
for base in names:
    p32, p64 = med(spans[(base + '.tiles_32', 'plain')]), med(spans[(base + '.tiles_64', 'plain')])
    print(f'## {base}: plain 32 tiles {p32:.0f}, 64 tiles {p64:.0f}, span/tile {(p64 - p32) / 32:.1f}')
    for lab in ('acc-c0', 'ns-c0', 'acc-c1', 'ns-c1'):
        a32, a64 = med(spans[(base + '.tiles_32', lab)]), med(spans[(base + '.tiles_64', lab)])
        if a32 != a32: continue
        print(f'  {lab}: 32 tiles {a32:.0f}, 64 tiles {a64:.0f}, span/tile {(a64 - a32) / 32:.1f}')
        for w in range(4, 8):
            a = rows[(base + '.tiles_64', lab, w)]; b = rows[(base + '.tiles_32', lab, w)]
            per = [(med([r[k] for r in a]) - med([r[k] for r in b])) / 32 for k in range(8)]
            nh = med([r[9] for r in a]); sh = med([r[10] / max(r[9], 1) for r in a])
            nw = med([r[11] for r in a]); sw = med([r[12] / max(r[11], 1) for r in a])
            print(f'    w{w} ' + ' '.join(f'{n} {p:.1f}' for n, p in zip(segn, per)) + f'  sum {sum(per):.1f}'
                  f'  held {nh:.0f}/64 of {sh:.0f}  waited {nw:.0f}/64 of {sw:.0f}')
