//! Synchronization: named barriers, mbarriers (arrivals, transaction bytes, phases,
//! waits) and WARPGROUP.ARRIVE.

use super::*;

impl<'a, S: Sink> Engine<'a, S> {
    /// Completes the mbarrier's phase if nothing is pending; its waiters wake `wake`
    /// cycles later (a phase the copy engine completes wakes them sooner than an arrive
    /// from another warp).
    /// (`by_copies`: the last thing the phase lacked was a copy's bytes, not an arrival.)
    pub(super) fn check_phase(&mut self, cta: u32, mbar: u32, wake: f64, by_copies: bool) {
        let m = &mut self.ctas[cta as usize].mbars[mbar as usize];
        if m.pending != 0 || m.tx != 0 {
            if m.pending == 0 && m.tx > 0 {
                self.copies_owed(cta, mbar);
            }
            return;
        }
        let completed_parity = (m.phase & 1) as u32;
        m.phase += 1;
        m.pending = m.count;
        let phase = m.phase;
        if S::ENABLED {
            let id = self.ctas[cta as usize].id;
            self.sink.event(Event::MbarrierPhase {
                cycle: self.now,
                cta: id,
                mbarrier: mbar,
                phase,
            });
        }
        let (now, period) = (self.now, self.t.lat_mbarrier_lane_period as u64);
        let per = self.warps_per_cta;
        for s in cta * per..(cta + 1) * per {
            let w = &mut self.warps[s as usize];
            if w.live
                && w.block
                    == (Block::Mbar {
                        idx: mbar,
                        parity: completed_parity,
                    })
            {
                // A partial warp's wait is not woken: its spin loop's next try to
                // return after the completion, at whole periods from its issue, passes.
                // (A period of 0 is no period: the wait is woken as a whole warp's.)
                let wake = match w.lane_wait_since {
                    since if since != u64::MAX && period > 0 => {
                        since + (now - since).div_ceil(period).max(1) * period
                    }
                    _ => now + wake as u64,
                };
                w.lane_wait_since = u64::MAX;
                // (Woken, it still waits on the phase until it wakes: its span goes on,
                // named by what the phase lacked last.)
                let cause = match w.cause.unpack() {
                    Unpacked::MbarArrivals { mbar: m } | Unpacked::MbarCopies { mbar: m }
                        if m == mbar && w.state == WarpState::LongScoreboard =>
                    {
                        w.cause
                    }
                    _ => Cause::mbar_lacking(mbar, by_copies),
                };
                w.block = Block::until(wake, WarpState::LongScoreboard, cause);
                self.passed_mbar[s as usize] = mbar;
                self.set_until(s, self.now);
            }
        }
    }

    /// The mbarrier's phase has every arrival and lacks only its copies' bytes: the
    /// warps asleep on it from now on wait on the copies, not on arrivals (a new span
    /// for each, with that cause).
    #[cold]
    #[inline(never)]
    pub(super) fn copies_owed(&mut self, cta: u32, mbar: u32) {
        let m = &self.ctas[cta as usize].mbars[mbar as usize];
        let cause = Cause::mbar(m, mbar);
        let per = self.warps_per_cta;
        for s in cta * per..(cta + 1) * per {
            let w = &self.warps[s as usize];
            // (A warp blocked this very cycle, not yet looked at, takes the cause when
            // it is.)
            if w.live
                && matches!(w.block, Block::Mbar { idx, .. } if idx == mbar)
                && w.state == WarpState::LongScoreboard
                && w.state_since <= self.now
                && w.cause != cause
            {
                self.set_state(s, WarpState::LongScoreboard, cause, NEVER);
            }
        }
    }

