//! Global and local memory access from the engine's side: lane addresses, coalescing
//! into lines, the L1TEX queue, and the requests handed to the memory model
//! (`crate::memory`: L1, L2 near and far, HBM). Shared memory's bank conflicts are
//! `memory::smem_wavefronts`.

use super::*;

/// A thread's local memory: 512 KiB (CUDA C++ Programming Guide, "Technical
/// Specifications per Compute Capability", every capability since 2.0).
pub(super) const MAX_LOCAL_BYTES: i64 = 512 << 10;

/// The local bytes per thread laid out in a warp's first region (`lane_addr`).
pub(super) const LOCAL_NEAR_BYTES: u64 = 32 << 10;

impl<'a, S: Sink> Engine<'a, S> {
    /// Evaluates a memory operand's address for all 32 lanes into `self.addrs`; returns
    /// whether the address is warp-uniform (evaluated once, and then only lane 0 is
    /// written unless `all_lanes`).
    pub(super) fn lane_addrs(
        &mut self,
        slot: u32,
        m: &lower::MemOperand,
        width: u32,
        all_lanes: bool,
    ) -> Result<bool, SimError> {
        let w = &self.warps[slot as usize];
        let mut env = Env {
            vars: &w.vars,
            warp: w.warp as i64,
            lane: 0,
            cta: self.ctas[w.cta as usize].grid_id as i64,
        };
        // A warp-uniform address is evaluated once.
        if m.uniform {
            let a = self.lane_addr(slot, m, width, &env)?;
            if all_lanes {
                self.addrs.fill(a);
            } else {
                self.addrs[0] = a;
            }
            return Ok(true);
        }
        if let Some(step) = m.addr.lane_step()
            && m.space != Space::Local
        {
            // Lane l's address is lane 0's plus l steps: with lanes 0 and 31 in bounds,
            // so is every lane between (else the loop below names the first lane out).
            let first = self.lane_addr(slot, m, width, &env)?;
            env.lane = 31;
            if self.lane_addr(slot, m, width, &env).is_ok() {
                for (lane, a) in self.addrs.iter_mut().enumerate() {
                    *a = first.wrapping_add_signed(step.wrapping_mul(lane as i64));
                }
                return Ok(false);
            }
        }
        for lane in 0..32 {
            // (A lane its guard turns off accesses nothing: `predicate.rs`.)
            if self.active_lanes >> lane & 1 == 0 {
                continue;
            }
            env.lane = lane;
            self.addrs[lane as usize] = self.lane_addr(slot, m, width, &env)?;
        }
        self.fill_inactive_lanes();
        Ok(false)
    }

    /// The address lane `env.lane` of the warp in `slot` accesses, or why it cannot.
    #[inline(always)]
    pub(super) fn lane_addr(
        &self,
        slot: u32,
        m: &lower::MemOperand,
        width: u32,
        env: &Env,
    ) -> Result<u64, SimError> {
        let lane = env.lane;
        // Most addresses are affine, which cannot fault: no `Result` to carry.
        let off = match &m.addr {
            CExpr::Code {
                affine: Some(a), ..
            } => a.value(env),
            e => e.eval(env).map_err(|f| self.fault_at(slot, &f.0))?,
        };
        Ok(match m.space {
            Space::Global => self.global_address(slot, m, width, lane, off)?,
            _ if off < 0 => return Err(self.negative_address(slot, lane, off)),
            Space::Shared => m.base + off as u64,
            // Local memory interleaves threads word by word, so a warp's access to the
            // same local offset is one coalesced line.
            Space::Local => {
                if off >= MAX_LOCAL_BYTES {
                    return Err(self.fault_at(
                        slot,
                        &format!("lane {lane} addresses local byte {off}, beyond a thread's {MAX_LOCAL_BYTES} bytes (512 KiB) of local memory"),
                    ));
                }
                let w = &self.warps[slot as usize];
                let gwarp = (w.cta as u64) * self.warps_per_cta as u64 + w.warp as u64;
                let off = off as u64;
                let word = lane as u64 * 4 + (off % 4);
                // A warp's first 32 KiB per thread (what spills use) is a 1 MiB region
                // of its own; anything beyond, up to the 512 KiB, one of 16 MiB in a
                // second range (in one region of 1 MiB, a thread's bytes past 32 KiB
                // were the next warp's).
                if off < LOCAL_NEAR_BYTES {
                    (1u64 << 44) + gwarp * (1 << 20) + (off / 4) * 128 + word
                } else {
                    let off = off - LOCAL_NEAR_BYTES;
                    (1u64 << 45) + gwarp * (1 << 24) + (off / 4) * 128 + word
                }
            }
            Space::Tmem => off as u64,
        })
    }

