//! The benchmarks: launches, raw timings, derived repetitions.

use crate::gpu::{DevBuf, Event, Func, Gpu, Module, Result, arg};
use crate::schema::{
    self, BenchError, Benchmark, KernelInfo, Measurement, Provenance, SourceRecord,
};
use crate::sources::{self};
use crate::{CollectError, CollectOptions, nvrtc};
use cudarc::driver::sys::{CUdevice_attribute as DA, CUfunction_attribute as FA};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::ffi::c_void;
use std::time::Instant;

pub(crate) const KIB: u64 = 1024;
pub(crate) const MIB: u64 = 1024 * 1024;
pub(crate) const GIB: u64 = 1024 * MIB;
/// Arena for chases, bulk copies and bandwidth: larger than L2 by far.
pub(crate) const ARENA: u64 = GIB;
/// Written before every cold (HBM) measurement to push the arena out of L2.
pub(crate) const FLUSH: u64 = 256 * MIB;
/// Output buffer for raw timings.
pub(crate) const OUT_BYTES: u64 = 16 * MIB;

pub(crate) struct Kernel {
    pub(crate) func: Func,
    pub(crate) source: String,
}

pub(crate) struct Runner {
    pub(crate) gpu: Gpu,
    pub(crate) quick: bool,
    pub(crate) only: Vec<String>,
    pub(crate) hbm_launches: u32,
    pub(crate) clean_flush: bool,
    pub(crate) flush_settle_us: u32,
    pub(crate) sm_count: u32,
    pub(crate) kernels: HashMap<String, Kernel>,
    pub(crate) _modules: Vec<Module>,
    pub(crate) benchmarks: Vec<Benchmark>,
    pub(crate) errors: Vec<BenchError>,
    pub(crate) out: DevBuf,
    pub(crate) sink: DevBuf,
    pub(crate) err: DevBuf,
    pub(crate) arena: DevBuf,
    pub(crate) flush: DevBuf,
    pub(crate) clock_mhz: Option<f64>,
    pub(crate) sticky: bool,
}

pub(crate) fn v<T: serde::Serialize>(x: T) -> Value {
    json!(x)
}

pub(crate) fn med(x: &[f64]) -> f64 {
    schema::median(x).unwrap_or(f64::NAN)
}

/// A deterministic permutation of 0..n (xorshift64* Fisher-Yates).
pub(crate) fn permutation(n: usize, seed: u64) -> Vec<u32> {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        s.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut p: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        p.swap(i, j);
    }
    p
}

/// The repetition counts of a copy-latency benchmark's launches: from L2 (`cold` false) a
/// warm-up launch of two copies, then the timed one; from HBM only the timed one.
pub(crate) fn warm_then_timed(cold: bool, reps: i32) -> impl Iterator<Item = i32> {
    (!cold).then_some(2).into_iter().chain([reps])
}

pub(crate) fn fmt_bytes(b: u64) -> String {
    if b >= GIB && b.is_multiple_of(GIB) {
        format!("{}GiB", b / GIB)
    } else if b >= MIB && b.is_multiple_of(MIB) {
        format!("{}MiB", b / MIB)
    } else {
        format!("{}KiB", b / KIB)
    }
}

/// Per-block records of 5 u64: clock64 start/end, globaltimer start/end, SM id.
pub(crate) struct BlockTimes {
    pub(crate) c: Vec<f64>,
    pub(crate) g: Vec<f64>,
    pub(crate) g0: Vec<f64>,
    pub(crate) g1: Vec<f64>,
    pub(crate) smids: Vec<u64>,
}

