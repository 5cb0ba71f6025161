//! The GPU profile: every timing and capacity parameter the engine uses, each with its
//! value and where it came from. No timing constant lives in the engine's code.

use std::collections::BTreeMap;
use std::fmt;

use isa::opcode::FixedClass;
use serde::{Deserialize, Serialize};

/// One parameter as written in a profile file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamEntry {
    /// The value, in the parameter's unit (`ParamDoc`).
    pub value: f64,
    /// A citation, or the measurement file and benchmarks a fitted value came from.
    pub source: String,
}

/// A profile as stored in TOML.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProfileFile {
    /// Its name (`h100`, `b200`).
    pub name: String,
    /// The GPU it describes.
    pub gpu: String,
    /// True once the parameters have been fitted to measurements of this GPU.
    pub validated: bool,
    /// How far to trust it (reports print it).
    pub note: String,
    /// A built-in profile this one starts from: its parameters stand wherever the file
    /// gives none (a GPU with the same SM and other memory is the base's SM model with a
    /// few memory parameters of its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// Every parameter, by name (once loaded, the base's included).
    pub params: BTreeMap<String, ParamEntry>,
}

/// Why a profile cannot be loaded or a parameter set.
#[derive(Clone, Debug, PartialEq)]
pub enum ProfileError {
    /// The file is not valid TOML (or not a profile's shape): the parser's message.
    Toml(String),
    /// Parameters the file lacks.
    Missing(Vec<String>),
    /// A parameter no profile has.
    Unknown {
        /// The name given.
        name: String,
        /// Every parameter's name (the message suggests close ones).
        known: Vec<String>,
    },
    /// A value outside its parameter's range.
    Invalid {
        /// The parameter.
        name: String,
        /// The value given.
        value: f64,
        /// What the parameter accepts.
        why: String,
    },
    /// No built-in profile of that name.
    NoSuchBuiltin(String),
    /// A chain of `base` profiles that comes back to itself.
    BaseCycle(Vec<String>),
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileError::Toml(e) => write!(f, "the profile is not valid TOML: {e}"),
            ProfileError::Missing(names) => {
                write!(
                    f,
                    "the profile lacks these parameters: {}",
                    names.join(", ")
                )
            }
            ProfileError::Unknown { name, known } => {
                let close: Vec<&String> = known.iter().filter(|k| similar(k, name)).collect();
                write!(f, "no profile parameter is called `{name}`")?;
                if !close.is_empty() {
                    let c: Vec<&str> = close.iter().map(|s| s.as_str()).collect();
                    write!(f, " (did you mean {}?)", c.join(", "))?;
                }
                Ok(())
            }
            ProfileError::Invalid { name, value, why } => write!(f, "`{name}` = {value}: {why}"),
            ProfileError::BaseCycle(chain) => write!(
                f,
                "the profiles' `base` chain comes back to itself: {}",
                chain.join(" -> ")
            ),
            ProfileError::NoSuchBuiltin(n) => {
                write!(
                    f,
                    "no built-in profile `{n}`; built in: {}",
                    BUILTIN.iter().map(|b| b.0).collect::<Vec<_>>().join(", ")
                )
            }
        }
    }
}

impl std::error::Error for ProfileError {}

fn similar(a: &str, b: &str) -> bool {
    a.contains(b) || b.contains(a) || {
        let pa: Vec<&str> = a.split('_').collect();
        b.split('_')
            .filter(|w| w.len() > 2 && pa.contains(w))
            .count()
            >= 2
    }
}

const BUILTIN: &[(&str, &str)] = &[
    ("h100", include_str!("../profiles/h100.toml")),
    ("b200", include_str!("../profiles/b200.toml")),
    ("h200", include_str!("../profiles/h200.toml")),
];

/// Declares the profile's parameters once: the typed `Timing` the engine reads, the
/// check each value must pass, and each parameter's unit and meaning (its doc comment),
/// which `Timing::PARAMS` carries for `smsim profile` and any other reader.
macro_rules! timing {
    ($( section $group:literal {
        $( $(#[doc = $doc:literal])* $name:ident : $check:expr => $unit:literal ),* $(,)?
    } )*) => {
        /// The profile's parameters as the engine reads them. Cycles are SM clock cycles;
        /// `Timing::PARAMS` describes each field.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        pub struct Timing { $( $( $(#[doc = $doc])* #[doc = ""] #[doc = concat!("Unit: ", $unit, ".")] pub $name: f64, )* )* }

        impl Timing {
            /// Every parameter's name, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$( $(stringify!($name),)* )*];

            /// Every parameter described, in declaration order (the order of `NAMES`).
            pub const PARAMS: &'static [ParamDoc] = &[$( $(ParamDoc {
                name: stringify!($name),
                group: $group,
                unit: $unit,
                doc: concat!($($doc),*),
            },)* )*];

            fn from_params(p: &BTreeMap<String, ParamEntry>) -> Result<Timing, ProfileError> {
                let missing: Vec<String> = Self::NAMES.iter().filter(|n| !p.contains_key(**n)).map(|n| n.to_string()).collect();
                if !missing.is_empty() {
                    return Err(ProfileError::Missing(missing));
                }
                $( $(
                    let $name = p[stringify!($name)].value;
                    let check: fn(f64) -> Result<(), &'static str> = $check;
                    check($name).map_err(|why| ProfileError::Invalid { name: stringify!($name).into(), value: $name, why: why.into() })?;
                )* )*
                Ok(Timing { $( $($name,)* )* })
            }
        }
    };
}

/// One profile parameter described: its group, unit and meaning, as declared in
/// `timing!` (the values and their sources are each profile's own: `ProfileFile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamDoc {
    /// The parameter's name, as in profile files and `--set`.
    pub name: &'static str,
    /// The part of the SM it belongs to: `caches`, `tensor cores`, ...
    pub group: &'static str,
    /// What its value counts: `cycles`, `bytes per cycle`, `probability`, ...
    pub unit: &'static str,
    /// Its meaning as declared (the doc comment's lines joined; see `meaning`).
    doc: &'static str,
}

impl ParamDoc {
    /// What the parameter means and how the engine uses it, in one paragraph.
    pub fn meaning(&self) -> &'static str {
        self.doc.trim()
    }

    /// The description of the parameter called `name`, if there is one.
    pub fn of(name: &str) -> Option<&'static ParamDoc> {
        Timing::PARAMS.iter().find(|p| p.name == name)
    }
}

fn at_least_one(v: f64) -> Result<(), &'static str> {
    if v >= 1.0 && v.is_finite() {
        Ok(())
    } else {
        Err("must be a number of at least 1")
    }
}

/// A relative cost: from 0 (free) to 16.
fn cost_ratio(v: f64) -> Result<(), &'static str> {
    if (0.0..=16.0).contains(&v) {
        Ok(())
    } else {
        Err("must be a ratio from 0 to 16")
    }
}

fn probability(v: f64) -> Result<(), &'static str> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err("must be a probability, from 0 to 1")
    }
}

