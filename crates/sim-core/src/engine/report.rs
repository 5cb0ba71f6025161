//! What a run reports: its result (`finish`), a deadlock's report, the header of its
//! events.

use super::*;

impl<'a, S: Sink> Engine<'a, S> {
    /// Each role's instructions' 1-based source lines, in `RoleCode::texts` order. A
    /// kernel built in Rust has no source lines: those of its printed text
    /// (`smsim kernels --emit` prints it), counted without parsing it back.
    fn source_lines(&self) -> Vec<Vec<u32>> {
        let lines = lower::instruction_lines(self.kernel);
        if lines.iter().flatten().any(|&l| l == 0) {
            let printed = printed_lines(self.kernel);
            if printed.iter().map(Vec::len).eq(lines.iter().map(Vec::len)) {
                return printed;
            }
        }
        lines
    }

    /// What the run's events name by number (`Sink::begin`).
    pub(super) fn header(&mut self, ctas_simulated: u32, ctas_resident: u32) -> RunHeader {
        let lines = self.source_lines();
        let roles = self
            .prog
            .roles
            .iter()
            .zip(lines)
            .map(|(r, lines)| RoleInfo {
                name: r.name.clone(),
                first_warp: r.first_warp,
                last_warp: r.last_warp,
                instructions: r
                    .texts
                    .iter()
                    .zip(lines.into_iter().chain(std::iter::repeat(0)))
                    .map(|(text, line)| InstructionInfo {
                        text: text.clone(),
                        line,
                    })
                    .collect(),
            })
            .collect();
        let mut units = Vec::new();
        for pipe in Pipe::ALL {
            if self.intervals[pipe.index()] > 1 {
                for subpartition in 0..4 {
                    units.push(Unit::Pipe { pipe, subpartition });
                }
            }
        }
        units.extend([Unit::Tma, Unit::SharedMemory, Unit::L1]);
        RunHeader {
            kernel: self.kernel.name.clone(),
            profile: self.profile.name().to_string(),
            seed: self.cfg.seed,
            policy: self.policy.as_dyn().name().to_string(),
            clock_mhz: self.t.clock_mhz,
            ctas_simulated,
            ctas_resident,
            warps_per_cta: self.warps_per_cta,
            roles,
            mbarriers: (0..self.prog.mbar_total)
                .map(|i| {
                    let (name, el) = self.mbar_name(i);
                    format!("{name}[{el}]")
                })
                .collect(),
            units,
        }
    }

    /// A run that failed ends the lives of its live warps at its last cycle (their
    /// `WarpFinish`), so that every warp's states end.
    pub(super) fn end_live_warps(&mut self) {
        if !S::ENABLED {
            return;
        }
        for slot in 0..self.warps.len() as u32 {
            if self.warps[slot as usize].live {
                let id = self.wid(slot);
                self.sink.event(Event::WarpFinish {
                    cycle: self.now,
                    warp: id,
                });
            }
        }
    }

    pub(super) fn mbar_name(&self, flat: u32) -> (String, u32) {
        isa::ast::mbarrier_at(&self.kernel.mbarriers, flat)
            .map_or(("?".into(), flat), |(name, el)| (name.to_string(), el))
    }

