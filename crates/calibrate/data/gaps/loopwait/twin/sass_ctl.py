import sys,re,gzip
f=sys.argv[1]; fn=sys.argv[2]; lo=int(sys.argv[3],16) if len(sys.argv)>3 else 0; hi=int(sys.argv[4],16) if len(sys.argv)>4 else 1<<40
op=gzip.open if f.endswith('.gz') else open
lines=op(f,'rt').read().split('\n')
inside=False
for i,l in enumerate(lines):
    if 'Function : ' in l:
        inside=l.strip().endswith('Function : '+fn); continue
    if not inside: continue
    m=re.match(r'\s*/\*([0-9a-f]{4,})\*/\s*(.*?);',l)
    if not m: continue
    a=int(m.group(1),16)
    h=re.search(r'0x([0-9a-f]{16})',lines[i+1])
    hv=int(h.group(1),16) if h else 0
    st=(hv>>41)&15; yld=(hv>>45)&1; wb=(hv>>46)&7; rb=(hv>>49)&7; wm=(hv>>52)&63
    if lo<=a<=hi: print(f"{a:05x} s{st:<2} wb{wb} rb{rb} wm{wm:02x} {m.group(2)}")
