import sys
s=open(sys.argv[1]).read()
def r(a,b):
    global s
    assert a in s,a
    s=s.replace(a,b,1)
r("u32 bar = smaddr(&bars[s]);\n","u32 bar=smaddr(&bars[s]),bq=mode>=8?smaddr(&bars[8+s]):bar;\n    if(mode>=8){ex(bar,p_rows*128);ex(bq,q_rows*128);}else\n")
r("tma_2d(base + s * slot, &mp, j * 64, row, bar);\n    if (mode >= 2)","if(mode==5||mode>=10)tma_2d(base+s*slot+pbytes,&mq,j*64,SHARED0,bq);\n    tma_2d(base + s * slot, &mp, j * 64, row, bar);\n    if(mode>=2&&mode!=5&&mode<10)")
r("SHARED0, bar);\n  };","SHARED0, bq);\n  };")
r("u64 bars[8];","u64 bars[16];")
r("s < stages; ++s)\n    asm","s < 16; ++s)\n    asm")
r("u32 bar = smaddr(&bars[s]), par","u32 bar=smaddr(&bars[(mode==9||mode==11)?8+s:s]),par")
r("mine[2 * j + 1] = done;","mine[2 * j + 1] = done;\n    if(mode>=8){u32 b2=smaddr(&bars[(mode==9||mode==11)?s:8+s]);while(!mbar_try(b2,par)){}done=clk();}")
r("mode == 2 || mode == 4)","mode >= 2)")
r("{0, 2, 3, 4}","{0, 2, 5, 8, 9, 10, 11}")
r("stages : {1, 2}","stages : {1, 2, 4}")
r("{33, 66, 132}","{66, 132}")
r("CK(cudaMemsetAsync(flush, rep, fbytes));","if(FM!=1)CK(cudaMemsetAsync(flush,rep,fbytes));if(FM==2){CK(cudaDeviceSynchronize());std::this_thread::sleep_for(std::chrono::microseconds(2000));}")
r("DEV u32 mbar_try","DEV void ex(u32 b,u32 n){asm volatile(\"{\\n\\t.reg .b64 st;\\n\\tmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\\n\\t}\"::\"r\"(b),\"r\"(n):\"memory\");}\nDEV u32 mbar_try")
r("int main(int argc, char** argv) {","int FM=0;\nint main(int argc, char** argv) {\n  FM=getenv(\"FM\")?atoi(getenv(\"FM\")):0;")
open(sys.argv[1],'w').write(s)
