# Builds stamped3.cu from the collector's gemm validation source (validation_gemm_as_run.cu,
# as in run-20261128T0516Z): vg_static_v1, vg_static_v2 and vg_ws unchanged except
# per-k-step clock64 stamps of one consumer thread (before / after its full-barrier wait)
# and of the issuing thread (each load_stage), into st[cta][3][kt] relative to the CTA's
# c0, and the stage's two copies in either order: g_swap 0 issues A then B (as the
# collector's kernels do), 1 B then A. Usage: python3 make_stamped3.py IN OUT
import re, sys
src = open(sys.argv[1]).read().split("\n")
pre = "\n".join(src[:86])
out = [pre, """__device__ int g_swap;
DEV void load_stage_o(const TmapT* ta, const TmapT* tb, u32 sa, u32 sb, u32 bar, int m, int n, int k) {
  mbar_expect_tx(bar, 49152);
  if (g_swap) {
    tma_2d(sb, tb, k * 64, n * 256, bar);
    tma_2d(sa, ta, k * 64, m * 128, bar);
  } else {
    tma_2d(sa, ta, k * 64, m * 128, bar);
    tma_2d(sb, tb, k * 64, n * 256, bar);
  }
}
"""]
def function(name):
    start = next(i for i, l in enumerate(src) if f" {name}(" in l and "__global__" in l)
    end = next(i for i in range(start + 1, len(src)) if src[i] == "}")
    return "\n".join(src[start:end + 1])
for name, stamper in [("vg_static_v1", 0), ("vg_static_v2", 0), ("vg_ws", 128)]:
    t = function(name)
    t = t.replace(name + "(", "vgs_" + name[3:] + "(", 1)
    t = t.replace("int* err) {", "int* err, u64* st) {", 1)
    t = t.replace("u64 c0 = clk(), g0 = gtime();",
                  "u64 c0 = clk(), g0 = gtime();\n  u64* my = st + (u64)blockIdx.x * 3 * kt;", 1)
    t, n = re.subn(r"load_stage\((.*?), m, n, ([^;]*?)\);",
                   r"{ my[2 * kt + (\2)] = clk() - c0; load_stage_o(\1, m, n, \2); }", t)
    assert n >= 1, (name, n)
    w = "mbar_wait(bars + 8 * s, (k / pipe) & 1, err);"
    assert t.count(w) == 1, name
    t = t.replace(w, f"if (threadIdx.x == {stamper}) my[k] = clk() - c0;\n    {w}\n    if (threadIdx.x == {stamper}) my[kt + k] = clk() - c0;")
    out.append(t)
open(sys.argv[2], "w").write("\n".join(out) + "\n")