    pub(super) fn negative_address(&self, slot: u32, lane: i64, off: i64) -> SimError {
        self.fault_at(
            slot,
            &format!("lane {lane} computes a negative address {off}"),
        )
    }

    /// Where lane `lane`'s offset `off` into a global buffer lies, or why it cannot.
    #[inline(always)]
    pub(super) fn global_address(
        &self,
        slot: u32,
        m: &lower::MemOperand,
        width: u32,
        lane: i64,
        off: i64,
    ) -> Result<u64, SimError> {
        let b = m.base as usize;
        if off < 0 {
            return Err(self.negative_address(slot, lane, off));
        }
        let off = off as u64;
        if !m.ends_in_buffer && off + width as u64 > self.buffer_size[b] {
            return Err(self.fault_at(
                slot,
                &format!(
                    "lane {lane} reads byte {off} of buffer `{}`, which has {} bytes",
                    self.kernel.buffers[b].name, self.buffer_size[b]
                ),
            ));
        }
        Ok(m.buffer_at + off)
    }

    /// How many CTAs of this CTA's wave (running at once across the chip) request the
    /// same first line as this warp does at this point of the program, with
    /// `memory::TPC_PARTNER` set when one of them is this CTA's partner on its TPC (the
    /// grid index that differs in bit 0: the H100 places CTAs 2k and 2k + 1 on the two SMs
    /// of one TPC). Addresses that do not depend on `cta` are shared by the whole wave;
    /// per-lane addresses that do are taken as private (evaluating them for every CTA
    /// would cost too much).
    #[inline(always)]
    pub(super) fn sharers(&self, slot: u32, m: &lower::MemOperand, line: u64) -> u32 {
        let w = &self.warps[slot as usize];
        let wave_len = self.ctas[w.cta as usize].wave_len;
        self.sharers_in_wave(slot, m, line, wave_len)
    }

    /// `sharers`, given the length of the warp's CTA's wave.
    #[inline(always)]
    pub(super) fn sharers_in_wave(
        &self,
        slot: u32,
        m: &lower::MemOperand,
        line: u64,
        wave_len: u32,
    ) -> u32 {
        if !m.per_cta {
            let cta = &self.ctas[self.warps[slot as usize].cta as usize];
            return if partner_in_wave(cta.grid_id, cta.wave_first, wave_len) {
                wave_len | memory::TPC_PARTNER
            } else {
                wave_len
            };
        }
        if m.addr.uses_lane() {
            return 1;
        }
        self.sharers_by_cta(slot, m, line)
    }

    /// `sharers` for a warp-uniform address that depends on `cta`: evaluated for each
    /// CTA of the wave (its TPC partner's among them).
    #[inline(never)]
    pub(super) fn sharers_by_cta(&self, slot: u32, m: &lower::MemOperand, line: u64) -> u32 {
        let w = &self.warps[slot as usize];
        let cta = &self.ctas[w.cta as usize];
        let (first, in_wave) = (cta.wave_first, cta.wave_len);
        let base = self.buffer_base[m.base as usize];
        let env = Env {
            vars: &w.vars,
            warp: w.warp as i64,
            lane: 0,
            cta: 0,
        };
        let partner = cta.grid_id ^ 1;
        let (mut n, mut with_partner) = (0, false);
        // (Each operation of the address's code once for all of the wave's CTAs:
        // `CExpr::eval_ctas`.)
        let mut offs = vec![None; in_wave as usize];
        m.addr.eval_ctas(&env, first as i64, &mut offs);
        for (c, off) in (first..).zip(offs) {
            if let Some(off) = off
                && off >= 0
                && (base + off as u64) / LINE == line
            {
                n += 1;
                with_partner |= c == partner;
            }
        }
        if with_partner {
            n | memory::TPC_PARTNER
        } else {
            n.max(1)
        }
    }

