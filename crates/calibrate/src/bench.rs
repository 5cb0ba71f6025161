//! The benchmarks: launches, raw timings, derived repetitions.

use crate::gpu::{
    DevBuf, Event, Func, Gpu, Module, Result, arg, tensor_map_2d_bf16_sw128, tensor_map_2d_u32,
};
use crate::schema::{
    self, BenchError, Benchmark, KernelInfo, Measurement, Provenance, SourceRecord,
};
use crate::sources::{self, BURN_PER_ITER, CHAIN_A, CHAIN_B, REC_MAX, WGMMA_K, WGMMA_N};
use crate::{CollectError, CollectOptions, nvrtc};
use cudarc::driver::sys::{CUdevice_attribute as DA, CUfunction_attribute as FA};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::ffi::c_void;
use std::time::Instant;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;
const GIB: u64 = 1024 * MIB;
/// Arena for chases, bulk copies and bandwidth: larger than L2 by far.
const ARENA: u64 = GIB;
/// Written before every cold (HBM) measurement to push the arena out of L2.
const FLUSH: u64 = 256 * MIB;
/// Output buffer for raw timings.
const OUT_BYTES: u64 = 16 * MIB;

struct Kernel {
    func: Func,
    source: String,
}

pub(crate) struct Runner {
    gpu: Gpu,
    quick: bool,
    only: Vec<String>,
    hbm_launches: u32,
    clean_flush: bool,
    flush_settle_us: u32,
    sm_count: u32,
    kernels: HashMap<String, Kernel>,
    _modules: Vec<Module>,
    benchmarks: Vec<Benchmark>,
    errors: Vec<BenchError>,
    out: DevBuf,
    sink: DevBuf,
    err: DevBuf,
    arena: DevBuf,
    flush: DevBuf,
    clock_mhz: Option<f64>,
    sticky: bool,
}

fn v<T: serde::Serialize>(x: T) -> Value {
    json!(x)
}

