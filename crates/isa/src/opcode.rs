//! Opcodes: what each one is called, which pipe executes it, and how its result
//! becomes available. The latencies themselves live in the GPU profile (sim-core).

use std::fmt;

use serde::{Deserialize, Serialize};

/// The execution pipe an instruction is dispatched to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Pipe {
    /// FP32 multiply-add (also HFMA2 and IMAD on Hopper).
    Fma,
    /// Integer and logic.
    Alu,
    /// Double precision.
    Fp64,
    /// Special functions and conversions (the XU).
    Mufu,
    /// MIO: shared memory, ldmatrix, tensor-memory loads.
    Mio,
    /// LSU into L1TEX: global and local memory.
    Lsu,
    /// Warpgroup (wgmma) and tcgen05 MMAs.
    Tensor,
    /// The tensor memory accelerator: bulk and tensor-map copies.
    Tma,
    /// Barriers, mbarriers, fences, warpgroup synchronisation.
    Sync,
    /// Branches, exit, nop.
    Branch,
    /// The uniform datapath: one value per warp in uniform registers (ULDC, UMOV,
    /// UIADD3, ULEA...), beside the vector pipes, with no vector register banks.
    Uniform,
}

impl Pipe {
    /// Every pipe.
    pub const ALL: [Pipe; 11] = [
        Pipe::Fma,
        Pipe::Alu,
        Pipe::Fp64,
        Pipe::Mufu,
        Pipe::Mio,
        Pipe::Lsu,
        Pipe::Tensor,
        Pipe::Tma,
        Pipe::Sync,
        Pipe::Branch,
        Pipe::Uniform,
    ];

    /// The pipe's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Pipe::Fma => "fma",
            Pipe::Alu => "alu",
            Pipe::Fp64 => "fp64",
            Pipe::Mufu => "mufu",
            Pipe::Mio => "mio",
            Pipe::Lsu => "lsu",
            Pipe::Tensor => "tensor",
            Pipe::Tma => "tma",
            Pipe::Sync => "sync",
            Pipe::Branch => "branch",
            Pipe::Uniform => "uniform",
        }
    }

    /// The pipe's index in [`Pipe::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Which scoreboard tracks a variable-latency result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scoreboard {
    /// L1TEX operations: global and local memory.
    Long,
    /// MIO operations: shared memory, MUFU, conversions.
    Short,
}

/// Fixed-latency classes; the profile gives each a cycle count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FixedClass {
    /// FP32 arithmetic.
    Fma,
    /// Integer and logic.
    Alu,
    /// Integer multiply-add.
    Imad,
    /// FP64 arithmetic.
    Fp64,
}

impl FixedClass {
    /// The class's name in the profile.
    pub fn name(self) -> &'static str {
        match self {
            FixedClass::Fma => "fma",
            FixedClass::Alu => "alu",
            FixedClass::Imad => "imad",
            FixedClass::Fp64 => "fp64",
        }
    }
}

/// How an instruction's register result becomes available.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResultLatency {
    /// A fixed latency of this class.
    Fixed(FixedClass),
    /// A variable latency, tracked by this scoreboard.
    Variable(Scoreboard),
    /// No register result, or one that completes through a barrier or wait group.
    None,
}

macro_rules! ops {
    ($( $variant:ident = $text:literal, $pipe:ident, $lat:expr, [$($m:literal),*]; )*) => {
        /// The base mnemonic of an instruction; modifiers follow it after dots.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum Op { $(#[doc = concat!("`", $text, "`, on the ", stringify!($pipe), " pipe.")] $variant,)* }

        impl Op {
            /// Every op.
            pub const ALL: &'static [Op] = &[$(Op::$variant,)*];

            /// The mnemonic as written (`FFMA`).
            pub fn mnemonic(self) -> &'static str {
                match self { $(Op::$variant => $text,)* }
            }

            /// The pipe that executes it.
            pub fn pipe(self) -> Pipe {
                match self { $(Op::$variant => Pipe::$pipe,)* }
            }

            /// How its register result becomes available.
            pub fn result_latency(self) -> ResultLatency {
                use ResultLatency::*;
                #[allow(unused_imports)]
                use FixedClass::*;
                #[allow(unused_imports)]
                use Scoreboard::*;
                match self { $(Op::$variant => $lat,)* }
            }

            /// Modifiers the op accepts (shape-like modifiers of HGMMA and UTCMMA are
            /// checked separately).
            pub fn modifiers(self) -> &'static [&'static str] {
                match self { $(Op::$variant => &[$($m),*],)* }
            }
        }
    };
}