    /// A shared unit busy from `start` to `end` (its rate's fractional cycles: the
    /// whole cycles they touch) for the warp in `slot`.
    #[inline(always)]
    pub(super) fn emit_busy(&mut self, slot: u32, unit: Unit, start: f64, end: f64) {
        if S::ENABLED {
            let id = self.wid(slot);
            self.sink.event(Event::UnitBusy {
                start: start as u64,
                end: memory::ceil(end),
                unit,
                warp: id,
            });
        }
    }

    pub(super) fn emit_mem(
        &mut self,
        slot: u32,
        level: MemLevel,
        bytes: u32,
        done: u64,
        write: bool,
    ) {
        self.mem_requests[memory::level_index(level)] += 1;
        if S::ENABLED {
            let id = self.wid(slot);
            self.sink.event(Event::Memory {
                cycle: self.now,
                done,
                warp: id,
                level,
                bytes,
                write,
            });
        }
    }

    /// Global or local access through the L1TEX queue; returns when all lines complete.
    /// (Inlined, for the common case's sake: a warp-uniform read of one line.)
    #[inline(always)]
    pub(super) fn global_access(
        &mut self,
        slot: u32,
        d: &DInstr,
        m: usize,
        write: bool,
        through_l1: bool,
    ) -> Result<u64, SimError> {
        let mo = &d.mem[m];
        if mo.uniform {
            // A warp-uniform address (a broadcast, most loads; global, as local memory
            // is not uniform): one lane's lines, no comparing, evaluated here from the
            // warp's own fields rather than through `lane_addrs`. The warp's and its
            // CTA's entries are looked up once, for the address and the request.
            let (off, sp, wave_len) = self.lane0_offset(slot, mo)?;
            let a = self.global_address(slot, mo, d.width, 0, off)?;
            if mo.one_sector && !write && through_l1 {
                // Its bytes in one sector (lowering proved it): the line's one sector.
                debug_assert_eq!(a / SECTOR, (a + d.width.max(1) as u64 - 1) / SECTOR);
                return Ok(self.read_one_line(slot, mo, a / LINE, 1, sp, wave_len));
            }
            let width = d.width.max(1) as u64;
            let (first, last) = (a / SECTOR, (a + width - 1) / SECTOR);
            if !write && through_l1 && first / SECTORS_PER_LINE == last / SECTORS_PER_LINE {
                // One line read through L1: the general path for a request of one
                // line, without its line list.
                let sectors = (last - first + 1) as u32;
                let line = first / SECTORS_PER_LINE;
                return Ok(self.read_one_line(slot, mo, line, sectors, sp, wave_len));
            }
            self.lines.clear();
            memory::lines_of(a, width, &mut self.lines);
        } else if let Some(step) = mo.addr.lane_step()
            && mo.space == Space::Global
            && (0..=d.width.max(1) as i64).contains(&step)
        {
            // Lanes a step apart that leave no gap (most coalesced loads: `lane * 4`
            // with 4-byte lanes): together one contiguous run from lane 0's address to
            // lane 31's end, whose lines and sectors are what coalescing the 32 lanes'
            // addresses finds. Lanes 0 and 31 in bounds put every lane between in
            // bounds; otherwise the lane-by-lane path names the first lane out.
            let one_line = !write && through_l1;
            if let Some(done) = self.contiguous_lanes(slot, mo, d.width, step, one_line)? {
                return Ok(done);
            }
        } else {
            self.lane_addrs(slot, mo, d.width, false)?;
            memory::coalesce(&self.addrs, d.width, &mut self.lines);
        }
        Ok(self.request_lines(slot, mo, write, through_l1))
    }

