# per case, kernel and warp: the steady tile's segment sums, (S(64) - S(32)) / 32, medians over reps
import gzip, sys, statistics as st, collections
d = collections.defaultdict(list)
for l in gzip.open(sys.argv[1], 'rt'):
    f = l.split()
    if len(f) != 14: continue
    name, lab = f[0].rsplit('-', 1)
    case, tiles = name.rsplit('.tiles_', 1)
    d[(case, lab, int(f[3]), int(tiles))].append([int(x) for x in f[4:13]])
segs = ['wait', 'adds', 'rdwait', 'bar1', 'sts', 'fence', 'bar2', 'st+ld', 'head']
for (case, lab, w, tiles) in sorted(d):
    if tiles != 64: continue
    a = d[(case, lab, w, 32)]; b = d[(case, lab, w, 64)]
    med = [(st.median(x[k] for x in b) - st.median(x[k] for x in a)) / 32 for k in range(9)]
    print(case.replace('tma-pipelined.tile_', '').replace('.nlb_2.nsb_1.grid_1', ''), lab, 'w%d' % w, ' '.join('%s %.1f' % (s, v) for s, v in zip(segs, med)), 'tile %.1f' % sum(med))