ops! {
    Ffma = "FFMA", Fma, Fixed(FixedClass::Fma), ["FTZ", "RN", "RZ", "SAT"];
    Fadd = "FADD", Fma, Fixed(FixedClass::Fma), ["FTZ", "RN", "RZ", "SAT"];
    Fmul = "FMUL", Fma, Fixed(FixedClass::Fma), ["FTZ", "RN", "RZ", "SAT"];
    Hfma2 = "HFMA2", Fma, Fixed(FixedClass::Fma), ["MMA", "BF16_V2", "F32"];
    Iadd3 = "IADD3", Alu, Fixed(FixedClass::Alu), ["X"];
    Imad = "IMAD", Fma, Fixed(FixedClass::Imad), ["WIDE", "U32", "HI", "SHL", "MOV", "IADD", "X"];
    Lop3 = "LOP3", Alu, Fixed(FixedClass::Alu), ["LUT"];
    Isetp = "ISETP", Alu, Fixed(FixedClass::Alu), ["LT", "LE", "GT", "GE", "EQ", "NE", "U32", "AND", "OR", "XOR", "EX"];
    Fsetp = "FSETP", Alu, Fixed(FixedClass::Alu), ["LT", "LE", "GT", "GE", "EQ", "NE", "NEU", "GTU", "AND", "OR", "FTZ"];
    Shf = "SHF", Alu, Fixed(FixedClass::Alu), ["L", "R", "U32", "S32", "U64", "S64", "HI", "W"];
    Lea = "LEA", Alu, Fixed(FixedClass::Alu), ["HI", "X"];
    Mov = "MOV", Alu, Fixed(FixedClass::Alu), [];
    Sel = "SEL", Alu, Fixed(FixedClass::Alu), [];
    Fmnmx = "FMNMX", Alu, Fixed(FixedClass::Alu), ["FTZ", "NAN"];
    F2fp = "F2FP", Alu, Fixed(FixedClass::Alu), ["BF16", "F16", "F32", "PACK_AB", "RN", "RZ", "SATFINITE"];
    Shfl = "SHFL", Mio, Variable(Short), ["BFLY", "UP", "DOWN", "IDX"];
    I2f = "I2F", Mufu, Variable(Short), ["F32", "F64", "F16", "S32", "U32", "S64", "U64", "RP", "RM", "RZ"];
    F2i = "F2I", Mufu, Variable(Short), ["F32", "F64", "S32", "U32", "S64", "U64", "TRUNC", "FLOOR", "CEIL", "NTZ", "FTZ"];
    F2f = "F2F", Mufu, Variable(Short), ["F32", "F64", "F16", "BF16", "RN", "RZ", "FTZ"];
    Dfma = "DFMA", Fp64, Fixed(FixedClass::Fp64), ["RN", "RZ", "RM", "RP"];
    Mufu = "MUFU", Mufu, Variable(Short), ["EX2", "RCP", "RSQ", "LG2", "SIN", "COS", "TANH", "SQRT", "F16"];
    Ldg = "LDG", Lsu, Variable(Long), ["E", "CA", "CG", "CS", "LU", "CV", "U8", "S8", "U16", "S16", "32", "64", "128", "CONSTANT", "STRONG", "GPU", "SYS", "EF", "EL", "LTC128B"];
    Stg = "STG", Lsu, ResultLatency::None, ["E", "WB", "CG", "CS", "WT", "U8", "S8", "U16", "S16", "32", "64", "128", "STRONG", "GPU", "SYS", "EF"];
    Lds = "LDS", Mio, Variable(Short), ["U8", "S8", "U16", "S16", "32", "64", "128"];
    Sts = "STS", Mio, ResultLatency::None, ["U8", "S8", "U16", "S16", "32", "64", "128"];
    Ldsm = "LDSM", Mio, Variable(Short), ["16", "M88", "MT88", "1", "2", "4"];
    Ldl = "LDL", Lsu, Variable(Long), ["U8", "S8", "U16", "S16", "32", "64", "128", "LU"];
    Stl = "STL", Lsu, ResultLatency::None, ["U8", "S8", "U16", "S16", "32", "64", "128"];
    Ldgsts = "LDGSTS", Lsu, ResultLatency::None, ["E", "BYPASS", "LTC128B", "32", "64", "128", "ZFILL"];
    Ldgdepbar = "LDGDEPBAR", Sync, ResultLatency::None, [];
    Depbar = "DEPBAR", Sync, ResultLatency::None, ["LE", "READ"];
    Atom = "ATOM", Lsu, Variable(Long), ["E", "ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "EXCH", "CAS", "F32", "FTZ", "RN", "U32", "S32", "64", "STRONG", "GPU"];
    Red = "RED", Lsu, ResultLatency::None, ["E", "ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "F32", "FTZ", "RN", "U32", "S32", "64", "STRONG", "GPU"];
    Ublkcp = "UBLKCP", Tma, ResultLatency::None, ["S", "G"];
    Utmaldg = "UTMALDG", Tma, ResultLatency::None, ["1D", "2D", "3D", "4D", "5D", "MULTICAST"];
    Utmastg = "UTMASTG", Tma, ResultLatency::None, ["1D", "2D", "3D", "4D", "5D"];
    Utmacmdflush = "UTMACMDFLUSH", Tma, ResultLatency::None, [];
    Syncs = "SYNCS", Sync, ResultLatency::None, ["EXCH", "64", "ARRIVE", "TRANS64", "A1T0", "EXPECT_TX", "REMOTE", "PHASECHK", "TRYWAIT", "RED"];
    Fence = "FENCE", Sync, ResultLatency::None, ["PROXY", "ASYNC", "VIEW", "SHARED"];
    Hgmma = "HGMMA", Tensor, ResultLatency::None, ["F32", "F16", "BF16", "E4M3", "E5M2", "TF32", "SP"];
    Warpgroup = "WARPGROUP", Sync, ResultLatency::None, ["ARRIVE", "DEPBAR", "LE"];
    Setmaxnreg = "SETMAXNREG", Sync, ResultLatency::None, ["INC", "DEC"];
    Utcmma = "UTCMMA", Tensor, ResultLatency::None, ["F32", "F16", "BF16", "E4M3", "E5M2", "TF32", "1CTA", "2CTA"];
    Utcbar = "UTCBAR", Tensor, ResultLatency::None, ["1CTA", "2CTA", "MULTICAST"];
    Ldtm = "LDTM", Mio, Variable(Short), ["16DP256BIT", "32DP32BIT", "16DP128BIT", "16DP64BIT", "X1", "X2", "X4", "X8", "X16", "X32", "X64", "X128"];
    Sttm = "STTM", Mio, ResultLatency::None, ["16DP256BIT", "32DP32BIT", "16DP128BIT", "16DP64BIT", "X1", "X2", "X4", "X8", "X16", "X32", "X64", "X128"];
    Tmemalloc = "TMEMALLOC", Sync, ResultLatency::None, [];
    Tmemdealloc = "TMEMDEALLOC", Sync, ResultLatency::None, [];
    Bar = "BAR", Sync, ResultLatency::None, ["SYNC", "ARV", "RED", "POPC", "AND", "OR", "DEFER_BLOCKING"];
    UcgabarArv = "UCGABAR_ARV", Sync, ResultLatency::None, [];
    UcgabarWait = "UCGABAR_WAIT", Sync, ResultLatency::None, [];
    Membar = "MEMBAR", Sync, ResultLatency::None, ["CTA", "GPU", "SYS", "SC", "ALL"];
    Nanosleep = "NANOSLEEP", Sync, ResultLatency::None, [];
    Bra = "BRA", Branch, ResultLatency::None, ["U", "DIV"];
    Exit = "EXIT", Branch, ResultLatency::None, [];
    Nop = "NOP", Branch, ResultLatency::None, [];
    Bssy = "BSSY", Branch, ResultLatency::None, [];
    Uldc = "ULDC", Uniform, Fixed(FixedClass::Alu), ["64", "U8", "S8", "U16", "S16"];
    Ldc = "LDC", Mio, Variable(Short), ["64", "U8", "S8", "U16", "S16"];
    Umov = "UMOV", Uniform, Fixed(FixedClass::Alu), ["64"];
    Uiadd3 = "UIADD3", Uniform, Fixed(FixedClass::Alu), ["X"];
    Uimad = "UIMAD", Uniform, Fixed(FixedClass::Imad), ["WIDE", "U32", "HI"];
    Ulea = "ULEA", Uniform, Fixed(FixedClass::Alu), ["HI", "X"];
    Ushf = "USHF", Uniform, Fixed(FixedClass::Alu), ["L", "R", "U32", "S32", "U64", "S64", "HI", "W"];
    Ulop3 = "ULOP3", Uniform, Fixed(FixedClass::Alu), ["LUT"];
    Uisetp = "UISETP", Uniform, Fixed(FixedClass::Alu), ["LT", "LE", "GT", "GE", "EQ", "NE", "U32", "AND", "OR", "XOR", "EX"];
    Usel = "USEL", Uniform, Fixed(FixedClass::Alu), [];
    Uflo = "UFLO", Uniform, Fixed(FixedClass::Alu), ["U32", "SH"];
    Upopc = "UPOPC", Uniform, Fixed(FixedClass::Alu), [];
    Uprmt = "UPRMT", Uniform, Fixed(FixedClass::Alu), ["F4E", "B4E", "RC8", "ECL", "ECR", "RC16"];
    S2ur = "S2UR", Uniform, Variable(Short), [];
    S2r = "S2R", Mio, Variable(Short), ["U"];
    R2ur = "R2UR", Uniform, Fixed(FixedClass::Alu), [];
}

impl Op {
    /// The op whose mnemonic is `s`.
    pub fn from_mnemonic(s: &str) -> Option<Op> {
        Op::ALL.iter().copied().find(|op| op.mnemonic() == s)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mnemonic())
    }
}

/// The element type of a tensor-core operation's A and B operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MmaType {
    /// FP16.
    F16,
    /// BF16.
    Bf16,
    /// FP8 (E4M3 or E5M2).
    Fp8,
    /// TF32.
    Tf32,
}

