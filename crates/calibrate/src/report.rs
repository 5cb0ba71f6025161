//! `calibrate report`: simulated against measured for every microbenchmark (through its
//! twin) and every validation kernel, per-group mean absolute percentage error, the worst
//! case, the ranking of the measured configurations, Nsight Compute's warp-state ratios
//! against the simulator's, and a scatter plot (SVG and PNG).
//!
//! `report.md` and `report.json` are deterministic: `--check` recomputes them and fails
//! when the committed ones differ.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;
use sim_core::{Profile, WarpState};

use crate::fit::targets;
use crate::schema::Measurement;
use crate::twins::untwinned;
use crate::validation::{
    GemmCase, VCase, cases, gemm_cases, ncu_gemm_pipe4_cta1, ncu_ratios, simulate, simulate_gemm,
};

mod input;
mod rank;
mod scatter;
pub use input::{SetAside, ValidationInput, ValidationRun};
use rank::Tally;
pub use rank::{RankMiss, Ranking, TIE};

/// What the residuals say about the engine (written by hand from the numbers below;
/// `--check` keeps it next to them).
const GAPS: &str = "## What the largest errors say about the model\n\n\
0. **Control codes.** Every SASS instruction carries a control code in its second 64-bit word; its stall count (bits 41 to 44, 0 to 15) is how many cycles the scheduler waits before the warp may issue again, set by ptxas for fixed-latency dependencies and for some instructions whatever their operands (6 after a loop's branch, 5 after EXIT). The twins now take each instruction's count from the committed dumps (`stall=` in the kernel format; `validation::sass_listing`) and the engine holds the warp that long (`wait`). ncu's `wait` ratio, which no fit sees, is now reproduced: 1.19, 1.46, 2.00 and 2.64 per instruction on the latency-hiding kernels with K = 1, 4, 16, 64 (simulated 1.23, 1.50, 2.03, 2.66; the 32-warp K = 64 kernels measure 4.4, item 4), and 2.07 to 2.20 on the gemm kernels (simulated 1.69 to 1.96; 0.58 to 0.73 without the counts). With the counts and the scheduler's bubble rule they need (item 4b), validation MAPE went from 5.21% to 3.89% and the gemm schedule ranking from 18 to 20 of 20. Three more twins now run their kernels' SASS loops with the counts, which closed their errors: the cp.async chase (`lat.ldgsts.*`: per step three predicated-off `LDS RZ` that ptxas puts before each LDGSTS, the LDGSTS waiting for the register the previous step's LDS wrote, LDGDEPBAR, DEPBAR.LE SB0 and the LDS, 16 cycles of counts; the twin had no address dependence and no counts, and ran 57 cycles a step against 75) with one new parameter, `lat_ldgsts_fill` (20: the copy's write into shared memory before its group completes, fitted on the two chases; the L1-hit chase ends at -0.3% and the L2 one at +2.6%, from -24% and -3.4%); the TMA bandwidth loop (`bw.tma.*`: one thread per copy pays the try_wait's probe (`lat_mbarrier_probe`) and ~40 instructions of offset and stage arithmetic, about 227 cycles, which is why 8 KiB copies run at 36 B/clk whatever the stages and 16 KiB ones at 72 with 4 or 6; the twin had only the three synchronization and copy instructions, and the fit had put the loop into a per-copy TMA cost, `tma_issue_cycles` 172, added to the transfer instead of overlapping it: now 3, with `tma_bytes_per_clk` 105.6 from 220; all 9 chunk and stage points within 2.7%, from up to 9.7%); and the serialized wgmma loops (`tp.wgmma_pair.*`: WARPGROUP.ARRIVE holds the warp 15 cycles and a NOP 8 before each group, every HGMMA but a group's last 15 and a NOP 13: one warpgroup with one HGMMA per group went from -9.6% to -5.6%, two per group from -5.1% to -2.6%). A count holds the warp even when its instruction also blocked it: the engine used to release the first three warps of a warpgroup from WARPGROUP.ARRIVE the cycle the fourth arrived, skipping their own 15 cycles, so their HGMMA booked the tensor pipe 14 cycles early (a simulated 63.5 cycles per group beyond the pipe's 128 per HGMMA against the GPU's 72 to 74). Holding them (`stall_until` in the engine; no new parameter, `hgmma_latency` refits from 54 to 53) took one warpgroup with one, two, four and eight HGMMAs per group from -5.6, -2.6, -1.5 and -0.8% to +0.4, +0.4, +0.2 and +0.1%, the 21 `lat.wgmma.*` latencies to within 0.4%, and validation MAPE from 3.88% to 3.85% (the gemm twins' consumers pass an ARRIVE per k-step). With two warpgroups the GPU measured 133.9, 130.7, 129.3 and 128.7 cycles per HGMMA (k = 1, 2, 4, 8), which looked like 5.3 to 5.9 idle cycles of the tensor pipe per group, where the twins gave the pipe's 128 (`k1.warpgroups_2` -4.4%), while the gemm consumer's serialized MMAs (`tp.wgmma_slices.serialized`, two warpgroups alternating) measured 129.4. It is not per group: these benchmarks are one run of 64 iterations timed from each warp's first clock read to its last, (last end - first start) / HGMMAs, and the excess over 128 x HGMMAs is the same 680 to 750 cycles whatever k (128 groups of 1 to 8 HGMMAs) and 693 for the slices (512 groups). ptxas put the accumulators' zeroing after the first clock read (two runs of 64 `CS2R Rn, SRZ` with a stall count of 2: about 330 cycles before the first ARRIVE), and the last group's completion and the branches to the second read come after the pipe's last cycle; the twins took the slope between two loop lengths, which leaves both out. The wgmma twins now run what the warps run between their clock reads (`twins::timed_path`: the SASS path for 64 iterations, the loop as before, the zeroing and the scalar work as issue slots with their counts; `Method::Span`), and the latency twins (`lat.wgmma.*`) the window between the two reads of one repetition (`clock_window`: the read, ARRIVE with its count of 6, the HGMMAs with ptxas's NOPs, DEPBAR) instead of the loop's period without counts, whose 7 missing cycles `hgmma_latency` had taken up: it refits from 53 to 46 (the 21 latencies stay within 0.3%). Two warpgroups now simulate 131.6, 129.5, 128.75 and 128.4 cycles (-1.7, -0.9, -0.45, -0.2%, from -4.4, -2.0, -1.0, -0.5%), one warpgroup -0.02, -0.3, -0.2, -0.1% (from +0.4, +0.4, +0.2, +0.1%), the slices -0.5, -0.6, -0.5% (from -1.1, -1.5, -1.1%); 161 of 163 microbenchmarks within 3% (from 160). The gemm twins, whose consumers wait on each k-step's MMAs, run about 450 cycles faster with the lower latency: validation MAPE 3.84% to 3.89% (gemm 1 CTA 3.70% to 3.82%, full chip 5.02% to 5.35%), rankings unchanged (20 of 20, 479 of 482). What is left with two warpgroups, about 290 cycles a run that one warpgroup does not show, is in the prologue or the start: with two warps per sub-partition the 128 zeroing CS2R would take that much longer if a sub-partition wrote at most one such 64-bit zero every two cycles (not measured).\n\
1. **gemm-mainloop: the twins run the SASS main loops.** Each role's main loop (the producer warp's, the consumer warpgroups'; the static kernels have one role) is the committed SASS's loop translated instruction for instruction (`validation.rs`, `gemm_twin`), 66 to 172 instructions per k-step: the synchronization, copies and MMAs as the engine models them (TRYWAIT, EXPECT_TX, UTMALDG, WARPGROUP.ARRIVE, HGMMA gsb0, WARPGROUP.DEPBAR, BAR.SYNC, the consumers' release), and the scalar instructions around them: the stage and parity by an integer division through I2F, MUFU.RCP and F2I (`k % pipe` with a runtime `pipe`), the descriptor arithmetic and R2UR, the elect loops around UTMALDG (run once), the loop's compare and branch; the try_wait spin is the engine's suspending TRYWAIT. Uniform-datapath instructions get the ALU's fixed latency, as measured (`kernels/uni.cu`: dependent UIADD3, UIMAD, ULOP3 and USHF chains take 4.0 cycles per step, UISETP into USEL 8.0 for the pair, the same as their vector forms; twins `lat.u*`, fitted into `lat_alu` and `lat_imad`); R2UR gets it too and keeps its register dependencies, without a measurement of its own (ptxas keeps such a chain in vector registers, so PTX gives no R2UR round trip to time); LDC, S2R and S2UR wait on a scoreboard for their measured latencies (`lat_ldc` 28, `lat_s2r` 25, `lat_s2ur` 31: `gap.const.ldc_chain`, `data/gaps/sreg/`). That moved the gemm groups from 14.4% (1 CTA) and 21.8% (full chip) MAPE to 8.2% and 9.5%, static-v1 from -18% to within 2.4%, static-v2 with PIPE 4 from -27% to within 5.2%, and the schedule ranking from 14 to 18 of 20. Every twin instruction also carries its SASS control code's stall count (item 0), which is what the scalar chains were missing: ncu's `wait` ratio on the gemm kernels is 2.07 to 2.20 per instruction, simulated 0.58 to 0.73 before and 1.69 to 1.96 now, and the schedule ranking went from 18 to 20 of 20 (ws-wait1 with PIPE 4 from -20% to -5% and -6%). What remains: ws with PIPE 2 on the full chip (-17%: item 2); ws-wait1 with PIPE 2 on one CTA simulates 6% slow, and with PIPE 4 5.5 to 6.2% fast (one CTA and full chip). Since `tma_issue_cycles` fell from 172 to 3 (item 0: the TMA bandwidth twins now pay their loop's instructions, which the fitted per-copy cost had stood for), the 1-CTA group moved from 4.98% to 3.74% MAPE and the full chip from 4.84% to 5.26%; the ranking stays 20 of 20. The prologue and the final wait are still the generator's (not the consumers' 64 CS2R that zero the accumulators nor the static kernels' unrolled prologue fill: a few hundred of the ~70k to 150k cycles).\n\
2. **Full-chip gemm with PIPE 2** simulates fast (ws: see the table; under a whole chip's traffic the copies' latency grows and two stages no longer hide it, while the engine's L2 latency is fixed plus bandwidth servers). With PIPE 4 the full chip is within 6% for ws. Shared reads: `bw.tma.l2.chip.same_data` (132 SMs streaming the same bytes: 9812 B/clk, 2.5 times private streams) is fitted as `l2_shared_read_gain`; without it the engine bound every full-chip schedule at about 106k cycles.\n\
3. **Latency of an uncoalesced warp-load** (`lat.ldg_lines.*`) now follows a two-part model: L1 hits return `l1_line_cycles` (4.4) apart up to `l1_line_cap` (16) lines, after which more lines cost almost nothing (97 cycles for 16 lines, 101 for 32), and misses leave for L2 `l2_line_cycles` (2.2) apart. The twin's loop is the SASS's (dependent LDG.E.64 with a stall count of 4, below any load's latency, and the loop's counter once per 64 steps), so the counts change nothing here. A whole warp's load of one line (four sectors) measures 34.7 cycles and one thread's chase (one sector) 32.2: a hit now returns `lat_l1_hit` (32) after it leaves the L1 pipeline with one sector and `l1_sector_cycles` later for each further sector of its line, on L1's return path (new; 0.8: any value from 0.67 to 1 gives the same whole cycles, 3 for a full line), which took one and two lines from -4.8% and -4.3% to +1.0% and +0.9% and the one-thread chases from +2.6% (+3.0% per SM) to -0.5% (-0.2%); every L1 point is within 1.4%, and latency-hiding L1 (one sector per line) stays at 5.71% MAPE. On L2, two lines measure no slower than one (291 and 293 cycles) and four cost the far partition (307): the engine now picks the partition (near or far) per pair of adjacent lines (256 B; `Memory::is_far` on `line >> 1`) rather than per line, which took two lines from +3.5% to -1.6% (one, four, eight and 32 lines: -2.9, -1.3, +0.2, +1.5%; the chases do not move and the L2 copies, which span both partitions either way, by at most 3 cycles). Chunks of 4 lines (1 KiB) would make four lines -5.8%, and 8 lines the 1 KiB L2 copies all-near in half the addresses (311 against 338 measured). Misses stop spreading out after `l2_line_cap` lines (new, fitted 22, with `l2_line_cycles` 2.56), as hits do after 16: the measured step from 8 to 16 lines from L2 is 32 cycles, from 16 to 32 only 16, which no single rate gives (16 lines were 3.5 to 3.8% fast, 32 lines up to 2.8% slow); now every L2 point is within 2.5% (16 lines -2.0%, 32 lines +0.2%), and the joint refinement counts, before its sum of squares, how many benchmarks miss 3%. With the pairs, validation MAPE moved from 3.86% to 3.88% (latency-hiding L2 1.71% to 1.61%, the full-chip gemm 5.10% to 5.39%), the rankings stay 20 of 20 and 479 of 482. The model moved latency-hiding L1 from 8.9% to 7.9% MAPE when it came in.\n\
4. **Register banks** (fitted: 2 banks, one read port each, 1 cycle per extra read). One warp: 2.2 cycles per FFMA when two sources share a bank, 2.9 when three do; 32 warps: 64 and 46 FFMA/clk/SM. The rate with 32 warps is the one-warp cost per instruction, so a conflict holds the sub-partition's dispatch (nobody issues), which is what the engine now does; operands marked `.reuse` in the SASS read no bank (the twins keep the flags; `tp.ffma` reads one register from a bank and one from the reuse cache and runs at full rate). Every bank benchmark is within 2% now that the one-warp loops carry their SASS's stall counts and branch (item 0); before, one warp ran 5 to 8% slow against the GPU, the fit having traded them against the branch the twins left out.\n\
4b. **The warp scheduler's order** (`sched.first_finish.*`): with every warp always ready, the H100 interleaves two warps per sub-partition (the first warp ends at 0.999 of the span) and with four runs two of them to the end first (0.502), though its loop ends in a branch whose control code holds each warp 6 cycles, so both warps of a pair sit in that bubble together once per iteration. Greedy-then-oldest gives 0.5 and 0.25 and loose round robin 1.0 and 1.0; two-level scheduling in pairs gives 1.0 and 0.5 if the other pair fills the bubble without taking the turn, and 1.0 and 1.0 (+99%) if the turn passes at every bubble. So the engine's default hands the turn to the next pair (round robin) only when the active pair has issued nothing for longer than a control code can stall (15 cycles: a wait on memory or a barrier), and lets the others fill shorter gaps. Against GTO, pairs moved validation MAPE from 6.06% to 5.34%; the bubble rule with the stall counts takes it to 3.89% (a pair that takes the turn at once whenever it can issue, oldest first, gives 5.13%: latency-hiding L2 K=64 at 20 warps +35%). A lone warp issues 0.90 FFMA per cycle (`tp.ffma.warps_1`): the twin's iteration is 130 issue slots and the branch's stall count of 6, 136 cycles, where the GPU takes 143. The engine now fetches a branch's target `branch_target_cycles` (new, fitted 15) after the branch entered the warp's instruction buffer, when the instruction two before it issued, and the warp waits for it: exposed behind a run of ready instructions (7 cycles here: one and four warps from +4.9% and +5.0% to -0.2% and -0.1%), hidden behind a wait on a load before the branch (latency-hiding K = 1) and partly exposed after a chain of dependent FFMAs (3 to 4 cycles at K = 4 and 16). Latency-hiding L1 goes from 5.71% to 5.67% MAPE but L2 from 1.52% to 1.71% (its few-warp kernels were already 1 to 1.6% slow, as is the 32-line L2 load they make, `lat.ldg_lines.l2.lines_32`), validation from 3.80% to 3.86%; `sched.first_finish.warps_16` moves from +0.8% to +2.9%. With 3, 5 and 7 warps per sub-partition (`sched.first_finish.warps_12`, `_20`, `_28`, measured later with the same source: `h100-20261123T232734Z.json`, where every warp's end is kept) the H100 runs pairs to the end one after another and the warp left over last, alone: the first pair ends at 0.652, 0.397 and 0.285 of the span (2/3, 2/5 and 2/7 would be exact), the leftover warp at 1.0 (position 0 on three sub-partitions, 1 on the fourth; the pairs are not simply positions 2i and 2i+1). The engine's pairs, a leftover warp being a group of its own, give 0.670, 0.408 and 0.293 (+2.7 to +2.8%) with no change. Merging the leftover warp into the last pair was tried: it took the latency-hiding validation kernels with K = 64 and 5 and 7 warps per sub-partition from +19.8% and +14.9% to +11.1% and -0.2% (validation MAPE 3.85% to 3.60%), but the leftover warp would no longer run last, against this measurement, so it is not in the engine; those two kernels' error is something else.\n\
5. **TMA latency from HBM.** A copy's lines cross the SM's L2 port in request order and arrive the access latency after their turn, so copies from L2 grow with size as measured (`lat.bulk.l2.*`, `lat.tma2d.l2.*`: all within 3%). The gemm twins start with A and B in L2 (`RunConfig::warm_l2`): the measured kernels run after a launch that read them. The 14 HBM copies are measured with 2048 copies each after a clean L2 flush (`calibrate-collect --clean-flush`: a flush whose dirty lines are still being written back slows the next copies by up to 8%; data/README.md, \"Clean flush\"), and each measured value is the median copy. Lines from HBM now follow what the address maps measured (`h100-20261123T225720Z.json`; data/README.md, \"HBM latency by address\"), in a model fitted offline to the pooled copies (`scripts/hbm_study/`, hbm_model.md there, where the families that did not fit are listed): (a) within each 2 MiB page (`hbm_page_bytes`) a line is near or far by the parity of address bits 12, 13, 16, 17 and 19 (`hbm_far_address_bits`) XOR a bit per page (drawn from the page number and the run's seed: the physical frame), and a far line takes `lat_hbm_far_extra` (181) more; (b) slow windows per address group, the study's third family (`hbm_model.md`, \"Third study\"): for each request, each 64 KiB group of addresses it touches (`hbm_tail_group_bytes`) is in a slow window with `hbm_tail_window_probability` (57%); in such a group each of 16 sub-domains (`hbm_tail_subs`, 512 B chunks hashed: `hbm_tail_chunk_bytes`) the request touches is slow with `hbm_tail_probability` (24%), its lines 33 to 424 cycles later. A contiguous copy reaches all 16 sub-domains of its group by 8 to 16 KiB, so the share of slow copies levels off with size as measured (bulk 0.13 to 0.63 from 1 to 64 KiB), while a tensor copy, whose box reads 256 B from each of rows 4 KiB apart (UTMALDG reads its box row by row: `row=`, `pitch=`), reaches a new group every 16 rows and its share keeps growing (0.24 to 0.98): that is why tensor copies measure 2 to 16% slower than bulk ones from HBM and within 1% from L2. The earlier model drew once per 1 KiB chunk independently, which gave small copies too few slow ones and large copies too many; (c) a line a TMA copy reads takes `lat_hbm_tma_extra` (41) more than one an LDG reads; (d) one SM's lines from HBM move at the sustained `hbm_bytes_per_clk_sm_max` (101.5 B/clk), a TMA copy's lines at their own, `hbm_tma_bytes_per_clk_sm_max` (115.2; with one rate for both the fit had left the one-SM LDG stream, 97.8 B/clk over the GPUs, -4.5% and the copy stream, 90.8, +2.8%, and 9 and 11 GPUs left out beyond 3%; the copy stream is held by its four copies in flight, not the rate), but may run up to `hbm_burst_bytes` (12.9 KiB) ahead at `hbm_burst_bytes_per_clk_sm` (120.3), as a single copy of 32 to 64 KiB measures 126 B/clk against the 98 of a stream. The uniform per-line jitter (`jitter_hbm`, fitted on the 1 to 4 KiB bulk copies) and `lat_hbm` (the chases, then the HBM step below, where it trades with the copies' extra) come from 1-D searches; (a) to (d) start from the study's joint fit and are then searched together in Rust, after the joint refinement, by coordinate descent on the 19 benchmarks of lines from HBM (the 14 copies, the three chases, the two one-SM streams; how many miss 3%, then each one's error beyond 2%, then the sum of squares; with the sustained rate, first fitted on the LDG stream, which trades with the burst): no benchmark isolates one of them, and a 1-D search of each in turn pulled the others' benchmarks out of 3%. The HBM twins time 512 copies at new addresses each and report the median copy, as the measurement does (a mean of 16 copies lands in one mode or the other of a copy's two). Before, with one uniform delay per line and contiguous tensor copies, 8 of these 19 were out of 3% (tensor copies of 4 to 64 KiB 6.0 to 19.5% fast, bulk 16 and 32 KiB 7.5 and 6.2% fast, `bw.tma.hbm.one_sm` +5.3%); with slow chunks drawn per KiB 18 were within 3% (`lat.bulk.hbm.16KiB` -3.7%: its measured median sits on the step between copies with and without a slow chunk, p40 999, p50 1098, p60 1177 cycles, and 8 KiB pulled the other way); with slow windows per group all 19 are (bulk 16 KiB -2.1%, `tma-latency-hbm` worst +2.8%), with validation MAPE 3.89% to 3.88%. The maps also show copies to neighbouring addresses 4 to 12% faster than isolated ones, which this model (no state across requests) does not have. A DRAM bank and row model did not help (`scripts/hbm_study/hbm_model.md`, \"Second study\"). Copies timed 100 us or more after the flush (`data/h100-20261124T035641Z.json` and the two after it; data/README.md, \"Time since the L2 flush\") are 4 to 13% faster from 8 KiB on (bulk 16 KiB 984 cycles against 1108 right after the flush), while the HBM chases and streams do not change: the slow chunks stand largely for the state of HBM just after a flush, not for a running kernel's. In the offline study the settled medians (bulk and tensor, 1 to 64 KiB) all come within 3% with only the window chance lowered, 0.58 to 0.36, and nothing else changed: a flush makes slow windows more likely, and tensor rows spread over more groups. The engine has one state, the one right after a flush, which the copy twins reproduce; a running kernel's HBM would be the settled one (not modelled yet). The study also found each launch's first tensor copy about 110 cycles slower (the tensor map fetched on first use), which the twins, 513 copies in one run, do not have.\n\
6. **Fixed since the last report**: TMA latency from L2 (item 5); BAR.SYNC (`lat_bar` 12 + `bar_arrive_cycles_per_warp` 2 per arriving warp, all within 3%); mbarrier (`lat_mbarrier_probe` 63: a try_wait on a completed phase returns its predicate 63 cycles after issue, `lat.mbarrier.probe_completed`, which ncu counts as long_scoreboard; a thread that arrives and then waits on the phase it completed takes 68, `lat.mbarrier.self_arrive_wait`: the arrive that completes a phase reaches the barrier `lat_mbarrier_arrive` (new, 5) after it issues, and a try_wait that finds the phase complete reads it no earlier. Of those 5 cycles, 2 are the self loop's SASS, whose stall counts after the wait's branch add up to 19 against the probe loop's 17 (LOP3 and a back branch of 6 against 5), and 3 the arrive; the twins run only the synchronization instructions. Both benchmarks went from -3.0% and +3.1% to -0.1%, the TMA bandwidth loops, which pay the probe, stay within 2.7%, and the gemm twins moved from 3.74% to 3.87% MAPE on one CTA and from 5.26% to 5.10% on the full chip, the ranking staying 20 of 20); warpgroup MMAs are booked on the SM's tensor pipe once per warpgroup, so all four sub-partitions run the warpgroups' MMAs in one order (per-sub-partition queues let the scheduling policy interleave two warpgroups' groups differently on each sub-partition: GTO lost 10% of the tensor pipe that way).\n\
7. **L2 capacity edge** (24 to 48 MiB chases): not twinned (the model's single 50 MiB L2 does not replicate lines between partitions).\n\
8. The latency-hiding twin loads its lines into L2 and passes a `BAR.SYNC` before the timed loop (the GPU's L2 is warm from an earlier launch), which shows up as a small `barrier` ratio that ncu does not see. The gemm twins now issue the SASS's instructions (item 1), so their warp-state ratios are on ncu's scale; ncu counts the consumers' wait for their wgmma (WARPGROUP.DEPBAR) as `barrier` (ws and ws-wait1, which have no BAR.SYNC in the loop: 5.0 and 5.8, `gmma` 0 and 0.1), the engine as `gmma` (5.2 to 7.4).\n9. **The wider validation set** (`data/validation/h100-20261127T060007Z.json`, GPU 0a09e6ee; never fitted; `data/validation/README.md`). (a) **TMA streaming** (`kernels/stream.cu`, the library's `elementwise-add` as generated): with 1 and 8 CTAs the GPU takes 1.9 to 2.5k cycles per tile of 16 or 32 KiB per operand (59.6k to 79k for 32 tiles), whatever the load stages (2, 3) and store buffers (1, 2), in both schedules, where the library kernel gave 0.5 to 1.1k (-55 to -74%). The SASS (`data/validation/h100-20261127T104407Z.stream.sass.txt`) says why: the piece count is a runtime value, so ptxas unrolled all 16 possible 512-byte pieces, each under its own branch, and every piece's second `LDS.128` writes the four registers (R72..R75) the previous piece's FADDs read, so the pieces run one after another, each waiting out a shared-memory load (about 70 cycles a piece, 8 or 16 per warp and tile); `t % NLB` and `t % NSB` are divisions by a runtime value (I2F, MUFU.RCP, F2I, R2UR and a dozen uniform instructions each); the bulk store's read wait is a chain of branches on NSB and thread 0's work is on every warp's path through the two BAR.SYNCs. The twins now run that SASS (`stream_twin.rs`: the generator's buffers, barriers and roles, each role's tile loop the SASS's loop instruction for instruction, the branches the GPU took for the case's piece count and NSB, thread 0's and lane 0's branches as the generator's `if`), which took the 1- and 8-CTA groups from 43.0% and 42.7% to 18.2% and 17.2% MAPE and the full chip from 2.7% to 2.5%. What is left is about 330 cycles a tile for the pipelined schedule at both tile sizes, and for the warp-specialized one -29% at 32x128 and +9% at 64x128: the constant loads (`LDC`, `ULDC`: 3 to 5 per tile on thread 0's path, an issue slot in the engine) and `MEMBAR.ALL.CTA` (the engine's 10-cycle fence) are not measured. (Both forms of the bulk-store wait, `cp.async.bulk.wait_group` and its `.read` form, compile to the same `DEPBAR.LE SB0, N`, so the twins wait for the stores to complete.) A bulk store no longer holds the LDS behind it: it reads shared memory over its time at the TMA unit and an LDS meanwhile takes `lds_beside_store_factor` (1.70) times its crossbar time, as measured (`gap.smem.s2g_lds`: LDS 96.7 B/clk alone, 56.8 beside stores at 31.9), where it used to wait out the store's 128 to 256 cycles of the read side; that moved the warp-specialized 64x128 twins from about +1% to -8% (the wait had stood in for time they miss elsewhere) and the library ranking from 31 to 38 of 73. On the GPU the compute warps' tile tail (STS, fence, the `c_full` arrive) is held until the next tile's copies have landed whenever their STS meet the copies (`data/gaps/hold/`: an arrive behind STS waits for them, the arrive alone never), which the 32x128 stamps show; it holds per 128 KiB of shared memory (`data/gaps/wsstream/`: with the store buffer moved to the other half from the copies the 32x128 kernel runs 13% faster, with it moved into their half the 64x128 one 23% slower), which is why the validation layouts (sC at 64 KiB at 32x128, at 128 KiB at 64x128) are held at 32x128 only; the engine has it as `smem_write_queue`, on, one queue per `smem_write_queue_bytes` (131072; warp-specialized 64x128 -7.8% to -3.9%), and an STS takes its turn in that queue once its registers are read on its sub-partition's store path (`sts_read_bytes_per_clk`; taken at issue, the 32x128 twins' STS passed before the next tile's bytes and their tails were held every other tile): warp-specialized 32x128 at one CTA -15.3 to -17.2% to -10.0 to -12.4%, the library ranking 13 to 45 of 47 orderings (`data/gaps/wshold/`: the GPU's hold costs 15% with the store buffer beside the copies, the twin's now 12%). (b) **gemm-mainloop with one operand shared by all 132 CTAs**: every CTA the same 128-row A tile and its own B panel from HBM (`a_shared`, M 128, N 33792), or the same B tile and its own A panel (`b_shared`, M 16896, N 256; with K 1024 A's 33 MiB is in L2). The twins copy the tensor maps' boxes (rows of 128 bytes); a box costs HBM `hbm_tma_box_bytes` (526) more than its lines, and the twins draw no HBM slow windows (`hbm_tail_*`), both from chip streams of the same boxes timed as these kernels are, after a launch of themselves: the 4100 bytes measured after a memset flush were the flush's dirty lines written back, and the windows stand for the state after a flush (data/gemm_l2, README). `a_shared` is within 4.5% but for the serialized static-v2 / ws-wait1 with PIPE 2 (+13.0, +14.4%); `b_shared`: the GPU's warm launches run in lockstep (all 132 CTAs copy the same slab of B at the same moment; rotating B's k-order per CTA takes static-v1 PIPE 2 from 150.5k to 108.0k cycles, data/gemm_l2 run-20261128T0516Z), and a chip stream of the same stage (own 16 KiB rows from HBM, then the 32 KiB tile all read) takes 2192 cycles a k-step in step at two stages against 1611 rotated, while the tile alone in step costs nothing and one stage at a time or a slow consumer (3600 cycles a k-step) does not pay it (data/chip, README, Lockstep). Modelled as `l2_shared_lockstep_cycles_per_sm` (15.7, chosen on those streams): a copy of a tile the wave reads, started while this SM's copy of the previous tile is under way and its own HBM lines are arriving, completes no sooner than those lines + 15.7 cycles per SM reading it. With it PIPE 2 static-v1 and ws went from -20.0 and -19.2% to -5.7 and -4.9% (the serialized schedules unchanged, +0.1 and +1.1%), PIPE 4 +0.6 to -9.9% (from +0.3 to -12.1%), the group from 6.90% to 5.15% MAPE; with K 1024 (A in L2, where the lockstep is fast on the GPU too) -1.3 to -15.6%. The value is now 17.6, chosen on the same two streams with their twins drawing no HBM slow windows, as the gemm twins run (the windows are the state right after a flush; these streams, like the gemm kernels, were timed after a launch of themselves): PIPE 2 static-v1 and ws -0.6 and +0.1%, PIPE 4 ws -9.6%, the group 4.69% MAPE. The serialized `a_shared` kernels with PIPE 2 (+13.0, +14.4%) are not the gaps between copies: the streams' copies themselves (issue to the wait's return, 132 SMs, one in flight) take 1862 cycles measured and 1936 simulated for an own 32 KiB box with 1200 cycles of work between copies, 1378 and 1386 for 16 KiB, while the a_shared stage (a 16 KiB tile all read, issued first, then the own box) takes 1852 measured and 2151 simulated: the GPU's tile costs nothing, the engine's 215 cycles (data/chip README, \"Gaps between copies\"; an H200 run shows copies from HBM shortened by the gaps, copies of L2 hits not). The `b_shared_k1024` kernels sit at the L2's capacity edge (data/gemm_l2, run-20261128T1200Z-h200, an H200: the same kernels at K 1024, 1280 and 1536, 0.56, 0.70 and 0.84 of its 60 MiB L2; at 0.70, the H100's ratio at K 1024, ws PIPE 2 slows 19% a k-step and ties static-v1 as the H100 measures them, while PIPE 4 does not move): part of A leaves L2 between launches, where the twins' warm fill keeps all 33.5 MiB in the 50 MiB L2 (ws -15.6%, the missed static-v1 / ws tie). Not modelled: in the engine any of a stage's own lines from HBM brings the whole lockstep wait, so a partly warm A takes the ws twin from all hits (21.8k cycles) to all misses (40.9k; measured 25.8k). The serialized `a_shared` stage's 215 cycles are not the TMA unit's: a request rate above `tma_bytes_per_clk` (tried: the next copy's requests sent while this one lands) moves static-v2 by -0.2% and takes `bw.tma.hbm.one_sm` out of band; they are the engine's even share of the chip's L2 for an SM that loads one stage at a time between long MMA phases (`l2_bytes_per_clk_chip` 8000: -2.2%). With the own box issued before the tile the GPU runs 1.5 to 4.0% slower, the twins 9.5 to 22.9% (the first-read wait, fitted after a memset flush, from the tile's start while the own lines arrive). (c) **singe-viscosity** (`kernels/singe.cu`, written from the library's description with SPECIES a compile-time constant): the GPU runs the data-parallel kernel faster than the warp-specialized one (89k against 138k cycles at 30 species, 340k against 390k at 60, the same at 1, 8 and 132 CTAs); the library's twins ran it the other way round (118k against 85k, 455k against 309k). The SASS (`data/validation/h100-20261127T104407Z.singe.sass.txt`) shows why for the data-parallel kernel: s_j depends on T alone, so ptxas computes it once (one EX2, one RSQ) and issues the 30 or 60 X loads back to back; its k loop (not unrolled) loads row k's pair constants first and interleaves the pairs' DFMA chains, four to six in flight, where the library's twin issues two pairs at a time with every species' exponential and square root. The twins are now the SASS, instruction for instruction (`singe_twin.rs`): the data-parallel one the prologue, the k loop as the engine's loop and the store (DFMA with the SASS's registers, the loads at the measured kernel's addresses, the reciprocal's slow path not taken); the warp-specialized one, whose warp count is a runtime value so that every species slot, pair and nu slot is under a branch, one path per role (warp 0; warps 1 to 6; the last warp, which owns fewer species), the batch and j loops as the engine's, the barrier the batch's parity picks. Data-parallel -0.9 to +0.03% at 30 and 60 species, 1, 8 and 132 CTAs (from +31 to +34%); warp-specialized about -8% at 30 species and +4% at 60 (from -39% and -21%); data-parallel is faster at both counts, as measured.\n\n";

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub bench: String,
    pub group: String,
    pub measured: f64,
    pub simulated: f64,
    pub err_pct: f64,
    /// The benchmark's spread over GPUs (microbenchmarks measured on a committed GPU).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub band: Option<Band>,
    /// A validation kernel's spread over the validation runs (GPUs) that measured it,
    /// when more than one run is read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<Spread>,
}