impl BlockTimes {
    pub(crate) fn parse(raw: &[u64]) -> Self {
        let mut c = Vec::new();
        let mut g = Vec::new();
        let mut smids = Vec::new();
        let (mut g0, mut g1) = (Vec::new(), Vec::new());
        for r in raw.chunks_exact(5) {
            c.push(r[1].wrapping_sub(r[0]) as f64);
            g.push(r[3].wrapping_sub(r[2]) as f64);
            g0.push(r[2] as f64);
            g1.push(r[3] as f64);
            smids.push(r[4]);
        }
        BlockTimes {
            c,
            g,
            g0,
            g1,
            smids,
        }
    }
    /// Median over blocks of clock64 cycles per globaltimer ns, in MHz.
    pub(crate) fn mhz(&self) -> f64 {
        let f: Vec<f64> = self
            .c
            .iter()
            .zip(&self.g)
            .filter(|(_, g)| **g > 0.0)
            .map(|(c, g)| c / g * 1e3)
            .collect();
        med(&f)
    }
    /// Kernel-wide span in ns: latest end minus earliest start (%globaltimer is global).
    pub(crate) fn span_ns(&self) -> f64 {
        let start = self.g0.iter().copied().fold(f64::INFINITY, f64::min);
        let end = self.g1.iter().copied().fold(0.0, f64::max);
        end - start
    }
    pub(crate) fn max_cycles(&self) -> f64 {
        self.c.iter().copied().fold(0.0, f64::max)
    }
    pub(crate) fn max_ns(&self) -> f64 {
        self.g.iter().copied().fold(0.0, f64::max)
    }
    pub(crate) fn distinct_sms(&self) -> usize {
        let mut s = self.smids.clone();
        s.sort_unstable();
        s.dedup();
        s.len()
    }
}