/// A rate or a clock: positive, from 10^-6 up to below 10^12. (No GPU's figure is
/// outside; a rate much nearer 0 makes times, and a cycle count near 10^18 makes sums of
/// them, that no 64-bit cycle count holds.)
fn positive(v: f64) -> Result<(), &'static str> {
    if (1e-6..1e12).contains(&v) {
        Ok(())
    } else {
        Err("must be a positive number from 0.000001 up to below 10^12")
    }
}
/// Cycles (or a count of lines) that may be fractional: zero or more, below 10^12, as
/// `whole`'s.
fn non_negative(v: f64) -> Result<(), &'static str> {
    if (0.0..1e12).contains(&v) {
        Ok(())
    } else {
        Err("must be zero or more, below 10^12")
    }
}
/// A rate that may be off: 0, or a positive number as `positive`'s.
fn rate_or_off(v: f64) -> Result<(), &'static str> {
    if v == 0.0 || (1e-6..1e12).contains(&v) {
        Ok(())
    } else {
        Err("must be 0 (off) or a positive number from 0.000001 up to below 10^12")
    }
}
/// A switch: 0 (off) or 1 (on).
fn flag(v: f64) -> Result<(), &'static str> {
    if v == 0.0 || v == 1.0 {
        Ok(())
    } else {
        Err("must be 0 (off) or 1 (on)")
    }
}
fn count(v: f64) -> Result<(), &'static str> {
    if v >= 1.0 && v.fract() == 0.0 && v < 1e12 {
        Ok(())
    } else {
        Err("must be a whole number of at least 1")
    }
}
/// A queue's depth: a whole number from 1 to 65536. The engine keeps each entry of each
/// sub-partition's queue in host memory, so a depth sizes an allocation (a depth of
/// 2^32 asked for 32 GiB and aborted).
fn queue_depth(v: f64) -> Result<(), &'static str> {
    if (1.0..=65536.0).contains(&v) && v.fract() == 0.0 {
        Ok(())
    } else {
        Err("must be a whole number of entries from 1 to 65536")
    }
}
/// A cache's or the L1's and shared memory's bytes: a whole number up to 4 GiB (80 times
/// the H100's L2). The cache model keeps every line's tag and arrival time in host
/// memory, and its set count below 2^32 (`memory::Cache`).
fn cache_bytes(v: f64) -> Result<(), &'static str> {
    if v >= 1.0 && v.fract() == 0.0 && v <= (1u64 << 32) as f64 {
        Ok(())
    } else {
        Err("must be a whole number of bytes from 1 to 4 GiB (4294967296)")
    }
}
/// The most ways a cache of the model may have: a set's recency ranks are bytes below
/// 128 (the memory model's `SetLayout`). Declared here, where profile values are
/// checked, so that the memory model depends on the profile and not the reverse.
pub const MAX_WAYS: usize = 128;

/// A cache's associativity (at most `MAX_WAYS`).
fn ways(v: f64) -> Result<(), &'static str> {
    if (1.0..=MAX_WAYS as f64).contains(&v) && v.fract() == 0.0 {
        Ok(())
    } else {
        Err("must be a whole number of ways from 1 to 128")
    }
}
fn whole(v: f64) -> Result<(), &'static str> {
    if v >= 0.0 && v.fract() == 0.0 && v < 1e12 {
        Ok(())
    } else {
        Err("must be a whole number")
    }
}

