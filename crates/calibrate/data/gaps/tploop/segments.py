"""Per-tile segment cycles of tploop/'s runs: `python3 segments.py RUN-tploop.txt.gz`.
For each case (tile, NLB, NSB, grid) and kernel (`acc`: the validation loop with its
nine clock reads; `ns`: the same without the bulk store), each warp's segment sums at 64
tiles less those at 32, over 32 (the steady tile: the first and last NLB tiles are in
both), medians over the launches; `span/tile` the same of the CTA's span (`plain`: the
validation kernel itself)."""
import gzip
import sys, collections, statistics
rows = collections.defaultdict(list); spans = collections.defaultdict(list)
for l in (gzip.open(sys.argv[1], 'rt') if sys.argv[1].endswith('.gz') else open(sys.argv[1])):
    f = l.split()
    if l.startswith('#'): print(l.strip()); continue
    name, lab = f[0].rsplit('-', 1)
    if len(f) == 3: spans[(name, lab)].append(int(f[2])); continue
    rep, cta, warp = map(int, f[1:4]); v = list(map(int, f[4:13]))
    if cta != 0: continue
    rows[(name, lab, warp)].append(v)
med = lambda xs: statistics.median(xs)
names = sorted({k[0].rsplit('.tiles_', 1)[0] for k in rows})
segn = ['wait', 'adds', 'rdwait', 'bar1', 'sts', 'fence', 'bar2', 'st+ld', 'head']
for base in names:
    for lab in ('acc', 'ns'):
        print(f'## {base} {lab}  span/tile plain {(med(spans[(base+".tiles_64","plain")])-med(spans[(base+".tiles_32","plain")]))/32:.1f}  acc {(med(spans[(base+".tiles_64",lab)])-med(spans[(base+".tiles_32",lab)]))/32:.1f}   (plain 32 tiles {med(spans[(base+".tiles_32","plain")]):.0f})')
        for w in range(4):
            a = rows[(base + '.tiles_64', lab, w)]; b = rows[(base + '.tiles_32', lab, w)]
            per = [(med([r[k] for r in a]) - med([r[k] for r in b])) / 32 for k in range(9)]
            print(f'  w{w} ' + ' '.join(f'{n}:{p:.1f}' for n, p in zip(segn, per)) + f'  sum {sum(per):.1f}')
