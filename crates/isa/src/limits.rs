//! The hardware limits a kernel is checked against: one SM of the Hopper generation
//! (and Blackwell's tensor memory), as CUDA documents them.

/// Shared memory one block may use on Hopper (cc 9.0): 227 KB.
pub const MAX_SMEM_PER_BLOCK: u32 = 232_448;
/// Registers per thread an instruction can name (R0..R254; R255 is RZ).
pub const MAX_REGS_PER_THREAD: u32 = 255;
/// Threads per CTA.
pub const MAX_CTA_THREADS: u32 = 1024;
/// Hardware named barriers per CTA.
pub const NAMED_BARRIERS: u32 = 16;
/// An mbarrier's pending-arrival count is 20 bits wide.
pub const MAX_MBARRIER_COUNT: u32 = (1 << 20) - 1;

/// The most mbarriers a CTA can declare: each is 8 bytes of shared memory, and a CTA has
/// at most 227 KiB of it (232,448 bytes, the H100's and the B200's opt-in limit).
pub const MAX_MBARRIERS: u64 = 232_448 / 8;
/// The largest stall count a SASS control code holds (4 bits).
pub const MAX_STALL: i64 = 15;
/// Tensor-memory columns per SM (Blackwell).
pub const TMEM_COLUMNS: u32 = 512;
/// Largest non-portable thread-block cluster.
pub const MAX_CLUSTER: u32 = 16;
/// How deep loops may nest: the simulator gives each enclosing loop's variable a slot.
pub const MAX_LOOP_DEPTH: usize = 8;
/// Values an expression's evaluation may hold at once: the simulator evaluates
/// expressions on a fixed stack of this many.
pub const MAX_EXPR_STACK: usize = 16;