timing! {
    section "chip and clock" {
        /// The SM clock of a kernel that issues tensor-pipe MMAs (HGMMA, UTCMMA): the clock
        /// under full-chip tensor load with random operands (zeros and repeated values run
        /// faster). It turns such a kernel's cycles into microseconds and NANOSLEEP's
        /// nanoseconds into cycles (`Profile::for_kernel` says which clock a kernel gets).
        clock_mhz: positive => "MHz",
        /// The SM clock of a kernel that issues no tensor-pipe MMA: one SM spinning and the
        /// whole chip running FFMA or streaming HBM all measure it. The L2 and HBM
        /// bandwidths below are bytes per cycle of this clock (the streams that measured
        /// them ran at it); a kernel at another clock gets them converted, a memory's
        /// bandwidth being a rate in time: times clock_mhz_light over its clock.
        clock_mhz_light: positive => "MHz",
        /// The SM clock of a tensor kernel whose operands are near-constant (1.0 and
        /// 1.0078 in bf16, the gemm-mainloop validation kernels' values): the tensor
        /// pipe's current follows the operands' toggling, and the H100 sets the clock
        /// from it within 20 us of a launch. A what-if for such kernels (`--set
        /// clock_mhz=`); `Profile::for_kernel` gives every tensor kernel `clock_mhz`.
        clock_mhz_tensor_uniform: positive => "MHz",
        /// SMs on the chip: the grid is dealt to them in turn (this SM runs CTAs 0, sm_count,
        /// 2*sm_count, ...), and they share the chip's L2 and HBM bandwidth.
        sm_count: count => "SMs",
        /// A CTA that takes a freed CTA slot starts this long after the CTA before it
        /// finished (the first CTAs start at cycle 0).
        cta_launch_cycles: whole => "cycles",
    }
    section "capacity and occupancy" {
        /// 32-bit registers in the SM's register file.
        regs_per_sm: count => "registers",
        /// The most registers one thread may have (`regs=` above it does not fit).
        max_regs_per_thread: count => "registers",
        /// Registers are allocated to a warp in multiples of this.
        reg_alloc_unit: count => "registers",
        /// Parts the register file is split into (one per sub-partition): a CTA's warps must
        /// fit each part's share.
        reg_file_partitions: count => "sub-partitions",
        /// Resident warps per SM at most.
        max_warps_per_sm: count => "warps",
        /// Resident threads per SM at most.
        max_threads_per_sm: count => "threads",
        /// Resident CTAs per SM at most (CTA slots).
        max_ctas_per_sm: count => "CTAs",
        /// Shared memory an SM can give its resident CTAs.
        smem_per_sm: count => "bytes",
        /// Shared memory one CTA may have (`smem=` above it does not fit).
        max_smem_per_block: count => "bytes",
        /// Shared memory the system reserves per CTA, beside the kernel's own.
        smem_reserved_per_cta: whole => "bytes",
        /// Shared memory is allocated to a CTA in multiples of this.
        smem_alloc_unit: count => "bytes",
    }
    section "caches" {
        /// The unified L1 and shared-memory array: what the resident CTAs' shared memory leaves
        /// (rounded up to 8 KiB) is L1.
        l1_plus_smem_bytes: cache_bytes => "bytes",
        /// The L2 cache's capacity (the whole chip's: this SM sees all of it).
        l2_bytes: cache_bytes => "bytes",
        /// L2's associativity (LRU within a set).
        l2_ways: ways => "ways",
        /// L1's associativity (LRU within a set).
        l1_ways: ways => "ways",
        /// Tensor-memory columns per SM (Blackwell; 0 where there is none): `launch tmem=`
        /// allocations must fit, and limit CTAs per SM.
        tmem_cols: whole => "columns",
    }
    section "arithmetic pipes" {
        /// Result latency of FP32 arithmetic (FFMA, FADD, FMUL; the FMA pipe): a dependent
        /// instruction issues this many cycles later.
        lat_fma: count => "cycles",
        /// Result latency of IMAD and its forms (integer multiply-add, run on the FMA pipe).
        lat_imad: count => "cycles",
        /// Result latency of integer and logic instructions (IADD3, LOP3, SHF, ISETP, FMNMX,
        /// ...; the ALU pipe).
        lat_alu: count => "cycles",
        /// Result latency of FP64 arithmetic (DFMA, DADD, DMUL).
        lat_fp64: count => "cycles",
        /// Cycles a sub-partition's FMA pipe takes per warp-instruction (32 lanes: 1): the next
        /// FMA-pipe instruction waits that long (`math_pipe_throttle`).
        fma_issue_interval: count => "cycles per warp-instruction",
        /// The same for the ALU pipe (16 lanes: 2).
        alu_issue_interval: count => "cycles per warp-instruction",
        /// The same for the FP64 pipe.
        fp64_issue_interval: count => "cycles per warp-instruction",
        /// The same for the MUFU (special function) pipe.
        mufu_issue_interval: count => "cycles per warp-instruction",
        /// Result latency of MUFU instructions (EX2, RCP, ...), and of any other short-
        /// scoreboard result without a latency of its own.
        lat_mufu: count => "cycles",
        /// Result latency of a conversion on the XU (I2F, F2I, F2F: short scoreboard).
        lat_convert: count => "cycles",
        /// Result latency of a constant load into a vector register (LDC: a constant-cache
        /// hit, short scoreboard). ULDC's uniform result is a fixed latency (ptxas sets no
        /// scoreboard on it) and takes the ALU's.
        lat_ldc: count => "cycles",
        /// Result latency of a special-register read into a vector register (S2R of
        /// SR_TID.X, SR_CTAID.X, SR_CgaCtaId, ...: short scoreboard), from its issue to a
        /// dependent instruction's.
        lat_s2r: count => "cycles",
        /// The same for a read into a uniform register (S2UR; and `S2R.U`, the twins'
        /// S2UR into a vector register).
        lat_s2ur: count => "cycles",
        /// The same as `fma_issue_interval` for the branch unit (BRA, EXIT, NOP).
        branch_issue_interval: count => "cycles per warp-instruction",
        /// A taken branch's target instruction is fetched this many cycles after the
        /// instruction two before the branch issued; until then the warp waits
        /// (`branch_resolving`).
        branch_target_cycles: whole => "cycles",
        /// A taken branch inside a loop body (not a loop's back branch, whose target
        /// `branch_target_cycles` times): its target issues no sooner than this many
        /// cycles after the branch issued, however early its fetch began
        /// (`branch_resolving`); 0 leaves such a branch to `branch_target_cycles` too. A
        /// branch not taken costs its issue slot and stall count only, and the
        /// try_wait's branch over its spin none (`lat_mbarrier_probe`, fitted on a loop
        /// that takes it, holds its redirect: `DInstr::after_probe`). H100 (13): the
        /// TMA-streaming validation kernel's skipped pieces, 23.4 cycles each with their
        /// predicate's stall count (`data/gaps/tploop/`, its twin 23.2 at 13); one warp's
        /// back-to-back skipped slots read 15.2 (`data/gaps/diverge/`, `k_slots`).
        taken_branch_cycles: whole => "cycles",
        /// What a taken branch on a per-thread predicate adds to `taken_branch_cycles`:
        /// the branch a `BSSY` opened a convergence region for (ptxas writes none where
        /// it proved the predicate warp-uniform), when its warp takes it whole. H100
        /// (8): one warp's 656-byte FMUL loop with such a branch taken by every lane runs
        /// 17 cycles a trip over its stall counts (the BSSY's and the BSYNC's counted),
        /// the 624-byte loop with a uniform branch 9, over 256 bytes to 4 KiB alike
        /// (`data/gaps/brdist/` item 3). A region some lanes run costs its rejoin
        /// instead (`bsync_rejoin_cycles`).
        per_thread_branch_cycles: whole => "cycles",
        /// A loop's back branch over more code than this (its `bytes=`, the branch's
        /// distance to its target as compiled) misses the SM's nearest instruction cache
        /// every trip: its target's fetch begins at the branch's issue, not two
        /// instructions before it, and takes `icache_miss_cycles` longer. A branch without
        /// `bytes=` never misses. H100 (6144): one warp's FMUL loops run 4 cycles a trip
        /// over their stall counts up to 5168 bytes and 13 from 6192 bytes on
        /// (`data/gaps/brdist/`), so the capacity lies between; a forward branch's
        /// distance costs nothing in a loop that fits (256 bytes to 4 KiB alike).
        icache_l0_bytes: whole => "bytes",
        /// What a loop's back branch beyond `icache_l0_bytes` adds to the fetch of its
        /// target, counted from the branch's issue after `branch_target_cycles`. H100 (7):
        /// the FMUL loops of 6192 to 8240 bytes (stall count 6 on the branch) issue their
        /// first instruction 19 cycles after the branch, 12 + 7 (`data/gaps/brdist/`).
        icache_miss_cycles: whole => "cycles",
        /// The same as `fma_issue_interval` for synchronisation instructions (BAR, SYNCS,
        /// WARPGROUP, DEPBAR, FENCE, MEMBAR, ...).
        sync_issue_interval: count => "cycles per warp-instruction",
    }
    section "register file" {
        /// Register banks per sub-partition: register Rn is in bank n mod reg_banks.
        reg_banks: count => "banks",
        /// Reads one bank serves per cycle.
        reg_bank_ports: count => "reads per cycle",
        /// Cycles each further read of a conflicting bank adds: the sub-partition's dispatch is
        /// held that long.
        reg_bank_conflict_cycles: whole => "cycles",
    }
    section "shared memory and the MIO and LSU queues" {
        /// Result latency of a shared-memory load (LDS) without bank conflicts, from the
        /// wavefront's turn at the shared-memory crossbar.
        lat_lds: count => "cycles",
        /// What each bank-conflict wavefront of a shared load after its first adds to its
        /// result latency, beyond its own turn at the crossbar (`smem_bytes_per_clk`). H100
        /// (1): one warp's LDS.32 chase at 2 and 4 lanes a bank runs 25 and 29 cycles a
        /// link against 23 conflict-free, 2 a wavefront (`data/gaps/ldsw/`).
        lat_lds_conflict_wave: non_negative => "cycles",
        /// The same for each wavefront a wide load (LDS.64, LDS.128) takes for its width
        /// after its first. Measured on the H100's SM, 2.63: one warp's conflict-free
        /// LDS.128 chase runs 33.88 cycles a link, 26 without it (`lat_lds` and four
        /// crossbar turns): 7.88 over its three further wavefronts; LDS.64 27.38, where it
        /// gives 27; an FMUL reading the load's data sees it no sooner than a load's
        /// address does (`data/gaps/ldsw2/`). The h100 profile has 0 until the twins'
        /// pieces lose what they count and the GPU does not (`ldsw2/`: with 2.63 the
        /// TMA-streaming piece runs 85.6 cycles against the GPU's 79.75).
        lat_lds_width_wave: non_negative => "cycles",
        /// Result latency of a shuffle (SHFL), which crosses the shared-memory crossbar like a
        /// load.
        lat_shfl: count => "cycles",
        /// Shared-memory bandwidth per SM: a wavefront (a 128-byte request, or a bank-conflict
        /// replay) takes 128 / this cycles of the crossbar.
        smem_bytes_per_clk: positive => "bytes per cycle",
        /// What a bulk or tensor copy's byte costs the shared memory, against an LDS or STS
        /// byte (0: copies take none of its bandwidth), counted in the unit's busy time. A
        /// copy into shared memory shares the write side with STS while its bytes land
        /// (`sts_beside_copy_factor`, or `smem_write_queue`), a bulk store out of it the
        /// read side with LDS while the TMA unit reads it (`lds_beside_store_factor`);
        /// neither books time the other waits for (`engine/smem_share.rs`). Measured:
        /// copies into shared memory do not slow LDS, bulk stores do not slow STS, and
        /// neither copy slows for the shared accesses beside it.
        smem_copy_cost: cost_ratio => "ratio",
        /// While a copy's bytes land in shared memory (over the cycles before its last
        /// line arrives, at `tma_bytes_per_clk`), an STS takes this many times its
        /// crossbar time (1: no slowing; unused with `smem_write_queue` on). H100: STS.128
        /// from 8 warps 86.5 B/clk alone, 42.6 beside 16 KiB bulk copies landing at 58.0
        /// B/clk: 2.03 (`gap.smem.sts.shared`, `gap.smem.g2s_sts`, data/gaps).
        sts_beside_copy_factor: at_least_one => "ratio",
        /// 1: shared memory's writes are a queue in order (one per
        /// `smem_write_queue_bytes`), a copy's landing bytes first:
        /// an STS whose turn (once its registers are read on the store path,
        /// `sts_read_bytes_per_clk`, or at its crossbar turn with that path off) falls
        /// while a copy's bytes land is written after them, and an
        /// mbarrier arrive reaches its barrier once the STS queued before it (any warp's)
        /// are written; 0: an STS beside a landing copy is slowed by
        /// `sts_beside_copy_factor` and an arrive is not held. H100 (`data/gaps/hold/`):
        /// one warp's 8 STS.128 and an arrive take 200 cycles alone and end 50 to 90
        /// cycles after another warp's tensor copies complete when the STS meet their
        /// bytes landing; the arrive alone is never held, nor 8 STS and a fence without
        /// the arrive.
        smem_write_queue: flag => "switch",
        /// With `smem_write_queue` on, the bytes of shared memory one write queue serves:
        /// an STS waits only behind copy bytes landing in its own queue's bytes (the queue
        /// of byte offset a is a / this; offsets past the eighth queue share it). H100:
        /// two queues, the halves of 256 KiB: the warp-specialized streaming kernel's tile
        /// tail is held by the next tile's copies when its store buffer and the load
        /// buffers lie in the same 128 KiB, and not otherwise (`data/gaps/wsstream/`).
        smem_write_queue_bytes: count => "bytes",
        /// With `smem_write_queue` on, when a copy into shared memory holds its write
        /// queue: an STS reaching the queue from this many cycles after the copy's turn at
        /// the TMA unit, for as long as the unit works on the copy (`tma_issue_cycles` +
        /// n / `tma_bytes_per_clk`), is written when that span (shifted by this) ends; one
        /// reaching it later passes, though the copy's bytes still land. 0: the landing
        /// rule, held while the bytes land (the n / `tma_bytes_per_clk` cycles before the
        /// last line) and written after them. H200, the H100's SM
        /// (`data/gaps/wshold/queue/`): another warp's STS in the copy's 128 KiB are held
        /// from ~96 cycles after a tensor copy's issue, before any byte could return from
        /// L2, for 120 / 283 / 300 cycles with one 16 KiB box, one 32 KiB box, two 16 KiB
        /// boxes (the unit's 158 / 311 / 316), and one reaching it later is not held.
        smem_write_hold_from_turn: whole => "cycles",
        /// While a bulk store reads its bytes out of shared memory (from its turn at the TMA
        /// unit for bytes / `tma_store_bytes_per_clk` cycles), an LDS takes this many times
        /// its crossbar time (1: no slowing). H100: LDS.128 from 8 warps 96.7 B/clk alone,
        /// 56.8 beside 16 KiB bulk stores draining at 31.9 B/clk: 1.70
        /// (`gap.smem.lds.shared`, `gap.smem.s2g_lds`, data/gaps).
        lds_beside_store_factor: at_least_one => "ratio",
        /// The rate at which a sub-partition's shared stores (STS) read their registers
        /// (address and data) and hand them to shared memory, one store at a time in
        /// issue order; a store's registers are read at the end of its turn (not before
        /// its write's turn at the crossbar), and an instruction that writes one of them
        /// waits until then (`short_scoreboard`: ptxas makes the next writer wait on the
        /// store's read scoreboard). Sub-partitions whose paths are busy share the
        /// crossbar's `smem_bytes_per_clk`. 0: off (registers read at issue).
        /// `engine/sts_read.rs`; H100/H200 (`data/gaps/stsissue/`).
        sts_read_bytes_per_clk: rate_or_off => "bytes per cycle",
        /// The MIO queue per sub-partition (shared-memory loads and stores, shuffles): full,
        /// the next such instruction waits (`mio_throttle`).
        mio_queue_depth: queue_depth => "instructions",
        /// The LSU / L1TEX queue per sub-partition (global and local loads and stores): full,
        /// the next waits (`lg_throttle`).
        lsu_queue_depth: queue_depth => "instructions",
    }
    section "global loads: L1TEX, L2 and HBM" {
        /// 128-byte lines the L1TEX tag stage takes per cycle: a request of n lines holds it n
        /// / this cycles.
        l1_lines_per_clk: positive => "lines per cycle",
        /// The lines of one uncoalesced request that hit L1 return this many cycles apart, up
        /// to `l1_line_cap` lines.
        l1_line_cycles: non_negative => "cycles per line",
        /// Beyond this many lines, an uncoalesced request's further L1 hits overlap the earlier
        /// ones (add no more delay).
        l1_line_cap: non_negative => "lines",
        /// An L1 hit returns its first 32-byte sector after `lat_l1_hit` and each further
        /// sector of the line this much later.
        l1_sector_cycles: non_negative => "cycles per sector",
        /// A scattered read through L1 (a warp-load whose lines fall in more than one
        /// 4 KiB page, fewer pages than lines, not one run: lanes 1 KiB apart) that
        /// enters L1TEX while this many other scattered reads are in flight is crowded
        /// (`l1_crowded_line_cycles`). H100: such loads run at 1.006 cycles a line with 12
        /// warps each keeping one in flight and at 1.189 with 13 (`gap.l1_spread.*`,
        /// data/gaps).
        l1_crowded_requests: whole => "requests",
        /// What a crowded scattered read holds L1TEX's tag stage per line, in place of
        /// `1 / l1_lines_per_clk` (at or below it: no crowding cost), up to
        /// `l1_crowded_many_requests` others. H100: lanes 1 KiB apart at 13 to 20 warps
        /// 1.17 to 1.19 cycles a line (1.18 at 16 warps on two GPUs; lanes 1152 B and 2 KiB
        /// apart 1.18 to 1.25; one run of lines, a page a line, and `.cg` loads 1.00 to
        /// 1.01).
        l1_crowded_line_cycles: non_negative => "cycles per line",
        /// A crowded scattered read entering with this many others or more in flight takes
        /// `l1_crowded_many_line_cycles` a line instead of `l1_crowded_line_cycles`. H100:
        /// lanes 1 KiB apart 1.17 to 1.19 cycles a line with 13 to 20 warps (up to 19
        /// others), 1.13 to 1.15 with 24 to 32 (23 and more; `gap.l1_spread.*`,
        /// `gap.l1sets.*`); nothing measured between: 22, the midpoint.
        l1_crowded_many_requests: whole => "requests",
        /// What a scattered read crowded by `l1_crowded_many_requests` or more others holds
        /// L1TEX's tag stage per line (not below L1's line time). H100: lanes 1 KiB apart
        /// at 24 and 32 warps 1.131 and 1.147 cycles a line (`gap.l1_spread.*`), 1.13 and
        /// 1.13 (`gap.l1sets.*`, another GPU): 1.14.
        l1_crowded_many_line_cycles: non_negative => "cycles per line",
        /// The lines of one uncoalesced request that miss L1 leave for L2 this many cycles
        /// apart, up to `l2_line_cap` lines.
        l2_line_cycles: non_negative => "cycles per line",
        /// Beyond this many lines, an uncoalesced request's further misses leave with the last
        /// (add no more delay).
        l2_line_cap: non_negative => "lines",
        /// An uncoalesced request's first this many lines that miss L1 leave for L2 together
        /// (`l2_line_cycles` apart); the rest leave `l2_miss_burst_gap` later. H100: a
        /// warp-load of 1 to 8 lines from L2 costs about one cycle a line beyond its
        /// partitions' latency, a 9th to 13th line 34 cycles more, further lines about one
        /// cycle each again (`gap.shape.ldg_lines_l2.lines_1..32`, data/gaps).
        l2_miss_burst_lines: non_negative => "lines",
        /// How much later than the first `l2_miss_burst_lines` an uncoalesced request's further
        /// misses leave for L2.
        l2_miss_burst_gap: non_negative => "cycles",
        /// An asynchronous copy (LDGSTS) completes this long after its global read returns: the
        /// write into shared memory.
        lat_ldgsts_fill: whole => "cycles",
        /// The same for a copy that bypasses L1 (`LDGSTS.BYPASS`, `cp.async.cg`): its line
        /// goes from L2 into shared memory without L1's allocation (H100, median over the
        /// GPUs: the .cg chase from L2 is 34 cycles above the L2 load chase, the .ca chase
        /// from L1 43 above the L1 one).
        lat_ldgsts_bypass_fill: whole => "cycles",
        /// Load-to-use latency of a global or local load that hits L1 (and of any long-
        /// scoreboard result without a latency of its own).
        lat_l1_hit: count => "cycles",
        /// A line a load reads from L2 (hit) returns each sector after its first this much
        /// later (a warp's load of a whole line against one thread's chase of one sector;
        /// H100: `lat.ldg_lines.l2.lines_1` 287 cycles against the chase's 278).
        l2_sector_cycles: non_negative => "cycles per sector",
        /// Load-to-use latency of a load served by the near L2 partition (the SM's side of the
        /// chip).
        lat_l2_near: count => "cycles",
        /// The same for the far L2 partition (a line's partition follows its address, per
        /// 256-byte pair of lines).
        lat_l2_far: count => "cycles",
        /// Load-to-use latency of a line read from HBM (a near line, before the extras below).
        lat_hbm: count => "cycles",
        /// Each L2 request's latency varies uniformly within +-this (drawn from the run's
        /// seeded generator).
        jitter_l2: whole => "cycles",
        /// Each HBM line's latency varies uniformly within +-this.
        jitter_hbm: whole => "cycles",
        /// Added to `lat_hbm` for a line in HBM's far half for this SM.
        lat_hbm_far_extra: whole => "cycles",
        /// Which address bits decide a line's HBM half: far where their parity, flipped on
        /// pages whose own hashed bit is set, is odd.
        hbm_far_address_bits: whole => "bit mask",
        /// The page within which `hbm_far_address_bits` decide near and far (a power of two);
        /// each page has its own flip bit.
        hbm_page_bytes: count => "bytes",
        /// Added to `lat_hbm` for a line a TMA copy reads.
        lat_hbm_tma_extra: whole => "cycles",
        /// Slow HBM accesses come in chunks of this size (a power of two): each chunk hashes to
        /// one of `hbm_tail_subs` sub-domains.
        hbm_tail_chunk_bytes: count => "bytes",
        /// Addresses fall in groups of this size (a power of two); a request finds each group
        /// it touches in a slow window or not.
        hbm_tail_group_bytes: count => "bytes",
        /// Sub-domains each group's chunks hash to; in a slow window, each sub-domain is slow
        /// or not.
        hbm_tail_subs: count => "sub-domains",
        /// That a request finds a group it touches in a slow window.
        hbm_tail_window_probability: probability => "probability",
        /// That a sub-domain of a group in a slow window is slow for the request.
        hbm_tail_probability: probability => "probability",
        /// A slow sub-domain's extra latency is drawn uniformly from hbm_tail_min to
        /// hbm_tail_max.
        hbm_tail_min: whole => "cycles",
        /// The upper end of that draw (taken as `hbm_tail_min` where below it).
        hbm_tail_max: whole => "cycles",
    }
    section "bandwidth" {
        /// The chip's L2 bandwidth, shared evenly by the SMs the launch keeps busy.
        l2_bytes_per_clk_chip: positive => "bytes per cycle",
        /// The most one SM's port to L2 carries (every byte it reads or writes from L2 crosses
        /// it); also a cap on its HBM rate.
        l2_bytes_per_clk_sm_max: positive => "bytes per cycle",
        /// A line many SMs of the wave read at about the same time costs the chip's L2
        /// bandwidth up to this many times less (one lookup serves the copies).
        l2_shared_read_gain: at_least_one => "ratio",
        /// How many SMs on different TPCs must read a line at about the same time for each
        /// time less it costs the chip's L2: a line `s` SMs read costs 1 / clamp(s / this, 1,
        /// `l2_shared_read_gain`) (H100: 128 CTAs in groups of s, CTAs 128 / s apart on
        /// different TPCs, streaming the same bytes at once: 4106, 4074, 4035, 4020, 4697,
        /// 8756, 10090 B/clk for s = 1, 2, 4, 8, 16, 32, 128; the gain over private streams
        /// 1.14 at 16 and 2.13 at 32: 16 / 1.14 = 14.0, 32 / 2.13 = 15.0).
        l2_shared_read_sharers: at_least_one => "SMs",
        /// What a line costs the chip's L2 less when the two CTAs of one TPC (grid indices
        /// 2k and 2k + 1, which the H100 places on the TPC's two SMs) read it at about the
        /// same time (H100: 128 CTAs in pairs streaming the same bytes 7731 B/clk against
        /// 4105 private: 1.88). A group of n consecutive CTAs gains this plus the rest up to
        /// `l2_shared_read_gain` in proportion to 1 - 2 / n (measured 2.29, 2.34, 2.41,
        /// 2.42 for n = 4, 8, 16, 32; the rule 2.21, 2.38, 2.47, 2.51).
        l2_tpc_read_gain: at_least_one => "ratio",
        /// The chip's sustained HBM bandwidth, shared by the busy SMs (lines the whole wave
        /// reads are fetched once for all): evenly while they all have lines queued, and
        /// more to an SM whose transfers leave gaps, each busy SM being as busy as the
        /// simulated one (`memory/load.rs`).
        hbm_bytes_per_clk_chip: positive => "bytes per cycle",
        /// The most one SM's share of HBM carries, sustained.
        hbm_bytes_per_clk_sm_max: positive => "bytes per cycle",
        /// The most one SM's share of HBM carries, sustained, for the lines of TMA copies
        /// (`hbm_bytes_per_clk_sm_max` is LDG's); the chip's share binds both alike (H100,
        /// median over the GPUs: one SM's bulk-copy stream from HBM 90.8 B/clk against its
        /// LDG stream's 97.8; the whole chip's 1602 against 1597).
        hbm_tma_bytes_per_clk_sm_max: positive => "bytes per cycle",
        /// The rate at which an SM's lines from HBM cross its port while it runs ahead of its
        /// sustained share.
        hbm_burst_bytes_per_clk_sm: positive => "bytes per cycle",
        /// How far ahead of its sustained HBM share an SM may run at the burst rate.
        hbm_burst_bytes: whole => "bytes",
        /// What a bulk copy's first read of a line `n` SMs of the wave read (n > 2) waits,
        /// per SM reading it, from the copy's start, while this SM's own lines from HBM are
        /// still arriving: it completes no sooner than `l2_shared_first_read_cycles` + `n`
        /// times this after (`memory/first_read.rs`). H100 (crates/calibrate/data/chip,
        /// finding 2, runs 20261127T1903Z and T1913Z): SMs each with a 16 KiB copy of its
        /// own rows from HBM and a 32 KiB tile all SMs read on new lines every k-step, one
        /// stage in flight, take 50, 449 and 490, 1011 and 1094 cycles more a stage than
        /// without the tile at 33, 66 and 132 SMs; the twins (`cargo run --release -p
        /// calibrate --example ctwin`) take +74, +409 and +1057 at 750 + 13.2 n.
        l2_shared_first_read_cycles_per_sm: non_negative => "cycles",
        /// The part of a first read's wait that does not grow with the SMs reading the
        /// line (`l2_shared_first_read_cycles_per_sm`; both 0: not modelled).
        l2_shared_first_read_cycles: non_negative => "cycles",
        /// What the first read of a line `n` SMs of the wave read (n > 2) waits, per SM
        /// reading it, after this SM's own lines from HBM booked before it, when it starts
        /// while this SM's copy of an earlier such line is still under way and those lines
        /// are still arriving: it completes no sooner than their arrival + `n` times this
        /// (`memory/first_read.rs`). The wave's SMs run such a pipeline in lockstep (they
        /// start within 256 ns and each shared stage releases them together), so every SM
        /// asks for the same lines at the same moment, behind its own misses. H100
        /// (crates/calibrate/data/chip, run-20261128T0625Z, `lockstep.cu`, timed after a
        /// launch of itself): 132 SMs, two stages of a 16 KiB box of own 128-byte rows from
        /// HBM then a 32 KiB tile all read, new lines every k-step: 2192 cycles a k-step in
        /// step (7 reps, 2180 to 2229; the stage 4123) against 1611 with the tile's k-order
        /// rotated per CTA; with 1200 cycles of a consumer's work a k-step, 2813 (2789 to
        /// 2832) against 1932; the tile alone in step 702 against 844 rotated; one stage in
        /// flight and 4 stages (where the SMs drift apart) are not in this case. The twins
        /// (`cargo run --release -p calibrate --example lstwin`, no HBM slow windows, as the
        /// gemm twins) take 2200 and 2800 at 17.6 (15.7 with the windows drawn).
        l2_shared_lockstep_cycles_per_sm: non_negative => "cycles",
        /// What a tensor copy's box of rows of at most one line, a pitch apart, costs this
        /// SM's share of HBM beyond its lines, for the share of its lines that come from
        /// HBM (`Memory::box_read`): the chip moves such boxes slower than contiguous
        /// lines, by about a fixed cost a box (boxes of longer rows: not measured, none).
        /// H100 (crates/calibrate/data/gemm_l2, run-20261128T0343Z/fm1): 132 SMs with four
        /// boxes of 128-byte rows in flight each, timed after a launch of themselves, move
        /// 11.77 B/clk an SM with 16 KiB boxes and 11.90 with 32 KiB ones where their
        /// contiguous twins move 12.13 and 12.10: 501 and 551 bytes a box, 526 (test
        /// `calibrate/tests/box_cost.rs`). After a memset flush the same streams lose
        /// about 4000 bytes a box to the flush's write-backs (data/chip, finding 3).
        hbm_tma_box_bytes: whole => "bytes",
    }
    section "memory fence" {
        /// MEMBAR.GPU holds the warp at least this long (`membar`), and until its outstanding
        /// writes have landed.
        lat_membar_gpu: whole => "cycles",
    }
    section "TMA" {
        /// The TMA unit's fixed cost per copy (descriptor, address generation), before its
        /// bytes.
        tma_issue_cycles: whole => "cycles",
        /// Added to a TMA copy's completion after its last line arrives (the write into shared
        /// memory and the mbarrier's transaction count).
        tma_extra_latency: whole => "cycles",
        /// What a tensor copy (UTMALDG) adds to the floor under a copy's completion
        /// (`tma_min_latency`): the box's addresses generated from the tensor map while its
        /// lines stream, hidden behind a copy whose lines arrive later (H100, median over the
        /// GPUs, from L2: 1 to 4 KiB boxes 8 to 13 cycles slower than bulk copies of the same
        /// bytes, 8 to 64 KiB boxes -3 to +2.5).
        tma_tensor_extra_latency: whole => "cycles",
        /// No copy completes sooner than this after its turn at the TMA unit, whatever its
        /// size (before `tma_extra_latency`): bulk copies from L2 of 1 and 2 KiB measure the
        /// same time (H100 median 338 cycles), though the second's lines take longer to
        /// cross the SM's port.
        tma_min_latency: whole => "cycles",
        /// The TMA unit's rate: a copy of n bytes holds it `tma_issue_cycles` + n / this.
        tma_bytes_per_clk: positive => "bytes per cycle",
        /// The TMA unit's rate for a store out of shared memory (UTMASTG, UBLKCP.G.S): a
        /// store of n bytes holds it `tma_issue_cycles` + n / this, its read of shared
        /// memory ends then, and copies behind it in the unit wait for it.
        tma_store_bytes_per_clk: positive => "bytes per cycle",
    }
    section "tensor cores" {
        /// The SM's dense FP16/BF16 tensor rate (other types scale by their rate against FP16):
        /// an MMA holds the tensor pipe FLOPs / this cycles.
        tensor_flops_per_clk_sm: positive => "FLOP per cycle",
        /// A warpgroup MMA's (HGMMA's) result is ready this long after its tensor-pipe time
        /// ends.
        hgmma_latency: whole => "cycles",
        /// MMAs a sub-partition's tensor pipe accepts ahead of the one running; full, the next
        /// waits (`math_pipe_throttle`).
        tensor_queue_depth: queue_depth => "instructions",
        /// A MUFU warp-instruction holds its sub-partition's tensor core this long: the two do
        /// not run at once, so a warpgroup MMA (HGMMA) that would run then starts after.
        mufu_tensor_cycles: non_negative => "cycles",
        /// The same for an FMA-pipe warp-instruction (FFMA, FMUL, FADD, IMAD): on the H100
        /// the FP32 pipe and the tensor core take turns (measured: 0.99 cycle per FFMA).
        fma_tensor_cycles: non_negative => "cycles",
        /// A MUFU warp-instruction's issue interval grows by this while its sub-partition's
        /// tensor core has an MMA to run (measured on the H100: MUFU.EX2 every 8.04 cycles
        /// alone, 10.78 beside wgmma; the tensor core keeps its rate).
        mufu_beside_tensor_cycles: whole => "cycles",
        /// The same for an ALU-pipe warp-instruction (FMNMX, LOP3, F2FP, ...).
        alu_beside_tensor_cycles: whole => "cycles",
        /// While its sub-partition's tensor core has an MMA to run, an FMA-pipe
        /// warp-instruction holds the sub-partition's math pipes (FMA, ALU, FP64, MUFU) this
        /// long: beside the tensor core they share one issue port and take turns instead of
        /// overlapping (0: no hold).
        fma_port_beside_tensor_cycles: whole => "cycles",
        /// The same for an ALU-pipe warp-instruction.
        alu_port_beside_tensor_cycles: whole => "cycles",
        /// The same for a MUFU warp-instruction.
        mufu_port_beside_tensor_cycles: whole => "cycles",
    }
    section "barriers, mbarriers and fences" {
        /// A named barrier (BAR.SYNC) releases its warps this long after its last arrival is
        /// counted.
        lat_bar: whole => "cycles",
        /// A barrier counts its arrivals one after another, this long each: a barrier of many
        /// warps releases later.
        bar_arrive_cycles_per_warp: non_negative => "cycles per warp",
        /// The cluster barrier (UCGABAR_ARV, then UCGABAR_WAIT): its phase lets the CTA's
        /// warps go this long after the last of them arrives, the round trip to the
        /// cluster's other SMs (which the one-SM model takes to arrive at the same time).
        /// What `barrier.cluster.arrive.relaxed` + `wait` takes between two SMs; the
        /// default `.release` arrive adds a MEMBAR.ALL.GPU before it, timed as a MEMBAR.
        lat_cluster_barrier: whole => "cycles",
        /// A warp asleep on an mbarrier phase (TRYWAIT) wakes this long after the arrival that
        /// completes the phase issues.
        lat_mbarrier_wake: whole => "cycles",
        /// A TRYWAIT that finds its phase already complete still waits this long for its result
        /// (`long_scoreboard`).
        lat_mbarrier_probe: whole => "cycles",
        /// An arrive that completes a phase reaches the mbarrier this long after it issues: a
        /// TRYWAIT right behind it reads the phase then.
        lat_mbarrier_arrive: whole => "cycles",
        /// A warp asleep on a phase that the last bytes of a copy complete wakes this long
        /// after those bytes land.
        lat_mbarrier_tx_wake: whole => "cycles",
        /// A TRYWAIT issued by part of a warp (`lanes=` below 32: the other lanes wait at
        /// the end of an `if (lane == 0)` region) on a phase not yet complete is not woken
        /// by the phase: its spin loop's tries return at this period from the wait's issue,
        /// false until the phase has completed, and the warp goes on at the first return
        /// after the completion (whole periods after the issue). Measured on the H100
        /// (`data/gaps/lanewait/`): one thread with its warp's other lanes parked waits on a
        /// 1 KiB and an 8 KiB copy alike, 507 cycles from before the copy, two periods
        /// after its try_wait's issue; its loop's tries return 192 to 199 cycles apart
        /// behind a late arrive.
        lat_mbarrier_lane_period: whole => "cycles",
        /// The BSYNC that ends a region part of a warp ran (`if (lane == 0)`; `NOP lanes=N`
        /// in the kernel format), the other lanes parked at it, holds the warp this much
        /// longer than the same BSYNC of a warp that did not diverge. Measured on the H100
        /// (`data/gaps/lanewait/`, `region.cu`): 72 cycles against 55 from lane 0's last
        /// instruction to the warp's next, whatever the region held.
        bsync_rejoin_cycles: whole => "cycles",
        /// A proxy fence (FENCE.PROXY.ASYNC) or a CTA-scope MEMBAR holds the warp this long
        /// (`membar`).
        lat_fence: whole => "cycles",
    }
    section "tcgen05 (Blackwell)" {
        /// A tcgen05 MMA (UTCMMA) with its A operand in tensor memory completes (for UTCBAR)
        /// this long after its tensor-pipe time ends.
        utcmma_latency_tmem_a: non_negative => "cycles",
        /// The same with A in shared memory.
        utcmma_latency_smem_a: non_negative => "cycles",
        /// A UTCMMA with A in shared memory holds the tensor pipe at least (this + N / 4) x M /
        /// 128 cycles (reading A from shared memory).
        utcmma_smem_base_cycles: non_negative => "cycles",
        /// Result latency of a tensor-memory load (LDTM).
        lat_tmem_load: whole => "cycles",
    }
}

