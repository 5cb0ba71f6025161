//! The async units: TMA copies, warpgroup MMAs (HGMMA) and tcgen05 MMAs, each booking
//! its unit and telling its completion to an mbarrier or a wait group.

use super::*;

impl<'a, S: Sink> Engine<'a, S> {
    /// A bulk or tensor copy (UTMALDG, UBLKCP, UTMASTG...): its box checked, the TMA unit booked, its lines read or written, and a load's bytes counted against its mbarrier when they land.
    pub(super) fn tma_copy(&mut self, slot: u32, d: &'a DInstr, now: u64) -> Result<(), SimError> {
        let t = self.t;
        let bytes = self.eval(slot, &d.n)?;
        if bytes <= 0 || bytes % 16 != 0 {
            return Err(self.fault_at(
                slot,
                &format!("a bulk copy moves a positive multiple of 16 bytes, not {bytes}"),
            ));
        }
        let (gi, si) = if d.kind == Kind::TmaLoad {
            (1, 0)
        } else {
            (0, 1)
        };
        // A tensor copy's box: `rows` rows of `row` bytes, `pitch` apart.
        let (row, pitch) = match &d.tensor_box {
            Some((row, pitch)) => (self.eval(slot, row)?, self.eval(slot, pitch)?),
            None => (bytes, bytes),
        };
        if row <= 0 || bytes % row != 0 || pitch < row {
            return Err(self.fault_at(
                slot,
                &format!("a box of {bytes} bytes in rows of {row} bytes, {pitch} apart, is not a whole number of rows at least a row apart"),
            ));
        }
        let rows = bytes / row;
        // (The pitch is the kernel's expression: its box may reach past any
        // buffer, even past what an i64 counts.)
        let Some(extent) = (rows - 1)
            .checked_mul(pitch)
            .and_then(|x| x.checked_add(row))
        else {
            return Err(self.fault_at(
                slot,
                &format!("a box of {rows} rows {pitch} bytes apart spans more bytes than any buffer holds"),
            ));
        };
        let gaddr = {
            let g = &d.mem[gi];
            let off = self.eval(slot, &g.addr)?;
            let b = g.base as usize;
            if off < 0 || off as u64 + extent as u64 > self.buffer_size[b] {
                return Err(self.fault_at(
                    slot,
                    &format!(
                        "the copy covers bytes {off}..{} of buffer `{}`, which has {} bytes",
                        i128::from(off) + i128::from(extent),
                        self.kernel.buffers[b].name,
                        self.buffer_size[b]
                    ),
                ));
            }
            self.buffer_base[b] + off as u64
        };
        let soff = self.eval(slot, &d.mem[si].addr)?;
        if soff < 0 || soff as u64 + bytes as u64 > self.kernel.launch.smem as u64 {
            return Err(self.fault_at(
                slot,
                &format!(
                    "the copy covers shared bytes {soff}..{}, beyond the CTA's {} bytes",
                    i128::from(soff) + i128::from(bytes),
                    self.kernel.launch.smem
                ),
            ));
        }
        let start = self.tma_free.max(now as f64);
        // A store drains shared memory about a third as fast as a load fills it (H100:
        // 32 against 106 B/clk), and holds the unit as long: loads behind it wait.
        let rate = if d.kind == Kind::TmaLoad {
            t.tma_bytes_per_clk
        } else {
            t.tma_store_bytes_per_clk
        };
        let busy = t.tma_issue_cycles + bytes as f64 / rate;
        self.tma_free = start + busy;
        self.tma_busy += busy;
        let s = memory::ceil(start);
        let mut done = memory::ceil(self.tma_free);
        // A store has read its shared memory when the unit has moved its bytes.
        let read = done;
        let first = gaddr / LINE;
        let last = (gaddr + bytes as u64 - 1) / LINE;
        let sharers = if d.kind == Kind::TmaLoad {
            self.sharers(slot, &d.mem[gi], first)
        } else {
            1
        };
        self.mem.begin_request(sharers);
        if d.multicast && d.kind == Kind::TmaLoad {
            self.mem.multicast(self.kernel.launch.cluster);
        }
        if d.kind == Kind::TmaLoad {
            // Row by row, in the order the TMA unit walks the box.
            for r in 0..rows as u64 {
                let from = gaddr + r * pitch as u64;
                done = self.mem.read_l2_lines(
                    from / LINE,
                    (from + row as u64 - 1) / LINE,
                    s,
                    done,
                    &mut self.mem_requests,
                );
            }
            // A box of one-line rows a pitch apart costs HBM more than its lines (longer
            // rows were not measured to: `hbm_tma_box_bytes`).
            if rows > 1 && pitch > row && row as u64 <= LINE {
                self.mem.box_read(s, rows as u64);
            }
        } else {
            for line in first..=last {
                let dn = self.mem.write(line, 4, s, false);
                self.mem_requests[memory::level_index(MemLevel::L2Near)] += 1;
                done = done.max(dn);
            }
        }
        // Its bytes through shared memory: written there as its lines land (a load), or
        // read from there as the unit moves them (a store), beside LDS and STS.
        if t.smem_copy_cost > 0.0 && d.kind == Kind::TmaLoad {
            // into shared memory: its bytes land with its lines (`smem_share`)
            let booked = bytes as f64 * t.smem_copy_cost / t.smem_bytes_per_clk;
            let unit = (start, self.tma_free);
            self.copy_lands(
                slot,
                d.mem[si].base + soff as u64,
                bytes,
                booked,
                unit,
                done,
            );
        } else if t.smem_copy_cost > 0.0 {
            // out of shared memory: read while the unit drains it (`smem_share`)
            let booked = bytes as f64 * t.smem_copy_cost / t.smem_bytes_per_clk;
            self.store_reads(slot, booked, start, self.tma_free);
        }
        // A copy completes no sooner than `tma_min_latency` after its turn, however few
        // its lines; a tensor load's box is addressed from its tensor map meanwhile, which
        // raises that floor by `tma_tensor_extra_latency` and hides behind the lines of a
        // larger copy (H100, the 15 GPUs' medians: tensor copies from L2 8, 13 and 10.5
        // cycles slower than bulk ones at 1, 2 and 4 KiB, -3 to +2.5 from 8 KiB on).
        let floor = if d.op == Op::Utmaldg {
            t.tma_min_latency + t.tma_tensor_extra_latency
        } else {
            t.tma_min_latency
        };
        done = done.max(s + floor as u64) + t.tma_extra_latency as u64;
        if S::ENABLED {
            let id = self.wid(slot);
            self.sink.event(Event::UnitBusy {
                start: s,
                end: memory::ceil(self.tma_free),
                unit: Unit::Tma,
                warp: id,
            });
            self.sink.event(Event::Memory {
                cycle: s,
                done,
                warp: id,
                level: MemLevel::L2Near,
                bytes: bytes as u32,
                write: d.kind == Kind::TmaStore,
            });
        }
        if d.kind == Kind::TmaLoad {
            let mbar = self.mbar_index(slot, d)?;
            let cta = self.warps[slot as usize].cta;
            self.push_event(
                done,
                Ev::TxComplete {
                    cta,
                    mbar,
                    bytes: bytes as u32,
                },
            );
        } else {
            let w = &mut self.warps[slot as usize];
            w.bulk_store.add(done);
            w.bulk_read.add(read);
            w.outstanding = w.outstanding.max(done);
        }
        Ok(())
    }