impl MmaType {
    /// Relative to F16: how many times more (or fewer) FLOPs per cycle the tensor pipe does.
    pub fn rate_vs_f16(self) -> f64 {
        match self {
            MmaType::F16 | MmaType::Bf16 => 1.0,
            MmaType::Fp8 => 2.0,
            MmaType::Tf32 => 0.5,
        }
    }
}

/// An MMA shape decoded from `HGMMA.64x256x16.F32.BF16` or `UTCMMA.128x256x16.F32.BF16`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MmaShape {
    /// Rows of the output tile.
    pub m: u32,
    /// Columns of the output tile.
    pub n: u32,
    /// The reduction depth.
    pub k: u32,
    /// The A and B element type.
    pub ab: MmaType,
    /// F32 accumulators (otherwise F16).
    pub acc_f32: bool,
}

impl MmaShape {
    /// Floating-point operations of one MMA (2 M N K).
    pub fn flops(&self) -> u64 {
        2 * self.m as u64 * self.n as u64 * self.k as u64
    }

    /// Registers per thread the accumulator occupies for a warpgroup-wide HGMMA
    /// (m64: each of 128 threads holds 64*N/128 values).
    pub fn hgmma_acc_regs(&self) -> u32 {
        let values = self.m * self.n / 128;
        if self.acc_f32 { values } else { values / 2 }
    }