    /// Lane 0's offset into a global operand's buffer for the warp in `slot` (an affine
    /// form from the warp's own fields, without an `Env`), with the warp's
    /// sub-partition and its CTA's wave's length for the request: the warp's and its
    /// CTA's entries looked up once.
    #[inline(always)]
    pub(super) fn lane0_offset(
        &self,
        slot: u32,
        mo: &lower::MemOperand,
    ) -> Result<(i64, usize, u32), SimError> {
        let w = &self.warps[slot as usize];
        let sp = w.sp as usize & 3;
        let terms = &self.warp_terms[slot as usize];
        let off = match &mo.addr {
            CExpr::Code {
                affine: Some(a), ..
            } if (mo.warp_term as usize) < WARP_TERMS => {
                a.value_from(terms.fixed[mo.warp_term as usize % WARP_TERMS], &w.vars)
            }
            CExpr::Code {
                affine: Some(a), ..
            } => a.value_from(
                a.warp_part(w.warp, self.ctas[w.cta as usize].grid_id),
                &w.vars,
            ),
            e => e
                .eval(&self.env(slot, 0))
                .map_err(|f| self.fault_at(slot, &f.0))?,
        };
        Ok((off, sp, terms.wave_len))
    }

    /// A global access whose lanes, `step` bytes apart, cover one contiguous run (see
    /// `global_access`): lane 31's offset is lane 0's plus 31 steps (`CExpr::lane_step`).
    /// A run within one line, read through L1 (`one_line`), is requested here as
    /// `read_one_line` requests it: returns when it completes. Otherwise leaves the
    /// run's lines in `self.lines` and returns None.
    #[inline(never)]
    pub(super) fn contiguous_lanes(
        &mut self,
        slot: u32,
        mo: &lower::MemOperand,
        width: u32,
        step: i64,
        one_line: bool,
    ) -> Result<Option<u64>, SimError> {
        let (off, sp, wave_len) = self.lane0_offset(slot, mo)?;
        let first = self.global_address(slot, mo, width, 0, off)?;
        let last_off = off.wrapping_add(step.wrapping_mul(31));
        match self.global_address(slot, mo, width, 31, last_off) {
            Ok(last) => {
                let end = last + width.max(1) as u64;
                let (first_sector, last_sector) = (first / SECTOR, (end - 1) / SECTOR);
                if one_line && first_sector / SECTORS_PER_LINE == last_sector / SECTORS_PER_LINE {
                    let sectors = (last_sector - first_sector + 1) as u32;
                    let line = first_sector / SECTORS_PER_LINE;
                    return Ok(Some(
                        self.read_one_line(slot, mo, line, sectors, sp, wave_len),
                    ));
                }
                self.lines.clear();
                memory::lines_of(first, end - first, &mut self.lines);
            }
            Err(_) => {
                self.lane_addrs(slot, mo, width, false)?;
                memory::coalesce(&self.addrs, width, &mut self.lines);
            }
        }
        Ok(None)
    }