/// A loaded profile: the file (for provenance) and its parameters in typed form.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// The file as loaded (values with their sources, overrides noted).
    pub file: ProfileFile,
    /// The parameters in typed form, as the engine reads them.
    pub t: Timing,
    /// Parameters overridden for this run with `set`, in order.
    pub overrides: Vec<(String, f64)>,
}

impl Profile {
    /// A built-in profile by name (`h100`, `b200`; any case).
    pub fn builtin(name: &str) -> Result<Profile, ProfileError> {
        let text = BUILTIN
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, t)| *t)
            .ok_or_else(|| ProfileError::NoSuchBuiltin(name.to_string()))?;
        Profile::from_toml(text)
    }

    /// The built-in profiles' names.
    pub fn builtin_names() -> impl Iterator<Item = &'static str> {
        BUILTIN.iter().map(|b| b.0)
    }

    /// A profile from a TOML file's text: every parameter present (its own or its `base`'s),
    /// known and in range.
    pub fn from_toml(text: &str) -> Result<Profile, ProfileError> {
        Profile::from_toml_within(text, &mut Vec::new())
    }

    /// `from_toml`, `chain` naming the built-in bases already loaded on the way here (a
    /// built-in whose bases come back to it is an error, not a stack overflow; a file may
    /// share its base's name, as a tweaked `h100` based on the built-in one).
    fn from_toml_within(text: &str, chain: &mut Vec<String>) -> Result<Profile, ProfileError> {
        let mut file: ProfileFile =
            toml::from_str(text).map_err(|e| ProfileError::Toml(e.to_string()))?;
        let unknown: Vec<&String> = file
            .params
            .keys()
            .filter(|k| !Timing::NAMES.contains(&k.as_str()))
            .collect();
        if let Some(name) = unknown.first() {
            return Err(ProfileError::Unknown {
                name: name.to_string(),
                known: Timing::NAMES.iter().map(|s| s.to_string()).collect(),
            });
        }
        if let Some(base) = file.base.clone() {
            let seen = chain.iter().any(|n| n.eq_ignore_ascii_case(&base));
            chain.push(base.clone());
            if seen {
                return Err(ProfileError::BaseCycle(chain.clone()));
            }
            let text = BUILTIN
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(&base))
                .map(|(_, t)| *t)
                .ok_or_else(|| ProfileError::NoSuchBuiltin(base.clone()))?;
            let base_profile = Profile::from_toml_within(text, chain)?;
            for (name, entry) in base_profile.file.params {
                file.params.entry(name).or_insert(entry);
            }
        }
        let t = Timing::from_params(&file.params)?;
        Ok(Profile {
            file,
            t,
            overrides: vec![],
        })
    }

    /// The profile as TOML (overrides included, their sources noting them).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(&self.file).unwrap_or_default()
    }

    /// The profile's name.
    pub fn name(&self) -> &str {
        &self.file.name
    }

    /// Overrides one parameter for a run (`--set name=value`).
    pub fn set(&mut self, name: &str, value: f64) -> Result<(), ProfileError> {
        let Some(entry) = self.file.params.get_mut(name) else {
            return Err(ProfileError::Unknown {
                name: name.to_string(),
                known: Timing::NAMES.iter().map(|s| s.to_string()).collect(),
            });
        };
        let old = entry.value;
        entry.value = value;
        match Timing::from_params(&self.file.params) {
            Ok(t) => {
                self.t = t;
                entry_source_note(self.file.params.get_mut(name), value);
                self.overrides.push((name.to_string(), value));
                Ok(())
            }
            Err(e) => {
                if let Some(entry) = self.file.params.get_mut(name) {
                    entry.value = old;
                }
                Err(e)
            }
        }
    }

    /// Where a parameter's value came from (a citation or a measurement).
    pub fn source(&self, name: &str) -> Option<&str> {
        self.file.params.get(name).map(|p| p.source.as_str())
    }

    /// The capacity limits that decide occupancy.
    pub fn limits(&self) -> isa::occupancy::SmLimits {
        let t = &self.t;
        isa::occupancy::SmLimits {
            regs_per_sm: t.regs_per_sm as u32,
            max_regs_per_thread: t.max_regs_per_thread as u32,
            reg_alloc_unit: t.reg_alloc_unit as u32,
            reg_file_partitions: t.reg_file_partitions as u32,
            max_warps_per_sm: t.max_warps_per_sm as u32,
            max_ctas_per_sm: t.max_ctas_per_sm as u32,
            smem_per_sm: t.smem_per_sm as u32,
            max_smem_per_block: t.max_smem_per_block as u32,
            smem_reserved_per_cta: t.smem_reserved_per_cta as u32,
            smem_alloc_unit: t.smem_alloc_unit as u32,
            max_threads_per_sm: t.max_threads_per_sm as u32,
        }
    }

    /// The result latency of a fixed-latency class, in cycles.
    pub fn fixed_latency(&self, c: FixedClass) -> u64 {
        (match c {
            FixedClass::Fma => self.t.lat_fma,
            FixedClass::Alu => self.t.lat_alu,
            FixedClass::Imad => self.t.lat_imad,
            FixedClass::Fp64 => self.t.lat_fp64,
        }) as u64
    }

    /// SM cycles in microseconds at the profile's clock.
    pub fn cycles_to_us(&self, cycles: u64) -> f64 {
        cycles as f64 / self.t.clock_mhz
    }

    /// The SM clock `kernel` runs at: `clock_mhz` (the clock under tensor load) if any of
    /// its roles issues a tensor-pipe MMA, else `clock_mhz_light`. The rule is the
    /// measured one: a full chip of FFMA or of HBM streams keeps the light clock, a full
    /// chip of wgmma lowers it (by 9 to 19% with real operands), and the tensor pipe is
    /// the one unit whose load moves it.
    pub fn kernel_clock_mhz(&self, kernel: &isa::Kernel) -> f64 {
        if uses_tensor_pipe(kernel) {
            self.t.clock_mhz
        } else {
            self.t.clock_mhz_light
        }
    }

    /// The profile `kernel` runs on: its `clock_mhz` the kernel's clock
    /// (`kernel_clock_mhz`), and the L2 and HBM bandwidths, which the profile states in
    /// bytes per cycle of `clock_mhz_light`, in bytes per cycle of that clock. Borrowed
    /// when nothing changes.
    pub fn for_kernel(&self, kernel: &isa::Kernel) -> std::borrow::Cow<'_, Profile> {
        let mhz = self.kernel_clock_mhz(kernel);
        if mhz == self.t.clock_mhz && mhz == self.t.clock_mhz_light {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut p = self.clone();
        let t = &mut p.t;
        // (bytes per light cycle) x (light cycles per ns) / (kernel cycles per ns)
        let per_cycle = t.clock_mhz_light / mhz;
        t.l2_bytes_per_clk_chip *= per_cycle;
        t.l2_bytes_per_clk_sm_max *= per_cycle;
        t.hbm_bytes_per_clk_chip *= per_cycle;
        t.hbm_bytes_per_clk_sm_max *= per_cycle;
        t.hbm_tma_bytes_per_clk_sm_max *= per_cycle;
        t.hbm_burst_bytes_per_clk_sm *= per_cycle;
        t.clock_mhz = mhz;
        std::borrow::Cow::Owned(p)
    }
}