    /// The fault of an arrive of `count` on the mbarrier `idx` beyond what its phase
    /// lacks: it names that mbarrier, what its phase waits for, and the mbarrier of the
    /// warp's last wait, whose phase let it through (an arrival count below the warps
    /// that arrive on it completes its phases early).
    #[cold]
    pub(super) fn too_many_arrivals(&self, slot: u32, idx: u32, count: i64) -> SimError {
        let cta = self.warps[slot as usize].cta as usize;
        let m = &self.ctas[cta].mbars[idx as usize];
        let (name, el) = self.mbar_name(idx);
        let mut msg = format!(
            "{count} arrivals on {name}[{el}], which expects only {} more in this phase",
            m.pending
        );
        if m.pending == 0 && m.tx > 0 {
            msg += &format!(
                " (its {} arrivals are in; {} transaction bytes have not landed)",
                m.count, m.tx
            );
        }
        let passed = self.passed_mbar[slot as usize];
        if passed != u32::MAX && passed != idx {
            let (pname, pel) = self.mbar_name(passed);
            let p = &self.ctas[cta].mbars[passed as usize];
            let roles = self.arriving_roles(passed);
            let warps: u32 = self
                .prog
                .roles
                .iter()
                .filter(|r| roles.contains(&r.name))
                .map(|r| r.last_warp + 1 - r.first_warp)
                .sum();
            msg += &format!(
                ". The warp got here through a wait on {pname}[{pel}], which counts {} arrivals per phase and is arrived on by {} ({warps} warps per CTA)",
                p.count,
                if roles.is_empty() {
                    "no role".to_string()
                } else {
                    roles.join(", ")
                },
            );
            if p.count < warps {
                msg +=
                    ": with fewer arrivals counted than warps arriving, its phases complete early";
            }
        }
        self.fault_at(slot, &msg)
    }

    pub(super) fn mbar_index(&self, slot: u32, d: &DInstr) -> Result<u32, SimError> {
        let (base, len, idx) = d
            .mbar
            .as_ref()
            .ok_or_else(|| self.fault_at(slot, "no mbarrier operand"))?;
        let i = self.eval(slot, idx)?;
        if i < 0 || i >= *len as i64 {
            return Err(self.fault_at(slot, &format!("mbarrier index {i} is outside 0..{len}")));
        }
        Ok(base + i as u32)
    }

    /// SYNCS init: the mbarrier's count set and its phase restarted.
    pub(super) fn mbar_init(&mut self, slot: u32, d: &'a DInstr) -> Result<(), SimError> {
        let idx = self.mbar_index(slot, d)?;
        let n = self.eval(slot, &d.n)?;
        if n <= 0 || n > i64::from(isa::validate::MAX_MBARRIER_COUNT) {
            return Err(self.fault_at(
                slot,
                &format!(
                    "an mbarrier's count is 1 to {} arrivals per phase, not {n}",
                    isa::validate::MAX_MBARRIER_COUNT
                ),
            ));
        }
        let cta = self.warps[slot as usize].cta as usize;
        let m = &mut self.ctas[cta].mbars[idx as usize];
        m.count = n as u32;
        m.pending = n as u32;
        m.tx = 0;
        Ok(())
    }

    /// SYNCS.ARRIVE: arrivals (and expected transaction bytes) on an mbarrier, which may complete its phase.
    pub(super) fn mbar_arrive(
        &mut self,
        slot: u32,
        d: &'a DInstr,
        now: u64,
        expect_tx: bool,
    ) -> Result<(), SimError> {
        let t = self.t;
        let idx = self.mbar_index(slot, d)?;
        let count = self.eval(slot, &d.n2)?;
        let bytes = if expect_tx { self.eval(slot, &d.n)? } else { 0 };
        let cta = self.warps[slot as usize].cta;
        let pending = self.ctas[cta as usize].mbars[idx as usize].pending;
        if !(0..=MAX_MBARRIER_TX).contains(&bytes) {
            return Err(self.fault_at(
                slot,
                &format!("an arrive expects 0 to {MAX_MBARRIER_TX} transaction bytes (the mbarrier's tx-count is 20 bits), not {bytes}"),
            ));
        }
        if count < 0 || count > i64::from(pending) {
            return Err(self.too_many_arrivals(slot, idx, count));
        }
        // With shared memory's writes one queue (`smem_write_queue`), an arrive reaches
        // the barrier once the stores queued before it are written (`smem_share`).
        let hold = memory::ceil(self.smem_side_free[1]);
        if t.smem_write_queue > 0.0 && hold > now + 1 && count == 1 && bytes == 0 {
            self.push_event(hold, Ev::Arrive { cta, mbar: idx });
            self.block(slot, Block::until(hold, WarpState::Membar, Cause::OWN));
            return Ok(());
        }
        let m = &mut self.ctas[cta as usize].mbars[idx as usize];
        m.tx += bytes;
        m.pending -= count as u32;
        let phase = m.phase;
        self.check_phase(cta, idx, t.lat_mbarrier_wake, false);
        // An arrive that completes the phase reaches the barrier
        // `lat_mbarrier_arrive` after it issues; a warp asleep on the phase wakes
        // `lat_mbarrier_wake` after the issue (which includes it).
        let m = &mut self.ctas[cta as usize].mbars[idx as usize];
        if m.phase != phase {
            m.settled = now + t.lat_mbarrier_arrive as u64;
        }
        Ok(())
    }