pub(crate) struct Rec<'a> {
    pub(crate) name: String,
    pub(crate) group: &'a str,
    pub(crate) unit: &'a str,
    pub(crate) kernel: &'a str,
    pub(crate) method: &'a str,
    pub(crate) params: Vec<(&'a str, Value)>,
    pub(crate) reps: Vec<f64>,
    pub(crate) extra: Vec<(&'a str, Value)>,
}

/// Opens GPU 0, compiles and loads the sources, runs the sections and returns the
/// measurement. Long because it is one sequence whose order is part of the protocol (the
/// sections' order decides the GPU's state before each one); the sections themselves
/// live in `families/`.
pub(crate) fn run(opts: &CollectOptions, date_utc: String) -> Result<Measurement> {
    let t_start = Instant::now();
    let gpu = Gpu::open()?;
    let name = gpu.name()?;
    let cc = (
        gpu.attr(DA::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        gpu.attr(DA::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
    );
    let sm_count = gpu.attr(DA::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let l2 = gpu.attr(DA::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?;
    let smem_optin = gpu.attr(DA::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?;
    let opt_attr = |a| gpu.attr(a).ok().filter(|x| *x > 0).map(i64::from);
    let clock_attr = opt_attr(DA::CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    let mem_clock_attr = opt_attr(DA::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    let bus = opt_attr(DA::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    let drv = crate::gpu::driver_version()?;
    let nvrtc_version = nvrtc::version()?;
    let arch = crate::arch_for(cc);
    eprintln!(
        "[calibrate] {name}, cc {}.{}, {sm_count} SMs, L2 {} MiB, driver API {drv}, NVRTC {nvrtc_version}, arch {arch}",
        cc.0,
        cc.1,
        l2 / (1024 * 1024)
    );

    // compile and load
    let mut sources_out = Vec::new();
    let mut kernels = HashMap::new();
    let mut modules = Vec::new();
    let mut errors = Vec::new();
    let mut kinfo = Vec::new();
    let mut list = if opts.validation {
        sources::validation()
    } else {
        sources::for_arch(&arch)
    };
    // The model gaps' kernels (opt-in, `--only gaps`): a default collect is unchanged.
    let gaps = opts.only.iter().any(|o| o.starts_with("gaps"));
    if gaps && !opts.validation {
        list.push(("gaps", crate::families::gaps::source()));
    }
    for (sname, text, res) in crate::compile_sources(list, &arch, opts.dump_dir.as_deref())? {
        let (log, kind) = match &res {
            Ok(c) => (c.log.clone(), c.kind.clone()),
            Err(e) => (e.to_string(), "none".to_string()),
        };
        sources_out.push(SourceRecord {
            name: sname.clone(),
            hash_algo: "fnv1a-64".into(),
            hash: schema::fnv1a64(&text),
            text: text.clone(),
            compile_log: log,
            image_kind: kind,
        });
        let c = match res {
            Ok(c) => c,
            Err(e) => {
                errors.push(BenchError {
                    name: format!("compile.{sname}"),
                    error: e.to_string(),
                });
                continue;
            }
        };
        let module = match gpu.load(&c.image) {
            Ok(m) => m,
            Err(e) => {
                errors.push(BenchError {
                    name: format!("load.{sname}"),
                    error: e.to_string(),
                });
                continue;
            }
        };
        for kname in kernel_names(&text) {
            match module.func(&kname) {
                Ok(func) => {
                    kinfo.push(KernelInfo {
                        name: kname.clone(),
                        source: sname.clone(),
                        num_regs: func.attr(FA::CU_FUNC_ATTRIBUTE_NUM_REGS).unwrap_or(-1),
                        local_bytes: func
                            .attr(FA::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
                            .unwrap_or(-1),
                        static_smem_bytes: func
                            .attr(FA::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
                            .unwrap_or(-1),
                    });
                    kernels.insert(
                        kname,
                        Kernel {
                            func,
                            source: sname.clone(),
                        },
                    );
                }
                Err(e) => errors.push(BenchError {
                    name: format!("function.{kname}"),
                    error: e.to_string(),
                }),
            }
        }
        modules.push(module);
    }
    eprintln!(
        "[calibrate] {} kernels loaded in {:.1} s",
        kernels.len(),
        t_start.elapsed().as_secs_f64()
    );

    let out = gpu.alloc(OUT_BYTES as usize)?;
    let sink = gpu.alloc(16 * MIB as usize)?;
    let err = gpu.alloc(4096)?;
    let arena = gpu.alloc(ARENA as usize)?;
    let flush = gpu.alloc(FLUSH as usize)?;
    let mut r = Runner {
        gpu,
        quick: opts.quick,
        only: opts.only.clone(),
        hbm_launches: opts.hbm_launches.max(1),
        clean_flush: opts.clean_flush,
        flush_settle_us: opts.flush_settle_us,
        sm_count: sm_count as u32,
        kernels,
        _modules: modules,
        benchmarks: Vec::new(),
        errors,
        out,
        sink,
        err,
        arena,
        flush,
        clock_mhz: None,
        sticky: false,
    };

    if opts.validation {
        // clock kernels live in the micro source, which a validation run does not load
        r.section("validation.latency_hiding", Runner::val_latency_hiding);
        r.section("validation.gemm_mainloop", Runner::val_gemm_mainloop);
        r.section("validation.elementwise", Runner::val_elementwise);
        r.section("validation.singe", Runner::val_singe);
        // Opt-in (`--only gemm_mainloop,gemm_l2`): the gemm kernels under other L2 states.
        if opts.only.iter().any(|o| o.starts_with("gemm_l2")) {
            r.section("validation.gemm_l2", Runner::val_gemm_l2);
        }
    } else {
        r.section("clock.light", Runner::clock_light);
        r.section("lat.alu", Runner::lat_alu);
        r.section("lat.lds", Runner::lat_lds);
        r.section("lat.bar_sync", Runner::lat_barsync);
        r.section("lat.mbarrier", Runner::lat_mbarrier);
        r.section("lat.ldg", Runner::lat_ldg);
        r.section("lat.ldg_lines", Runner::lat_ldg_lines);
        r.section("lat.ldgsts", Runner::lat_ldgsts);
        r.section("lat.bulk", Runner::lat_bulk);
        r.section("lat.tma", Runner::lat_tma);
        r.section("lat.wgmma", Runner::lat_wgmma);
        r.section("tp.wgmma_pair", Runner::tp_wgmma_pair);
        r.section("tp.wgmma_var", Runner::tp_wgmma_var);
        r.section("tp.wgmma_slices", Runner::tp_wgmma_slices);
        r.section("tp.alu", Runner::tp_alu);
        r.section("tp.lds", Runner::tp_lds);
        r.section("mio", Runner::mio);
        r.section("sched", Runner::sched);
        r.section("uni", Runner::uni);
        r.section("bw.ldg", Runner::bw_ldg);
        r.section("bw.tma", Runner::bw_tma);
        r.section("regbank", Runner::regbank);
        r.section("clock.tensor", Runner::clock_tensor);
        r.section("clock.light_after", Runner::clock_light_after);
        if sources::is_blackwell(&arch) {
            r.section("tcgen05", Runner::tcgen05);
        }
        if gaps {
            r.section("gaps.smem_bw", Runner::gaps_smem_bw);
            r.section("gaps.cluster", Runner::gaps_cluster);
            r.section("gaps.commit", Runner::gaps_commit);
            r.section("gaps.copy_wait", Runner::gaps_copy_wait);
            r.section("gaps.clock", Runner::gaps_clock);
            r.section("gaps.phase", Runner::gaps_phase);
            r.section("gaps.stream", Runner::gaps_stream);
            r.section("gaps.loaded", Runner::gaps_loaded);
            r.section("gaps.l1sets", Runner::gaps_l1sets);
            r.section("gaps.share", Runner::gaps_share);
            r.section("gaps.const", Runner::gaps_const);
            r.section("gaps.shape", Runner::gaps_shape);
            r.section("gaps.shape_stream", Runner::gaps_shape_stream);
            r.section("gaps.ctx", Runner::gaps_ctx);
            r.section("gaps.l1_spread", Runner::gaps_l1_spread);
            r.section("gaps.l1hide", Runner::gaps_l1hide);
            r.section("gaps.l1trap", Runner::gaps_l1trap);
        }
        // Opt-in (`--only map.hbm`, `--only tp.own_lines`): exploratory, not fitted.
        if opts.only.iter().any(|o| o.starts_with("map.hbm")) {
            r.section("map.hbm", Runner::map_hbm);
        }
        if opts.only.iter().any(|o| o.starts_with("tp.own_lines")) {
            r.section("tp.own_lines", Runner::tp_own_lines);
        }
    }

    let provenance = Provenance {
        tool: "calibrate-collect".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        date_utc,
        gpu_name: name,
        compute_capability: [cc.0, cc.1],
        sm_count,
        l2_bytes: i64::from(l2),
        total_mem_bytes: r.gpu.total_mem()?,
        max_smem_per_block_optin: i64::from(smem_optin),
        driver_api_version: drv,
        cuda_version: format!("{}.{}", drv / 1000, (drv % 1000) / 10),
        nvrtc_version,
        clock_rate_khz_attr: clock_attr,
        mem_clock_rate_khz_attr: mem_clock_attr,
        mem_bus_width_bits: bus,
        sm_clock_mhz_measured: r.clock_mhz,
        compile_options: nvrtc::options_for(&arch),
        arch,
        quick: opts.quick,
        command: opts.command.clone(),
        notes: vec![format!(
            "run took {:.1} s; cycles are SM clock64 cycles; per-SM kernels ran on whichever SM the \
             scheduler chose",
            t_start.elapsed().as_secs_f64()
        )],
    };
    eprintln!(
        "[calibrate] done: {} benchmarks, {} errors, {:.1} s",
        r.benchmarks.len(),
        r.errors.len(),
        t_start.elapsed().as_secs_f64()
    );
    Ok(Measurement {
        schema: schema::SCHEMA.into(),
        provenance,
        sources: sources_out,
        kernels: kinfo,
        benchmarks: r.benchmarks,
        errors: r.errors,
    })
}

/// Names of the `extern "C" __global__` kernels in a source text.
pub(crate) fn kernel_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in text.lines() {
        let mut l = line.trim_start().to_string();
        if !l.starts_with("extern \"C\" __global__") {
            continue;
        }
        // drop `__launch_bounds__(...)` and `__cluster_dims__(...)`
        for attr in ["__launch_bounds__(", "__cluster_dims__("] {
            if let Some(s) = l.find(attr)
                && let Some(e) = l[s..].find(')')
            {
                l.replace_range(s..s + e + 1, "");
            }
        }
        // the name is the identifier just before the first '('
        if let Some(open) = l.find('(') {
            let head = &l[..open];
            if let Some(n) = head.split_whitespace().last()
                && n != "NAME"
            {
                names.push(n.to_string());
            }
        }
    }
    // kernels stamped out by macros: NAME(args) lines at the top level
    for line in text.lines() {
        for (mac, _) in [
            ("LAT_CHAIN(", 0),
            ("CHASE(", 0),
            ("CHASE_LINES(", 0),
            ("LDGSTS(", 0),
            ("TP_KERNEL(", 0),
            ("TP_LDS(", 0),
            ("VH_CHASE(", 0),
            ("RB_KERNEL(", 0),
            ("MIO_LAT(", 0),
            ("MIO_TP(", 0),
            ("UNI_LAT(", 0),
            ("CHASE_OWN(", 0),
            ("TC_MMA_LAT(", 0),
            ("GAP_L1_HIDE(", 0),
            ("GAP_L1_TRAP(", 0),
        ] {
            if let Some(rest) = line.strip_prefix(mac)
                && let Some(end) = rest.find(',')
            {
                names.push(rest[..end].trim().to_string());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

impl Runner {
    pub(crate) fn section(&mut self, name: &str, f: fn(&mut Runner) -> Result<()>) {
        if !self.only.is_empty() && !self.only.iter().any(|o| name.contains(o.as_str())) {
            return;
        }
        if self.sticky {
            self.errors.push(BenchError {
                name: name.into(),
                error: "skipped: an earlier failure left the context unusable".into(),
            });
            return;
        }
        let t0 = Instant::now();
        let before = self.benchmarks.len();
        let res = f(self);
        eprintln!(
            "[calibrate] {name}: {} benchmarks in {:.2} s{}",
            self.benchmarks.len() - before,
            t0.elapsed().as_secs_f64(),
            match &res {
                Ok(()) => String::new(),
                Err(e) => format!(", ERROR {e}"),
            }
        );
        if let Err(e) = res {
            self.errors.push(BenchError {
                name: name.into(),
                error: e.to_string(),
            });
            // a failed launch or memory fault poisons the context: stop running kernels
            if self.gpu.sync().is_err() {
                self.sticky = true;
            }
        }
    }

    pub(crate) fn k(&self, name: &str) -> Result<&Kernel> {
        self.kernels
            .get(name)
            .ok_or_else(|| CollectError::Driver(format!("kernel {name} is not loaded")))
    }

    pub(crate) fn launch(
        &self,
        kname: &str,
        grid: u32,
        block: u32,
        smem: u32,
        args: &[*mut c_void],
    ) -> Result<()> {
        let k = self.k(kname)?;
        k.func.launch(grid, block, smem, args)?;
        self.gpu.sync()
    }

    /// Launch bracketed by events; returns milliseconds.
    pub(crate) fn launch_timed(
        &self,
        kname: &str,
        grid: u32,
        block: u32,
        smem: u32,
        args: &[*mut c_void],
    ) -> Result<f64> {
        let k = self.k(kname)?;
        let (e0, e1) = (Event::new()?, Event::new()?);
        e0.record()?;
        k.func.launch(grid, block, smem, args)?;
        e1.record()?;
        let ms = e0.elapsed_ms(&e1)?;
        self.gpu.sync()?;
        Ok(ms)
    }

    pub(crate) fn out_u64(&self, n: usize) -> Result<Vec<u64>> {
        self.out.download::<u64>(n)
    }

    pub(crate) fn clear_err(&self) -> Result<()> {
        self.err.fill_u32(0)
    }

    pub(crate) fn check_err(&self, what: &str) -> Result<()> {
        let e = self.err.download::<i32>(4)?;
        if e.iter().any(|x| *x != 0) {
            return Err(CollectError::Timeout(format!("{what}: device flag {e:?}")));
        }
        Ok(())
    }

    /// The parameters that say whether (and how) L2 was flushed before a benchmark.
    pub(crate) fn flush_params(&self, cold: bool) -> Vec<(&'static str, Value)> {
        let mut p = vec![("l2_flushed_before", v(cold))];
        if cold && self.clean_flush {
            p.push(("l2_flush", v("memset, then read back: L2 left clean")));
        }
        if cold && self.flush_settle_us > 0 {
            p.push(("flush_settle_us", v(self.flush_settle_us)));
        }
        p
    }

    /// Pushes L2 out by writing a buffer several times its size; with `clean_flush`, then
    /// reads that buffer back (every SM streaming), so that the lines left in L2 are clean
    /// and the write-back of the dirty ones is over before the next launch; with
    /// `flush_settle_us`, then waits that long on the host.
    pub(crate) fn flush_l2(&self) -> Result<()> {
        self.flush.fill_u32(0x5a5a_5a5a)?;
        if self.clean_flush {
            let grid = self.sm_count * self.k("bw_ld")?.func.max_active_blocks(1024, 0)?.max(1);
            let per_iter = u64::from(grid) * 1024 * 16 * 8;
            let (base, mask, iters) = (self.flush.ptr, FLUSH / 16 - 1, FLUSH.div_ceil(per_iter));
            // Block times go to the sink: `out` may hold a benchmark's results.
            let sink = self.sink.ptr;
            self.launch(
                "bw_ld",
                grid,
                1024,
                0,
                &[arg(&base), arg(&mask), arg(&iters), arg(&sink), arg(&sink)],
            )?;
        }
        self.gpu.sync()?;
        if self.flush_settle_us > 0 {
            std::thread::sleep(std::time::Duration::from_micros(u64::from(
                self.flush_settle_us,
            )));
        }
        Ok(())
    }

    pub(crate) fn source_of(&self, kernel: &str) -> String {
        let first = kernel.split(',').next().unwrap_or(kernel);
        self.kernels
            .get(first)
            .map(|k| k.source.clone())
            .unwrap_or_default()
    }

    pub(crate) fn push(&mut self, r: Rec<'_>) {
        let median = med(&r.reps);
        if !median.is_finite() {
            self.errors.push(BenchError {
                name: r.name,
                error: "no finite repetition".into(),
            });
            return;
        }
        let reps: Vec<f64> = r.reps.into_iter().filter(|x| x.is_finite()).collect();
        let b = Benchmark {
            source: self.source_of(r.kernel),
            name: r.name,
            group: r.group.into(),
            unit: r.unit.into(),
            params: r
                .params
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect::<BTreeMap<_, _>>(),
            reps,
            median,
            kernel: r.kernel.into(),
            method: r.method.into(),
            extra: r
                .extra
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect::<BTreeMap<_, _>>(),
        };
        eprintln!("    {:<48} {:>12.3} {}", b.name, b.median, b.unit);
        self.benchmarks.push(b);
    }

    pub(crate) fn reps(&self, full: i32, quick: i32) -> i32 {
        if self.quick { quick } else { full }
    }

    // ------------------------------------------------------------------ clock

    // ------------------------------------------------------------------ ALU chains

    // ------------------------------------------------------------------ barriers

    // ------------------------------------------------------------------ global loads

    // ------------------------------------------------------------------ validation

    // ------------------------------------------------------------------ bulk / tensor copies

    // ------------------------------------------------------------------ wgmma

    // ------------------------------------------------------------------ ALU / LDS throughput

    // ------------------------------------------------------------------ bandwidth

    // ------------------------------------------------------------------ register banks
}

/// Shared loads per iteration per thread of tp_lds* (TP_LDS_UNR in micro.cu).
pub(crate) const TP_LDS_UNR: u32 = 8;

/// FFMA per iteration per thread, and independent chains, of every rb_ kernel.
pub(crate) const RB_OPS_PER_ITER: u32 = 64;
pub(crate) const RB_CHAINS: u32 = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(crate) fn copies_from_l2_are_timed_after_a_warm_up_launch_and_from_hbm_cold() {
        assert_eq!(warm_then_timed(false, 16).collect::<Vec<_>>(), [2, 16]);
        assert_eq!(warm_then_timed(true, 16).collect::<Vec<_>>(), [16]);
    }

    #[test]
    pub(crate) fn permutation_is_a_permutation() {
        let p = permutation(1000, 7);
        let mut s = p.clone();
        s.sort_unstable();
        assert_eq!(s, (0..1000).collect::<Vec<u32>>());
        assert_ne!(p, (0..1000).collect::<Vec<u32>>());
    }

    #[test]
    pub(crate) fn stream_kernels_found() {
        assert_eq!(
            kernel_names(sources::STREAM),
            ["ew_tma_pipelined", "ew_warp_specialized"]
        );
        assert_eq!(
            kernel_names(&sources::singe_source(60)),
            ["sv_data_parallel_n60", "sv_warp_specialized_n60"]
        );
    }

    #[test]
    fn the_l1hide_kernels_are_found_in_the_gaps_source() {
        let names = kernel_names(&crate::families::gaps::source());
        for k in [1, 4, 8, 12, 16, 20, 24, 32] {
            let n = format!("gap_l1_hide_k{k}");
            assert!(names.contains(&n), "{n}");
        }
        for k in [1, 4, 8, 12, 16, 24, 32] {
            let n = format!("gap_l1_trap_k{k}");
            assert!(names.contains(&n), "{n}");
        }
        assert!(!names.iter().any(|n| n == "NAME"));
    }

    #[test]
    pub(crate) fn kernel_names_found() {
        let names = kernel_names(sources::MICRO);
        for k in [
            "clk_spin",
            "lat_ffma",
            "lat_mufu_ex2",
            "lat_lds",
            "chase_ld",
            "chase_sm",
            "chase_ca",
            "chase_cg",
            "build_chain",
            "lat_ldgsts_cg16",
            "lat_bulk",
            "lat_tma2d",
            "lat_mbar_pingpong",
            "lat_barsync",
            "tp_ffma",
            "tp_lds128",
            "bw_ld",
            "bw_bulk",
        ] {
            assert!(names.contains(&k.to_string()), "{k} missing from {names:?}");
        }
        assert!(!names.contains(&"NAME".to_string()));
        let lines = kernel_names(sources::LINES);
        assert_eq!(lines, ["chase_own_lines_cg", "chase_own_lines_ld"]);
        let mio = kernel_names(sources::MIO);
        assert_eq!(
            mio,
            [
                "lat_f2fp",
                "lat_fmnmx",
                "lat_shfl",
                "tp_f2fp",
                "tp_fmnmx",
                "tp_shfl"
            ]
        );
        let uni = kernel_names(sources::UNI);
        assert_eq!(
            uni,
            [
                "lat_uiadd3",
                "lat_uimad",
                "lat_ulop3",
                "lat_usel",
                "lat_ushf"
            ]
        );
        let tc = kernel_names(sources::TCGEN05);
        assert_eq!(
            tc,
            [
                "tc_mma_lat_n128_k1",
                "tc_mma_lat_n256_k1",
                "tc_mma_lat_n256_k8",
                "tc_mma_lat_n64_k1"
            ]
        );
        let val = kernel_names(sources::VALIDATION);
        assert_eq!(val.len(), 8, "{val:?}");
        assert!(val.contains(&"vh_chase_l2_k64".to_string()));
        let w = kernel_names(&sources::wgmma_source());
        assert!(w.contains(&"wgmma_lat_n256_k32".to_string()));
        assert!(w.contains(&"wgmma_burn_n256".to_string()));
    }

    #[test]
    pub(crate) fn sizes_format() {
        assert_eq!(fmt_bytes(4 * KIB), "4KiB");
        assert_eq!(fmt_bytes(24 * MIB), "24MiB");
        assert_eq!(fmt_bytes(GIB), "1GiB");
    }
}