    /// Describes every live warp and what it waits for.
    pub(super) fn report(&self, headline: &str) -> StuckReport {
        let mut warps = Vec::new();
        for (s, w) in self.warps.iter().enumerate() {
            if !w.live {
                continue;
            }
            let role = &self.prog.roles[w.role as usize];
            let pc = w.charged_pc() as usize;
            let text = match &role.code[pc] {
                Node::Instr(d) => role.texts[d.text as usize].clone(),
                _ => "(end of role)".into(),
            };
            let cta = &self.ctas[w.cta as usize];
            let waits_for = match w.block {
                Block::Barrier { id } => {
                    let b = cta.bars[id as usize];
                    let per = self.warps_per_cta;
                    let waiting: Vec<String> = (w.cta * per..(w.cta + 1) * per)
                        .filter(|&o| {
                            self.warps[o as usize].live
                                && self.warps[o as usize].block == (Block::Barrier { id })
                        })
                        .map(|o| self.warps[o as usize].warp.to_string())
                        .collect();
                    let missing: Vec<String> = (w.cta * per..(w.cta + 1) * per)
                        .filter(|&o| {
                            !(self.warps[o as usize].live
                                && self.warps[o as usize].block == (Block::Barrier { id }))
                        })
                        .map(|o| {
                            let ow = &self.warps[o as usize];
                            if ow.live {
                                ow.warp.to_string()
                            } else {
                                format!("{} (exited)", ow.warp)
                            }
                        })
                        .collect();
                    format!(
                        "named barrier {id}: {} of {} warps arrived (waiting: {}); not arrived: {}",
                        b.arrived,
                        b.expected,
                        waiting.join(", "),
                        if missing.is_empty() {
                            "-".into()
                        } else {
                            missing.join(", ")
                        }
                    )
                }
                Block::Mbar { idx, parity } => {
                    let m = &cta.mbars[idx as usize];
                    let (name, el) = self.mbar_name(idx);
                    format!(
                        "mbarrier {name}[{el}] to complete the phase of parity {parity}: {} phases completed, {} of {} arrivals still missing, {} transaction bytes outstanding",
                        m.phase, m.pending, m.count, m.tx
                    )
                }
                Block::WgArrive => {
                    let wg = w.warp / 4;
                    format!(
                        "WARPGROUP.ARRIVE of warpgroup {wg}: {} of its 4 warps arrived",
                        cta.wg_arrived[wg as usize]
                    )
                }
                Block::Cluster => format!(
                    "UCGABAR_WAIT: {} of the CTA's {} warps arrived on the cluster barrier's phase {}",
                    cta.cga_arrived,
                    self.warps_per_cta,
                    cta.cga_phases + 1
                ),
                Block::Until { t, state, .. } => format!("{state} until cycle {t}"),
                Block::None if w.exited => format!("drain until cycle {}", w.outstanding),
                Block::None => format!(
                    "{} (until cycle {})",
                    w.state,
                    self.until[self.until_index(s as u32)]
                ),
            };
            warps.push(StuckWarp {
                cta: cta.id,
                warp: w.warp,
                role: role.name.clone(),
                pc: match &role.code[pc] {
                    Node::Instr(d) => d.text,
                    _ => u32::MAX,
                },
                instruction: text,
                waits_for,
            });
        }
        StuckReport {
            headline: headline.to_string(),
            cycle: self.now,
            warps,
        }
    }

    /// Each role's totals, per instruction too (from the warps retired).
    fn role_stats(&self) -> Vec<RoleStats> {
        let mut roles = Vec::new();
        let lines = self.source_lines();
        for (ri, r) in self.prog.roles.iter().enumerate() {
            let mut states = [0u64; STATE_COUNT];
            let mut instrs = 0;
            let mut warps = 0;
            for w in self.warp_summaries.iter().filter(|w| w.role == r.name) {
                warps += 1;
                instrs += w.instructions;
                for (i, v) in w.states.to_array().iter().enumerate() {
                    states[i] += v;
                }
            }
            let mut pcs = Vec::new();
            for (ti, text) in r.texts.iter().enumerate() {
                let pc = r.text_pc[ti] as usize;
                let at = self.role_pc_base[ri] as usize + pc;
                let mut waits_on: Vec<WaitsOn> = self.pcs[at]
                    .causes()
                    .map(|&(state, cause, cycles)| WaitsOn {
                        state,
                        on: self.waited(ri, cause),
                        cycles,
                    })
                    .collect();
                waits_on.sort_by_key(|w| std::cmp::Reverse(w.cycles));
                pcs.push(PcStats {
                    pc: ti as u32,
                    line: lines[ri].get(ti).copied().unwrap_or(0),
                    instruction: text.clone(),
                    issued: self.pcs[at].states[WarpState::Selected.index()],
                    states: StateCounts::from_array(&self.pcs[at].states),
                    waits_on,
                });
            }
            roles.push(RoleStats {
                name: r.name.clone(),
                warps_per_cta: r.last_warp + 1 - r.first_warp,
                warps_simulated: warps,
                instructions: instrs,
                states: StateCounts::from_array(&states),
                per_pc: pcs,
            });
        }
        roles
    }

