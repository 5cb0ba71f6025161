//! The SM limits occupancy is computed against, by profile name.

use isa::occupancy::SmLimits;

/// Profiles `sm_limits` knows.
pub const PROFILES: &[&str] = &["h100"];

// replaced by sim_core::profile once it lands
/// H100 (compute capability 9.0), from the CUDA C++ Programming Guide's table of
/// technical specifications and the occupancy calculator's allocation rules.
pub fn sm_limits(profile: &str) -> Result<SmLimits, String> {
    match profile {
        "h100" => Ok(SmLimits {
            regs_per_sm: 65536,
            max_regs_per_thread: 255,
            reg_alloc_unit: 256,
            reg_file_partitions: 4,
            max_warps_per_sm: 64,
            max_threads_per_sm: 2048,
            max_ctas_per_sm: 32,
            smem_per_sm: 233_472,
            max_smem_per_block: 232_448,
            smem_reserved_per_cta: 1024,
            smem_alloc_unit: 128,
        }),
        other => Err(format!(
            "unknown profile `{other}`; known profiles: {}",
            PROFILES.join(", ")
        )),
    }
}
