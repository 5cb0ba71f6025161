#!/usr/bin/env python3
"""Each instruction of a function in a `cuobjdump -sass` dump with its stall count (bits 41-44
of the second word, as `crate::sass::control_stall`), between two addresses:
`python3 sass_stalls.py DUMP.sass.txt.gz 0x250 0x570 ppILi1ELi0ELi0ELi0E` (a substring of the name)."""
import gzip,re,sys
lines=gzip.open(sys.argv[1],'rt').read().split('\n')
func=None
out={}
for i,l in enumerate(lines):
    m=re.search(r'Function : (\S+)',l)
    if m: func=m.group(1); out[func]=[]; continue
    m=re.match(r'\s*/\*([0-9a-f]{4})\*/\s*(.*?);\s*/\* (0x[0-9a-f]+) \*/',l)
    if m and func:
        hi=int(re.search(r'/\* (0x[0-9a-f]+) \*/',lines[i+1]).group(1),16)
        st=(hi>>41)&0xf
        out[func].append((m.group(1),m.group(2),st))
lo,hi=int(sys.argv[2],16),int(sys.argv[3],16)
for f in sys.argv[4:]:
    for k in out:
        if f in k:
            print(k)
            for a,t,s in out[k]:
                if lo<=int(a,16)<=hi: print(' ',a,s,t)