    /// Parses the modifiers of an HGMMA or UTCMMA: `[MxNxK, acc type, ab type]`.
    pub fn from_modifiers(op: Op, mods: &[String]) -> Result<MmaShape, String> {
        let shape = mods
            .first()
            .ok_or_else(|| format!("{op} needs a shape modifier such as .64x256x16"))?;
        let dims: Vec<&str> = shape.split('x').collect();
        let parse = |s: &str| s.parse::<u32>().ok();
        let (m, n, k) = match dims.as_slice() {
            [m, n, k] => match (parse(m), parse(n), parse(k)) {
                (Some(m), Some(n), Some(k)) => (m, n, k),
                _ => return Err(format!("`{shape}` is not a shape MxNxK")),
            },
            _ => return Err(format!("`{shape}` is not a shape MxNxK")),
        };
        let mut acc_f32 = true;
        let mut ab = None;
        for (i, m) in mods[1..].iter().enumerate() {
            let t = match m.as_str() {
                "F32" if i == 0 => {
                    acc_f32 = true;
                    continue;
                }
                "F16" if i == 0 => {
                    acc_f32 = false;
                    continue;
                }
                "F16" => MmaType::F16,
                "BF16" => MmaType::Bf16,
                "E4M3" | "E5M2" => MmaType::Fp8,
                "TF32" => MmaType::Tf32,
                "SP" | "1CTA" | "2CTA" => continue,
                other => {
                    return Err(format!(
                        "`.{other}` is not an MMA type (F16, BF16, E4M3, E5M2, TF32)"
                    ));
                }
            };
            ab = Some(t);
        }
        let ab = ab.unwrap_or(MmaType::F16);
        let k_expected = match ab {
            MmaType::F16 | MmaType::Bf16 => 16,
            MmaType::Fp8 => 32,
            MmaType::Tf32 => 8,
        };
        match op {
            Op::Hgmma => {
                if m != 64 {
                    return Err(format!("HGMMA has M = 64, not {m}"));
                }
                if !(8..=256).contains(&n) || n % 8 != 0 {
                    return Err(format!(
                        "HGMMA's N must be a multiple of 8 from 8 to 256, not {n}"
                    ));
                }
            }
            _ => {
                if m != 64 && m != 128 && m != 256 {
                    return Err(format!("UTCMMA has M = 64, 128 or 256, not {m}"));
                }
                if !(8..=256).contains(&n) || n % 8 != 0 {
                    return Err(format!(
                        "UTCMMA's N must be a multiple of 8 from 8 to 256, not {n}"
                    ));
                }
            }
        }
        if k != k_expected {
            return Err(format!("K is {k_expected} for {ab:?} operands, not {k}"));
        }
        Ok(MmaShape {
            m,
            n,
            k,
            ab,
            acc_f32,
        })
    }
}

/// What kind of memory an `Index` operand names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Space {
    /// A declared `buffer`.
    Global,
    /// A declared `shared` region.
    Shared,
    /// `local[...]`: per-thread memory (spills).
    Local,
    /// `tmem[...]`: Blackwell's tensor memory, addressed by column.
    Tmem,
}

impl Space {
    /// How a diagnostic names an operand that must be in this space.
    pub fn wanted(self) -> &'static str {
        match self {
            Space::Global => "global memory (a buffer)",
            Space::Shared => "shared memory (a shared region)",
            Space::Local => "local memory (`local[...]`)",
            Space::Tmem => "tensor memory (`tmem[col]`)",
        }
    }
}

/// What one positional operand must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A vector register (`R0`..`R254`, `RZ`).
    Reg,
    /// A predicate (`P0`..`P6`, `PT`).
    Pred,
    /// A uniform register (`UR0`..`UR62`, `URZ`).
    UReg,
    /// A uniform predicate (`UP0`..`UP6`, `UPT`).
    UPred,
    /// A register, an immediate or an expression: anything but memory.
    Value,
    /// An integer: a number or an expression (the simulator evaluates it).
    Int,
    /// Memory in one of these spaces: `NAME[offset]`.
    Mem(&'static [Space]),
    /// A register when written as one, else memory in these spaces (HGMMA's A operand).
    RegOrMem(&'static [Space]),
    /// An element of a declared mbarrier array: `NAME[i]`.
    Mbar,
    /// Anything: the op's own rules check it (`gsb0`, `SB0`, a wait depth).
    Any,
}

/// The positional operands an op takes: how many, and what each must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operands {
    /// The fewest positional operands.
    pub min: usize,
    /// The most positional operands.
    pub max: usize,
    /// How to write it, for the `help:` of a wrong count; `{mnem}` stands for the
    /// instruction's full mnemonic.
    pub syntax: &'static str,
    /// What each position must be, with its name in diagnostics ("destination").
    pub kinds: &'static [(Kind, &'static str)],
    /// How many leading positions are checked even when the count is wrong (an
    /// arithmetic op's destination).
    pub always: usize,
}

/// When a `key=` operand is allowed or required.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeySpec {
    /// The key, without `=`.
    pub key: &'static str,
    /// Allowed only when the instruction has this modifier (`mask=` with `.MULTICAST`).
    pub only_with: Option<&'static str>,
    /// Required: always (`Some(None)`), with a modifier (`Some(Some("EXPECT_TX"))`), or
    /// never (`None`).
    pub required: Option<Option<&'static str>>,
    /// How to write it, for the `help:` when it is missing, if not the op's syntax.
    pub syntax: Option<&'static str>,
}

/// A rule on an instruction's modifiers: at least (or exactly) one of `one_of`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModRule {
    /// The modifiers that say what the instruction does.
    pub one_of: &'static [&'static str],
    /// Exactly one of them, not just at least one.
    pub exactly: bool,
    /// The diagnostic after the mnemonic: "`SHFL` does not say which shuffle".
    pub says: &'static str,
    /// Its `help:` line.
    pub help: &'static str,
}