/// A validation kernel's measured values over the runs (GPUs) the rankings read.
#[derive(Clone, Debug, Serialize)]
pub struct Spread {
    /// Runs that measured it.
    pub runs: usize,
    pub lowest: f64,
    pub highest: f64,
}

impl Spread {
    fn of(values: &[Option<f64>]) -> Option<Spread> {
        let v: Vec<f64> = values.iter().flatten().copied().collect();
        (v.len() > 1).then(|| Spread {
            runs: v.len(),
            lowest: r2(v.iter().copied().fold(f64::INFINITY, f64::min)),
            highest: r2(v.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        })
    }
}

/// A microbenchmark's measured spread over GPUs and whether the model is in band: inside
/// the spread or within 3% of the measured value, whichever is wider.
#[derive(Clone, Debug, Serialize)]
pub struct Band {
    /// GPUs whose value makes the spread (the committed collects' GPUs, the scored
    /// measurement's value included).
    pub gpus: usize,
    /// The lowest GPU's value.
    pub lowest: f64,
    /// The highest GPU's value.
    pub highest: f64,
    /// Whether the model is in band.
    pub in_band: bool,
    /// The same read strictly, as a newcomer is judged: the spread of the other GPUs only
    /// (the scored GPU's own value, and the scored measurement, left out of it), and that
    /// spread alone where it is wider than +-3% of the measured value, else +-3%
    /// ([`crate::across::in_band_strict`]).
    pub in_band_strict: bool,
}

/// Each benchmark's per-GPU values over the committed collects (its median on each GPU),
/// keyed by the GPU's UUID.
pub type Spreads = BTreeMap<String, Vec<(String, f64)>>;

/// The per-GPU values of every benchmark the committed median fit reads
/// ([`crate::across::median_data`]): the spreads a report's band uses.
pub fn committed_spreads() -> Result<Spreads, String> {
    let (m, _) = crate::across::median_data(&crate::workspace_path(crate::DATA_DIR), None)?;
    Ok(m.benchmarks
        .iter()
        .map(|b| (b.name.clone(), crate::across::per_gpu_keyed(b)))
        .filter(|(_, v)| !v.is_empty())
        .collect())
}

/// The band of a model value `sim` against `measured`, with the GPUs' `values` (the
/// measured value joins the spread: it may come from a GPU outside the committed set).
/// `scored_gpu` is the UUID of the GPU the measurement came from, if known: the strict
/// reading leaves its value out.
fn band_of(
    values: Option<&Vec<(String, f64)>>,
    measured: f64,
    sim: f64,
    scored_gpu: Option<&str>,
) -> Option<Band> {
    let v = values?;
    let lowest = v.iter().map(|x| x.1).fold(measured, f64::min);
    let highest = v.iter().map(|x| x.1).fold(measured, f64::max);
    let others: Vec<f64> = v
        .iter()
        .filter(|(g, _)| Some(g.as_str()) != scored_gpu)
        .map(|x| x.1)
        .collect();
    let in_band_strict = if others.is_empty() {
        ((sim - measured) / measured).abs() <= 0.03
    } else {
        let lo = others.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = others.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        crate::across::in_band_strict(sim, measured, lo, hi)
    };
    Some(Band {
        gpus: v.len(),
        lowest: r2(lowest),
        highest: r2(highest),
        in_band: crate::across::in_band(sim, measured, lowest, highest),
        in_band_strict,
    })
}

/// The GPU a measurement file was collected on: the UUID in the `.env.txt` beside it.
fn scored_gpu(data_file: &str) -> Option<String> {
    let env = Path::new(data_file).with_extension("env.txt");
    crate::across::gpu_uuid(&std::fs::read_to_string(env).ok()?)
}

#[derive(Clone, Debug, Serialize)]
pub struct Group {
    pub group: String,
    pub n: usize,
    pub mape_pct: f64,
    pub worst_pct: f64,
    pub worst_bench: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct StateRow {
    pub kernel: String,
    pub warps: u32,
    pub reason: String,
    pub measured: f64,
    pub simulated: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub data_file: String,
    pub validation_file: String,
    /// The validation runs the rankings read (the scored one first): file and GPU UUID
    /// (when its `.env.txt` is known).
    pub validation_runs: Vec<(String, Option<String>)>,
    pub profile: String,
    pub profile_validated: bool,
    /// The clock the gemm-mainloop twins run at: the profile's `clock_mhz_tensor_uniform`
    /// (their operands are near-constant).
    pub profile_clock_mhz: f64,
    pub micro_overall: Group,
    pub micro_within_3pct: usize,
    /// Microbenchmarks in band ([`Band`]; within 3% where no spread is known).
    pub micro_in_band: usize,
    /// The same read strictly ([`Band::in_band_strict`]: the scored GPU's own value out
    /// of the spread, the spread alone where wider than +-3%).
    pub micro_in_band_strict: usize,
    pub micro_groups: Vec<Group>,
    pub micro: Vec<Row>,
    pub untwinned: Vec<(String, f64, String)>,
    pub validation_overall: Group,
    pub validation_groups: Vec<Group>,
    pub validation: Vec<Row>,
    pub ranking: Ranking,
    /// The gemm-mainloop schedules, ranked within each (PIPE, grid).
    pub schedule_ranking: Ranking,
    /// The library kernels' configurations (TMA streaming: schedule and load stages;
    /// singe-viscosity: schedule), ranked within each family, size and grid.
    pub library_ranking: Ranking,
    pub warp_states: Vec<StateRow>,
    pub not_measured: Vec<String>,
    /// Validation repetitions set aside as spread out (run file, repetition;
    /// `input::spread_out_reps`); the committed runs predate the CTA spreads, so none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub validation_set_aside: Vec<(String, input::SetAside)>,
    /// The gemm-mainloop validation kernels simulated at the SM clock each one ran at
    /// (its cycles over its %globaltimer span) instead of the profile's `clock_mhz`: a
    /// diagnostic of how much of their error is the clock's (memory rates are per
    /// nanosecond, so the clock sets the bytes per cycle). Never the headline.
    pub gemm_at_measured_clock: Vec<Group>,
    /// The clocks those kernels ran at, lowest and highest, in MHz.
    pub gemm_measured_clock_mhz: (f64, f64),
}

/// The SM clock a validation kernel ran at: the median over launches of its slowest
/// CTA's cycles over the launch's %globaltimer span, in MHz (None without both).
pub fn measured_clock_mhz(b: &crate::schema::Benchmark) -> Option<f64> {
    let cycles: Vec<f64> = b
        .extra
        .get("max_cta_cycles")?
        .as_array()?
        .iter()
        .filter_map(serde_json::Value::as_f64)
        .collect();
    let ns: Vec<f64> = b
        .extra
        .get("wall")?
        .as_array()?
        .iter()
        .filter_map(|w| w.get("globaltimer_ns").and_then(serde_json::Value::as_f64))
        .collect();
    let (c, t) = (crate::schema::median(&cycles)?, crate::schema::median(&ns)?);
    (t > 0.0).then(|| c / t * 1000.0)
}

fn r2(x: f64) -> f64 {
    if x.is_finite() {
        (x * 100.0).round() / 100.0
    } else {
        x
    }
}

fn err(sim: f64, meas: f64) -> f64 {
    r2((sim - meas) / meas * 100.0)
}

fn group_of(rows: &[Row], name: &str) -> Group {
    let n = rows.len();
    let mape = rows.iter().map(|r| r.err_pct.abs()).sum::<f64>() / n.max(1) as f64;
    let w = rows
        .iter()
        .max_by(|a, b| a.err_pct.abs().total_cmp(&b.err_pct.abs()));
    Group {
        group: name.into(),
        n,
        mape_pct: r2(mape),
        worst_pct: w.map(|r| r.err_pct).unwrap_or(0.0),
        worst_bench: w.map(|r| r.bench.clone()).unwrap_or_default(),
    }
}

fn groups(rows: &[Row]) -> Vec<Group> {
    let mut by: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for r in rows {
        by.entry(r.group.clone()).or_default().push(r.clone());
    }
    by.iter().map(|(g, rs)| group_of(rs, g)).collect()
}

/// Pairs of configurations the runs order (every run more than 2% apart, the same way;
/// ties otherwise: [`rank`]) and whether the simulator agrees: along WARPS for each
/// (level, K), along K for each (level, WARPS).
fn ranking(v: &[(VCase, Vec<Option<f64>>, f64)]) -> Ranking {
    let mut t = Tally::default();
    for (i, a) in v.iter().enumerate() {
        for b in &v[i + 1..] {
            let same_series = a.0.l1 == b.0.l1 && (a.0.k == b.0.k || a.0.warps == b.0.warps);
            if same_series {
                t.add((&a.0.bench, &a.1, a.2), (&b.0.bench, &b.1, b.2));
            }
        }
    }
    t.ranking("latency-hiding has one schedule; ranked here: every pair of configurations in one series (same level and K, or same level and WARPS) ")
}

/// Pairs of gemm-mainloop schedules (plain kernels, same PIPE and grid): orderings and
/// ties as the runs measure them ([`rank`]), and whether the simulator agrees.
fn schedule_ranking(v: &[(GemmCase, Vec<Option<f64>>, f64)]) -> Ranking {
    let mut t = Tally::default();
    let plain: Vec<&(GemmCase, Vec<Option<f64>>, f64)> = v.iter().filter(|x| !x.0.fenced).collect();
    for (i, a) in plain.iter().enumerate() {
        for b in &plain[i + 1..] {
            if a.0.pipe == b.0.pipe && a.0.shape() == b.0.shape() {
                t.add((&a.0.bench, &a.1, a.2), (&b.0.bench, &b.1, b.2));
            }
        }
    }
    t.ranking("gemm-mainloop: every pair of schedules (static-v1, static-v2, ws, ws-wait1; the kernels as ptxas compiled them) at the same PIPE and shape")
}

/// Pairs of library-kernel configurations in one series (family, size, grid): orderings
/// and ties as the runs measure them ([`rank`]).
fn library_ranking(v: &[(crate::library::LibraryCase, Vec<Option<f64>>, f64)]) -> Ranking {
    let mut t = Tally::default();
    for (i, a) in v.iter().enumerate() {
        for b in &v[i + 1..] {
            if a.0.series() == b.0.series() {
                t.add((&a.0.bench, &a.1, a.2), (&b.0.bench, &b.1, b.2));
            }
        }
    }
    t.ranking("library kernels: every pair of configurations at the same size and grid (elementwise-add: tma-pipelined and warp-specialized with 2 or 3 load stages, per tile; singe-viscosity: data-parallel and warp-specialized, per species count)")
}

/// Computes the report (no files) against the committed validation measurements.
pub fn compute(
    m: &Measurement,
    data_file: &str,
    spreads: &Spreads,
    p: &Profile,
) -> Result<Report, String> {
    compute_with(m, data_file, spreads, &ValidationInput::committed()?, p)
}

/// Computes the report (no files) against the validation measurements `val`. One pass
/// over the microbenchmarks, the validation kernels and Nsight's ratios, in the order
/// the report shows them.
pub fn compute_with(
    m: &Measurement,
    data_file: &str,
    spreads: &Spreads,
    val: &ValidationInput,
    p: &Profile,
) -> Result<Report, String> {
    let ts = targets(m);
    let scored = scored_gpu(data_file);
    let vals: Vec<Result<f64, String>> = ts.par_iter().map(|t| t.twin.eval(p)).collect();
    let mut micro = Vec::new();
    for (t, v) in ts.iter().zip(vals) {
        let v = v.map_err(|e| format!("{}: {e}", t.twin.bench))?;
        micro.push(Row {
            bench: t.twin.bench.clone(),
            group: t.twin.group.into(),
            measured: r2(t.measured),
            simulated: r2(v),
            err_pct: err(v, t.measured),
            band: band_of(spreads.get(&t.twin.bench), t.measured, v, scored.as_deref()),
            spread: None,
        });
    }
    let twinned: Vec<&str> = ts.iter().map(|t| t.twin.bench.as_str()).collect();
    let untw: Vec<(String, f64, String)> = m
        .benchmarks
        .iter()
        .filter(|b| !twinned.contains(&b.name.as_str()))
        .map(|b| {
            (
                b.name.clone(),
                r2(b.median),
                untwinned(&b.name).unwrap_or("no twin yet").to_string(),
            )
        })
        .collect();

    let vm = &val.measurement;
    // each kernel's value in every run the rankings read
    let per_run = |bench: &str| -> Vec<Option<f64>> {
        val.runs
            .iter()
            .map(|r| r.values.get(bench).copied())
            .collect()
    };
    let vc = cases(vm);
    let sims: Vec<Result<(f64, sim_core::RunResult), String>> =
        vc.par_iter().map(|(c, _)| simulate(c, p)).collect();
    let mut validation = Vec::new();
    let mut triples = Vec::new();
    let mut runs: BTreeMap<(String, u32), sim_core::RunResult> = BTreeMap::new();
    for ((c, meas), s) in vc.iter().zip(sims) {
        let (v, run) = s.map_err(|e| format!("{}: {e}", c.bench))?;
        let level = if c.l1 {
            "latency-hiding L1"
        } else {
            "latency-hiding L2"
        };
        validation.push(Row {
            bench: c.bench.clone(),
            group: level.into(),
            measured: r2(*meas),
            simulated: r2(v),
            err_pct: err(v, *meas),
            band: None,
            spread: Spread::of(&per_run(&c.bench)),
        });
        triples.push((c.clone(), per_run(&c.bench), v));
        let func = format!("vh_chase_{}_k{}", if c.l1 { "l1" } else { "l2" }, c.k);
        runs.insert((func, c.warps), run);
    }
    let gc = gemm_cases(vm);
    let gsims: Vec<Result<(f64, sim_core::RunResult), String>> =
        gc.par_iter().map(|(c, _)| simulate_gemm(c, p)).collect();
    // The same kernels at the clock each ran at (a diagnostic, see Report).
    let clocked: Vec<Result<Option<(f64, f64)>, String>> = gc
        .par_iter()
        .map(|(c, _)| {
            let Some(mhz) = vm.get(&c.bench).and_then(measured_clock_mhz) else {
                return Ok(None);
            };
            let mut q = p.clone();
            q.set("clock_mhz_tensor_uniform", mhz)
                .map_err(|e| e.to_string())?;
            Ok(Some((mhz, simulate_gemm(c, &q)?.0)))
        })
        .collect();
    let mut at_clock = Vec::new();
    let mut clock_range = (f64::INFINITY, f64::NEG_INFINITY);
    let mut gtriples = Vec::new();
    let mut gruns: BTreeMap<String, sim_core::RunResult> = BTreeMap::new();
    for (((c, meas), s), ck) in gc.iter().zip(gsims).zip(clocked) {
        let (v, run) = s.map_err(|e| format!("{}: {e}", c.bench))?;
        let group = if c.grid() == 1 {
            "gemm-mainloop, 1 CTA"
        } else if c.shape().contains("shared") {
            "gemm-mainloop, full chip, one operand shared by all CTAs"
        } else {
            "gemm-mainloop, full chip"
        };
        validation.push(Row {
            bench: c.bench.clone(),
            group: group.into(),
            measured: r2(*meas),
            simulated: r2(v),
            err_pct: err(v, *meas),
            band: None,
            spread: Spread::of(&per_run(&c.bench)),
        });
        if let Some((mhz, v)) = ck.map_err(|e| format!("{}: {e}", c.bench))? {
            clock_range = (clock_range.0.min(mhz), clock_range.1.max(mhz));
            at_clock.push(Row {
                bench: c.bench.clone(),
                group: group.into(),
                measured: r2(*meas),
                simulated: r2(v),
                err_pct: err(v, *meas),
                band: None,
                spread: None,
            });
        }
        gtriples.push((c.clone(), per_run(&c.bench), v));
        if c.pipe == 4 && c.grid() == 1 {
            let kernel = crate::sources::GEMM_SCHEDULES
                .iter()
                .find(|g| g.0 == c.schedule && g.1.ends_with("_fenced") == c.fenced)
                .map(|g| g.1.to_string())
                .unwrap_or_default();
            gruns.insert(kernel, run);
        }
    }
    let sc = crate::library::library_cases(vm);
    let ssims: Vec<Result<(f64, sim_core::RunResult), String>> = sc
        .par_iter()
        .map(|(c, _)| crate::library::simulate_library(c, p))
        .collect();
    let mut striples = Vec::new();
    for ((c, meas), s) in sc.iter().zip(ssims) {
        let (v, _) = s.map_err(|e| format!("{}: {e}", c.bench))?;
        validation.push(Row {
            bench: c.bench.clone(),
            group: c.group(),
            measured: r2(*meas),
            simulated: r2(v),
            err_pct: err(v, *meas),
            band: None,
            spread: Spread::of(&per_run(&c.bench)),
        });
        striples.push((c.clone(), per_run(&c.bench), v));
    }
    let ncu = val.ncu_csv.as_deref().unwrap_or("");
    let mut warp_states = Vec::new();
    for (kernel, warps, reason, meas) in ncu_ratios(ncu) {
        let Some(run) = runs.get(&(kernel.clone(), warps)) else {
            continue;
        };
        let sim = WarpState::ALL
            .iter()
            .find(|s| s.name() == reason)
            .map(|s| {
                run.roles.iter().map(|r| r.states.get(*s)).sum::<u64>() as f64
                    / run.roles.iter().map(|r| r.instructions).sum::<u64>().max(1) as f64
            })
            .unwrap_or(0.0);
        if meas >= 0.05 || sim >= 0.05 {
            warp_states.push(StateRow {
                kernel,
                warps,
                reason,
                measured: r2(meas),
                simulated: r2(sim),
            });
        }
    }
    for (kernel, reason, meas) in ncu_gemm_pipe4_cta1(ncu) {
        let Some(run) = gruns.get(&kernel) else {
            continue;
        };
        let sim = WarpState::ALL
            .iter()
            .find(|s| s.name() == reason)
            .map(|s| {
                run.roles.iter().map(|r| r.states.get(*s)).sum::<u64>() as f64
                    / run.roles.iter().map(|r| r.instructions).sum::<u64>().max(1) as f64
            })
            .unwrap_or(0.0);
        if meas >= 0.05 || sim >= 0.05 {
            let warps = if kernel.starts_with("vg_ws") { 12 } else { 8 };
            warp_states.push(StateRow {
                kernel: format!("{kernel} (PIPE 4, 1 CTA)"),
                warps,
                reason,
                measured: r2(meas),
                simulated: r2(sim),
            });
        }
    }
    Ok(Report {
        data_file: data_file.into(),
        validation_file: val.file.clone(),
        validation_runs: val
            .runs
            .iter()
            .map(|r| (r.file.clone(), r.gpu.clone()))
            .collect(),
        profile: p.file.name.clone(),
        profile_validated: p.file.validated,
        profile_clock_mhz: p.t.clock_mhz_tensor_uniform,
        micro_overall: group_of(&micro, "all microbenchmarks"),
        micro_within_3pct: micro.iter().filter(|r| r.err_pct.abs() <= 3.0).count(),
        micro_in_band: micro
            .iter()
            .filter(|r| {
                r.band
                    .as_ref()
                    .map_or(r.err_pct.abs() <= 3.0, |b| b.in_band)
            })
            .count(),
        micro_in_band_strict: micro
            .iter()
            .filter(|r| {
                r.band
                    .as_ref()
                    .map_or(r.err_pct.abs() <= 3.0, |b| b.in_band_strict)
            })
            .count(),
        micro_groups: groups(&micro),
        micro,
        untwinned: untw,
        validation_overall: group_of(&validation, "all validation kernels"),
        validation_groups: groups(&validation),
        validation,
        ranking: ranking(&triples),
        schedule_ranking: schedule_ranking(&gtriples),
        library_ranking: library_ranking(&striples),
        warp_states,
        gemm_at_measured_clock: groups(&at_clock),
        gemm_measured_clock_mhz: (r2(clock_range.0), r2(clock_range.1)),
        not_measured: vec!["gemm-mainloop as the schedules intend with wait_group 1: ptxas 13.0 serialized the wgmma of the static-v2 and ws-wait1 kernels (C7514; data/validation/README.md), so what was measured, and what their twins run, is the serialized instruction stream".into()],
        validation_set_aside: val.set_aside.clone(),
    })
}

fn gtable(s: &mut String, gs: &[Group]) {
    s.push_str("| group | n | MAPE % | worst % | worst case |\n|---|---:|---:|---:|---|\n");
    for g in gs {
        let _ = writeln!(
            s,
            "| {} | {} | {:.2} | {:+.2} | `{}` |",
            g.group, g.n, g.mape_pct, g.worst_pct, g.worst_bench
        );
    }
}

/// ", of which N disputed" for a ranking with ties the runs disagree on.
fn disputed(k: &Ranking) -> String {
    if k.ties_disputed == 0 {
        String::new()
    } else {
        format!(" ({} of them disputed)", k.ties_disputed)
    }
}

/// The validation runs, each with its GPU: "(file on GPU-..., ...)".
fn runs_list(runs: &[(String, Option<String>)]) -> String {
    let each: Vec<String> = runs
        .iter()
        .map(|(f, g)| match g {
            Some(g) => format!("`{f}` on {g}"),
            None => format!("`{f}`"),
        })
        .collect();
    format!(" ({})", each.join(", "))
}

/// The markdown report.
pub fn markdown(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Calibration report: simulator against a real H100\n");
    let _ = writeln!(
        s,
        "Generated by `smsim calibrate report` (CI checks it with `--check`). Profile `{}` (validated = {}), microbenchmarks {}{}, validation kernels `data/validation/{}` (never used by the fit). Errors are (simulated - measured) / measured.\n",
        r.profile,
        r.profile_validated,
        if r.data_file == crate::across::median_data_name(None) {
            format!(
                "measured as each benchmark's median over the GPUs of the committed collects (`data/*.json` grouped by the GPU UUID in each `.env.txt`, comparable measurements only, as `across-gpus.md` counts them; the built-in profile is fitted to these medians, so they are in sample: the out-of-sample figures are in `leave-one-gpu-out.md`); a benchmark one GPU alone measured keeps the primary's value, `data/{}`",
                crate::PRIMARY_DATA.rsplit('/').next().unwrap_or_default()
            )
        } else {
            format!("`data/{}`", r.data_file)
        },
        if r.data_file == crate::PRIMARY_DATA.rsplit('/').next().unwrap_or_default()
            || r.data_file == crate::across::median_data_name(None)
        {
            let data = |f: &str| format!("`data/{}`", f.rsplit('/').next().unwrap_or(f));
            let added: Vec<String> = crate::ADDED_DATA
                .iter()
                .map(|(f, b)| format!("; {} from {}", b.join(", "), data(f)))
                .collect();
            format!(
                " (its HBM copy latencies `lat.bulk.hbm.*`, `lat.tma2d.hbm.*`: the 2048 copies of {} pooled, item 5{})",
                crate::HBM_COPY_DATA
                    .iter()
                    .map(|f| data(f))
                    .collect::<Vec<_>>()
                    .join(" and "),
                added.concat()
            )
        } else {
            String::new()
        },
        r.validation_file
    );
    let _ = writeln!(s, "## Summary\n");
    let _ = writeln!(
        s,
        "- Microbenchmarks ({} with a simulated twin): MAPE **{:.2}%**, worst **{:+.2}%** (`{}`), {} of {} within 3%; **{} of {} in band** ({:.1}%: the model inside the benchmark's measured spread over GPUs or within 3%, whichever is wider); read strictly, {} of {} ({:.1}%: the spread of the other GPUs only, without the scored GPU's own value, and that spread alone where it is wider than ±3%).",
        r.micro_overall.n,
        r.micro_overall.mape_pct,
        r.micro_overall.worst_pct,
        r.micro_overall.worst_bench,
        r.micro_within_3pct,
        r.micro_overall.n,
        r.micro_in_band,
        r.micro_overall.n,
        100.0 * r.micro_in_band as f64 / r.micro_overall.n.max(1) as f64,
        r.micro_in_band_strict,
        r.micro_overall.n,
        100.0 * r.micro_in_band_strict as f64 / r.micro_overall.n.max(1) as f64
    );
    let _ = writeln!(
        s,
        "- Validation kernels ({}): MAPE **{:.2}%** (target 10%, goal 5%), worst **{:+.2}%** (`{}`).",
        r.validation_overall.n,
        r.validation_overall.mape_pct,
        r.validation_overall.worst_pct,
        r.validation_overall.worst_bench
    );
    let _ = writeln!(s, "- {}", rank::reading(r.validation_runs.len()));
    let _ = writeln!(
        s,
        "- Ranking: {} of {} measured orderings reproduced ({:.0}%); ties called ties by smsim: {} of {}{}. {}",
        r.ranking.concordant,
        r.ranking.pairs,
        r.ranking.fraction * 100.0,
        r.ranking.ties_called,
        r.ranking.ties,
        disputed(&r.ranking),
        r.ranking.note
    );
    let _ = writeln!(
        s,
        "- Schedule ranking: {} of {} measured orderings reproduced ({:.0}%); ties called ties: {} of {}{}. {}",
        r.schedule_ranking.concordant,
        r.schedule_ranking.pairs,
        r.schedule_ranking.fraction * 100.0,
        r.schedule_ranking.ties_called,
        r.schedule_ranking.ties,
        disputed(&r.schedule_ranking),
        r.schedule_ranking.note
    );
    if r.library_ranking.pairs + r.library_ranking.ties > 0 {
        let _ = writeln!(
            s,
            "- Library-kernel ranking: {} of {} measured orderings reproduced ({:.0}%); ties called ties: {} of {}{}. {}",
            r.library_ranking.concordant,
            r.library_ranking.pairs,
            r.library_ranking.fraction * 100.0,
            r.library_ranking.ties_called,
            r.library_ranking.ties,
            disputed(&r.library_ranking),
            r.library_ranking.note
        );
    }
    for n in &r.not_measured {
        let _ = writeln!(s, "- Not measured: {n}.");
    }
    if !r.validation_set_aside.is_empty() {
        let _ = writeln!(
            s,
            "- Set aside, as spread out (a repetition whose CTAs ended more than {} times its kernel's median end spread apart and more than {} ns beyond it, while most of its repetitions ran together; its kernel's value the median of the others): {}.",
            input::SPREAD_OUT_FACTOR,
            input::SPREAD_OUT_MIN_NS,
            r.validation_set_aside
                .iter()
                .map(|(f, a)| format!(
                    "`{}` repetition {} in {f} ({}, ends {} ns apart against {} ns; median {} -> {})",
                    a.bench, a.rep, a.value, a.end_ns, a.median_end_ns, a.median_before, a.median_after
                ))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    let _ = writeln!(s, "\n![predicted against measured](scatter.png)\n");
    s.push_str(GAPS);
    let _ = writeln!(s, "## Microbenchmarks by group\n");
    gtable(&mut s, &r.micro_groups);
    let _ = writeln!(s, "\n## Validation kernels by group\n");
    gtable(&mut s, &r.validation_groups);
    if !r.gemm_at_measured_clock.is_empty() {
        let _ = writeln!(
            s,
            "\nA diagnostic, not the figures above: the gemm-mainloop kernels simulated at the SM clock each ran at ({:.0} to {:.0} MHz: the slowest CTA's cycles over the launch's %globaltimer span) instead of the profile's `clock_mhz_tensor_uniform` ({:.1} MHz, full-chip wgmma with their operands, measured from idle). L2 and HBM move bytes per nanosecond, so the clock sets their bytes per cycle: what moves between the two tables is the clock's share of the error.\n",
            r.gemm_measured_clock_mhz.0, r.gemm_measured_clock_mhz.1, r.profile_clock_mhz
        );
        gtable(&mut s, &r.gemm_at_measured_clock);
    }
    rank::misses_table(
        &mut s,
        &[
            ("configurations", &r.ranking),
            ("schedules", &r.schedule_ranking),
            ("library kernels", &r.library_ranking),
        ],
    );
    let _ = writeln!(
        s,
        "\n## Every microbenchmark\n\nGPUs, lowest, highest: the benchmark's per-GPU values over the committed collects (and the measured value); in band: the model inside that spread or within 3%.\n\n| benchmark | group | measured | simulated | error % | GPUs | lowest | highest | in band |\n|---|---|---:|---:|---:|---:|---:|---:|---|"
    );
    for m in &r.micro {
        let (g, lo, hi, ok) = match &m.band {
            Some(b) => (
                b.gpus.to_string(),
                b.lowest.to_string(),
                b.highest.to_string(),
                b.in_band,
            ),
            None => ("-".into(), "-".into(), "-".into(), m.err_pct.abs() <= 3.0),
        };
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {:+.2} | {g} | {lo} | {hi} | {} |",
            m.bench,
            m.group,
            m.measured,
            m.simulated,
            m.err_pct,
            if ok { "yes" } else { "**no**" }
        );
    }
    let _ = writeln!(
        s,
        "\n## Benchmarks without a twin\n\n| benchmark | measured | why |\n|---|---:|---|"
    );
    for (b, v, why) in &r.untwinned {
        let _ = writeln!(s, "| `{b}` | {v} | {why} |");
    }
    let _ = writeln!(
        s,
        "\n## Every validation kernel (latency-hiding: cycles per iteration; gemm-mainloop: cycles per CTA)\n\nMeasured: `data/validation/{}`; runs, lowest, highest: the kernel's values over the validation runs the rankings read{}.\n\n| kernel | measured | simulated | error % | runs | lowest | highest |\n|---|---:|---:|---:|---:|---:|---:|",
        r.validation_file,
        runs_list(&r.validation_runs)
    );
    for m in &r.validation {
        let (n, lo, hi) = match &m.spread {
            Some(x) => (
                x.runs.to_string(),
                x.lowest.to_string(),
                x.highest.to_string(),
            ),
            None => ("1".into(), "-".into(), "-".into()),
        };
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {:+.2} | {n} | {lo} | {hi} |",
            m.bench, m.measured, m.simulated, m.err_pct
        );
    }
    let _ = writeln!(
        s,
        "\n## Warp states (warps per issued instruction: Nsight Compute against the simulator)\n\nStates where either side is at least 0.05; ncu ran with `--clock-control none` on a quick run (latency-hiding: WARPS 1, 8, 32; gemm-mainloop: PIPE 4, one CTA).\n\n| kernel | warps | state | ncu | simulated |\n|---|---:|---|---:|---:|"
    );
    for w in &r.warp_states {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} |",
            w.kernel, w.warps, w.reason, w.measured, w.simulated
        );
    }
    s
}

