"""Reads a cuobjdump -sass dump: each instruction's address, text and control-code stall
count (bits 41..44 of its second word). `python3 stalls.py DUMP FUNCTION FROM TO` prints
the instructions from address FROM to TO (hex) and the sum of their stall counts; the
README's "over the stall counts" figures are a window's measured cycles minus that sum.
(zcat the .sass.txt.gz first.)"""
import re,sys
def load(path, fname):
    lines=open(path).read().split('\n'); out=[]; f=False; cur=None
    for l in lines:
        if 'Function : ' in l:
            if f: break
            f = (fname in l); continue
        if not f: continue
        m=re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?);?\s*/\* (0x[0-9a-f]+) \*/',l)
        if m: cur=[int(m.group(1),16),m.group(2).strip(),int(m.group(3),16)]; continue
        m=re.match(r'\s+/\* (0x[0-9a-f]+) \*/',l)
        if m and cur:
            hi=int(m.group(1),16); cur.append((hi>>41)&0xF); out.append(cur); cur=None
    return out
if __name__=='__main__':
    ins=load(sys.argv[1],sys.argv[2]); a,b=int(sys.argv[3],16),int(sys.argv[4],16)
    tot=0
    for i in ins:
        if a<=i[0]<=b: print(hex(i[0]),i[3],i[1][:70]); tot+=i[3]
    print('stall sum',tot)