/// One row of the operand-form table: what an op (in one of its modes) takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Form {
    /// The op the row describes.
    pub op: Op,
    /// The row applies when the instruction has one of these modifiers; a row with none
    /// applies when no earlier row of the op did.
    pub when: &'static [&'static str],
    /// A rule on the modifiers, checked before the operands.
    pub modifier: Option<ModRule>,
    /// The positional operands; `None` where the op's own rules check them (BAR).
    pub operands: Option<Operands>,
    /// The `key=` operands it takes (every op also takes `stall=`).
    pub keys: &'static [KeySpec],
    /// No operand may be memory (arithmetic reads registers and immediates only).
    pub no_memory: bool,
}

impl Form {
    /// The keys allowed for an instruction with `mods`.
    pub fn allowed_keys<'a>(&'a self, mods: &'a [String]) -> impl Iterator<Item = &'a KeySpec> {
        self.keys
            .iter()
            .filter(move |k| k.only_with.is_none_or(|m| mods.iter().any(|x| x == m)))
    }
}

const G: &[Space] = &[Space::Global];
const S: &[Space] = &[Space::Shared];
const L: &[Space] = &[Space::Local];
const T: &[Space] = &[Space::Tmem];
const ST: &[Space] = &[Space::Shared, Space::Tmem];
const SG: &[Space] = &[Space::Shared, Space::Global];

const fn key(key: &'static str) -> KeySpec {
    KeySpec {
        key,
        only_with: None,
        required: None,
        syntax: None,
    }
}
const fn needed(key: &'static str) -> KeySpec {
    KeySpec {
        required: Some(None),
        ..self::key(key)
    }
}

const fn plain(op: Op, operands: Operands) -> Form {
    Form {
        op,
        when: &[],
        modifier: None,
        operands: Some(operands),
        keys: &[],
        no_memory: false,
    }
}
const fn ops(
    min: usize,
    max: usize,
    syntax: &'static str,
    kinds: &'static [(Kind, &'static str)],
) -> Operands {
    Operands {
        min,
        max,
        syntax,
        kinds,
        always: 0,
    }
}
/// Arithmetic: registers and immediates, the destination checked whatever the count.
const fn arith(op: Op, min: usize, max: usize, syntax: &'static str, dest: Kind) -> Form {
    let kinds: &'static [(Kind, &'static str)] = match dest {
        Kind::Pred => &[(Kind::Pred, "destination")],
        _ => &[(Kind::Reg, "destination")],
    };
    Form {
        no_memory: true,
        ..plain(
            op,
            Operands {
                always: 1,
                ..ops(min, max, syntax, kinds)
            },
        )
    }
}
/// Uniform arithmetic: uniform registers and immediates (the rule that every register
/// operand is uniform is `validate`'s).
const fn uarith(op: Op, min: usize, max: usize, syntax: &'static str, dest: Kind) -> Form {
    let kinds: &'static [(Kind, &'static str)] = match dest {
        Kind::UPred => &[(Kind::UPred, "destination")],
        _ => &[(Kind::UReg, "destination")],
    };
    Form {
        no_memory: true,
        ..plain(
            op,
            Operands {
                always: 1,
                ..ops(min, max, syntax, kinds)
            },
        )
    }
}
const fn none(op: Op, syntax: &'static str) -> Form {
    plain(op, ops(0, 0, syntax, &[]))
}

const RD_MEM: &str = "destination";