    /// `global_access` of the lines in `self.lines`.
    #[inline(never)]
    pub(super) fn request_lines(
        &mut self,
        slot: u32,
        mo: &lower::MemOperand,
        write: bool,
        through_l1: bool,
    ) -> u64 {
        let sp = self.warps[slot as usize].sp as usize & 3;
        let depart = self.enter_l1tex(slot, sp, self.lines.len());
        let crowd = self.l1_crowd_enter(through_l1, write);
        let local = mo.space == Space::Local;
        let sharers = if write || self.lines.is_empty() {
            1
        } else {
            self.sharers(slot, mo, self.lines[0].0)
        };
        self.mem.begin_request(sharers);
        let mut done = depart;
        let (hit_per_line, hit_cap) = (self.t.l1_line_cycles, self.line_caps.0);
        let (miss_per_line, miss_cap) = (self.t.l2_line_cycles, self.line_caps.1);
        let (burst, gap) = (self.t.l2_miss_burst_lines, self.t.l2_miss_burst_gap);
        let base = depart;
        for i in 0..self.lines.len() {
            let (line, sectors) = self.lines[i];
            // The lines of one uncoalesced request go down the L1TEX pipeline one after
            // another while other warps' requests fill the gaps: hits return
            // `l1_line_cycles` apart up to `l1_line_cap` lines (beyond it they overlap),
            // misses leave for L2 `l2_line_cycles` apart up to `l2_line_cap` lines, and
            // those after the first `l2_miss_burst_lines` `l2_miss_burst_gap` later.
            // The first line (of most requests, the only one) is not staggered: its
            // offsets are 0 whatever the rates, without the float round trip.
            let (hit_at, depart) = if i == 0 {
                (base, base)
            } else {
                (
                    base + (i.min(hit_cap) as f64 * hit_per_line) as u64,
                    base + (i.min(miss_cap) as f64 * miss_per_line
                        + if i as f64 >= burst { gap } else { 0.0 })
                        as u64,
                )
            };
            let (t, level) = if write {
                (
                    self.mem.write(line, sectors, depart, local),
                    if Memory::is_far(line) {
                        MemLevel::L2Far
                    } else {
                        MemLevel::L2Near
                    },
                )
            } else if through_l1 {
                self.mem.read_l1(line, sectors, hit_at, depart)
            } else {
                self.mem.read_l2(line, sectors, depart)
            };
            self.emit_mem(slot, level, sectors * 32, t, write);
            done = done.max(t);
        }
        if crowd {
            self.l1_crowd_done(done);
        }
        done
    }

    /// A request of `n` lines enters L1TEX: it takes its turn at L1's line rate and a
    /// place in the sub-partition's LSU queue until its last line is through. Returns
    /// when its first line leaves the pipeline.
    #[inline(always)]
    pub(super) fn enter_l1tex(&mut self, slot: u32, sp: usize, n: usize) -> u64 {
        let now = self.now;
        // `now` is far below 2^52: the signed conversion is exact, and shorter; and a
        // request that finds L1 idle starts at `now`, a whole cycle: no rounding up.
        let now_f = now as i64 as f64;
        let idle = self.l1_free <= now_f;
        let (start, first_out) = if idle {
            (now_f, now)
        } else {
            (self.l1_free, memory::ceil(self.l1_free))
        };
        // One line (most requests) takes the quotient computed once: the same value.
        let took = if n == 1 {
            self.l1_line_time
        } else {
            n as f64 / self.t.l1_lines_per_clk
        };
        self.l1_free = start + took;
        self.l1_busy += took;
        // One line into an idle L1 whose line time is whole ends a whole time after
        // `now`: the sum is exact, so its ceiling is the sum, without the rounding.
        let through = match self.l1_line_whole {
            Some(k) if idle && n == 1 => now + k,
            _ => memory::ceil(self.l1_free),
        };
        // (`sp` is below 4: the mask spares the bounds check.)
        let sp = sp & 3;
        self.queue_push(Pipe::Lsu, sp, now, through);
        if S::ENABLED {
            self.emit_busy(slot, Unit::L1, start, self.l1_free);
        }
        first_out
    }

    /// `global_access` for a read through L1 of one line: the same steps, in the same
    /// order, as its loop takes for a request whose only line this is. `sp`: the warp's
    /// sub-partition; `wave_len`: its CTA's wave's length (looked up by the caller).
    #[inline(always)]
    pub(super) fn read_one_line(
        &mut self,
        slot: u32,
        mo: &lower::MemOperand,
        line: u64,
        sectors: u32,
        sp: usize,
        wave_len: u32,
    ) -> u64 {
        let depart = self.enter_l1tex(slot, sp, 1);
        let sharers = self.sharers_in_wave(slot, mo, line, wave_len);
        let (t, level) = self.mem.read_l1_request(sharers, line, sectors, depart);
        self.emit_mem(slot, level, sectors * 32, t, false);
        depart.max(t)
    }
}

/// Whether the TPC partner of CTA `grid_id` (the grid index that differs in bit 0) runs in
/// the wave of `len` CTAs from `first`.
#[inline(always)]
fn partner_in_wave(grid_id: u32, first: u32, len: u32) -> bool {
    (first..first + len).contains(&(grid_id ^ 1))
}
