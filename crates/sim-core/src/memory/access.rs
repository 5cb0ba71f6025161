//! Addresses into lines and sectors: coalescing a warp's lanes, shared-memory
//! wavefronts (bank conflicts), and the model's whole-cycle rounding.

use super::*;

/// `x.ceil() as u64` for the non-negative times and cycle counts of the model, without
/// a libm call (the default target has no rounding instruction) and, below 2^52 (any
/// cycle count), without a conversion: adding 2^52 leaves the nearest whole number in
/// the low bits of the sum (its unit in the last place is 1), and one compare makes
/// that the ceiling. Above, it goes through u64 conversions; the result is the same.
/// (A negative `x`, which the model never makes, is not tested for outside debug
/// builds: every caller passes a time or a sum of non-negative cycles.)
#[inline]
pub fn ceil(x: f64) -> u64 {
    pub(super) const TWO_52: f64 = 4_503_599_627_370_496.0;
    debug_assert!(x >= 0.0, "{x} is negative");
    if x < TWO_52 {
        let sum = x + TWO_52;
        let nearest = sum.to_bits() - TWO_52.to_bits();
        return nearest + u64::from(sum - TWO_52 < x);
    }
    let whole = x as u64;
    whole + u64::from(x > whole as f64)
}

pub fn level_index(l: MemLevel) -> usize {
    match l {
        MemLevel::L1 => 0,
        MemLevel::L2Near => 1,
        MemLevel::L2Far => 2,
        MemLevel::Hbm => 3,
        MemLevel::Shared => 4,
    }
}

/// The distinct 128-byte lines of a warp's addresses (32, or one for a warp-uniform
/// address), each with its sector count. Writes into `out` (cleared first) and returns
/// how many lines there are.
pub fn coalesce(addrs: &[u64], width: u32, out: &mut Vec<(u64, u32)>) -> usize {
    out.clear();
    let w = width.max(1) as u64;
    // A warp-uniform address (a broadcast) is the common case of scalar loads.
    if addrs.iter().all(|&a| a == addrs[0]) {
        return lines_of(addrs[0], w, out);
    }
    let lanes = addrs;
    let mut last_line = u64::MAX;
    let mut last_idx = 0;
    for &a in lanes {
        for s in a / SECTOR..=(a + w - 1) / SECTOR {
            let line = s * SECTOR / LINE;
            let bit = 1u32 << (s % SECTORS_PER_LINE);
            if line != last_line {
                last_idx = match out.iter().position(|(l, _)| *l == line) {
                    Some(i) => i,
                    None => {
                        out.push((line, 0));
                        out.len() - 1
                    }
                };
                last_line = line;
            }
            out[last_idx].1 |= bit;
        }
    }
    for (_, mask) in out.iter_mut() {
        *mask = mask.count_ones();
    }
    out.len()
}

/// The lines one address's `w` bytes touch, each with its sector count, as `coalesce`
/// lists them (in address order): a range of sectors needs no search.
pub fn lines_of(a: u64, w: u64, out: &mut Vec<(u64, u32)>) -> usize {
    let last = (a + w - 1) / SECTOR;
    let mut s = a / SECTOR;
    while s <= last {
        let line = s / SECTORS_PER_LINE;
        let end = last.min(line * SECTORS_PER_LINE + SECTORS_PER_LINE - 1);
        out.push((line, (end - s + 1) as u32));
        s = end + 1;
    }
    out.len()
}

/// Shared-memory wavefronts for a warp's access: each of the 32 banks (4 bytes wide)
/// serves one distinct word per wavefront; a warp moves at most 128 bytes per wavefront.
pub fn smem_wavefronts(addrs: &[u64; 32], width: u32) -> u32 {
    // The common accesses first, their count known without the search below (which
    // compares each word with every one before it: 8,000 comparisons for a warp's
    // 128-bit access, most of a shared-memory-bound run's time). Lanes `width` bytes
    // apart from a word-aligned start, `width` whole words: every word distinct and
    // consecutive, each bank `width / 4` of them. One address for every lane: its
    // `width.div_ceil(4)` consecutive words, in distinct banks.
    let a0 = addrs[0];
    let w = u64::from(width);
    if (1..=16).contains(&width) {
        if addrs.iter().all(|&a| a == a0) {
            return 1;
        }
        if width.is_multiple_of(4)
            && a0.is_multiple_of(4)
            && addrs
                .iter()
                .enumerate()
                .all(|(i, &a)| a.wrapping_sub(a0) == i as u64 * w)
        {
            return width / 4;
        }
    }
    smem_wavefronts_searched(addrs, width)
}

/// `smem_wavefronts` of any access: its distinct words found by search.
fn smem_wavefronts_searched(addrs: &[u64; 32], width: u32) -> u32 {
    let mut words: [u32; 32] = [0; 32];
    let mut seen: [u64; 32 * 4] = [u64::MAX; 32 * 4];
    let mut n = 0usize;
    for &a in addrs {
        for w in 0..width.div_ceil(4) as u64 {
            let word = a / 4 + w;
            if !seen[..n].contains(&word) {
                seen[n] = word;
                n += 1;
                words[(word % 32) as usize] += 1;
            }
        }
    }
    let bytes = (n as u32) * 4;
    words
        .iter()
        .copied()
        .max()
        .unwrap_or(1)
        .max(bytes.div_ceil(128))
        .max(1)
}

#[cfg(test)]
mod wavefront_tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The shortcuts give what the search gives: any start (aligned or not), any
        /// width, lanes uniform, contiguous, strided, or anywhere.
        #[test]
        fn shortcuts_agree_with_the_search(
            start in 0u64..1 << 20,
            width in prop::sample::select(vec![1u32, 2, 4, 8, 12, 16]),
            pattern in 0u8..4,
            stride in 0u64..300,
            scatter in prop::array::uniform32(0u64..4096),
        ) {
            let addrs: [u64; 32] = std::array::from_fn(|i| match pattern {
                0 => start,
                1 => start + i as u64 * u64::from(width),
                2 => start + i as u64 * stride,
                _ => start + scatter[i],
            });
            prop_assert_eq!(
                smem_wavefronts(&addrs, width),
                smem_wavefronts_searched(&addrs, width)
            );
        }
    }
}