    /// SYNCS.PHASECHK.TRYWAIT: asleep until the phase of the parity completes, or the probe's latency if it has.
    /// Issued by part of a warp (`lanes=` below 32) on a phase not yet complete, it ends
    /// at the first whole `lat_mbarrier_lane_period` after its issue that follows the
    /// completion (`data/gaps/lanewait/`).
    pub(super) fn mbar_wait(&mut self, slot: u32, d: &'a DInstr, now: u64) -> Result<(), SimError> {
        let t = self.t;
        let idx = self.mbar_index(slot, d)?;
        let parity = (self.eval(slot, &d.n)? & 1) as u32;
        let cta = self.warps[slot as usize].cta as usize;
        let Mbar { phase, settled, .. } = self.ctas[cta].mbars[idx as usize];
        // try_wait.parity P passes once the phase with parity P has completed,
        // i.e. while the current phase's parity differs from P.
        let lanes = self.eval(slot, &d.n2)?;
        if !(1..=32).contains(&lanes) {
            return Err(self.fault_at(
                slot,
                &format!("a TRYWAIT is issued by 1 to 32 lanes of its warp, not {lanes}"),
            ));
        }
        if (phase & 1) as u32 == parity {
            // Fewer than 32 lanes: the rest of the warp waits at the end of the region
            // (`if (lane == 0)`), and the try_wait is not woken by the phase
            // (`check_phase`). A phase complete at issue is probed as by a whole warp.
            self.warps[slot as usize].lane_wait_since = if lanes < 32 { now } else { u64::MAX };
            self.block(slot, Block::Mbar { idx, parity });
        } else {
            self.passed_mbar[slot as usize] = idx;
            // The phase has completed: the warp still waits for the probe's
            // predicate (SYNCS.PHASECHK's result), as for any L1TEX-side result;
            // a probe right behind the arrive that completed the phase reads the
            // barrier once that arrive has reached it.
            self.block(
                slot,
                Block::until(
                    now.max(settled) + t.lat_mbarrier_probe as u64,
                    WarpState::LongScoreboard,
                    Cause::OWN,
                ),
            );
        }
        Ok(())
    }

    /// WARPGROUP.ARRIVE: the warpgroup's four warps gather; the last releases them.
    pub(super) fn warpgroup_arrive(&mut self, slot: u32, now: u64) -> Result<(), SimError> {
        let w = &self.warps[slot as usize];
        let (cta, wg) = (w.cta as usize, (w.warp / 4) as usize);
        if wg >= 8 {
            return Err(self.fault_at(slot, "warpgroup index beyond 8"));
        }
        self.ctas[cta].wg_arrived[wg] += 1;
        if self.ctas[cta].wg_arrived[wg] == 4 {
            self.ctas[cta].wg_arrived[wg] = 0;
            let base = cta as u32 * self.warps_per_cta + wg as u32 * 4;
            for s in base..base + 4 {
                if self.warps[s as usize].block == Block::WgArrive {
                    self.warps[s as usize].block =
                        Block::until(now + 1, WarpState::Gmma, Cause::warpgroup(wg as u32));
                    // A warp due this very cycle on a later sub-partition keeps its turn.
                    let due = self.until[self.until_index(s)].min(now + 1);
                    self.set_until(s, due);
                }
            }
        } else {
            self.block(slot, Block::WgArrive);
        }
        Ok(())
    }