    /// The run's result, once its loop ended (warps still live retire at its last
    /// cycle).
    pub(super) fn finish(
        mut self,
        occ: isa::occupancy::Occupancy,
        resident: u32,
        ctas_here: u32,
        grid: u32,
    ) -> RunResult {
        let cycles = self.now;
        let t = self.t;
        // Close the spans of warps still live (none after a clean run).
        let live: Vec<u32> = (0..self.warps.len() as u32)
            .filter(|&s| self.warps[s as usize].live)
            .collect();
        for s in live {
            self.retire(s);
        }
        let roles = self.role_stats();
        // Issues per sub-partition, from the warps' (each warp stays on one).
        let mut issued = [0u64; 4];
        for w in &self.warp_summaries {
            issued[w.subpartition as usize & 3] += w.instructions;
        }
        let instructions: u64 = issued.iter().sum();
        let c = cycles.max(1) as f64;
        // A pipe is busy for its issue interval at each issue of an instruction on it.
        let mut pipe_busy = [0u64; NPIPES];
        for (ri, r) in self.prog.roles.iter().enumerate() {
            for (pc, node) in r.code.iter().enumerate() {
                if let Node::Instr(d) = node {
                    let at = self.role_pc_base[ri] as usize + pc;
                    let p = d.pipe.index();
                    pipe_busy[p] +=
                        self.pcs[at].states[WarpState::Selected.index()] * self.intervals[p];
                }
            }
        }
        // (The last issue on a pipe may end the run before its interval does: that
        // part of it lies past the run's end, not in it.)
        for (p, busy) in pipe_busy.iter_mut().enumerate() {
            for sp in &self.pipes.slots {
                *busy = booked_within(*busy, sp[p].free, cycles);
            }
        }
        let mut pipes = Vec::new();
        for p in [Pipe::Fma, Pipe::Alu, Pipe::Fp64, Pipe::Mufu] {
            let busy = pipe_busy[p.index()];
            pipes.push(UnitUse {
                unit: p.name().to_string(),
                busy_fraction: busy as f64 / (4.0 * c),
            });
        }
        // (As the pipes': a tcgen05 MMA need not be waited for by a warp of its CTA.)
        let tensor: u64 = self
            .tensor_busy
            .iter()
            .zip(&self.tensor_free)
            .map(|(&busy, &free)| booked_within(busy, free, cycles))
            .sum();
        pipes.push(UnitUse {
            unit: "tensor".into(),
            busy_fraction: tensor as f64 / (4.0 * c),
        });
        pipes.push(UnitUse {
            unit: "tma".into(),
            busy_fraction: (self.tma_busy / c).min(1.0),
        });
        let l2_bytes = self.mem.l2_bw.bytes;
        // (Write-backs still owed at the end cross HBM after the run: not in its rate.)
        let hbm_after = self.mem.hbm_bytes_after(cycles);
        let hbm_bytes = self.mem.hbm_bw.bytes - hbm_after;
        pipes.push(UnitUse {
            unit: "l2_bandwidth".into(),
            busy_fraction: (self.mem.l2_busy_cycles() / c).min(1.0),
        });
        let waves = grid.div_ceil((t.sm_count as u32) * resident.max(1));
        let ctas_for_busiest = grid.div_ceil(t.sm_count as u32);
        let kernel_cycles = kernel_cycles_estimate(
            cycles,
            &self.cta_done_cycles,
            ctas_here,
            resident,
            ctas_for_busiest,
        );
        let kernel_us = kernel_cycles / t.clock_mhz;
        let flops = self.prog.flops_per_cta.map(|f| f * grid as f64);
        let bytes = self.prog.bytes_per_cta.map(|b| b * grid as f64);
        RunResult {
            kernel: self.kernel.name.clone(),
            profile: self.profile.name().to_string(),
            profile_validated: self.profile.file.validated,
            profile_note: self.profile.file.note.clone(),
            overrides: self.profile.overrides.clone(),
            seed: self.cfg.seed,
            policy: self.policy.as_dyn().name().to_string(),
            warm_l2: self.cfg.warm_l2.clone(),
            cycles,
            time_us: cycles as f64 / t.clock_mhz,
            clock_mhz: t.clock_mhz,
            instructions,
            issued_per_subpartition: issued,
            ipc: instructions as f64 / c,
            ctas_simulated: ctas_here,
            ctas_resident: resident,
            occupancy: occ,
            grid,
            waves,
            kernel_time_us: kernel_us,
            tflops: flops.map(|f| f / (kernel_us * 1e6)),
            gbps: bytes.map(|b| b / (kernel_us * 1e3)),
            hbm_gbps: hbm_bytes as f64 * grid as f64 / ctas_here.max(1) as f64 / (kernel_us * 1e3),
            units: pipes,
            memory: MemoryStats {
                requests_l1: self.mem_requests[0],
                requests_l2_near: self.mem_requests[1],
                requests_l2_far: self.mem_requests[2],
                requests_hbm: self.mem_requests[3],
                requests_shared: self.mem_requests[4],
                l2_bytes,
                hbm_bytes,
                // (Copies' reads are all waited for within the run.)
                hbm_tma_bytes: self.mem.hbm_tma_bytes.min(hbm_bytes),
                hbm_bytes_after_run: hbm_after,
                shared_bytes: self.smem_bytes,
                shared_busy_cycles: self
                    .smem_busy
                    .max(self.smem_side_busy[0])
                    .max(self.smem_side_busy[1]),
                l1tex_busy_cycles: self.l1_busy,
            },
            roles,
            warps: std::mem::take(&mut self.warp_summaries),
        }
    }
}