/// What [`run_with`] does with the report it computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// Compare report.md and report.json with those in the folder; write nothing.
    Check,
    /// Write into the folder, replacing the files there (the committed report only).
    Replace,
    /// Create the folder, which must not exist, and write into it.
    NewDir,
}

/// Writes (or, with `check`, compares) report.md and report.json in `dir`, and the
/// plots (not compared: they are drawn from the same numbers), against the committed
/// validation measurements. Returns a summary line.
pub fn run(
    m: &Measurement,
    data_file: &str,
    spreads: &Spreads,
    p: &Profile,
    dir: &Path,
    check: bool,
) -> Result<String, String> {
    let val = ValidationInput::committed()?;
    let mode = if check {
        Output::Check
    } else {
        Output::Replace
    };
    run_with(m, data_file, spreads, &val, p, dir, mode)
}

/// The folder a report goes to by default: `<stem>-report` beside the data file (`-2`,
/// `-3`, ... if that exists), unless the data file lies inside `source_tree` (the
/// checkout the program was built from), where a report would be written into the
/// repository: then the same name in the system's temporary folder.
pub fn default_out_dir(data: &Path, source_tree: Option<&Path>) -> PathBuf {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let data_abs = abs(data);
    let stem = data_abs
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "data".into());
    let beside = data_abs.parent().map(Path::to_path_buf).unwrap_or_default();
    let inside_tree = source_tree.is_some_and(|t| beside.starts_with(abs(t)));
    let base = if inside_tree {
        std::env::temp_dir()
    } else {
        beside
    };
    let mut dir = base.join(format!("{stem}-report"));
    let mut i = 2;
    while dir.exists() {
        dir = base.join(format!("{stem}-report-{i}"));
        i += 1;
    }
    dir
}

