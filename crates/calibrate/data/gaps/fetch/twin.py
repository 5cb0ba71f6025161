"""The engine's side of tma_issue2.cu (the load issue beside a co-runner on the loader's
sub-partition): writes kernel files for smsim. `python3 twin.py OUTDIR` writes
issue-MODE-co-KB.smk (MODE 0: expect_tx + 2 UTMALDG, 1: expect_tx + 1 UTMALDG; KB 0: no
co-runner, else warp 4 runs KB KiB of FMUL a trip, ending with its loop's branch).
The loader's window is the SASS's (h100-20261128T004004Z-sass.txt.gz, k_issue<0,7,0>
0x2580..0x2770 and k_issue<1,7,0>), instruction for instruction with its stall counts:
ALU stand-ins (IADD3) for SEL / LOP3 / PLOP3 / ELECT / IMAD.MOV, NOP (a branch not
taken) for BRA.U.ANY. Compare warp 0's `finished` with and without warp 4:
  for f in OUTDIR/*.smk; do smsim run $f --json --quiet; done
The GPU's warp 0 span, idle mode: 33214 alone, 54856 beside 7 KiB (451 a round more).
Also pair-N.smk: icache_loop.cu's pairs (below)."""
import sys, os

# (op, stall) of the GPU's window, from CS2R to CS2R (the first CS2R included).
MODE0 = [("x", 1), ("x", 1), ("x", 1), ("x", 1), ("r2ur", 1), ("expect", 1), ("x", 1), ("r2ur", 1),
         ("u", 1), ("x", 1), ("u", 1), ("x", 2), ("x", 1), ("u", 1), ("r2ur", 2), ("r2ur", 2),
         ("x", 13), ("x", 1), ("tma", 12), ("x", 2), ("x", 11), ("nop", 5),
         ("u", 1), ("x", 1), ("u", 2), ("u", 12), ("x", 1), ("tma", 12), ("x", 2), ("x", 11), ("nop", 5)]


def mode1():
    # k_issue<1,...>'s window: the same less the second load's nine instructions.
    return MODE0[:22]


def line(op, stall, mode):
    if op == "x":
        return f"IADD3 R20, R21, R22, R23, stall={stall}"
    if op == "r2ur":
        return f"R2UR UR4, R20, stall={stall}"
    if op == "u":
        return f"UIADD3 UR6, UR7, UR8, UR9, stall={stall}"
    if op == "expect":
        b = 32768 if mode == 0 else 16384
        return f"SYNCS.ARRIVE.TRANS64.EXPECT_TX full[0], bytes={b}, stall={stall}"
    if op == "tma":
        return f"UTMALDG.2D sA[0], A[(r % 64) * 16384], bytes=16384, bar=full[0], stall={stall}"
    return f"NOP stall={stall}"


def kernel(mode, co_kb):
    seq = MODE0 if mode == 0 else mode1()
    out = [f"kernel issue_{mode}_co_{co_kb}",
           "launch cta_threads=256 regs=64 smem=40960 grid=1",
           "buffer A global size=1MiB",
           "shared sA size=32768",
           "mbarrier full[1] count=1",
           "",
           "role loader warps=0..0",
           "  loop r 0..49"]
    # round r waits for the copies issued at r - 1 (round 0's by the prologue's stand-in)
    out.append("    if r > 0")
    out.append("      SYNCS.PHASECHK.TRANS64.TRYWAIT full[0], parity=(r - 1) & 1, stall=2")
    out.append("      BRA stall=5")
    for op, st in seq:
        out.append("    " + line(op, st, mode))
    out.append("    IADD3 R24, R25, R26, R27")
    out.append("    BRA stall=5")
    out.append("  SYNCS.PHASECHK.TRANS64.TRYWAIT full[0], parity=0, stall=2")
    out.append("  EXIT")
    out.append("")
    out.append("role idle warps=1..3")
    out.append("  EXIT")
    out.append("")
    if co_kb:
        out.append("role co warps=4..4")
        out.append("  loop n 0..TRIPS")
        for i in range(64 * co_kb - 1):
            r = 8 + i % 8
            out.append(f"    FMUL R{r}, R{r}, 1.0")
        out.append("    BRA stall=5")
        out.append("  EXIT")
        out.append("role idle2 warps=5..7")
        out.append("  EXIT")
    else:
        out.append("role idle2 warps=4..7")
        out.append("  EXIT")
    trips = {0: 1, 1: 600, 7: 120, 24: 40}[co_kb]
    out.insert(5, f"param TRIPS={trips}")
    return "\n".join(out) + "\n"


def pair(co_instrs):
    """icache_loop.cu's pair_same_sp: warp 0 runs 32 trips of its 8x-unrolled 1 KiB
    loop (517 instructions, the back branch's stall count 6); warp 4 a loop of
    co_instrs instructions (its LDS, YIELD and branch as the SASS's: stall counts 1, 5,
    6) for as many trips as the GPU's warp 4 ran meanwhile."""
    trips = {70: 40, 262: 47, 518: 60, 1030: 60}[co_instrs]
    out = [f"kernel pair_{co_instrs}", "launch cta_threads=256 regs=64 smem=0 grid=1", "",
           "role w0 warps=0..0", "  loop i 0..32"]
    for k in range(516):
        out.append(f"    FMUL R{8 + k % 8}, R{8 + k % 8}, 1.0")
    out += ["    BRA stall=6", "  EXIT", "", "role idle warps=1..3", "  EXIT", "",
            "role co warps=4..4", f"  loop n 0..{trips}"]
    for k in range(co_instrs - 2):
        out.append(f"    FMUL R{8 + k % 8}, R{8 + k % 8}, 1.0")
    out += ["    NOP stall=5", "    BRA stall=6", "  EXIT", "role idle2 warps=5..7", "  EXIT"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    d = sys.argv[1]
    for n in (70, 262, 518, 1030):
        with open(os.path.join(d, f"pair-{n}.smk"), "w") as f:
            f.write(pair(n))
    for mode in (0, 1):
        for kb in (0, 1, 7, 24):
            with open(os.path.join(d, f"issue-{mode}-co-{kb}.smk"), "w") as f:
                f.write(kernel(mode, kb))