/// Each role's instructions' lines in the kernel's printed text (`Display for Kernel`):
/// a role's header line starts with `role `, and each statement of its body (an
/// instruction, a loop's or an if's header) takes one line after it, in order; a
/// role's implicit EXIT takes its last line.
fn printed_lines(k: &Kernel) -> Vec<Vec<u32>> {
    fn walk(stmts: &[isa::ast::Stmt], line: &mut u32, out: &mut Vec<u32>) {
        for s in stmts {
            *line += 1;
            match s {
                isa::ast::Stmt::Instr(_) => out.push(*line),
                isa::ast::Stmt::Loop { body, .. } | isa::ast::Stmt::If { body, .. } => {
                    walk(body, line, out)
                }
            }
        }
    }
    let text = k.to_string();
    let headers = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("role "))
        .map(|(i, _)| i as u32 + 1);
    k.roles
        .iter()
        .zip(headers)
        .map(|(r, header)| {
            let mut line = header;
            let mut out = Vec::new();
            walk(&r.body, &mut line, &mut out);
            if !matches!(r.body.last(), Some(isa::ast::Stmt::Instr(i)) if i.op == Op::Exit) {
                out.push(line);
            }
            out
        })
        .collect()
}

/// The busiest SM's cycles for its `share` of the grid, from a run of `simulated` CTAs
/// (`resident` at once) that took `cycles` and finished its CTAs at `done` (in order).
///
/// A run of the whole share is its own answer. A shorter one is extrapolated from its
/// steady part: the first wave (until the `resident`-th CTA finished) starts cold (its
/// loads miss in L2 and HBM, spilled locals are not yet in L1), so it is taken as run,
/// and the CTAs after it set the rate for the rest. Scaling the whole run instead charges
/// every later wave the first wave's cold start: singe-viscosity's data-parallel kernel
/// at its seed's shape (8 CTAs, one at a time, the first twice as long as the others)
/// came out 10.8% long from 4 of its 8 CTAs. With one wave or less simulated there is
/// no steady part to measure, and the run is scaled as a whole.
pub(crate) fn kernel_cycles_estimate(
    cycles: u64,
    done: &[u64],
    simulated: u32,
    resident: u32,
    share: u32,
) -> f64 {
    let simulated = simulated.max(1);
    if share <= simulated {
        return cycles as f64;
    }
    let resident = resident.max(1);
    let first_wave_end = done.get(resident as usize - 1).copied();
    match first_wave_end {
        Some(t) if simulated > resident && t < cycles => {
            let per_cta = (cycles - t) as f64 / (simulated - resident) as f64;
            t as f64 + per_cta * (share - resident) as f64
        }
        _ => cycles as f64 * share as f64 / simulated as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::kernel_cycles_estimate;

    /// One CTA at a time, 8 on the SM, 3 simulated: the first finished at 1000, the run
    /// at 1600, so the two after it took 300 each; the other 6 of the 7 after the first
    /// wave come at that pace: 1000 + 7 x 300.
    #[test]
    fn the_first_wave_as_run_and_the_rest_at_the_later_pace() {
        let est = kernel_cycles_estimate(1600, &[1000, 1300, 1600], 3, 1, 8);
        assert_eq!(est, 1000.0 + 7.0 * 300.0);
    }

    /// Two resident: the second CTA to finish ends the first wave (at 900); the two
    /// after it took 1500 - 900 = 600 between them; 10 on the SM: 900 + 8 x 300.
    #[test]
    fn the_first_wave_ends_when_its_last_slot_frees() {
        let est = kernel_cycles_estimate(1500, &[800, 900, 1400, 1500], 4, 2, 10);
        assert_eq!(est, 900.0 + 8.0 * 300.0);
    }

    /// The whole share simulated is its own answer; one wave or less is scaled whole.
    #[test]
    fn whole_share_or_one_wave() {
        assert_eq!(kernel_cycles_estimate(1600, &[1000, 1600], 2, 1, 2), 1600.0);
        assert_eq!(kernel_cycles_estimate(1000, &[1000], 1, 1, 8), 8000.0);
        assert_eq!(kernel_cycles_estimate(1000, &[900, 1000], 2, 2, 8), 4000.0);
    }
}