/// Every op's operand forms, in the order rows are tried.
pub const FORMS: &[Form] = &[
    arith(Op::Ffma, 4, 4, "FFMA Rd, Ra, Rb, Rc", Kind::Reg),
    arith(Op::Fadd, 3, 3, "FADD Rd, Ra, Rb", Kind::Reg),
    arith(Op::Fmul, 3, 3, "FMUL Rd, Ra, Rb", Kind::Reg),
    arith(Op::Hfma2, 4, 5, "HFMA2 Rd, Ra, Rb, Rc", Kind::Reg),
    arith(Op::Iadd3, 3, 6, "IADD3 Rd, Ra, Rb, Rc", Kind::Reg),
    arith(Op::Imad, 4, 5, "IMAD Rd, Ra, Rb, Rc", Kind::Reg),
    arith(Op::Lop3, 5, 7, "LOP3.LUT Rd, Ra, Rb, Rc, LUT", Kind::Reg),
    arith(
        Op::Isetp,
        4,
        6,
        "ISETP.GE.AND Pd, PT, Ra, Rb, PT",
        Kind::Pred,
    ),
    arith(
        Op::Fsetp,
        4,
        6,
        "FSETP.GT.AND Pd, PT, Ra, Rb, PT",
        Kind::Pred,
    ),
    arith(Op::Shf, 4, 4, "SHF.L.U32 Rd, Ra, SHIFT, Rc", Kind::Reg),
    arith(Op::Lea, 4, 6, "LEA Rd, Ra, Rb, SHIFT", Kind::Reg),
    arith(Op::Mov, 2, 3, "MOV Rd, Ra", Kind::Reg),
    arith(Op::Sel, 4, 4, "SEL Rd, Ra, Rb, P0", Kind::Reg),
    arith(Op::Fmnmx, 4, 4, "FMNMX Rd, Ra, Rb, !PT", Kind::Reg),
    arith(
        Op::F2fp,
        3,
        3,
        "F2FP.BF16.F32.PACK_AB Rd, Ra, Rb",
        Kind::Reg,
    ),
    Form {
        modifier: Some(ModRule {
            one_of: &["BFLY", "UP", "DOWN", "IDX"],
            exactly: false,
            says: "does not say which shuffle",
            help: "write SHFL.BFLY, .UP, .DOWN or .IDX",
        }),
        ..arith(
            Op::Shfl,
            3,
            4,
            "SHFL.BFLY Rd, Ra, LANEMASK, 0x1f",
            Kind::Reg,
        )
    },
    arith(Op::I2f, 2, 2, "I2F Rd, Ra", Kind::Reg),
    arith(Op::F2i, 2, 2, "F2I Rd, Ra", Kind::Reg),
    arith(Op::F2f, 2, 2, "F2F Rd, Ra", Kind::Reg),
    arith(Op::Dfma, 4, 4, "DFMA Rd, Ra, Rb, Rc", Kind::Reg),
    Form {
        modifier: Some(ModRule {
            one_of: &["EX2", "RCP", "RSQ", "LG2", "SIN", "COS", "TANH", "SQRT"],
            exactly: false,
            says: "does not say which function",
            help: "write MUFU.EX2, .RCP, .RSQ, .LG2, .SIN, .COS, .TANH or .SQRT",
        }),
        ..arith(Op::Mufu, 2, 2, "MUFU.EX2 Rd, Ra", Kind::Reg)
    },
    plain(
        Op::Ldg,
        ops(
            2,
            2,
            "LDG.E Rd, BUFFER[offset]",
            &[(Kind::Reg, "destination"), (Kind::Mem(G), "address")],
        ),
    ),
    plain(
        Op::Ldl,
        ops(
            2,
            2,
            "LDL Rd, local[offset]",
            &[(Kind::Reg, "destination"), (Kind::Mem(L), "address")],
        ),
    ),
    plain(
        Op::Ldsm,
        ops(
            2,
            2,
            "LDSM.16.M88.4 Rd, SHARED[offset]",
            &[(Kind::Reg, "destination"), (Kind::Mem(S), "address")],
        ),
    ),
    plain(
        Op::Lds,
        ops(
            2,
            2,
            "LDS Rd, SHARED[offset]",
            &[(Kind::Reg, "destination"), (Kind::Mem(S), "address")],
        ),
    ),
    plain(
        Op::Stg,
        ops(
            2,
            2,
            "STG.E BUFFER[offset], Rs",
            &[(Kind::Mem(G), "address"), (Kind::Reg, "data")],
        ),
    ),
    plain(
        Op::Stl,
        ops(
            2,
            2,
            "STL local[offset], Rs",
            &[(Kind::Mem(L), "address"), (Kind::Reg, "data")],
        ),
    ),
    plain(
        Op::Red,
        ops(
            2,
            2,
            "RED.E.ADD BUFFER[offset], Rs",
            &[(Kind::Mem(G), "address"), (Kind::Reg, "data")],
        ),
    ),
    plain(
        Op::Sts,
        ops(
            2,
            2,
            "STS SHARED[offset], Rs",
            &[(Kind::Mem(S), "address"), (Kind::Reg, "data")],
        ),
    ),
    plain(
        Op::Atom,
        ops(
            3,
            4,
            "ATOM.E.ADD Rd, BUFFER[offset], Rs",
            &[
                (Kind::Reg, "destination"),
                (Kind::Mem(G), "address"),
                (Kind::Reg, "data"),
                (Kind::Reg, "compare value"),
            ],
        ),
    ),
    // The optional register is the one SASS holds the address in: the copy waits for
    // it like any source.
    plain(
        Op::Ldgsts,
        ops(
            2,
            3,
            "LDGSTS.E.128 SHARED[offset], BUFFER[offset][, Raddr]",
            &[
                (Kind::Mem(S), RD_MEM),
                (Kind::Mem(G), "source"),
                (Kind::Reg, "address register"),
            ],
        ),
    ),
    uarith(Op::Umov, 2, 2, "UMOV URd, URa", Kind::UReg),
    uarith(Op::Uiadd3, 3, 6, "UIADD3 URd, URa, URb, URc", Kind::UReg),
    uarith(Op::Uimad, 4, 4, "UIMAD URd, URa, URb, URc", Kind::UReg),
    uarith(Op::Ulea, 4, 6, "ULEA URd, URa, URb, SHIFT", Kind::UReg),
    uarith(
        Op::Ushf,
        4,
        4,
        "USHF.L.U32 URd, URa, SHIFT, URc",
        Kind::UReg,
    ),
    uarith(
        Op::Ulop3,
        5,
        7,
        "ULOP3.LUT URd, URa, URb, URc, LUT",
        Kind::UReg,
    ),
    uarith(
        Op::Uisetp,
        4,
        6,
        "UISETP.GE.AND UPd, UPT, URa, URb, UPT",
        Kind::UPred,
    ),
    uarith(Op::Usel, 4, 4, "USEL URd, URa, URb, UP0", Kind::UReg),
    uarith(Op::Uflo, 2, 2, "UFLO.U32 URd, URa", Kind::UReg),
    uarith(Op::Upopc, 2, 2, "UPOPC URd, URa", Kind::UReg),
    uarith(Op::Uprmt, 4, 4, "UPRMT URd, URa, SELECTOR, URb", Kind::UReg),
    // The constant bank's byte offset (bank 0): `ULDC.64 UR4, 0x118` for
    // `ULDC.64 UR4, c[0x0][0x118]`.
    plain(
        Op::Uldc,
        ops(
            2,
            2,
            "ULDC.64 URd, OFFSET",
            &[(Kind::UReg, "destination"), (Kind::Int, "constant offset")],
        ),
    ),
    // A constant load into a vector register: `LDC R6, 0x3c0` for `LDC R6, c[0x0][0x3c0]`,
    // `LDC R7, R9` for the indexed `LDC R7, c[0x3][R9]` (its index register a source).
    // Unlike ULDC (fixed latency), its result is tracked by a scoreboard: the profile's
    // `lat_ldc`.
    plain(
        Op::Ldc,
        ops(
            2,
            2,
            "LDC Rd, OFFSET (or LDC Rd, Rindex)",
            &[
                (Kind::Reg, "destination"),
                (Kind::Value, "constant offset or index register"),
            ],
        ),
    ),
    // A special-register read (`SR_CTAID_X` for SASS's `SR_CTAID.X`): a scoreboard, the
    // profile's `lat_s2ur` (uniform) or `lat_s2r` (vector), as ptxas's control codes
    // say and data/gaps/sreg/ measured (31 and 23-27 cycles into a dependent use).
    plain(
        Op::S2ur,
        ops(
            2,
            2,
            "S2UR URd, SR_CTAID_X",
            &[(Kind::UReg, "destination"), (Kind::Any, "special register")],
        ),
    ),
    // `S2R.U` is an S2UR into a vector register, timed as S2UR: for the calibration
    // twins, which hold a SASS kernel's uniform registers in vector ones.
    plain(
        Op::S2r,
        ops(
            2,
            2,
            "S2R Rd, SR_TID_X",
            &[(Kind::Reg, "destination"), (Kind::Any, "special register")],
        ),
    ),
    plain(
        Op::R2ur,
        ops(
            2,
            2,
            "R2UR URd, Ra",
            &[(Kind::UReg, "destination"), (Kind::Reg, "source")],
        ),
    ),
    none(Op::Ldgdepbar, "LDGDEPBAR"),
    none(Op::Utmacmdflush, "UTMACMDFLUSH"),
    none(Op::Fence, "FENCE"),
    none(Op::Membar, "MEMBAR"),
    none(Op::Exit, "EXIT"),
    // The SASS's `BSSY` (a convergence barrier set up for a branch that may diverge):
    // the next `BRA` of its block branches on a per-thread predicate
    // (`per_thread_branch_cycles`); where ptxas proved the predicate warp-uniform it
    // wrote no BSSY.
    none(Op::Bssy, "BSSY"),
    // `lanes=N`: the NOP stands for the BSYNC that ends a region N lanes ran (the
    // others parked at it), which rejoins them (`bsync_rejoin_cycles`)
    Form {
        keys: &[key("lanes")],
        ..none(Op::Nop, "NOP[ lanes=N]")
    },
    Form {
        modifier: Some(ModRule {
            one_of: &["LE"],
            exactly: false,
            says: "needs `.LE`",
            help: "write `DEPBAR.LE SB0, N` (cp.async groups) or `DEPBAR.LE SB1, N` (bulk stores)",
        }),
        ..plain(
            Op::Depbar,
            ops(
                2,
                2,
                "DEPBAR.LE SB0, N",
                &[(Kind::Any, "scoreboard"), (Kind::Any, "depth")],
            ),
        )
    },
    // Global to shared (with `bar=`, the mbarrier its bytes complete on) or shared to
    // global (a bulk store, completed through bulk groups): `validate` checks which.
    Form {
        keys: &[needed("bytes"), key("bar")],
        ..plain(
            Op::Ublkcp,
            ops(
                2,
                2,
                "{mnem} SHARED[offset], BUFFER[offset], bytes=N, bar=MBAR[i] (or BUFFER[offset], SHARED[offset], bytes=N: a bulk store)",
                &[(Kind::Mem(SG), RD_MEM), (Kind::Mem(SG), "source")],
            ),
        )
    },
    Form {
        keys: &[
            needed("bytes"),
            needed("bar"),
            KeySpec {
                only_with: Some("MULTICAST"),
                ..key("mask")
            },
            key("row"),
            key("pitch"),
        ],
        ..plain(
            Op::Utmaldg,
            ops(
                2,
                2,
                "{mnem} SHARED[offset], BUFFER[offset], bytes=N, bar=MBAR[i]",
                &[(Kind::Mem(S), RD_MEM), (Kind::Mem(G), "source")],
            ),
        )
    },
    Form {
        keys: &[needed("bytes")],
        ..plain(
            Op::Utmastg,
            ops(
                2,
                2,
                "UTMASTG BUFFER[offset], SHARED[offset], bytes=N",
                &[(Kind::Mem(G), RD_MEM), (Kind::Mem(S), "source")],
            ),
        )
    },
    Form {
        when: &["EXCH"],
        keys: &[needed("count")],
        ..plain(
            Op::Syncs,
            ops(
                1,
                1,
                "SYNCS.EXCH.64 MBAR[i], count=N",
                &[(Kind::Mbar, "operand")],
            ),
        )
    },
    Form {
        when: &["ARRIVE"],
        keys: &[
            KeySpec {
                required: Some(Some("EXPECT_TX")),
                ..key("bytes")
            },
            key("count"),
            KeySpec {
                required: Some(Some("REMOTE")),
                syntax: Some("SYNCS.ARRIVE.TRANS64.REMOTE MBAR[i], cta=RANK"),
                ..key("cta")
            },
        ],
        ..plain(
            Op::Syncs,
            ops(
                1,
                1,
                "SYNCS.ARRIVE.TRANS64.EXPECT_TX MBAR[i], bytes=N",
                &[(Kind::Mbar, "operand")],
            ),
        )
    },
    Form {
        when: &["PHASECHK", "TRYWAIT"],
        keys: &[needed("parity"), key("lanes")],
        ..plain(
            Op::Syncs,
            ops(
                1,
                1,
                "SYNCS.PHASECHK.TRANS64.TRYWAIT MBAR[i], parity=P[, lanes=N]",
                &[(Kind::Mbar, "operand")],
            ),
        )
    },
    Form {
        op: Op::Syncs,
        when: &[],
        modifier: Some(ModRule {
            one_of: &["EXCH", "ARRIVE", "PHASECHK", "TRYWAIT"],
            exactly: false,
            says: "does not say what to do with the mbarrier",
            help: "write SYNCS.EXCH.64 (init), SYNCS.ARRIVE.TRANS64[.EXPECT_TX] (arrive) or SYNCS.PHASECHK.TRANS64.TRYWAIT (wait)",
        }),
        operands: None,
        keys: &[key("parity")],
        no_memory: false,
    },
    plain(
        Op::Hgmma,
        ops(
            3,
            4,
            "HGMMA.64x256x16.F32.BF16 Racc, SHARED[a], SHARED[b], gsb0",
            &[
                (Kind::Reg, "accumulator"),
                (Kind::RegOrMem(S), "A operand"),
                (Kind::Mem(S), "B operand"),
                (Kind::Any, "group"),
            ],
        ),
    ),
    Form {
        when: &["ARRIVE"],
        ..none(Op::Warpgroup, "WARPGROUP.ARRIVE")
    },
    Form {
        when: &["DEPBAR"],
        modifier: Some(ModRule {
            one_of: &["LE"],
            exactly: false,
            says: "needs `.LE`",
            help: "write `WARPGROUP.DEPBAR.LE gsb0, N`",
        }),
        ..plain(
            Op::Warpgroup,
            ops(
                2,
                2,
                "WARPGROUP.DEPBAR.LE gsb0, N",
                &[(Kind::Any, "group"), (Kind::Any, "depth")],
            ),
        )
    },
    Form {
        op: Op::Warpgroup,
        when: &[],
        modifier: Some(ModRule {
            one_of: &["ARRIVE", "DEPBAR"],
            exactly: false,
            says: "needs .ARRIVE or .DEPBAR.LE",
            help: "WARPGROUP.ARRIVE fences registers before HGMMA; WARPGROUP.DEPBAR.LE gsb0, N waits for groups",
        }),
        operands: None,
        keys: &[],
        no_memory: false,
    },
    Form {
        modifier: Some(ModRule {
            one_of: &["INC", "DEC"],
            exactly: true,
            says: "needs exactly one of .INC and .DEC",
            help: "write SETMAXNREG.DEC 40 or SETMAXNREG.INC 232",
        }),
        ..plain(
            Op::Setmaxnreg,
            ops(1, 1, "SETMAXNREG.INC N", &[(Kind::Value, "count")]),
        )
    },
    plain(
        Op::Utcmma,
        ops(
            3,
            3,
            "UTCMMA.128x256x16.F32.BF16 tmem[col], SHARED[a], SHARED[b]",
            &[
                (Kind::Mem(T), "accumulator"),
                (Kind::Mem(ST), "A operand"),
                (Kind::Mem(S), "B operand"),
            ],
        ),
    ),
    plain(
        Op::Utcbar,
        ops(1, 1, "UTCBAR MBAR[i]", &[(Kind::Mbar, "operand")]),
    ),
    plain(
        Op::Ldtm,
        ops(
            2,
            2,
            "LDTM.32DP32BIT.X64 Rd, tmem[col]",
            &[(Kind::Reg, "destination"), (Kind::Mem(T), "source")],
        ),
    ),
    plain(
        Op::Sttm,
        ops(
            2,
            2,
            "STTM.32DP32BIT.X64 tmem[col], Rs",
            &[(Kind::Mem(T), RD_MEM), (Kind::Reg, "source")],
        ),
    ),
    Form {
        keys: &[KeySpec {
            syntax: Some("TMEMALLOC cols=N"),
            ..needed("cols")
        }],
        ..none(Op::Tmemalloc, "{mnem} cols=N")
    },
    Form {
        keys: &[key("cols")],
        ..none(Op::Tmemdealloc, "{mnem} cols=N")
    },
    Form {
        op: Op::Bar,
        when: &[],
        modifier: None,
        operands: None,
        keys: &[],
        no_memory: false,
    },
    none(Op::UcgabarArv, "UCGABAR_ARV"),
    none(Op::UcgabarWait, "UCGABAR_WAIT"),
    plain(
        Op::Nanosleep,
        ops(1, 1, "NANOSLEEP NS", &[(Kind::Int, "duration")]),
    ),
    // `bytes=`: the branch's distance to its target as compiled (target less the branch's
    // address; negative for a loop's back branch), for the instruction fetch's timing.
    Form {
        keys: &[key("bytes")],
        ..plain(Op::Bra, ops(0, 1, "BRA target[, bytes=N]", &[]))
    },
];

impl Op {
    /// The row of [`FORMS`] that applies to this op with modifiers `mods`: the first
    /// whose `when` names one of them, else the op's row without `when`.
    pub fn form(self, mods: &[String]) -> Option<&'static Form> {
        let rows = FORMS.iter().filter(|f| f.op == self);
        rows.clone()
            .find(|f| f.when.iter().any(|w| mods.iter().any(|m| m == w)))
            .or_else(|| rows.clone().find(|f| f.when.is_empty()))
    }
}