    /// UCGABAR_ARV: the warp arrives on its cluster's barrier. The cluster's other CTAs
    /// run on other SMs, and are taken to arrive when this one does (they run the same
    /// code): the phase completes when every warp of the CTA has arrived, and lets its
    /// waiters go `lat_cluster_barrier` later, the round trip between the SMs.
    pub(super) fn cluster_arrive(&mut self, slot: u32, now: u64) {
        let w = &mut self.warps[slot as usize];
        w.cga_arrivals += 1;
        let c = w.cta;
        let cta = &mut self.ctas[c as usize];
        cta.cga_arrived += 1;
        if cta.cga_arrived < self.warps_per_cta {
            return;
        }
        cta.cga_arrived = 0;
        cta.cga_phases += 1;
        let release = now + self.t.lat_cluster_barrier as u64;
        cta.cga_release = release;
        let per = self.warps_per_cta;
        for s in c * per..(c + 1) * per {
            if self.warps[s as usize].live && self.warps[s as usize].block == Block::Cluster {
                self.warps[s as usize].block =
                    Block::until(release, WarpState::Barrier, Cause::OWN);
                let due = self.until[self.until_index(s)].min(now + 1);
                self.set_until(s, due);
            }
        }
    }

    /// UCGABAR_WAIT: the warp waits for the phase of its last arrival.
    pub(super) fn cluster_wait(&mut self, slot: u32, now: u64) -> Result<(), SimError> {
        let w = &self.warps[slot as usize];
        if w.cga_arrivals == 0 {
            return Err(self.fault_at(
                slot,
                "UCGABAR_WAIT before any UCGABAR_ARV: the warp waits for a cluster-barrier phase it never arrived on",
            ));
        }
        let cta = &self.ctas[w.cta as usize];
        if cta.cga_phases >= w.cga_arrivals {
            if cta.cga_release > now + 1 {
                let release = cta.cga_release;
                self.block(slot, Block::until(release, WarpState::Barrier, Cause::OWN));
            }
        } else {
            self.block(slot, Block::Cluster);
        }
        Ok(())
    }

    /// BAR.SYNC / BAR.ARRIVE: an arrival on a named barrier; the last releases its waiters.
    pub(super) fn named_barrier(
        &mut self,
        slot: u32,
        d: &'a DInstr,
        now: u64,
    ) -> Result<(), SimError> {
        let t = self.t;
        let id = self.eval(slot, &d.n)?;
        let threads = self.eval(slot, &d.n2)?;
        if !(0..16).contains(&id) {
            return Err(self.fault_at(slot, &format!("barrier id {id} is outside 0..15")));
        }
        if threads <= 0 || threads % 32 != 0 || threads > self.kernel.launch.cta_threads as i64 {
            return Err(self.fault_at(slot, &format!("barrier thread count {threads} must be a positive multiple of 32 up to the CTA's {}", self.kernel.launch.cta_threads)));
        }
        let cta = self.warps[slot as usize].cta as usize;
        let b = &mut self.ctas[cta].bars[id as usize];
        b.expected = (threads / 32) as u32;
        b.arrived += 1;
        b.counted_at = b.counted_at.max(now as f64) + t.bar_arrive_cycles_per_warp;
        if b.arrived >= b.expected {
            b.arrived = 0;
            let release = (b.counted_at.ceil() as u64).max(now) + t.lat_bar as u64;
            let per = self.warps_per_cta;
            for s in cta as u32 * per..(cta as u32 + 1) * per {
                if self.warps[s as usize].block == (Block::Barrier { id: id as u32 }) {
                    // (Released, it still waits on the barrier: the same span.)
                    self.warps[s as usize].block =
                        Block::until(release, WarpState::Barrier, Cause::barrier(id as u32));
                    // A warp due this very cycle on a later sub-partition keeps its turn.
                    let due = self.until[self.until_index(s)].min(now + 1);
                    self.set_until(s, due);
                }
            }
            if d.kind == Kind::BarSync {
                self.block(
                    slot,
                    Block::until(release, WarpState::Barrier, Cause::barrier(id as u32)),
                );
            }
            if S::ENABLED {
                self.sink.event(Event::BarrierRelease {
                    cycle: now,
                    cta: self.ctas[cta].id,
                    id: id as u32,
                });
            }
        } else if d.kind == Kind::BarSync {
            self.block(slot, Block::Barrier { id: id as u32 });
        }
        Ok(())
    }
}
