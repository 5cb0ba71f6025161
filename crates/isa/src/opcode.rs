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
}

impl Pipe {
    pub const ALL: [Pipe; 10] = [
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
    ];

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
        }
    }

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
    Fma,
    Alu,
    Imad,
    Fp64,
}

impl FixedClass {
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
    Fixed(FixedClass),
    Variable(Scoreboard),
    /// No register result, or one that completes through a barrier or wait group.
    None,
}

macro_rules! ops {
    ($( $variant:ident = $text:literal, $pipe:ident, $lat:expr, [$($m:literal),*]; )*) => {
        /// The base mnemonic of an instruction; modifiers follow it after dots.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum Op { $($variant,)* }

        impl Op {
            pub const ALL: &'static [Op] = &[$(Op::$variant,)*];

            pub fn mnemonic(self) -> &'static str {
                match self { $(Op::$variant => $text,)* }
            }

            pub fn pipe(self) -> Pipe {
                match self { $(Op::$variant => Pipe::$pipe,)* }
            }

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
    Depbar = "DEPBAR", Sync, ResultLatency::None, ["LE"];
    Atom = "ATOM", Lsu, Variable(Long), ["E", "ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "EXCH", "CAS", "F32", "FTZ", "RN", "U32", "S32", "64", "STRONG", "GPU"];
    Red = "RED", Lsu, ResultLatency::None, ["E", "ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "F32", "FTZ", "RN", "U32", "S32", "64", "STRONG", "GPU"];
    Ublkcp = "UBLKCP", Tma, ResultLatency::None, ["S", "G", "SHARED", "GLOBAL"];
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
    Membar = "MEMBAR", Sync, ResultLatency::None, ["CTA", "GPU", "SYS", "SC", "ALL"];
    Nanosleep = "NANOSLEEP", Sync, ResultLatency::None, [];
    Bra = "BRA", Branch, ResultLatency::None, ["U", "DIV"];
    Exit = "EXIT", Branch, ResultLatency::None, [];
    Nop = "NOP", Branch, ResultLatency::None, [];
}

impl Op {
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
    F16,
    Bf16,
    Fp8,
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
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub ab: MmaType,
    /// F32 accumulators (otherwise F16).
    pub acc_f32: bool,
}

impl MmaShape {
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