    /// HGMMA: a warpgroup MMA on the SM's tensor pipe, booked once for the four warps.
    pub(super) fn hgmma(
        &mut self,
        slot: u32,
        d: &'a DInstr,
        now: u64,
        sp: usize,
        commit: bool,
    ) -> Result<(), SimError> {
        let t = self.t;
        let shape = d.mma.expect("decoded");
        let flops = shape.flops() as f64 / 4.0;
        let rate = t.tensor_flops_per_clk_sm / 4.0 * shape.ab.rate_vs_f16();
        let cycles = (flops / rate).ceil() as u64;
        // A warpgroup MMA is one operation of its four warps: the first of them
        // to issue it books the tensor pipe of all four sub-partitions, and the
        // others take the same slot. So every sub-partition runs the warpgroups'
        // MMAs in one order, as the SM's tensor cores do.
        let (cta, wg) = {
            let w = &mut self.warps[slot as usize];
            w.hgmma_issued += 1;
            (w.cta as usize, (w.warp / 4) as usize % 8)
        };
        let seq = self.warps[slot as usize].hgmma_issued;
        let booking = &mut self.ctas[cta].wg_mma[wg][seq as usize % MMA_BOOKINGS];
        let start = if booking.seq == seq {
            booking.start
        } else {
            let start = self.tensor_free.iter().copied().max().unwrap_or(0).max(now);
            *booking = MmaBooking { seq, start };
            for f in &mut self.tensor_free {
                *f = start + cycles;
            }
            start
        };
        self.tensor_busy[sp] += cycles;
        self.queue_push(Pipe::Tensor, sp, now, start);
        let done = start + cycles + t.hgmma_latency as u64;
        if S::ENABLED {
            let id = self.wid(slot);
            self.sink.event(Event::UnitBusy {
                start,
                end: start + cycles,
                unit: Unit::Pipe {
                    pipe: Pipe::Tensor,
                    subpartition: sp as u8,
                },
                warp: id,
            });
        }
        let w = &mut self.warps[slot as usize];
        w.wgmma.add(done);
        // (A warp that exits without waiting for it drains until its
        // accumulators are written: they are its registers.)
        w.outstanding = w.outstanding.max(done);
        if commit {
            w.wgmma.commit(now);
        }
        Ok(())
    }

    /// tcgen05 MMA (UTCMMA): the tensor pipe of every sub-partition, until its result is in tensor memory.
    pub(super) fn utcmma(&mut self, slot: u32, d: &'a DInstr, now: u64) -> Result<(), SimError> {
        let t = self.t;
        let shape = d.mma.expect("decoded");
        let rate = t.tensor_flops_per_clk_sm * shape.ab.rate_vs_f16();
        let mut cycles = shape.flops() as f64 / rate;
        let scale = shape.m as f64 / 128.0;
        if !d.mma_a_not_smem {
            cycles = cycles.max((t.utcmma_smem_base_cycles + shape.n as f64 / 4.0) * scale);
        }
        let cycles = cycles.ceil() as u64;
        let start = self.tensor_free.iter().copied().max().unwrap_or(0).max(now);
        for s in 0..4 {
            self.tensor_free[s] = start + cycles;
            self.tensor_busy[s] += cycles;
        }
        let lat = if d.mma_a_not_smem {
            t.utcmma_latency_tmem_a
        } else {
            t.utcmma_latency_smem_a
        };
        let w = &mut self.warps[slot as usize];
        w.utc_done = w.utc_done.max(start + cycles + lat as u64);
        Ok(())
    }
}