/// True if any role of `kernel` has an instruction of the tensor pipe (HGMMA, UTCMMA).
fn uses_tensor_pipe(kernel: &isa::Kernel) -> bool {
    fn any(body: &[isa::ast::Stmt]) -> bool {
        body.iter().any(|s| match s {
            isa::ast::Stmt::Instr(i) => i.op.pipe() == isa::Pipe::Tensor,
            isa::ast::Stmt::Loop { body, .. } | isa::ast::Stmt::If { body, .. } => any(body),
        })
    }
    kernel.roles.iter().any(|r| any(&r.body))
}

fn entry_source_note(entry: Option<&mut ParamEntry>, value: f64) {
    if let Some(e) = entry
        && !e.source.starts_with("--set")
    {
        e.source = format!("--set {value} for this run (profile said: {})", e.source);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_load_and_every_parameter_has_a_source() {
        for name in Profile::builtin_names() {
            let p = Profile::builtin(name).unwrap();
            for (k, v) in &p.file.params {
                assert!(!v.source.trim().is_empty(), "{name}: {k} has no source");
            }
            assert_eq!(p.file.params.len(), Timing::NAMES.len(), "{name}");
        }
    }

    #[test]
    fn set_rejects_unknown_and_invalid_values_and_keeps_the_old_one() {
        let mut p = Profile::builtin("h100").unwrap();
        let e = p.set("lat_fmaa", 5.0).unwrap_err();
        assert!(e.to_string().contains("did you mean"), "{e}");
        let before = p.t.lat_fma;
        assert!(p.set("lat_fma", -1.0).is_err());
        assert_eq!(p.t.lat_fma, before);
        p.set("lat_fma", 6.0).unwrap();
        assert_eq!(p.t.lat_fma, 6.0);
        assert_eq!(p.overrides, vec![("lat_fma".to_string(), 6.0)]);
        // A cache larger than the model holds is refused, not left to the cache to fail
        // on (a one-way L2 of 1 TiB would have 2^33 sets; 64 GiB already costs the host
        // more memory than the machine has).
        let e = p.set("l2_bytes", (1u64 << 36) as f64).unwrap_err();
        assert!(e.to_string().contains("4 GiB"), "{e}");
        p.set("l2_ways", 1.0).unwrap();
        p.set("l2_bytes", (1u64 << 32) as f64).unwrap();
        // Cycles near 10^18, or a rate near 0, would make times no cycle count holds
        // (found by fuzzing `--set`: an uncoalesced load's lines 10^18 cycles apart
        // overflowed).
        let e = p.set("l2_line_cycles", 1e18).unwrap_err();
        assert!(e.to_string().contains("below 10^12"), "{e}");
        let e = p.set("smem_bytes_per_clk", 1e-9).unwrap_err();
        assert!(e.to_string().contains("from 0.000001"), "{e}");
        p.set("l2_line_cycles", 1e11).unwrap();
    }

    /// A profile with a `base` takes the base's value wherever it gives none, its own
    /// elsewhere; a typo in its own parameters, an unknown base and a cycle are errors.
    #[test]
    fn a_base_fills_in_what_the_profile_does_not_set() {
        let h100 = Profile::builtin("h100").unwrap();
        let text = "name = \"mine\"\ngpu = \"x\"\nbase = \"H100\"\nvalidated = false\nnote = \"\"\n\
                    [params]\nlat_fma = { value = 7, source = \"mine\" }\n";
        let p = Profile::from_toml(text).unwrap();
        assert_eq!(p.t.lat_fma, 7.0);
        assert_eq!(p.file.params.len(), h100.file.params.len());
        let mut q = p.t.clone();
        q.lat_fma = h100.t.lat_fma;
        assert_eq!(q, h100.t);
        assert_eq!(p.source("lat_fma"), Some("mine"));
        assert_eq!(p.source("lat_alu"), h100.source("lat_alu"));
        // Loaded again from its own TOML (the base's values now written out) it is the same.
        assert_eq!(Profile::from_toml(&p.to_toml()).unwrap().t, p.t);

        let typo = text.replace("lat_fma =", "lat_fmaa =");
        let e = Profile::from_toml(&typo).unwrap_err();
        assert!(e.to_string().contains("did you mean"), "{e}");
        let e = Profile::from_toml(&text.replace("H100", "h300")).unwrap_err();
        assert_eq!(e, ProfileError::NoSuchBuiltin("h300".into()));
        // A file may take its base's name (a tweaked h100 on the built-in one).
        let same_name = text.replace("\"mine\"\ngpu", "\"h100\"\ngpu");
        let tweaked = Profile::from_toml(&same_name).unwrap();
        assert_eq!((tweaked.name(), tweaked.t.lat_fma), ("h100", 7.0));
        // A base reached again on the way (a built-in whose bases come back to it).
        let e = Profile::from_toml_within(text, &mut vec!["h100".into()]).unwrap_err();
        assert_eq!(
            e,
            ProfileError::BaseCycle(vec!["h100".into(), "H100".into()])
        );
        assert!(e.to_string().contains("h100 -> H100"), "{e}");
    }

    /// The built-in H200 is the H100 but for its L2 size and the two chip bandwidths.
    #[test]
    fn the_h200_differs_from_the_h100_in_its_memory_only() {
        let h100 = Profile::builtin("h100").unwrap();
        let h200 = Profile::builtin("h200").unwrap();
        let differ: Vec<&str> = Timing::NAMES
            .iter()
            .copied()
            .filter(|n| h100.file.params[*n].value != h200.file.params[*n].value)
            .collect();
        let mut differ = differ;
        differ.sort();
        assert_eq!(
            differ,
            [
                "hbm_bytes_per_clk_chip",
                "l2_bytes",
                "l2_bytes_per_clk_chip"
            ]
        );
        let ratio = h200.t.hbm_bytes_per_clk_chip / h100.t.hbm_bytes_per_clk_chip;
        assert!(
            (ratio - (3201.0 * 6016.0) / (2619.0 * 5120.0)).abs() < 1e-4,
            "{ratio}"
        );
        // and the L2 rate by the ratio of L2 sizes
        let l2 = h200.t.l2_bytes_per_clk_chip / h100.t.l2_bytes_per_clk_chip;
        assert!(
            (l2 - h200.t.l2_bytes / h100.t.l2_bytes).abs() < 1e-4,
            "{l2}"
        );
    }

    #[test]
    fn profile_round_trips_through_toml() {
        let p = Profile::builtin("b200").unwrap();
        let q = Profile::from_toml(&p.to_toml()).unwrap();
        assert_eq!(p.file, q.file);
    }
}

#[cfg(test)]
mod param_docs {
    use super::*;

    /// Every parameter says what it means and in which unit, and every built-in profile
    /// gives each a value with a source.
    #[test]
    fn every_parameter_is_described_and_sourced() {
        assert_eq!(Timing::PARAMS.len(), Timing::NAMES.len());
        for (d, n) in Timing::PARAMS.iter().zip(Timing::NAMES) {
            assert_eq!(d.name, *n);
            assert!(
                d.meaning().len() > 20 && d.meaning().ends_with('.'),
                "{n}: {:?}",
                d.meaning()
            );
            assert!(!d.unit.is_empty() && !d.group.is_empty(), "{n}");
            assert!(!d.meaning().contains("  "), "{n}: {:?}", d.meaning());
        }
        for name in Profile::builtin_names() {
            let p = Profile::builtin(name).unwrap();
            for n in Timing::NAMES {
                assert!(!p.source(n).unwrap_or("").trim().is_empty(), "{name}: {n}");
            }
        }
        assert_eq!(ParamDoc::of("lat_hbm").map(|d| d.unit), Some("cycles"));
        assert!(ParamDoc::of("lat_hbmm").is_none());
    }
}