/// [`run`] against the validation measurements `val`, with the output `mode`.
pub fn run_with(
    m: &Measurement,
    data_file: &str,
    spreads: &Spreads,
    val: &ValidationInput,
    p: &Profile,
    dir: &Path,
    mode: Output,
) -> Result<String, String> {
    let check = mode == Output::Check;
    if mode == Output::NewDir && dir.exists() {
        // refused before the minutes of simulation, not after
        return Err(format!(
            "{} exists; a report goes into a new folder (name another with --out-dir)",
            dir.display()
        ));
    }
    let r = compute_with(m, data_file, spreads, val, p)?;
    let md = markdown(&r);
    let json = serde_json::to_string_pretty(&r).map_err(|e| e.to_string())? + "\n";
    let summary = format!(
        "microbenchmarks: MAPE {:.2}%, worst {:+.2}% ({}), {} of {} within 3%, {} in band ({} strictly); validation: MAPE {:.2}%, worst {:+.2}% ({}); ranking {} of {} pairs",
        r.micro_overall.mape_pct,
        r.micro_overall.worst_pct,
        r.micro_overall.worst_bench,
        r.micro_within_3pct,
        r.micro_overall.n,
        r.micro_in_band,
        r.micro_in_band_strict,
        r.validation_overall.mape_pct,
        r.validation_overall.worst_pct,
        r.validation_overall.worst_bench,
        r.ranking.concordant,
        r.ranking.pairs
    );
    if check {
        for (name, text) in [("report.md", &md), ("report.json", &json)] {
            let path = dir.join(name);
            let old = std::fs::read_to_string(&path).map_err(|e| {
                format!(
                    "{}: {e} (run `smsim calibrate report --write-committed` and commit it)",
                    path.display()
                )
            })?;
            if &old != text {
                let line = old
                    .lines()
                    .zip(text.lines())
                    .position(|(a, b)| a != b)
                    .map(|i| i + 1)
                    .unwrap_or(old.lines().count().min(text.lines().count()) + 1);
                return Err(format!(
                    "{} differs from what the code computes (first at line {line}); run `smsim calibrate report --write-committed` and commit the result",
                    path.display()
                ));
            }
        }
        return Ok(format!("the committed report matches: {summary}"));
    }
    if mode == Output::NewDir {
        if let Some(parent) = dir.parent()
            && !parent.as_os_str().is_empty()
        {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        // create_dir, not create_dir_all: an existing folder is refused, never written into
        std::fs::create_dir(dir).map_err(|e| {
            format!(
                "{}: {e} (a report goes into a new folder; name another with --out-dir)",
                dir.display()
            )
        })?;
        crate::write_new(&dir.join("report.md"), &md).map_err(|e| e.to_string())?;
        crate::write_new(&dir.join("report.json"), &json).map_err(|e| e.to_string())?;
    } else {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        outfile::write(&dir.join("report.md"), md.as_bytes(), true)?;
        outfile::write(&dir.join("report.json"), json.as_bytes(), true)?;
    }
    scatter::scatter(&r, dir)?;
    Ok(format!(
        "wrote {}/report.md, report.json, scatter.svg, scatter.png\n{summary}",
        dir.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spread() -> Vec<(String, f64)> {
        vec![
            ("GPU-a".into(), 100.0),
            ("GPU-b".into(), 101.0),
            ("GPU-new".into(), 120.0),
        ]
    }

    /// A newcomer's own value widens the loose band but never the strict one: the model
    /// at 110 is inside [100, 120] only because of the newcomer's 120, and 8.3% from it.
    #[test]
    fn the_strict_band_leaves_the_scored_gpu_out() {
        let s = spread();
        let b = band_of(Some(&s), 120.0, 110.0, Some("GPU-new")).unwrap();
        assert!(b.in_band && !b.in_band_strict);
        assert_eq!((b.gpus, b.lowest, b.highest), (3, 100.0, 120.0));
        // Not knowing the GPU, its value counts as another GPU's (the wide spread holds it).
        assert!(
            band_of(Some(&s), 120.0, 110.0, None)
                .unwrap()
                .in_band_strict
        );
    }

    /// A GPU outside the committed set: the measured value joins the loose spread, not
    /// the strict one, and within a narrow spread the strict band is +-3% of it.
    #[test]
    fn a_newcomer_is_judged_against_the_others_alone() {
        let s: Vec<(String, f64)> = spread().into_iter().take(2).collect();
        // 106 is inside [100, 108] (the newcomer's 108 joins the loose spread) and 1.9%
        // from 108: in band both ways.
        let b = band_of(Some(&s), 108.0, 106.0, Some("GPU-new")).unwrap();
        assert!(b.in_band && b.in_band_strict);
        // 104 is inside the loose spread but 3.7% from 108, and the others' spread
        // [100, 101] is narrower than +-3%: out, strictly.
        let b = band_of(Some(&s), 108.0, 104.0, Some("GPU-new")).unwrap();
        assert!(b.in_band && !b.in_band_strict);
    }
}
