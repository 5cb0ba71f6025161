# Builds stamped.cu from the collector's gemm validation source (validation_gemm, as it ran
# in run-20261128T0512Z): vg_static_v1 and vg_ws unchanged except per-k-step clock64 stamps
# of one consumer thread (before / after its full-barrier wait) and of the issuing thread
# (each load_stage), into st[cta][3][kt], relative to the CTA's c0.
import re, sys
# With a third argument "rot": each CTA c loads A's k-step (k + rota*c) % kt and B's
# (k + rotb*c) % kt at its k-th stage (the same bytes, in another order per CTA), so CTAs in
# lockstep read different columns of A's rows / different lines of the shared B tile.
ROT = len(sys.argv) > 3 and sys.argv[3] == "rot"
src = open(sys.argv[1]).read().split("\n")
pre = "\n".join(src[:86])
def body(start, end):
    return "\n".join(src[start - 1:end])
out = [pre]
if ROT:
    out.append("""DEV void load_stage2(const TmapT* ta, const TmapT* tb, u32 sa, u32 sb, u32 bar, int m, int n, int ka, int kb) {
  mbar_expect_tx(bar, 49152);
  tma_2d(sa, ta, ka * 64, m * 128, bar);
  tma_2d(sb, tb, kb * 64, n * 256, bar);
}
""")
for name, (a, b), stamper in [("vg_static_v1", (88, 141), 0), ("vg_ws", (200, 273), 128)]:
    t = body(a, b)
    assert name + "(" in t and t.rstrip().endswith("}"), name
    t = t.replace(name + "(", "vgs_" + name[3:] + "(", 1)
    t = t.replace("int* err) {", "int* err, u64* st) {", 1)
    t = t.replace("u64 c0 = clk(), g0 = gtime();",
                  "u64 c0 = clk(), g0 = gtime();\n  u64* my = st + (u64)blockIdx.x * 3 * kt;", 1)
    if ROT:
        t = t.replace("int* err, u64* st) {", "int* err, u64* st, int rota, int rotb) {", 1)
        t, n = re.subn(r"load_stage\((.*?), m, n, ([^;]*?)\);",
                       r"{ my[2 * kt + (\2)] = clk() - c0; load_stage2(\1, m, n, ((\2) + rota * (int)blockIdx.x) % kt, ((\2) + rotb * (int)blockIdx.x) % kt); }", t)
    else:
        t, n = re.subn(r"load_stage\((.*?), m, n, ([^;]*?)\);",
                       r"{ my[2 * kt + (\2)] = clk() - c0; load_stage(\1, m, n, \2); }", t)
    assert n >= 1, (name, n)
    w = "mbar_wait(bars + 8 * s, (k / pipe) & 1, err);"
    assert t.count(w) == 1, name
    t = t.replace(w, f"if (threadIdx.x == {stamper}) my[k] = clk() - c0;\n    {w}\n    if (threadIdx.x == {stamper}) my[kt + k] = clk() - c0;")
    out.append(t)
open(sys.argv[2], "w").write("\n".join(out) + "\n")