fn med(x: &[f64]) -> f64 {
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
fn warm_then_timed(cold: bool, reps: i32) -> impl Iterator<Item = i32> {
    (!cold).then_some(2).into_iter().chain([reps])
}

fn fmt_bytes(b: u64) -> String {
    if b >= GIB && b.is_multiple_of(GIB) {
        format!("{}GiB", b / GIB)
    } else if b >= MIB && b.is_multiple_of(MIB) {
        format!("{}MiB", b / MIB)
    } else {
        format!("{}KiB", b / KIB)
    }
}

/// Per-block records of 5 u64: clock64 start/end, globaltimer start/end, SM id.
struct BlockTimes {
    c: Vec<f64>,
    g: Vec<f64>,
    g0: Vec<f64>,
    g1: Vec<f64>,
    smids: Vec<u64>,
}

impl BlockTimes {
    fn parse(raw: &[u64]) -> Self {
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
    fn mhz(&self) -> f64 {
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
    fn span_ns(&self) -> f64 {
        let start = self.g0.iter().copied().fold(f64::INFINITY, f64::min);
        let end = self.g1.iter().copied().fold(0.0, f64::max);
        end - start
    }
    fn max_cycles(&self) -> f64 {
        self.c.iter().copied().fold(0.0, f64::max)
    }
    fn max_ns(&self) -> f64 {
        self.g.iter().copied().fold(0.0, f64::max)
    }
    fn distinct_sms(&self) -> usize {
        let mut s = self.smids.clone();
        s.sort_unstable();
        s.dedup();
        s.len()
    }
}

struct Rec<'a> {
    name: String,
    group: &'a str,
    unit: &'a str,
    kernel: &'a str,
    method: &'a str,
    params: Vec<(&'a str, Value)>,
    reps: Vec<f64>,
    extra: Vec<(&'a str, Value)>,
}

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
    let list = if opts.validation {
        sources::validation()
    } else {
        sources::all()
    };
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
        // drop `__launch_bounds__(...)`
        if let Some(s) = l.find("__launch_bounds__(")
            && let Some(e) = l[s..].find(')')
        {
            l.replace_range(s..s + e + 1, "");
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
    fn section(&mut self, name: &str, f: fn(&mut Runner) -> Result<()>) {
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

    fn k(&self, name: &str) -> Result<&Kernel> {
        self.kernels
            .get(name)
            .ok_or_else(|| CollectError::Driver(format!("kernel {name} is not loaded")))
    }

    fn launch(
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
    fn launch_timed(
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

    fn out_u64(&self, n: usize) -> Result<Vec<u64>> {
        self.out.download::<u64>(n)
    }

    fn clear_err(&self) -> Result<()> {
        self.err.fill_u32(0)
    }

    fn check_err(&self, what: &str) -> Result<()> {
        let e = self.err.download::<i32>(4)?;
        if e.iter().any(|x| *x != 0) {
            return Err(CollectError::Timeout(format!("{what}: device flag {e:?}")));
        }
        Ok(())
    }

    /// The parameters that say whether (and how) L2 was flushed before a benchmark.
    fn flush_params(&self, cold: bool) -> Vec<(&'static str, Value)> {
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
    fn flush_l2(&self) -> Result<()> {
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

    fn source_of(&self, kernel: &str) -> String {
        let first = kernel.split(',').next().unwrap_or(kernel);
        self.kernels
            .get(first)
            .map(|k| k.source.clone())
            .unwrap_or_default()
    }

    fn push(&mut self, r: Rec<'_>) {
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

    fn reps(&self, full: i32, quick: i32) -> i32 {
        if self.quick { quick } else { full }
    }

    // ------------------------------------------------------------------ clock

    fn clock_spin(&mut self, label: &str, reps: i32) -> Result<()> {
        let cycles: u64 = if self.quick { 20_000_000 } else { 100_000_000 };
        let out = self.out.ptr;
        let mut gt = Vec::new();
        let mut ev = Vec::new();
        let mut raw = Vec::new();
        for _ in 0..reps {
            let ms = self.launch_timed("clk_spin", 1, 32, 0, &[arg(&cycles), arg(&out)])?;
            let t = self.out_u64(4)?;
            let dc = t[1].wrapping_sub(t[0]) as f64;
            let dg = t[3].wrapping_sub(t[2]) as f64;
            gt.push(dc / dg * 1e3);
            ev.push(dc / (ms * 1e3));
            raw.push(json!({"clock64": dc, "globaltimer_ns": dg, "event_ms": ms}));
        }
        let params = vec![("cycles", v(cycles)), ("grid", v(1)), ("block", v(32))];
        self.push(Rec {
            name: format!("clock.sm.{label}.globaltimer"),
            group: "clock",
            unit: "MHz",
            kernel: "clk_spin",
            method: "one thread spins on clock64; clock64 delta / %globaltimer delta",
            params: params.clone(),
            reps: gt.clone(),
            extra: vec![("raw", v(&raw))],
        });
        self.push(Rec {
            name: format!("clock.sm.{label}.events"),
            group: "clock",
            unit: "MHz",
            kernel: "clk_spin",
            method: "clock64 delta / CUDA event time around the launch (includes launch overhead)",
            params,
            reps: ev,
            extra: vec![],
        });
        if self.clock_mhz.is_none() {
            self.clock_mhz = schema::median(&gt);
        }
        Ok(())
    }

    fn clock_light(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        self.clock_spin("light", reps)
    }

    fn clock_light_after(&mut self) -> Result<()> {
        self.clock_spin("light_after_tensor", 3)
    }

    fn clock_tensor(&mut self) -> Result<()> {
        let grid = self.sm_count;
        let mhz = self.clock_mhz.unwrap_or(1700.0);
        // about 150 ms per launch (2 warpgroups x 16 x 128 cycles per iteration)
        let secs = if self.quick { 0.02 } else { 0.15 };
        let iters: i64 = ((secs * mhz * 1e6) / (2.0 * f64::from(BURN_PER_ITER) * 128.0)) as i64;
        let smem = sources::wgmma_smem(256);
        self.k("wgmma_burn_n256")?.func.allow_smem(smem)?;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let mut clk = Vec::new();
        let mut ev = Vec::new();
        let mut tflops = Vec::new();
        let mut raw = Vec::new();
        for _ in 0..self.reps(4, 2) {
            let ms = self.launch_timed(
                "wgmma_burn_n256",
                grid,
                256,
                smem,
                &[arg(&iters), arg(&out), arg(&sink)],
            )?;
            let bt = BlockTimes::parse(&self.out_u64(5 * grid as usize)?);
            clk.push(bt.mhz());
            ev.push(bt.max_cycles() / (ms * 1e3));
            let flop = 2.0
                * 64.0
                * 256.0
                * 16.0
                * f64::from(BURN_PER_ITER)
                * iters as f64
                * 2.0
                * f64::from(grid);
            tflops.push(flop / (ms * 1e-3) / 1e12);
            raw.push(json!({"event_ms": ms, "max_block_cycles": bt.max_cycles(), "max_block_ns": bt.max_ns(),
                "distinct_sms": bt.distinct_sms()}));
        }
        let params = vec![
            ("grid", v(grid)),
            ("block", v(256)),
            ("iters", v(iters)),
            ("wgmma_per_iter_per_warpgroup", v(BURN_PER_ITER)),
            ("shape", v("m64n256k16 bf16, A and B from shared memory")),
        ];
        self.push(Rec {
            name: "clock.sm.tensor.globaltimer".into(),
            group: "clock",
            unit: "MHz",
            kernel: "wgmma_burn_n256",
            method: "every SM runs 2 warpgroups issuing wgmma back to back; median over blocks of clock64 \
                     delta / %globaltimer delta",
            params: params.clone(),
            reps: clk,
            extra: vec![("raw", v(&raw))],
        });
        self.push(Rec {
            name: "clock.sm.tensor.events".into(),
            group: "clock",
            unit: "MHz",
            kernel: "wgmma_burn_n256",
            method: "largest block clock64 delta / CUDA event time",
            params: params.clone(),
            reps: ev,
            extra: vec![],
        });
        self.push(Rec {
            name: "tp.wgmma.chip.m64n256k16.bf16".into(),
            group: "throughput",
            unit: "TFLOP/s",
            kernel: "wgmma_burn_n256",
            method: "dense bf16 FLOP / CUDA event time, whole chip",
            params,
            reps: tflops,
            extra: vec![],
        });
        Ok(())
    }

    // ------------------------------------------------------------------ ALU chains

    fn lat_chain_raw(
        &self,
        kname: &str,
        a: *mut c_void,
        b: *mut c_void,
        x0: *mut c_void,
        reps: i32,
    ) -> Result<Vec<u64>> {
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        self.launch(
            kname,
            1,
            1,
            0,
            &[arg(&out), a, b, x0, arg(&reps), arg(&sink)],
        )?;
        self.out_u64(2 * reps as usize)
    }

    fn push_chain(&mut self, name: &str, kname: &str, raw: &[u64], what: &str) {
        let ta: Vec<f64> = raw.iter().step_by(2).map(|x| *x as f64).collect();
        let tb: Vec<f64> = raw.iter().skip(1).step_by(2).map(|x| *x as f64).collect();
        let per: Vec<f64> = ta
            .iter()
            .zip(&tb)
            .map(|(a, b)| (b - a) / f64::from(CHAIN_B - CHAIN_A))
            .collect();
        let naive: Vec<f64> = tb.iter().map(|b| b / f64::from(CHAIN_B)).collect();
        self.push(Rec {
            name: name.into(),
            group: "latency",
            unit: "cycles",
            kernel: kname,
            method: "one thread (one warp where the instruction says so); dependent chains of 64 and 320 instructions timed with clock64; \
                     (t320 - t64) / 256 per repetition",
            params: vec![
                ("instruction", v(what)),
                ("chain_a", v(CHAIN_A)),
                ("chain_b", v(CHAIN_B)),
            ],
            reps: per,
            extra: vec![
                ("t_chain_a", v(&ta)),
                ("t_chain_b", v(&tb)),
                ("t_chain_b_over_b", v(med(&naive))),
            ],
        });
    }

    fn lat_alu(&mut self) -> Result<()> {
        let reps = self.reps(32, 8);
        let f = |x: f32| x;
        let chains_f: [(&str, &str, f32, f32, f32, &str); 4] = [
            (
                "lat.ffma",
                "lat_ffma",
                0.999,
                0.001,
                1.0,
                "FFMA (fma.rn.f32 x, x, a, b)",
            ),
            (
                "lat.fadd",
                "lat_fadd",
                0.001,
                0.0,
                1.0,
                "FADD (add.rn.f32 x, x, a)",
            ),
            (
                "lat.mufu.ex2",
                "lat_mufu_ex2",
                0.0,
                0.0,
                0.5,
                "MUFU.EX2 (ex2.approx.ftz.f32)",
            ),
            (
                "lat.mufu.rcp",
                "lat_mufu_rcp",
                0.0,
                0.0,
                1.5,
                "MUFU.RCP (rcp.approx.ftz.f32 of |x|)",
            ),
        ];
        for (name, kname, a, b, x0, what) in chains_f {
            let (a, b, x0) = (f(a), f(b), f(x0));
            let raw = self.lat_chain_raw(kname, arg(&a), arg(&b), arg(&x0), reps)?;
            self.push_chain(name, kname, &raw, what);
        }
        let chains_i: [(&str, &str, u32, u32, u32, &str); 3] = [
            (
                "lat.imad",
                "lat_imad",
                3,
                1,
                7,
                "IMAD (mad.lo.u32 x, x, a, b)",
            ),
            (
                "lat.iadd3",
                "lat_iadd3",
                0x9e37_79b9,
                0x7f4a_7c15,
                7,
                "IADD3 (x = x + a + b, two PTX adds fused)",
            ),
            (
                "lat.lop3",
                "lat_lop3",
                0x1234_5678,
                0x0f0f_0f0f,
                7,
                "LOP3 (lop3.b32 x, x, a, b, 0x96)",
            ),
        ];
        for (name, kname, a, b, x0, what) in chains_i {
            let raw = self.lat_chain_raw(kname, arg(&a), arg(&b), arg(&x0), reps)?;
            self.push_chain(name, kname, &raw, what);
        }
        Ok(())
    }

    fn lat_lds(&mut self) -> Result<()> {
        let reps = self.reps(32, 8);
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        self.launch("lat_lds", 1, 32, 0, &[arg(&out), arg(&reps), arg(&sink)])?;
        let raw = self.out_u64(2 * reps as usize)?;
        self.push_chain(
            "lat.lds",
            "lat_lds",
            &raw,
            "LDS.32 pointer chase (ld.shared.u32 x, [x])",
        );
        Ok(())
    }

    // ------------------------------------------------------------------ barriers

    fn lat_barsync(&mut self) -> Result<()> {
        let iters: i32 = if self.quick { 256 } else { 1024 };
        let reps = self.reps(8, 3);
        let out = self.out.ptr;
        for warps in [1u32, 2, 4, 8, 16, 32] {
            self.launch(
                "lat_barsync",
                1,
                32 * warps,
                0,
                &[arg(&iters), arg(&reps), arg(&out)],
            )?;
            let raw = self.out_u64(reps as usize)?;
            let per: Vec<f64> = raw.iter().map(|t| *t as f64 / f64::from(iters)).collect();
            self.push(Rec {
                name: format!("lat.bar_sync.warps_{warps}"),
                group: "latency",
                unit: "cycles",
                kernel: "lat_barsync",
                method: "back-to-back bar.sync 0 by every thread of the block; cycles per barrier seen by thread 0",
                params: vec![("warps", v(warps)), ("iters", v(iters))],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }

    fn lat_mbarrier(&mut self) -> Result<()> {
        let iters: i32 = if self.quick { 200 } else { 1000 };
        let reps = self.reps(16, 4);
        let (out, err) = (self.out.ptr, self.err.ptr);
        self.clear_err()?;
        self.launch(
            "lat_mbar_pingpong",
            1,
            64,
            0,
            &[arg(&iters), arg(&reps), arg(&out), arg(&err)],
        )?;
        self.check_err("lat_mbar_pingpong")?;
        let raw = self.out_u64(reps as usize)?;
        let rt: Vec<f64> = raw.iter().map(|t| *t as f64 / f64::from(iters)).collect();
        let one_way: Vec<f64> = rt.iter().map(|x| x / 2.0).collect();
        self.push(Rec {
            name: "lat.mbarrier.pingpong_roundtrip".into(),
            group: "latency",
            unit: "cycles",
            kernel: "lat_mbar_pingpong",
            method: "warp 0 arrives on bar0 and waits on bar1, warp 1 waits on bar0 and arrives on bar1 \
                     (one lane each, try_wait.parity loops); cycles per round trip",
            params: vec![("iters", v(iters)), ("warps", v(2))],
            reps: rt,
            extra: vec![],
        });
        self.push(Rec {
            name: "lat.mbarrier.arrive_to_wait".into(),
            group: "latency",
            unit: "cycles",
            kernel: "lat_mbar_pingpong",
            method: "half the ping-pong round trip: one arrive by one warp until the other warp's wait returns",
            params: vec![("iters", v(iters)), ("warps", v(2))],
            reps: one_way,
            extra: vec![],
        });
        self.clear_err()?;
        self.launch(
            "lat_mbar_self",
            1,
            32,
            0,
            &[arg(&iters), arg(&reps), arg(&out), arg(&err)],
        )?;
        self.check_err("lat_mbar_self")?;
        let raw = self.out_u64(reps as usize)?;
        let per: Vec<f64> = raw.iter().map(|t| *t as f64 / f64::from(iters)).collect();
        self.push(Rec {
            name: "lat.mbarrier.self_arrive_wait".into(),
            group: "latency",
            unit: "cycles",
            kernel: "lat_mbar_self",
            method: "one thread: arrive (count 1) then try_wait.parity on the phase it completed; cycles per pair",
            params: vec![("iters", v(iters))],
            reps: per,
            extra: vec![],
        });
        self.clear_err()?;
        self.launch(
            "lat_mbar_probe",
            1,
            32,
            0,
            &[arg(&iters), arg(&reps), arg(&out), arg(&err)],
        )?;
        self.check_err("lat_mbar_probe")?;
        let raw = self.out_u64(reps as usize)?;
        let per: Vec<f64> = raw.iter().map(|t| *t as f64 / f64::from(iters)).collect();
        self.push(Rec {
            name: "lat.mbarrier.probe_completed".into(),
            group: "latency",
            unit: "cycles",
            kernel: "lat_mbar_probe",
            method: "one thread: try_wait.parity on a phase that completed before the loop, its predicate deciding \
                     the branch; cycles per try_wait",
            params: vec![("iters", v(iters))],
            reps: per,
            extra: vec![],
        });
        Ok(())
    }

    // ------------------------------------------------------------------ global loads

    /// Writes a random pointer cycle over `footprint` bytes of the arena (one pointer
    /// per `stride` bytes); returns the start pointer and the number of elements.
    fn build_chain(&self, footprint: u64, stride: u64, seed: u64) -> Result<(u64, u64)> {
        let n = footprint / stride;
        let order = permutation(n as usize, seed);
        let obuf = self.gpu.alloc(order.len() * 4)?;
        obuf.upload(&order)?;
        let (base, optr) = (self.arena.ptr, obuf.ptr);
        let grid = (n.div_ceil(256)).clamp(1, 4096) as u32;
        self.launch(
            "build_chain",
            grid,
            256,
            0,
            &[arg(&base), arg(&optr), arg(&n), arg(&stride)],
        )?;
        Ok((base + u64::from(order[0]) * stride, n))
    }

    #[allow(clippy::too_many_arguments)]
    fn chase(
        &mut self,
        kname: &str,
        label: &str,
        footprint: u64,
        warm_traversals: u64,
        chunk_steps: i32,
        chunks: i32,
        cold: bool,
        level: &str,
    ) -> Result<()> {
        let stride = 128u64;
        let (start, n) = self.build_chain(footprint, stride, 0x5eed ^ footprint)?;
        if cold {
            self.flush_l2()?;
        }
        let warm: i64 = (warm_traversals * n) as i64;
        let rec = REC_MAX as i32;
        let out = self.out.ptr;
        let out_rec = self.out.ptr + 64 * KIB;
        let sink = self.sink.ptr;
        let t0 = Instant::now();
        self.launch(
            kname,
            1,
            32,
            0,
            &[
                arg(&start),
                arg(&warm),
                arg(&chunk_steps),
                arg(&chunks),
                arg(&rec),
                arg(&out),
                arg(&out_rec),
                arg(&sink),
            ],
        )?;
        let secs = t0.elapsed().as_secs_f64();
        let mut raw = self.out_u64(chunks as usize + 1)?;
        let sm = raw.pop().unwrap_or(0);
        let per: Vec<f64> = raw
            .iter()
            .map(|t| *t as f64 / f64::from(chunk_steps))
            .collect();
        let mut steps_buf = vec![0u32; rec as usize];
        // the per-step samples sit 64 KiB into the output buffer
        let all = self
            .out
            .download::<u32>((64 * KIB / 4) as usize + rec as usize)?;
        steps_buf.copy_from_slice(&all[(64 * KIB / 4) as usize..]);
        let steps: Vec<f64> = steps_buf.iter().map(|x| f64::from(*x)).collect();
        let pct: BTreeMap<String, f64> = [1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0]
            .iter()
            .map(|p| {
                (
                    format!("p{p}"),
                    schema::percentile(&steps, *p).unwrap_or(f64::NAN),
                )
            })
            .collect();
        let op = match kname {
            "chase_cg" => "ld.global.cg.u64 (LDG.E.64.STRONG.GPU)",
            "chase_ca" => "ld.global.ca.u64 (LDG.E.64.STRONG.SM)",
            _ => "ld.global.u64 (LDG.E.64)",
        };
        self.push(Rec {
            name: format!("lat.ldg.{}.{label}", &kname[6..]),
            group: "latency",
            unit: "cycles",
            kernel: kname,
            method: "one thread chases a random pointer cycle (one 8-byte pointer per 128-byte line); \
                     each repetition = mean cycles per load over one timed chunk",
            params: vec![
                ("footprint_bytes", v(footprint)),
                ("stride_bytes", v(stride)),
                ("lines", v(n)),
                ("warm_traversals", v(warm_traversals)),
                ("chunk_steps", v(chunk_steps)),
                ("l2_flushed_before", v(cold)),
                ("expected_level", v(level)),
                ("instruction", v(op)),
            ],
            reps: per,
            extra: vec![
                ("per_step_cycles", v(&steps_buf)),
                (
                    "per_step_note",
                    v("each sample = clock64 read, load, dependent STS, clock64 read; compare with the L1 \
                       footprint's samples for the fixed cost of the timing code"),
                ),
                ("per_step_percentiles", v(&pct)),
                ("host_seconds", v(secs)),
                ("smid", v(sm)),
            ],
        });
        Ok(())
    }

    fn lat_ldg(&mut self) -> Result<()> {
        for k in ["chase_ld", "chase_ca", "chase_cg"] {
            self.k(k)?
                .func
                .set_attr(FA::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 0)?;
        }
        let l1: &[u64] = if self.quick {
            &[4 * KIB]
        } else {
            &[4 * KIB, 16 * KIB, 64 * KIB, 128 * KIB, 192 * KIB]
        };
        for &fp in l1 {
            self.chase(
                "chase_ld",
                &format!("fp_{}", fmt_bytes(fp)),
                fp,
                4,
                1024,
                8,
                false,
                "L1",
            )?;
        }
        if !self.quick {
            for fp in [4 * KIB, 64 * KIB] {
                self.chase(
                    "chase_ca",
                    &format!("fp_{}", fmt_bytes(fp)),
                    fp,
                    4,
                    1024,
                    8,
                    false,
                    "L1",
                )?;
            }
        }
        let l2: &[u64] = if self.quick {
            &[2 * MIB, 32 * MIB]
        } else {
            &[
                512 * KIB,
                MIB,
                2 * MIB,
                4 * MIB,
                8 * MIB,
                16 * MIB,
                24 * MIB,
                32 * MIB,
                40 * MIB,
                48 * MIB,
                64 * MIB,
            ]
        };
        for &fp in l2 {
            let n = fp / 128;
            let chunk = (n / 8).div_ceil(8) * 8;
            let level = if fp <= 32 * MIB {
                "L2"
            } else {
                "L2 capacity edge / HBM"
            };
            self.chase(
                "chase_ld",
                &format!("fp_{}", fmt_bytes(fp)),
                fp,
                1,
                chunk as i32,
                8,
                false,
                level,
            )?;
        }
        if !self.quick {
            for fp in [MIB, 16 * MIB] {
                let n = fp / 128;
                let chunk = (n / 8).div_ceil(8) * 8;
                self.chase(
                    "chase_cg",
                    &format!("fp_{}", fmt_bytes(fp)),
                    fp,
                    1,
                    chunk as i32,
                    8,
                    false,
                    "L2",
                )?;
            }
        }
        self.chase_per_sm(16 * MIB, "L2")?;
        if !self.quick {
            self.chase_per_sm(4 * KIB, "L1")?;
        }
        let hbm: &[u64] = if self.quick {
            &[256 * MIB]
        } else {
            &[256 * MIB, GIB]
        };
        for &fp in hbm {
            self.chase(
                "chase_ld",
                &format!("fp_{}_cold", fmt_bytes(fp)),
                fp,
                0,
                2048,
                8,
                true,
                "HBM",
            )?;
        }
        Ok(())
    }

    // ------------------------------------------------------------------ validation

    /// latency-hiding (traces::latency): WARPS x K x {L1, L2}; cycles per iteration.
    fn val_latency_hiding(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let iters: i32 = 256;
        let footprint: u32 = 1024;
        let lines = (footprint / 128) as i32;
        let (r2, r3) = (0.999f32, 0.001f32);
        let (p, out, sink) = (self.arena.ptr, self.out.ptr, self.sink.ptr);
        // the chains hold finite values, not zeros
        let init: Vec<f32> = (0..(32 * 32 * footprint / 4))
            .map(|i| 1.0 + (i % 97) as f32 * 1e-3)
            .collect();
        self.arena.upload(&init)?;
        let warps_list: &[u32] = if self.quick {
            &[1, 8, 32]
        } else {
            &[1, 2, 4, 6, 8, 12, 16, 20, 24, 28, 32]
        };
        for (level, l1) in [("l1", 1), ("l2", 0)] {
            for k in sources::VH_K {
                let kname = format!("vh_chase_{level}_k{k}");
                for &warps in warps_list {
                    let block = 32 * warps;
                    let args = [
                        arg(&p),
                        arg(&iters),
                        arg(&lines),
                        arg(&r2),
                        arg(&r3),
                        arg(&out),
                        arg(&sink),
                    ];
                    // one launch to bring the lines into L2 (L1 starts every launch cold)
                    self.launch(&kname, 1, block, 0, &args)?;
                    let mut per = Vec::new();
                    let mut warp_cycles = Vec::new();
                    for _ in 0..reps {
                        self.launch(&kname, 1, block, 0, &args)?;
                        let raw = self.out_u64(2 * warps as usize)?;
                        per.push(self.warp_span(&raw) / f64::from(iters));
                        warp_cycles.push(
                            raw.chunks_exact(2)
                                .map(|c| c[1].wrapping_sub(c[0]))
                                .collect::<Vec<u64>>(),
                        );
                    }
                    self.push(Rec {
                        name: format!("val.latency_hiding.{level}.k{k}.warps_{warps}"),
                        group: "validation",
                        unit: "cycles_per_iter",
                        kernel: &kname,
                        method: "one CTA of WARPS warps; every thread: ITERS x (load f32 from its own line, K \
                                 dependent FFMAs); cycles from the first warp's start to the last warp's end \
                                 / ITERS (clock64); L1 is cold at launch, L2 warm",
                        params: vec![
                            ("WARPS", v(warps)),
                            ("K", v(k)),
                            ("FOOTPRINT", v(footprint)),
                            ("L1", v(l1)),
                            ("ITERS", v(iters)),
                            ("family", v("latency-hiding")),
                            ("schedule", v("chase")),
                        ],
                        reps: per,
                        extra: vec![("warp_cycles", v(&warp_cycles))],
                    });
                }
            }
        }
        Ok(())
    }

    /// gemm-mainloop (traces::gemm): static-v1, static-v2, ws, ws-wait1 x PIPE {2, 4} x
    /// {one CTA, a full-chip grid}, K = 4096, CLUSTER 1, no epilogue; cycles per CTA.
    fn val_gemm_mainloop(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let kt: i32 = 64;
        let k_elems = 64 * kt as u64;
        let (out, sink, err) = (self.out.ptr, self.sink.ptr, self.err.ptr);
        // finite bf16 operands (1.0 and nearby), A at the arena's start, B 64 MiB in
        self.arena.fill_u32(0x3F80_3F81)?;
        let b_off = 64 * MIB;
        // (label, M, N): one CTA, and 132 tiles (one wave of a 132-SM H100)
        let shapes: [(&str, u64, u64); 2] = [("cta_1", 128, 256), ("grid_132", 1536, 2816)];
        for (schedule, kname, threads, lag) in sources::GEMM_SCHEDULES {
            for pipe in [2i32, 4] {
                let smem = sources::gemm_smem(pipe as u32);
                self.k(kname)?.func.allow_smem(smem)?;
                for (label, m, n) in shapes {
                    let mt = (m / 128) as i32;
                    let grid = (m / 128 * (n / 256)) as u32;
                    let ta = tensor_map_2d_bf16_sw128(self.arena.ptr, k_elems, m, 64, 128)?;
                    let tb = tensor_map_2d_bf16_sw128(self.arena.ptr + b_off, k_elems, n, 64, 256)?;
                    let args = [
                        arg(&ta),
                        arg(&tb),
                        arg(&pipe),
                        arg(&kt),
                        arg(&mt),
                        arg(&out),
                        arg(&sink),
                        arg(&err),
                    ];
                    self.clear_err()?;
                    // one launch brings A and B into L2 (a repeated GEMM runs warm)
                    self.launch(kname, grid, threads, smem, &args)?;
                    let per_cta = sources::GEMM_TIMES_PER_CTA;
                    let warps = (threads / 32) as usize;
                    let (mut med_span, mut max_span, mut wall, mut sms) =
                        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                    for _ in 0..reps {
                        let ms = self.launch_timed(kname, grid, threads, smem, &args)?;
                        self.check_err(kname)?;
                        let raw = self.out_u64(per_cta * grid as usize)?;
                        let mut spans = Vec::new();
                        let (mut g0, mut g1) = (u64::MAX, 0u64);
                        let mut ids = std::collections::BTreeSet::new();
                        for c in raw.chunks_exact(per_cta) {
                            let w = &c[..4 * warps];
                            let c0 = w.iter().step_by(4).copied().min().unwrap_or(0);
                            let c1 = w.iter().skip(1).step_by(4).copied().max().unwrap_or(0);
                            spans.push(c1.wrapping_sub(c0) as f64);
                            g0 = g0.min(w.iter().skip(2).step_by(4).copied().min().unwrap_or(0));
                            g1 = g1.max(w.iter().skip(3).step_by(4).copied().max().unwrap_or(0));
                            ids.insert(c[63]);
                        }
                        spans.sort_by(f64::total_cmp);
                        med_span.push(spans[spans.len() / 2]);
                        max_span.push(*spans.last().unwrap_or(&f64::NAN));
                        wall.push(json!({"globaltimer_ns": g1.wrapping_sub(g0), "event_ms": ms}));
                        sms.push(ids.len());
                    }
                    let variant = if kname.ends_with("_fenced") {
                        "+fenced"
                    } else {
                        ""
                    };
                    self.push(Rec {
                        name: format!("val.gemm_mainloop.{schedule}{variant}.pipe_{pipe}.{label}"),
                        group: "validation",
                        unit: "cycles",
                        kernel: kname,
                        method: "CTA c takes tile (c % MT, c / MT); every warp's lane 0 records clock64 after \
                                 the mbarrier init's __syncthreads and after its last wgmma wait (or its \
                                 producer loop); value = the median over CTAs of (last end - first start) \
                                 within the CTA; A and B warm in L2 from one launch before",
                        params: vec![
                            ("family", v("gemm-mainloop")),
                            ("schedule", v(schedule)),
                            ("PIPE", v(pipe)),
                            ("K", v(k_elems)),
                            ("M", v(m)),
                            ("N", v(n)),
                            ("CLUSTER", v(1)),
                            ("EPILOGUE", v(0)),
                            ("grid", v(grid)),
                            ("threads", v(threads)),
                            ("wait_group", v(lag)),
                            ("kernel_variant", v(if variant.is_empty() { "plain" } else { "fenced" })),
                        ],
                        reps: med_span,
                        extra: vec![
                            ("max_cta_cycles", v(&max_span)),
                            ("wall", v(&wall)),
                            ("distinct_sms", v(&sms)),
                        ],
                    });
                }
            }
        }
        Ok(())
    }

    /// One warp-load touching 1..32 lines, dependent chain: the latency of an uncoalesced
    /// load from L1 (`ld`, 16 blocks = 64 KiB) and from L2 (`cg`, 256 blocks = 1 MiB).
    fn lat_ldg_lines(&mut self) -> Result<()> {
        let reps = self.reps(8, 3);
        let steps: i32 = 256;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        for (level, kname, blocks) in [
            ("l1", "chase_lines_ld", 16u64),
            ("l2", "chase_lines_cg", 256),
        ] {
            // a random cycle of 4 KiB blocks; at every lane offset the pointer leads to the
            // same offset of the next block
            let order = permutation(blocks as usize, 0x11e5 ^ blocks);
            let words = (blocks * 4096 / 8) as usize;
            let mut img = vec![0u64; words];
            for (j, &b) in order.iter().enumerate() {
                let next = u64::from(order[(j + 1) % order.len()]);
                for off in (0..4096u64).step_by(8) {
                    img[(u64::from(b) * 4096 + off) as usize / 8] =
                        self.arena.ptr + next * 4096 + off;
                }
            }
            self.arena.upload(&img)?;
            let start = self.arena.ptr + u64::from(order[0]) * 4096;
            let warm = (2 * blocks) as i32;
            // Cycles per step of warp 0, with `warps` warps chasing `lines` lines each step.
            let per_step = |me: &Self, lines: i32, warps: u32| -> Result<Vec<f64>> {
                me.launch(
                    kname,
                    1,
                    32 * warps,
                    0,
                    &[
                        arg(&start),
                        arg(&lines),
                        arg(&warm),
                        arg(&steps),
                        arg(&reps),
                        arg(&out),
                        arg(&sink),
                    ],
                )?;
                let raw = me.out_u64(reps as usize)?;
                Ok(raw.iter().map(|x| *x as f64 / f64::from(steps)).collect())
            };
            for lines in [1i32, 2, 4, 8, 16, 32] {
                let reps = per_step(self, lines, 1)?;
                self.push(Rec {
                    name: format!("lat.ldg_lines.{level}.lines_{lines}"),
                    group: "latency",
                    unit: "cycles",
                    kernel: kname,
                    method: "one warp; each lane chases its own 64-bit pointer cycle; a step is one warp-load whose \
                             32 lanes touch LINES lines of a 4 KiB block (lane i: (i % LINES) * 128 + ((i / LINES) \
                             % 16) * 8); cycles per step after a warm pass",
                    params: vec![
                        ("lines", v(lines)),
                        ("blocks", v(blocks)),
                        ("level", v(level)),
                        ("steps", v(steps)),
                    ],
                    reps,
                    extra: vec![],
                });
            }
            // Opt-in (`--only ldg_lines,ldg_lines.warps`): the same 32-line steps from
            // several warps at once (every warp chases the same lines, other words of
            // them), so that the L1TEX pipeline, not the latency, sets the pace: warp 0's
            // cycles per step, W warps x 32 lines each.
            if self.only.iter().any(|o| o == "ldg_lines.warps") {
                let lines = 32i32;
                for warps in [2u32, 4, 8, 12, 16, 20, 24, 28, 32] {
                    let reps = per_step(self, lines, warps)?;
                    self.push(Rec {
                        name: format!("tp.ldg_lines.{level}.lines_32.warps_{warps}"),
                        group: "throughput",
                        unit: "cycles_per_step",
                        kernel: kname,
                        method: "WARPS warps; each lane chases its own 64-bit pointer cycle; a step is one \
                                 warp-load of 32 lines of a 4 KiB block per warp (every warp the same lines, \
                                 other 8-byte words); warp 0's cycles per step after a warm pass",
                        params: vec![
                            ("lines", v(lines)),
                            ("warps", v(warps)),
                            ("blocks", v(blocks)),
                            ("level", v(level)),
                            ("steps", v(steps)),
                        ],
                        reps,
                        extra: vec![],
                    });
                }
            }
        }
        Ok(())
    }

    /// Warp-loads of 32 lines that no other warp touches (`lines.cu`), from W warps at
    /// once: cycles per line of the whole block. Lanes 128 B apart: with one 4 KiB block
    /// per warp every load hits in L1; with 64 (256 KiB per warp) every load misses, and
    /// allocates in L1 (`ld`) or not (`ld.cg`). Lanes 1 KiB apart (`stride_1KiB`): each
    /// lane cycles through its own 8 consecutive lines, the latency-hiding validation
    /// kernel's access pattern (32 KiB per warp).
    fn tp_own_lines(&mut self) -> Result<()> {
        let reps = self.reps(8, 3);
        let steps: i32 = 256;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let max_warps = 32u64;
        // (label, lane stride, region per warp, warm steps, image of one warp's region:
        // (byte offset, byte offset it points to))
        type Case = (String, u64, u64, i32, Vec<(u64, u64)>);
        let mut cases: Vec<Case> = Vec::new();
        for blocks in [1u64, 8, 64] {
            let region = blocks * 4096;
            let mut links = Vec::new();
            let order = permutation(blocks as usize, 0x0e1 ^ blocks);
            for (j, &b) in order.iter().enumerate() {
                let next = u64::from(order[(j + 1) % order.len()]);
                for off in (0..4096u64).step_by(128) {
                    links.push((u64::from(b) * 4096 + off, next * 4096 + off));
                }
            }
            cases.push((
                format!("blocks_{blocks}"),
                128,
                region,
                (2 * blocks) as i32,
                links,
            ));
        }
        let links = (0..32u64)
            .flat_map(|lane| {
                (0..8u64).map(move |j| (lane * 1024 + j * 128, lane * 1024 + (j + 1) % 8 * 128))
            })
            .collect();
        cases.push(("stride_1KiB".into(), 1024, 32 * 1024, 16, links));
        for (label, lane_stride, region, warm, links) in cases {
            let mut img = vec![0u64; (max_warps * region / 8) as usize];
            for w in 0..max_warps {
                let base = self.arena.ptr + w * region;
                for &(from, to) in &links {
                    img[((w * region + from) / 8) as usize] = base + to;
                }
            }
            self.arena.upload(&img)?;
            for (kind, kname) in [("ld", "chase_own_lines_ld"), ("cg", "chase_own_lines_cg")] {
                for warps in [4u32, 8, 12, 16, 20, 24, 32] {
                    let base = self.arena.ptr;
                    self.launch(
                        kname,
                        1,
                        32 * warps,
                        0,
                        &[
                            arg(&base),
                            arg(&region),
                            arg(&lane_stride),
                            arg(&warm),
                            arg(&steps),
                            arg(&reps),
                            arg(&out),
                            arg(&sink),
                        ],
                    )?;
                    let raw = self.out_u64(reps as usize)?;
                    let lines = f64::from(steps) * f64::from(warps) * 32.0;
                    self.push(Rec {
                        name: format!("tp.own_lines.{kind}.{label}.warps_{warps}"),
                        group: "throughput",
                        unit: "cycles_per_line",
                        kernel: kname,
                        method: "one block of WARPS warps, each lane chasing its own pointer cycle through \
                                 its warp's region (lanes LANE_STRIDE apart), so each step is one warp-load \
                                 of 32 lines no other warp touches; cycles of STEPS steps of every warp \
                                 (between __syncthreads) per line",
                        params: vec![
                            ("case", v(&label)),
                            ("lane_stride_bytes", v(lane_stride)),
                            ("region_bytes_per_warp", v(region)),
                            ("warps", v(warps)),
                            ("load", v(kind)),
                            ("steps", v(steps)),
                        ],
                        reps: raw.iter().map(|x| *x as f64 / lines).collect(),
                        extra: vec![],
                    });
                }
            }
        }
        Ok(())
    }

    /// One block per SM chases the same cycle concurrently: the latency each SM sees.
    fn chase_per_sm(&mut self, footprint: u64, level: &str) -> Result<()> {
        let (start, n) = self.build_chain(footprint, 128, 0x5eed ^ footprint)?;
        let warm: i64 = n.max(1024) as i64;
        let steps: i32 = 4096;
        let grid = self.sm_count;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        self.launch(
            "chase_sm",
            grid,
            32,
            0,
            &[arg(&start), arg(&warm), arg(&steps), arg(&out), arg(&sink)],
        )?;
        let raw = self.out_u64(2 * grid as usize)?;
        let mut by_sm: Vec<(u64, f64)> = raw
            .chunks_exact(2)
            .map(|c| (c[0], c[1] as f64 / f64::from(steps)))
            .collect();
        by_sm.sort_by_key(|x| x.0);
        let sms: Vec<u64> = by_sm.iter().map(|x| x.0).collect();
        let lat: Vec<f64> = by_sm.iter().map(|x| x.1).collect();
        self.push(Rec {
            name: format!("lat.ldg.ld.per_sm.fp_{}", fmt_bytes(footprint)),
            group: "latency",
            unit: "cycles",
            kernel: "chase_sm",
            method: "one block per SM, all at once; thread 0 of each chases the same random pointer cycle \
                     (warm pass, then 4096 timed steps); each repetition = one SM's mean cycles per load, \
                     in SM id order (see extra.smid)",
            params: vec![
                ("footprint_bytes", v(footprint)),
                ("stride_bytes", v(128)),
                ("steps", v(steps)),
                ("grid", v(grid)),
                ("expected_level", v(level)),
            ],
            reps: lat,
            extra: vec![("smid", v(&sms))],
        });
        Ok(())
    }

    fn lat_ldgsts(&mut self) -> Result<()> {
        let reps = self.reps(16, 4);
        let steps: i32 = 1024;
        for (kname, fp, level) in [
            ("lat_ldgsts_ca16", 4 * KIB, "L1"),
            ("lat_ldgsts_cg16", 4 * MIB, "L2"),
        ] {
            let (start, n) = self.build_chain(fp, 128, 0xa5a5 ^ fp)?;
            let (out, sink) = (self.out.ptr, self.sink.ptr);
            // warm pass over the whole cycle, then the timed run from the same start
            let warm_steps = ((n as u32).max(steps as u32).div_ceil(4) * 4) as i32;
            let one = 1i32;
            self.launch(
                kname,
                1,
                32,
                0,
                &[
                    arg(&start),
                    arg(&warm_steps),
                    arg(&one),
                    arg(&out),
                    arg(&sink),
                ],
            )?;
            self.launch(
                kname,
                1,
                32,
                0,
                &[arg(&start), arg(&steps), arg(&reps), arg(&out), arg(&sink)],
            )?;
            let raw = self.out_u64(reps as usize)?;
            let per: Vec<f64> = raw.iter().map(|t| *t as f64 / f64::from(steps)).collect();
            self.push(Rec {
                name: format!("lat.ldgsts.{}.fp_{}", &kname[11..], fmt_bytes(fp)),
                group: "latency",
                unit: "cycles",
                kernel: kname,
                method: "one thread; per step: cp.async 16 B of a pointer cycle to shared, commit_group, \
                         wait_group 0, LDS of the pointer; cycles per step (includes the LDS)",
                params: vec![
                    ("footprint_bytes", v(fp)),
                    ("steps", v(steps)),
                    ("expected_level", v(level)),
                ],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }

    // ------------------------------------------------------------------ bulk / tensor copies

    fn bulk_sizes(&self) -> Vec<u32> {
        if self.quick {
            vec![1024, 16384, 65536]
        } else {
            vec![1024, 2048, 4096, 8192, 16384, 32768, 65536]
        }
    }

    /// One thread, `count` bulk copies of `bytes` one after another, copy r from
    /// `src + r * step`; each copy's cycles land in `out`.
    fn launch_lat_bulk(&mut self, src: u64, step: u64, bytes: u32, count: i32) -> Result<()> {
        let (out, err) = (self.out.ptr, self.err.ptr);
        self.launch(
            "lat_bulk",
            1,
            32,
            bytes,
            &[
                arg(&src),
                arg(&step),
                arg(&bytes),
                arg(&count),
                arg(&out),
                arg(&err),
            ],
        )
    }

    fn lat_bulk(&mut self) -> Result<()> {
        self.k("lat_bulk")?.func.allow_smem(64 * 1024)?;
        let reps = self.reps(16, 4);
        for bytes in self.bulk_sizes() {
            for (src_level, cold) in [("l2", false), ("hbm", true)] {
                let step: u64 = if cold { 4 * MIB } else { 0 };
                // From HBM, launch k reads 64 KiB * k further on (fresh lines: no copy is
                // larger), each launch after an L2 flush.
                let launches = if cold { self.hbm_launches } else { 1 };
                let mut raw: Vec<u64> = Vec::new();
                for k in 0..launches {
                    let src = self.arena.ptr + 512 * MIB + u64::from(k) * 64 * 1024;
                    self.clear_err()?;
                    if cold {
                        self.flush_l2()?;
                    }
                    // From L2, a warm-up launch of two copies brings the lines in first.
                    for n in warm_then_timed(cold, reps) {
                        self.launch_lat_bulk(src, step, bytes, n)?;
                    }
                    self.check_err("lat_bulk")?;
                    raw.extend(self.out_u64(reps as usize)?);
                }
                let mut params = vec![
                    ("bytes", v(bytes)),
                    ("source", v(src_level)),
                    ("src_step_bytes", v(step)),
                ];
                params.extend(self.flush_params(cold));
                let mut method = String::from(
                    "one thread: mbarrier.arrive.expect_tx + cp.async.bulk global->shared, then \
                     try_wait.parity until complete; cycles per copy",
                );
                if launches > 1 {
                    params.push(("launches", v(launches)));
                    params.push(("reps_per_launch", v(reps)));
                    params.push(("launch_src_offset_bytes", v(64 * 1024)));
                    method.push_str(&format!(
                        "; {launches} launches of {reps} copies, each after an L2 flush, launch k's \
                         sources 64 KiB x k further on (reps in launch order)"
                    ));
                }
                self.push(Rec {
                    name: format!("lat.bulk.{src_level}.{}", fmt_bytes(u64::from(bytes))),
                    group: "latency",
                    unit: "cycles",
                    kernel: "lat_bulk",
                    method: &method,
                    params,
                    reps: raw.iter().map(|x| *x as f64).collect(),
                    extra: vec![],
                });
            }
        }
        Ok(())
    }

    /// Where HBM latency depends on the address (report item 5): one thread copies
    /// `count` blocks of `bytes` from HBM one after another, block r at `src + r * step`
    /// (every line read once, after one L2 flush), and records each copy's cycles in
    /// address order. Each case names its offset in the arena, so that the same
    /// addresses can be compared across cases and runs; `.again` repeats a case.
    fn map_hbm(&mut self) -> Result<()> {
        self.k("lat_bulk")?.func.allow_smem(64 * 1024)?;
        // (name, arena offset, bytes per copy, step, copies)
        let mut cases: Vec<(String, u64, u32, u64, i32)> = vec![
            ("map.hbm.line.step_128B".into(), 256 * MIB, 128, 128, 16384),
            (
                "map.hbm.line.step_128B.again".into(),
                256 * MIB,
                128,
                128,
                16384,
            ),
            (
                "map.hbm.line.step_4KiB".into(),
                320 * MIB,
                128,
                4 * KIB,
                16384,
            ),
            (
                "map.hbm.pair.step_4KiB".into(),
                384 * MIB,
                256,
                4 * KIB,
                16384,
            ),
            ("map.hbm.1KiB.step_1KiB".into(), 448 * MIB, 1024, KIB, 16384),
            (
                "map.hbm.1KiB.step_1KiB.again".into(),
                448 * MIB,
                1024,
                KIB,
                16384,
            ),
            (
                "map.hbm.8KiB.step_8KiB".into(),
                512 * MIB,
                8192,
                8 * KIB,
                4096,
            ),
        ];
        // Every size over the 16 MiB the 1 KiB cases mapped, so that each copy's lines'
        // classes are known: copy r of size S at r x S.
        for kib in [2u32, 4, 8, 16, 32, 64] {
            let bytes = kib * 1024;
            cases.push((
                format!("map.hbm.{kib}KiB.step_{kib}KiB.in_1KiB_map"),
                448 * MIB,
                bytes,
                u64::from(bytes),
                (16 * MIB / u64::from(bytes)) as i32,
            ));
        }
        for (name, offset, bytes, step, count) in cases {
            let name = name.as_str();
            let src = self.arena.ptr + offset;
            self.clear_err()?;
            self.flush_l2()?;
            self.launch_lat_bulk(src, step, bytes, count)?;
            self.check_err(name)?;
            let raw = self.out_u64(count as usize)?;
            self.push(Rec {
                name: name.to_string(),
                group: "map",
                unit: "cycles",
                kernel: "lat_bulk",
                method: "one thread: COUNT bulk copies of BYTES from HBM one after another (expect_tx, \
                         cp.async.bulk, try_wait), copy r from the arena + OFFSET + r x STEP, one L2 flush \
                         before the launch; reps = each copy's cycles in address order",
                params: vec![
                    ("bytes", v(bytes)),
                    ("step_bytes", v(step)),
                    ("count", v(count)),
                    ("arena_offset_bytes", v(offset)),
                    ("l2_flushed_before", v(true)),
                ],
                reps: raw.iter().map(|x| *x as f64).collect(),
                extra: vec![],
            });
        }
        Ok(())
    }

    fn lat_tma(&mut self) -> Result<()> {
        self.k("lat_tma2d")?.func.allow_smem(64 * 1024)?;
        let reps = self.reps(16, 4);
        let (out, err) = (self.out.ptr, self.err.ptr);
        let width = 1024u64; // u32 elements per row: 4 KiB rows
        let height = ARENA / (width * 4);
        for bytes in self.bulk_sizes() {
            let rows = bytes / 256;
            let tm = tensor_map_2d_u32(self.arena.ptr, width, height, 64, rows)?;
            for (src_level, cold) in [("l2", false), ("hbm", true)] {
                // y offset 128 Ki rows = 512 MiB into the arena; HBM steps 1024 rows (4 MiB)
                let y_step: i32 = if cold { 1024 } else { 0 };
                // From HBM, launch k's map starts 256 B x (k % 16) + 1 MiB x (k / 16)
                // further on: other columns of the same rows, then rows a box (at most 256
                // rows, 1 MiB) never reached; each launch after an L2 flush.
                let launches = if cold { self.hbm_launches } else { 1 };
                let mut raw: Vec<u64> = Vec::new();
                for k in 0..launches {
                    let shift = u64::from(k % 16) * 256 + u64::from(k / 16) * MIB;
                    let tm_shift = tensor_map_2d_u32(
                        self.arena.ptr + 512 * MIB + shift,
                        width,
                        height / 2 - 1024,
                        64,
                        rows,
                    )?;
                    let tmu = if cold { &tm_shift } else { &tm };
                    self.clear_err()?;
                    if cold {
                        self.flush_l2()?;
                    }
                    for n in warm_then_timed(cold, reps) {
                        self.launch(
                            "lat_tma2d",
                            1,
                            32,
                            bytes,
                            &[
                                arg(tmu),
                                arg(&bytes),
                                arg(&y_step),
                                arg(&n),
                                arg(&out),
                                arg(&err),
                            ],
                        )?;
                    }
                    self.check_err("lat_tma2d")?;
                    raw.extend(self.out_u64(reps as usize)?);
                }
                let mut params = vec![
                    ("bytes", v(bytes)),
                    ("box", v([64, rows])),
                    ("row_pitch_bytes", v(width * 4)),
                    ("source", v(src_level)),
                    ("y_step_rows", v(y_step)),
                ];
                params.extend(self.flush_params(cold));
                let mut method = String::from(
                    "one thread: expect_tx + cp.async.bulk.tensor.2d (tile, no swizzle, u32 box 64 x rows, \
                     map from cuTensorMapEncodeTiled) then try_wait.parity; cycles per copy",
                );
                if launches > 1 {
                    params.push(("launches", v(launches)));
                    params.push(("reps_per_launch", v(reps)));
                    method.push_str(&format!(
                        "; {launches} launches of {reps} copies, each after an L2 flush, launch k's map \
                         based 256 B x (k % 16) + 1 MiB x (k / 16) further on (reps in launch order)"
                    ));
                }
                self.push(Rec {
                    name: format!("lat.tma2d.{src_level}.{}", fmt_bytes(u64::from(bytes))),
                    group: "latency",
                    unit: "cycles",
                    kernel: "lat_tma2d",
                    method: &method,
                    params,
                    reps: raw.iter().map(|x| *x as f64).collect(),
                    extra: vec![],
                });
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------------ wgmma

    fn lat_wgmma(&mut self) -> Result<()> {
        let reps = self.reps(32, 8);
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        for n in WGMMA_N {
            let smem = sources::wgmma_smem(n);
            let mut by_k: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
            for k in WGMMA_K {
                let kname = format!("wgmma_lat_n{n}_k{k}");
                self.k(&kname)?.func.allow_smem(smem)?;
                self.launch(&kname, 1, 128, smem, &[arg(&reps), arg(&out), arg(&sink)])?;
                let raw: Vec<f64> = self
                    .out_u64(reps as usize)?
                    .iter()
                    .map(|x| *x as f64)
                    .collect();
                by_k.insert(k, raw.clone());
                self.push(Rec {
                    name: format!("lat.wgmma.m64n{n}k16.bf16.k{k}"),
                    group: "latency",
                    unit: "cycles",
                    kernel: &kname,
                    method: "one warpgroup: wgmma.fence, clock64, K wgmma.mma_async into the same accumulators, \
                             commit_group, wait_group 0, clock64; cycles per repetition (thread 0)",
                    params: vec![
                        ("n", v(n)),
                        ("k_back_to_back", v(k)),
                        ("operands", v("A and B from shared memory (descriptors, no swizzle)")),
                    ],
                    reps: raw,
                    extra: vec![],
                });
            }
            let lat = by_k[&1].clone();
            self.push(Rec {
                name: format!("lat.wgmma.m64n{n}k16.bf16.issue_to_complete"),
                group: "latency",
                unit: "cycles",
                kernel: &format!("wgmma_lat_n{n}_k1"),
                method: "K = 1: from before the wgmma to after wait_group 0 returns (includes one clock read, \
                         commit and wait)",
                params: vec![("n", v(n))],
                reps: lat,
                extra: vec![],
            });
            let (k_lo, k_hi) = (8u32, 32u32);
            let interval: Vec<f64> = by_k[&k_lo]
                .iter()
                .zip(&by_k[&k_hi])
                .map(|(a, b)| (b - a) / f64::from(k_hi - k_lo))
                .collect();
            self.push(Rec {
                name: format!("lat.wgmma.m64n{n}k16.bf16.interval"),
                group: "throughput",
                unit: "cycles",
                kernel: &format!("wgmma_lat_n{n}_k{k_lo},wgmma_lat_n{n}_k{k_hi}"),
                method: "issue interval of back-to-back wgmma into the same accumulators: (t(K=32) - t(K=8)) / 24 \
                         per repetition",
                params: vec![("n", v(n)), ("k_lo", v(k_lo)), ("k_hi", v(k_hi))],
                reps: interval,
                extra: vec![],
            });
        }
        Ok(())
    }

    // ------------------------------------------------------------------ ALU / LDS throughput

    /// Runs a per-SM throughput kernel (1 block) and returns the span in cycles per rep.
    fn warp_span(&self, raw: &[u64]) -> f64 {
        let starts = raw.iter().step_by(2).copied().min().unwrap_or(0);
        let ends = raw.iter().skip(1).step_by(2).copied().max().unwrap_or(0);
        ends.wrapping_sub(starts) as f64
    }

    /// One and two warpgroups issuing groups of K m64n256k16 (wait_group 0 after each):
    /// cycles per wgmma on the SM.
    fn tp_wgmma_pair(&mut self) -> Result<()> {
        let reps = self.reps(8, 3);
        let iters: i32 = 64;
        let smem = sources::wgmma_smem(256);
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        for k in sources::WGMMA_PAIR_K {
            let kname = format!("wgmma_pair_n256_k{k}");
            self.k(&kname)?.func.allow_smem(smem)?;
            for wgs in [1u32, 2] {
                let block = 128 * wgs;
                let args = [arg(&iters), arg(&out), arg(&sink)];
                self.launch(&kname, 1, block, smem, &args)?;
                let mut per = Vec::new();
                for _ in 0..reps {
                    self.launch(&kname, 1, block, smem, &args)?;
                    let raw = self.out_u64(2 * (block / 32) as usize)?;
                    per.push(self.warp_span(&raw) / f64::from(iters as u32 * k * wgs));
                }
                self.push(Rec {
                    name: format!("tp.wgmma_pair.m64n256k16.k{k}.warpgroups_{wgs}"),
                    group: "throughput",
                    unit: "cycles_per_wgmma",
                    kernel: &kname,
                    method: "one CTA of WARPGROUPS warpgroups; each: ITERS x (K wgmma m64n256k16 into its own \
                             accumulators, commit, wait_group 0); (last warp end - first warp start) / (ITERS x K x \
                             WARPGROUPS)",
                    params: vec![
                        ("K", v(k)),
                        ("warpgroups", v(wgs)),
                        ("iters", v(iters)),
                    ],
                    reps: per,
                    extra: vec![],
                });
            }
        }
        Ok(())
    }

    /// Two warpgroups of serialized wgmma (k = 1) with what a main loop adds: a ring of
    /// operand addresses, swizzled descriptors, a concurrent bulk-copy stream.
    fn tp_wgmma_var(&mut self) -> Result<()> {
        let reps = self.reps(8, 3);
        let iters: i32 = 256;
        // the operand ring, up to 1 KiB to align it, 1 KiB apart, then the copy ring
        let smem: u32 = 1024 + 4 * 10240 + 1024 + 2 * 32768;
        self.k("wgmma_pair_var")?.func.allow_smem(smem)?;
        let (out, sink, src) = (self.out.ptr, self.sink.ptr, self.arena.ptr);
        for (label, ring, swz, copies) in [
            ("same", 1i32, 0i32, 0i32),
            ("ring4", 4, 0, 0),
            ("swz", 1, 1, 0),
            ("ring4_swz", 4, 1, 0),
            ("copies", 1, 0, 64),
            ("ring4_swz_copies", 4, 1, 64),
        ] {
            let args = [
                arg(&iters),
                arg(&ring),
                arg(&swz),
                arg(&src),
                arg(&copies),
                arg(&out),
                arg(&sink),
            ];
            self.launch("wgmma_pair_var", 1, 288, smem, &args)?;
            let mut per = Vec::new();
            for _ in 0..reps {
                self.launch("wgmma_pair_var", 1, 288, smem, &args)?;
                let raw = self.out_u64(16)?;
                per.push(self.warp_span(&raw) / f64::from(iters as u32 * 2));
            }
            self.push(Rec {
                name: format!("tp.wgmma_var.m64n256k16.{label}"),
                group: "throughput",
                unit: "cycles_per_wgmma",
                kernel: "wgmma_pair_var",
                method: "two warpgroups, each ITERS x (one wgmma m64n256k16, commit, wait_group 0); RING operand \
                         slots of 10 KiB, SWZ 128-byte-swizzle descriptors, COPIES bulk copies of 32 KiB by a ninth \
                         warp meanwhile; (last consumer warp end - first start) / (ITERS x 2)",
                params: vec![
                    ("ring", v(ring)),
                    ("swz", v(swz)),
                    ("copies", v(copies)),
                    ("iters", v(iters)),
                ],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }

    /// The gemm consumer's four k-slice wgmma per k-step, two warpgroups, no loads:
    /// serialized, one group, and serialized on one slice.
    fn tp_wgmma_slices(&mut self) -> Result<()> {
        let reps = self.reps(8, 3);
        let iters: i32 = 64;
        let smem: u32 = 49152 + 2048;
        self.k("wgmma_slices")?.func.allow_smem(smem)?;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        for (label, mode) in [
            ("serialized", 0i32),
            ("one_group", 1),
            ("serialized_one_slice", 2),
        ] {
            let args = [arg(&iters), arg(&mode), arg(&out), arg(&sink)];
            self.launch("wgmma_slices", 1, 256, smem, &args)?;
            let mut per = Vec::new();
            for _ in 0..reps {
                self.launch("wgmma_slices", 1, 256, smem, &args)?;
                let raw = self.out_u64(16)?;
                per.push(self.warp_span(&raw) / f64::from(iters as u32 * 8));
            }
            self.push(Rec {
                name: format!("tp.wgmma_slices.m64n256k16.{label}"),
                group: "throughput",
                unit: "cycles_per_wgmma",
                kernel: "wgmma_slices",
                method: "two warpgroups, ITERS k-steps of the gemm consumer's four wgmma m64n256k16 over one \
                         128x256x64 SW128 stage (descriptors computed before the loop); MODE 0 each wgmma its own \
                         group + wait 0, 1 one group of four + wait 0, 2 as 0 on k-slice 0 only; span / (ITERS x 8)",
                params: vec![("mode", v(mode)), ("iters", v(iters))],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }

    fn tp_alu(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let block = 1024u32;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let (a, b) = (0.999f32, 0.001f32);
        for (name, kname, iters, what) in [
            ("tp.ffma", "tp_ffma", 2048i32, "FFMA"),
            ("tp.mufu.ex2", "tp_mufu_ex2", 256, "MUFU.EX2"),
            ("tp.mufu.rcp", "tp_mufu_rcp", 256, "MUFU.RCP"),
        ] {
            let mut per = Vec::new();
            for _ in 0..reps {
                self.launch(
                    kname,
                    1,
                    block,
                    0,
                    &[arg(&iters), arg(&a), arg(&b), arg(&out), arg(&sink)],
                )?;
                let raw = self.out_u64(2 * (block / 32) as usize)?;
                let ops = f64::from(block) * f64::from(iters) * 16.0 * 8.0;
                per.push(ops / self.warp_span(&raw));
            }
            self.push(Rec {
                name: name.into(),
                group: "throughput",
                unit: "per_clk_per_sm",
                kernel: kname,
                method: "one block of 1024 threads, 8 independent chains per thread; thread-instructions per \
                         cycle over the span from the first warp's start to the last warp's end",
                params: vec![("instruction", v(what)), ("block", v(block)), ("iters", v(iters))],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }

    /// The softmax's other instructions: dependent chains (cycles per step) of SHFL.BFLY
    /// (one full warp), FMNMX and F2FP.BF16.F32.PACK_AB (one thread), and their
    /// throughput with 1024 threads (thread-instructions per cycle per SM).
    fn mio(&mut self) -> Result<()> {
        let reps = self.reps(32, 8);
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let lane_mask: u32 = 1;
        let x0u: u32 = 7;
        let (a, b, x0f) = (0.5f32, 0.25f32, 1.5f32);
        for (name, kname, threads, what) in [
            (
                "lat.shfl",
                "lat_shfl",
                32u32,
                "SHFL.BFLY (shfl.sync.bfly.b32, lane mask 1 at run time), one warp",
            ),
            ("lat.fmnmx", "lat_fmnmx", 1, "FMNMX (max.f32 x, x, a)"),
            (
                "lat.f2fp",
                "lat_f2fp",
                1,
                "F2FP.BF16.F32.PACK_AB (cvt.rn.bf16x2.f32 x, x, a)",
            ),
        ] {
            let args: [*mut c_void; 6] = if kname == "lat_shfl" {
                [
                    arg(&out),
                    arg(&lane_mask),
                    arg(&lane_mask),
                    arg(&x0u),
                    arg(&reps),
                    arg(&sink),
                ]
            } else {
                [
                    arg(&out),
                    arg(&a),
                    arg(&b),
                    arg(&x0f),
                    arg(&reps),
                    arg(&sink),
                ]
            };
            self.launch(kname, 1, threads, 0, &args)?;
            let raw = self.out_u64(2 * reps as usize)?;
            self.push_chain(name, kname, &raw, what);
        }
        let block = 1024u32;
        let iters: i32 = 256;
        for (name, kname, what) in [
            ("tp.shfl", "tp_shfl", "SHFL.BFLY"),
            ("tp.fmnmx", "tp_fmnmx", "FMNMX"),
            ("tp.f2fp", "tp_f2fp", "F2FP.BF16.F32.PACK_AB"),
        ] {
            let mut per = Vec::new();
            for _ in 0..self.reps(5, 2) {
                let args: [*mut c_void; 5] = if kname == "tp_shfl" {
                    [
                        arg(&iters),
                        arg(&lane_mask),
                        arg(&lane_mask),
                        arg(&out),
                        arg(&sink),
                    ]
                } else {
                    [arg(&iters), arg(&a), arg(&b), arg(&out), arg(&sink)]
                };
                self.launch(kname, 1, block, 0, &args)?;
                let raw = self.out_u64(2 * (block / 32) as usize)?;
                let ops = f64::from(block) * f64::from(iters) * 16.0 * 8.0;
                per.push(ops / self.warp_span(&raw));
            }
            self.push(Rec {
                name: name.into(),
                group: "throughput",
                unit: "per_clk_per_sm",
                kernel: kname,
                method: "one block of 1024 threads, 8 independent chains per thread; thread-instructions per \
                         cycle over the span from the first warp's start to the last warp's end",
                params: vec![("instruction", v(what)), ("block", v(block)), ("iters", v(iters))],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }

    /// Dependent chains of the uniform datapath (UIADD3, UIMAD, ULOP3, USHF, UISETP ->
    /// USEL), one thread, operands from the kernel parameters (`kernels/uni.cu`).
    fn uni(&mut self) -> Result<()> {
        let reps = self.reps(32, 8);
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let (a, b, x0): (u32, u32, u32) = (3, 5, 7);
        for (name, kname, what) in [
            (
                "lat.uiadd3",
                "lat_uiadd3",
                "UIADD3 (two PTX adds fused: UIADD3 x, a, x, b), uniform registers",
            ),
            (
                "lat.uimad",
                "lat_uimad",
                "UIMAD (mad.lo.u32 x, x, a, b), uniform registers",
            ),
            (
                "lat.ulop3",
                "lat_ulop3",
                "ULOP3.LUT (lop3.b32 x, x, a, b, 0x96), uniform registers",
            ),
            (
                "lat.ushf",
                "lat_ushf",
                "USHF.L.W.U32.HI (shf.l.wrap.b32 x, x, x, a), uniform registers",
            ),
            (
                "lat.usel",
                "lat_usel",
                "UISETP.GE.U32 into UP0 then USEL x, x, b, !UP0 (two instructions per step), uniform registers",
            ),
        ] {
            let args = [
                arg(&out),
                arg(&a),
                arg(&b),
                arg(&x0),
                arg(&reps),
                arg(&sink),
            ];
            self.launch(kname, 1, 1, 0, &args)?;
            let raw = self.out_u64(2 * reps as usize)?;
            self.push_chain(name, kname, &raw, what);
        }
        Ok(())
    }

    /// The warp scheduler's order: 8 warps (two per sub-partition) of the FFMA throughput
    /// kernel, every warp always ready. A greedy scheduler (GTO, oldest first) runs one
    /// warp of each pair to its end before the other (the first warps finish at half the
    /// span); a round-robin one interleaves them (all finish together). The value is the
    /// first warp's finish over the last one's, both from the earliest start.
    fn sched(&mut self) -> Result<()> {
        let reps = self.reps(9, 3);
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let (a, b) = (0.999f32, 0.001f32);
        let iters: i32 = 64;
        // 3, 5 and 7 warps per sub-partition: who finishes last when the warps do not
        // pair up (each repetition's warp end times are kept, from the earliest start).
        for (warps, label) in [
            (8u32, "warps_8"),
            (16, "warps_16"),
            (12, "warps_12"),
            (20, "warps_20"),
            (28, "warps_28"),
        ] {
            if warps % 8 != 0 && !self.only.iter().any(|o| o == "sched.odd") {
                continue;
            }
            let block = 32 * warps;
            let mut per = Vec::new();
            let mut spans = Vec::new();
            let mut warp_ends: Vec<Vec<u64>> = Vec::new();
            for _ in 0..reps {
                self.launch(
                    "tp_ffma",
                    1,
                    block,
                    0,
                    &[arg(&iters), arg(&a), arg(&b), arg(&out), arg(&sink)],
                )?;
                let raw = self.out_u64(2 * warps as usize)?;
                let start = raw.iter().step_by(2).copied().min().unwrap_or(0);
                let ends: Vec<u64> = raw.iter().skip(1).step_by(2).copied().collect();
                let first = ends.iter().copied().min().unwrap_or(0).wrapping_sub(start) as f64;
                let last = ends.iter().copied().max().unwrap_or(0).wrapping_sub(start) as f64;
                per.push(first / last);
                spans.push(last);
                warp_ends.push(ends.iter().map(|e| e.wrapping_sub(start)).collect());
            }
            self.push(Rec {
                name: format!("sched.first_finish.{label}"),
                group: "scheduler",
                unit: "fraction",
                kernel: "tp_ffma",
                method: "one block of tp_ffma (8 independent FFMA chains per thread, always ready); the first \
                         warp's end over the last warp's end, both from the earliest warp start",
                params: vec![("warps", v(warps)), ("iters", v(iters))],
                reps: per,
                extra: if warps % 8 == 0 {
                    vec![("span_cycles", v(&spans))]
                } else {
                    vec![("span_cycles", v(&spans)), ("warp_end_cycles", v(&warp_ends))]
                },
            });
        }
        // One and four warps (one per sub-partition) of the same kernel: thread-FFMA per
        // cycle per SM, i.e. how often one warp can issue when nothing else competes.
        for (warps, label) in [(1u32, "warps_1"), (4, "warps_4")] {
            let block = 32 * warps;
            let mut per = Vec::new();
            for _ in 0..reps {
                self.launch(
                    "tp_ffma",
                    1,
                    block,
                    0,
                    &[arg(&iters), arg(&a), arg(&b), arg(&out), arg(&sink)],
                )?;
                let raw = self.out_u64(2 * warps as usize)?;
                let ops = f64::from(block) * f64::from(iters) * 16.0 * 8.0;
                per.push(ops / self.warp_span(&raw));
            }
            self.push(Rec {
                name: format!("tp.ffma.{label}"),
                group: "throughput",
                unit: "per_clk_per_sm",
                kernel: "tp_ffma",
                method: "tp_ffma (8 independent FFMA chains per thread) with one block of 1 or 4 warps; \
                         thread-FFMA per cycle over the span",
                params: vec![("warps", v(warps)), ("iters", v(iters))],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }

    fn tp_lds(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let block = 1024u32;
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        for (name, kname, iters, bytes) in [
            ("tp.lds128", "tp_lds128", 2048i32, 16.0),
            ("tp.lds32", "tp_lds32", 8192, 4.0),
        ] {
            let mut per = Vec::new();
            for _ in 0..reps {
                self.launch(kname, 1, block, 0, &[arg(&iters), arg(&out), arg(&sink)])?;
                let raw = self.out_u64(2 * (block / 32) as usize)?;
                let total = f64::from(block) * f64::from(iters) * f64::from(TP_LDS_UNR) * bytes;
                per.push(total / self.warp_span(&raw));
            }
            self.push(Rec {
                name: name.into(),
                group: "throughput",
                unit: "bytes_per_clk_per_sm",
                kernel: kname,
                method: "one block of 1024 threads, conflict-free shared loads, 8 per iteration; bytes per cycle \
                         over the block's span",
                params: vec![("bytes_per_thread_load", v(bytes)), ("block", v(block)), ("iters", v(iters))],
                reps: per,
                extra: vec![],
            });
        }
        Ok(())
    }

    // ------------------------------------------------------------------ bandwidth

    #[allow(clippy::too_many_arguments)]
    fn bw_run(
        &mut self,
        name: &str,
        region: u64,
        grid: u32,
        total_bytes: u64,
        warm: bool,
        level: &str,
        reps: i32,
    ) -> Result<()> {
        let block = 1024u32;
        let per_iter = u64::from(grid) * u64::from(block) * 16 * 8;
        let iters = (total_bytes / per_iter).max(1);
        let bytes = (iters * per_iter) as f64;
        let mask = region / 16 - 1;
        let (base, out, sink) = (self.arena.ptr, self.out.ptr, self.sink.ptr);
        if warm {
            let wi = (region / per_iter).max(1);
            self.launch(
                "bw_ld",
                grid,
                block,
                0,
                &[arg(&base), arg(&mask), arg(&wi), arg(&out), arg(&sink)],
            )?;
        }
        let mut bpc = Vec::new();
        let mut gbs = Vec::new();
        let mut gbs_ev = Vec::new();
        let mut raw_all = Vec::new();
        for _ in 0..reps {
            if !warm {
                self.flush_l2()?;
            }
            let ms = self.launch_timed(
                "bw_ld",
                grid,
                block,
                0,
                &[arg(&base), arg(&mask), arg(&iters), arg(&out), arg(&sink)],
            )?;
            let bt = BlockTimes::parse(&self.out_u64(5 * grid as usize)?);
            let mhz = bt.mhz();
            let ns = bt.span_ns();
            gbs.push(bytes / ns);
            gbs_ev.push(bytes / (ms * 1e6));
            // bytes per SM-clock: wall time converted with the clock measured in the same kernel
            bpc.push(bytes / (ns * mhz * 1e-3));
            raw_all.push(json!({"event_ms": ms, "span_ns": ns, "max_block_ns": bt.max_ns(), "clock_mhz": mhz,
                "max_block_cycles": bt.max_cycles(), "distinct_sms": bt.distinct_sms(), "blocks": bt.c.len()}));
        }
        let params = vec![
            ("region_bytes", v(region)),
            ("grid", v(grid)),
            ("block", v(block)),
            ("bytes_per_rep", v(bytes)),
            ("expected_level", v(level)),
            (
                "instruction",
                v("ld.global.v4.u32 (LDG.E.128), 8 independent per thread"),
            ),
        ];
        let method = "streaming 16-byte loads over a region (grid-stride, wrapped; grid = one full wave); time = \
                      %globaltimer from the earliest block start to the latest block end, cycles = that time x the \
                      clock64/globaltimer ratio measured in the same kernel";
        self.push(Rec {
            name: format!("{name}.bytes_per_clk"),
            group: "bandwidth",
            unit: "bytes_per_clk",
            kernel: "bw_ld",
            method,
            params: params.clone(),
            reps: bpc,
            extra: vec![("raw", v(&raw_all))],
        });
        self.push(Rec {
            name: format!("{name}.gbps"),
            group: "bandwidth",
            unit: "GB/s",
            kernel: "bw_ld",
            method,
            params,
            reps: gbs,
            extra: vec![("event_gbps", v(&gbs_ev))],
        });
        Ok(())
    }

    fn bw_ldg(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let per_sm = self.k("bw_ld")?.func.max_active_blocks(1024, 0)?.max(1);
        let chip = per_sm * self.sm_count;
        let q = if self.quick { 4 } else { 1 };
        self.bw_run("bw.l2.one_sm", 8 * MIB, 1, 64 * MIB / q, true, "L2", reps)?;
        self.bw_run("bw.l2.chip", 16 * MIB, chip, 4 * GIB / q, true, "L2", reps)?;
        self.bw_run("bw.hbm.one_sm", ARENA, 1, 256 * MIB / q, false, "HBM", reps)?;
        self.bw_run("bw.hbm.chip", ARENA, chip, 4 * GIB / q, false, "HBM", reps)?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn bw_tma_run(
        &mut self,
        name: &str,
        region: u64,
        grid: u32,
        bytes_per_block: u64,
        warm: bool,
        level: &str,
        chunk: u32,
        stages: i32,
    ) -> Result<()> {
        self.bw_tma_run_shared(
            name,
            region,
            grid,
            bytes_per_block,
            warm,
            level,
            chunk,
            stages,
            false,
        )
    }

    /// `shared`: every block streams the same bytes (block stride 0), as the CTAs of a
    /// GEMM wave read the same operand tiles at about the same time.
    #[allow(clippy::too_many_arguments)]
    fn bw_tma_run_shared(
        &mut self,
        name: &str,
        region: u64,
        grid: u32,
        bytes_per_block: u64,
        warm: bool,
        level: &str,
        chunk: u32,
        stages: i32,
        shared: bool,
    ) -> Result<()> {
        let nchunks = (bytes_per_block / u64::from(chunk)) as i32;
        let smem = chunk * stages as u32;
        self.k("bw_bulk")?.func.allow_smem(smem)?;
        let block_stride = if shared {
            0
        } else {
            (region / u64::from(grid)) / u64::from(chunk) * u64::from(chunk)
        };
        let (base, out, err) = (self.arena.ptr, self.out.ptr, self.err.ptr);
        let args = |n: &i32| {
            [
                arg(&base),
                arg(&region),
                arg(&block_stride),
                arg(&chunk),
                arg(&stages),
                arg(n),
                arg(&out),
                arg(&err),
            ]
        };
        self.clear_err()?;
        if warm {
            let wn = (region / u64::from(chunk)) as i32;
            self.launch("bw_bulk", grid, 32, smem, &args(&wn))?;
        }
        let reps = self.reps(5, 2);
        let bytes = f64::from(nchunks) * f64::from(chunk) * f64::from(grid);
        let mut bpc = Vec::new();
        let mut gbs = Vec::new();
        let mut raw_all = Vec::new();
        for _ in 0..reps {
            if !warm {
                self.flush_l2()?;
            }
            let ms = self.launch_timed("bw_bulk", grid, 32, smem, &args(&nchunks))?;
            self.check_err("bw_bulk")?;
            let bt = BlockTimes::parse(&self.out_u64(5 * grid as usize)?);
            let mhz = bt.mhz();
            let ns = bt.span_ns();
            gbs.push(bytes / ns);
            bpc.push(bytes / (ns * mhz * 1e-3));
            raw_all.push(
                json!({"event_ms": ms, "span_ns": ns, "max_block_ns": bt.max_ns(), "clock_mhz": mhz,
                "distinct_sms": bt.distinct_sms(), "blocks": bt.c.len()}),
            );
        }
        let params = vec![
            ("region_bytes", v(region)),
            ("grid", v(grid)),
            ("chunk_bytes", v(chunk)),
            ("stages", v(stages)),
            ("chunks_per_block", v(nchunks)),
            ("expected_level", v(level)),
            ("block_stride", v(block_stride)),
        ];
        let method = "one thread per block keeps `stages` cp.async.bulk copies of `chunk_bytes` in flight into a \
                      shared-memory ring (mbarrier per slot); bytes / %globaltimer span from the earliest block start to the \
                      latest block end (cycles via the clock64/globaltimer ratio of the same kernel)";
        self.push(Rec {
            name: format!("{name}.bytes_per_clk"),
            group: "bandwidth",
            unit: "bytes_per_clk",
            kernel: "bw_bulk",
            method,
            params: params.clone(),
            reps: bpc,
            extra: vec![("raw", v(&raw_all))],
        });
        self.push(Rec {
            name: format!("{name}.gbps"),
            group: "bandwidth",
            unit: "GB/s",
            kernel: "bw_bulk",
            method,
            params,
            reps: gbs,
            extra: vec![],
        });
        Ok(())
    }

    fn bw_tma(&mut self) -> Result<()> {
        let q = if self.quick { 4 } else { 1 };
        let sms = self.sm_count;
        let k32 = 32 * 1024;
        self.bw_tma_run(
            "bw.tma.l2.one_sm",
            8 * MIB,
            1,
            64 * MIB / q,
            true,
            "L2",
            k32,
            4,
        )?;
        self.bw_tma_run(
            "bw.tma.hbm.one_sm",
            ARENA,
            1,
            128 * MIB / q,
            false,
            "HBM",
            k32,
            4,
        )?;
        self.bw_tma_run(
            "bw.tma.l2.chip",
            16 * MIB,
            sms,
            16 * MIB / q,
            true,
            "L2",
            k32,
            4,
        )?;
        self.bw_tma_run(
            "bw.tma.hbm.chip",
            ARENA,
            sms,
            32 * MIB / q,
            false,
            "HBM",
            k32,
            4,
        )?;
        // every SM streams the same 16 MiB: reads of the same lines by many SMs at once
        self.bw_tma_run_shared(
            "bw.tma.l2.chip.same_data",
            16 * MIB,
            sms,
            16 * MIB / q,
            true,
            "L2",
            k32,
            4,
            true,
        )?;
        if !self.quick {
            // what limits one SM: chunk size x copies in flight
            for chunk in [8 * 1024, 16 * 1024, 32 * 1024] {
                for stages in [2, 4, 6] {
                    let name =
                        format!("bw.tma.l2.one_sm.chunk_{}KiB.stages_{stages}", chunk / 1024);
                    self.bw_tma_run(&name, 8 * MIB, 1, 32 * MIB, true, "L2", chunk, stages)?;
                }
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------------ register banks

    fn regbank(&mut self) -> Result<()> {
        let reps = self.reps(5, 2);
        let iters: i32 = if self.quick { 256 } else { 1024 };
        let (out, sink) = (self.out.ptr, self.sink.ptr);
        let input: Vec<f32> = (0..64).map(|i| 1.0 + i as f32 * 1e-3).collect();
        let inbuf = self.gpu.alloc(64 * 4)?;
        inbuf.upload(&input)?;
        let inp = inbuf.ptr;
        let names: Vec<String> = {
            let mut v: Vec<String> = self
                .kernels
                .keys()
                .filter(|k| k.starts_with("rb_"))
                .cloned()
                .collect();
            v.sort();
            v
        };
        for kname in names {
            for (warps, label) in [(32u32, "warps_32"), (1, "warps_1")] {
                let block = 32 * warps;
                let mut per = Vec::new();
                let mut lat = Vec::new();
                for _ in 0..reps {
                    self.launch(
                        &kname,
                        1,
                        block,
                        0,
                        &[arg(&iters), arg(&inp), arg(&out), arg(&sink)],
                    )?;
                    let raw = self.out_u64(2 * warps as usize)?;
                    let span = self.warp_span(&raw);
                    let ops = f64::from(block) * f64::from(iters) * f64::from(RB_OPS_PER_ITER);
                    per.push(ops / span);
                    lat.push(span / (f64::from(iters) * f64::from(RB_OPS_PER_ITER / RB_CHAINS)));
                }
                self.push(Rec {
                    name: format!("regbank.{}.{label}", &kname[3..]),
                    group: "regbank",
                    unit: "ffma_per_clk_per_sm",
                    kernel: &kname,
                    method: "FFMA chains whose source registers were placed by ptxas as the kernel's comment says \
                             (see the SASS dump); thread-FFMA per cycle over the block's span",
                    params: vec![("warps", v(warps)), ("iters", v(iters))],
                    reps: per,
                    extra: vec![("cycles_per_dependent_step", v(&lat))],
                });
            }
        }
        Ok(())
    }
}

/// Shared loads per iteration per thread of tp_lds* (TP_LDS_UNR in micro.cu).
const TP_LDS_UNR: u32 = 8;

/// FFMA per iteration per thread, and independent chains, of every rb_ kernel.
const RB_OPS_PER_ITER: u32 = 64;
const RB_CHAINS: u32 = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_from_l2_are_timed_after_a_warm_up_launch_and_from_hbm_cold() {
        assert_eq!(warm_then_timed(false, 16).collect::<Vec<_>>(), [2, 16]);
        assert_eq!(warm_then_timed(true, 16).collect::<Vec<_>>(), [16]);
    }

    #[test]
    fn permutation_is_a_permutation() {
        let p = permutation(1000, 7);
        let mut s = p.clone();
        s.sort_unstable();
        assert_eq!(s, (0..1000).collect::<Vec<u32>>());
        assert_ne!(p, (0..1000).collect::<Vec<u32>>());
    }

    #[test]
    fn kernel_names_found() {
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
        let val = kernel_names(sources::VALIDATION);
        assert_eq!(val.len(), 8, "{val:?}");
        assert!(val.contains(&"vh_chase_l2_k64".to_string()));
        let w = kernel_names(&sources::wgmma_source());
        assert!(w.contains(&"wgmma_lat_n256_k32".to_string()));
        assert!(w.contains(&"wgmma_burn_n256".to_string()));
    }

    #[test]
    fn sizes_format() {
        assert_eq!(fmt_bytes(4 * KIB), "4KiB");
        assert_eq!(fmt_bytes(24 * MIB), "24MiB");
        assert_eq!(fmt_bytes(GIB), "1GiB");
    }
}
