"""A loop per kernel of brdist.cu: its path (the region skipped), stall counts and cycles over them.
Usage: python3 loops.py RUN-brdist.txt RUN-sass.txt.gz"""
import re, gzip, sys, subprocess
S=__import__('os').path.join(__import__('os').path.dirname(__import__('os').path.abspath(__file__)), '..', 'loopwait', 'twin', 'sass_ctl.py')
meas={}
for l in open(sys.argv[1]):
    m=re.match(r'(\w+)\s+pre\s+(\d+) B skip\s+(\d+) B mode (\d) : ([\d.]+)',l)
    if m: meas[(int(m[2])//512,int(m[3])//256,int(m[4]))]=float(m[5])
for (pre,skip,mode),c in meas.items():
    fn=f'_Z4k_brILi{pre}ELi{skip}ELi{mode}EEviiiPyPf'
    out=subprocess.run(['python3',S,sys.argv[2],fn],capture_output=True,text=True).stdout.split('\n')
    ins=[]
    for l in out:
        f=l.split()
        if len(f)<6: continue
        ins.append((int(f[0],16),int(f[1][1:]),' '.join(f[5:])))
    # back branch: last BRA with target < addr
    bb=[i for i in ins if 'BRA' in i[2] and int(i[2].split('0x')[-1].split()[0],16)<i[0] and '@' in i[2]]
    a_bb,_,t=bb[-1]; top=int(t.split('0x')[-1],16)
    i=[k for k,x in enumerate(ins) if x[0]==top][0]
    path=[];taken=0
    while True:
        a,s,txt=ins[i]; path.append((a,s,txt))
        if a==a_bb: break
        if 'BRA' in txt and '@' in txt:
            tg=int(txt.split('0x')[-1],16)
            if tg>a: i=[k for k,x in enumerate(ins) if x[0]==tg][0]; taken+=1; continue
        i+=1
    st=sum(s for _,s,_ in path)
    print(f'pre {pre*512:5d} skip {skip*256:5d} mode {mode}: {c:7.2f}/trip, {len(path)} instr ({len(path)*16} B) stalls {st}, over {c-st:6.2f}, fwd taken {taken}, loop bytes {a_bb+16-top}')
