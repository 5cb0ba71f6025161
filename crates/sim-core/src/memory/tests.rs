//! The memory model's own tests.

use super::*;

/// `Draws` gives what `StdRng`'s own calls give, draw by draw, whatever their mix
/// and across refills; the wide jitters take the second word now and then.
#[test]
fn draws_match_std_rng() {
    for seed in [0, 1, 7, 0xdead_beef] {
        let (mut draws, mut rng) = (Draws::new(seed), StdRng::seed_from_u64(seed));
        let mut pick = StdRng::seed_from_u64(seed + 100);
        for n in 0..5000 {
            if pick.random_range(0..5) == 0 {
                assert_eq!(
                    draws.next_u64(),
                    rng.random::<u64>(),
                    "seed {seed} draw {n}"
                );
            } else {
                let jitter = match pick.random_range(0..4) {
                    0 => pick.random_range(1..100),
                    1 => pick.random_range(1..1_000_000_000_000),
                    2 => (1 << 62) - 1,
                    _ => pick.random_range(1u64 << 61..1 << 62),
                };
                let j = jitter as i64;
                assert_eq!(
                    draws.symmetric(jitter),
                    rng.random_range(-j..=j),
                    "seed {seed} draw {n} jitter {jitter}"
                );
            }
        }
    }
}

#[test]
fn one_address_lines_as_the_sector_walk_gives_them() {
    for a in 0..700u64 {
        for w in [1u64, 2, 4, 8, 12, 16, 32, 64, 128, 256, 300] {
            let mut want: Vec<(u64, u32)> = Vec::new();
            for s in a / SECTOR..=(a + w - 1) / SECTOR {
                let line = s * SECTOR / LINE;
                match want.iter_mut().find(|(l, _)| *l == line) {
                    Some(e) => e.1 += 1,
                    None => want.push((line, 1)),
                }
            }
            let mut got = Vec::new();
            coalesce(&[a; 32], w as u32, &mut got);
            assert_eq!(got, want, "address {a}, width {w}");
        }
    }
}

/// Slow windows are drawn per 64 KiB address group: the share of contiguous requests
/// with a slow line levels off at the window chance however large they are, while a
/// request whose rows lie 4 KiB apart reaches a new group every 16 rows and is
/// almost always slow somewhere (the measured bulk and tensor copies).
#[test]
fn slow_windows_level_off_for_contiguous_requests_only() {
    let p = crate::Profile::builtin("h100").unwrap();
    let mut m = Memory::new(&p.t, 256 << 10, 1, 11);
    let window = p.t.hbm_tail_window_probability;
    let mut share = |addrs: &dyn Fn(u64) -> Vec<u64>| {
        let n = 2000u64;
        let slow = (0..n)
            .filter(|r| {
                m.begin_request(1);
                addrs((1 << 32) + r * (4 << 20))
                    .into_iter()
                    .any(|a| m.slow_chunk(a) > 0)
            })
            .count();
        slow as f64 / n as f64
    };
    let contiguous = |kib: u64| move |base: u64| (0..kib * 2).map(|i| base + i * 512).collect();
    let (c16, c64) = (share(&contiguous(16)), share(&contiguous(64)));
    let rows = share(&|base| (0..256).map(|i| base + i * 4096).collect());
    assert!(
        c64 < window + 0.04,
        "64 KiB contiguous: {c64}, window chance {window}"
    );
    assert!(
        (c64 - c16).abs() < 0.05,
        "16 KiB {c16} against 64 KiB {c64}"
    );
    assert!(rows > 0.95, "256 rows 4 KiB apart: {rows}");
}

/// The measured near/far pattern of HBM: within a 2 MiB page the parity of address
/// bits 12, 13, 16, 17 and 19, flipped for some pages: the 32 lines of a 4 KiB block
/// share a class, neighbouring blocks (bit 12) differ, blocks 4 KiB apart with bit
/// 14 or 15 or 18 flipped do not.
#[test]
fn hbm_near_and_far_follow_the_address_bits() {
    let p = crate::Profile::builtin("h100").unwrap();
    let mut m = Memory::new(&p.t, 256 << 10, 1, 7);
    let page = (1u64 << 32) + (5 << 21);
    let mut far = |off: u64| m.hbm_is_far((page + off) / LINE);
    for block in 0..512u64 {
        let b = block << 12;
        assert!(
            (1..32).all(|l| far(b + l * LINE) == far(b)),
            "block {block}"
        );
        let parity = (b & 0xB3000).count_ones() % 2 == 1;
        assert_eq!(far(b) ^ far(0), parity, "block {block}");
    }
    // Half the pages flip: of 64 pages, neither none nor all.
    let flipped = (0..64u64)
        .filter(|k| m.hbm_is_far(((1u64 << 32) + (k << 21)) / LINE))
        .count();
    assert!(
        (16..=48).contains(&flipped),
        "{flipped} of 64 pages flipped"
    );
}

#[test]
fn coalescing_counts_lines_and_sectors() {
    let mut out = Vec::new();
    let unit: [u64; 32] = std::array::from_fn(|l| l as u64 * 4);
    assert_eq!(coalesce(&unit, 4, &mut out), 1);
    assert_eq!(out[0].1, 4);
    let strided: [u64; 32] = std::array::from_fn(|l| l as u64 * 128);
    assert_eq!(coalesce(&strided, 4, &mut out), 32);
    assert!(out.iter().all(|&(_, s)| s == 1));
    let wide: [u64; 32] = std::array::from_fn(|l| l as u64 * 16);
    assert_eq!(coalesce(&wide, 16, &mut out), 4);
}

proptest::proptest! {
    /// Lanes a step apart that leave no gap (step 0 to the width) touch the lines and
    /// sectors of the one run from lane 0's address to lane 31's end: what the
    /// engine computes for them instead of coalescing 32 addresses.
    #[test]
    fn gapless_lanes_coalesce_as_one_run(
        first in 0u64..1 << 40,
        width in proptest::sample::select(vec![1u32, 2, 4, 8, 16]),
        step in 0u64..=16,
    ) {
        let step = step.min(width as u64);
        let addrs: [u64; 32] = std::array::from_fn(|l| first + l as u64 * step);
        let (mut lanes, mut run) = (Vec::new(), Vec::new());
        coalesce(&addrs, width, &mut lanes);
        lines_of(first, 31 * step + width as u64, &mut run);
        proptest::prop_assert_eq!(lanes, run);
    }
}

proptest::proptest! {
    /// A read through L1 in the profiles' shape (4-way L1, 16-way L2), which takes
    /// `read_l1_4_16`, returns what the general read (`read_l1_any`) returns, step by step:
    /// hits, L1 and L2 misses and evictions (both caches small here, so that lines
    /// are evicted from each), the random draws taken in the same order.
    #[test]
    fn the_profiles_shaped_read_is_the_general_read(
        reads in proptest::collection::vec((0u64..2048, 1u32..=4, 0u64..40), 1..300),
        seed in 0u64..8,
    ) {
        let p = crate::Profile::builtin("h100").unwrap();
        let mut t = p.t.clone();
        t.l2_bytes = 64.0 * 1024.0;
        let mut shaped = Memory::new(&t, 16 << 10, 1, seed);
        let mut general = Memory::new(&t, 16 << 10, 1, seed);
        proptest::prop_assert!(shaped.ways_4_16);
        let mut now = 0;
        for (line, sectors, gap) in reads {
            now += gap;
            shaped.begin_request(1);
            general.begin_request(1);
            let a = shaped.read_l1(line, sectors, now, now + 1);
            let b = general.read_l1_any(line, sectors, now, now + 1);
            proptest::prop_assert_eq!(a, b);
        }
    }
}

#[test]
fn bank_conflicts_serialize() {
    let unit: [u64; 32] = std::array::from_fn(|l| l as u64 * 4);
    assert_eq!(smem_wavefronts(&unit, 4), 1);
    let same_bank: [u64; 32] = std::array::from_fn(|l| l as u64 * 128);
    assert_eq!(smem_wavefronts(&same_bank, 4), 32);
    let broadcast: [u64; 32] = [0; 32];
    assert_eq!(smem_wavefronts(&broadcast, 4), 1);
    let wide: [u64; 32] = std::array::from_fn(|l| l as u64 * 16);
    assert_eq!(smem_wavefronts(&wide, 16), 4);
}

/// The replacement the ranks stand for: a last-use time per way, the victim the
/// first way of the set with the smallest.
struct LastUse {
    ways: usize,
    tags: Vec<u64>,
    last_use: Vec<u64>,
    tick: u64,
}

impl LastUse {
    fn access(&mut self, set: usize, line: u64, allocate: bool) -> Option<usize> {
        self.tick += 1;
        let s = set * self.ways;
        let mut victim = s;
        for w in s..s + self.ways {
            if self.tags[w] == line + 1 {
                self.last_use[w] = self.tick;
                return Some(w - s);
            }
            if self.last_use[w] < self.last_use[victim] {
                victim = w;
            }
        }
        if allocate {
            self.tags[victim] = line + 1;
            self.last_use[victim] = self.tick;
        }
        None
    }
}

proptest::proptest! {
    /// `fill_range` leaves a cache as `fill` of each line in order does: after lines
    /// there before (`before`), the same hits and misses, and the same victims, on
    /// any lines looked up after (`after`, each installed on a miss).
    #[test]
    fn a_range_fills_as_its_lines_in_order(
        ways in 1usize..6,
        sets in 1u64..9,
        before in proptest::collection::vec(0u64..400, 0..40),
        first in 0u64..200,
        len in 0u64..300,
        after in proptest::collection::vec(0u64..600, 1..80),
    ) {
        let bytes = LINE * sets * ways as u64;
        let (mut bounded, mut in_order) = (Cache::new(bytes, ways), Cache::new(bytes, ways));
        for &l in &before {
            bounded.fill(l, 7);
            in_order.fill(l, 7);
        }
        bounded.fill_range(first, first + len);
        for l in first..=first + len {
            in_order.fill(l, 0);
        }
        for (i, &l) in after.iter().enumerate() {
            let (a, b) = (bounded.lookup(l), in_order.lookup(l));
            proptest::prop_assert_eq!(a, b, "lookup {} of line {}", i, l);
            if a.is_none() {
                bounded.fill(l, 1);
                in_order.fill(l, 1);
            }
        }
    }
}

#[test]
fn ranks_replace_as_last_use_times_do() {
    // The second round's cache reuses the first's arrays and must start as empty.
    for ways in [1, 4, 5, 8, 9, 16, 17, 128] {
        for round in 0..2 {
            replace_as_last_use_times_do(round, ways);
        }
    }
}

fn replace_as_last_use_times_do(seed: u64, ways: usize) {
    use rand::RngExt;
    let sets = 3;
    let mut c = Cache::new(LINE * (sets * ways) as u64, ways);
    let mut r = LastUse {
        ways,
        tags: vec![0; sets * ways],
        last_use: vec![0; sets * ways],
        tick: 0,
    };
    let mut rng = StdRng::seed_from_u64(seed);
    for step in 0..20_000u64 {
        let line = rng.random_range(0..(10 * ways as u64 + 10));
        let set = c.set_of(line) / c.set.stride;
        match rng.random_range(0..4) {
            0 => {
                let hit = c.probe(line);
                if let Err(v) = hit {
                    c.install(v, line, step);
                }
                assert_eq!(hit.is_ok(), r.access(set, line, true).is_some());
            }
            1 => assert_eq!(
                c.lookup(line).is_some(),
                r.access(set, line, false).is_some()
            ),
            2 => {
                c.fill(line, step);
                r.access(set, line, true);
            }
            _ => {
                c.invalidate(line);
                let s = set * ways;
                for w in s..s + ways {
                    if r.tags[w] == line + 1 {
                        r.tags[w] = 0;
                    }
                }
            }
        }
        // Compare the sets in use (a set not yet touched may hold old lines).
        for set in 0..sets {
            if let Some(tags) = c.set_tags(set) {
                let w = set * ways..(set + 1) * ways;
                assert_eq!(tags, &r.tags[w], "step {step}");
            }
        }
    }
}

#[test]
fn fastmod_picks_the_set_division_would() {
    use rand::RngExt;
    let mut rng = StdRng::seed_from_u64(3);
    for sets in [1u64, 2, 3, 7, 512, 25600, 25601, 1 << 20, 999_983] {
        let mut c = Cache::new(LINE * sets * 2, 2);
        for _ in 0..10_000 {
            let bits = rng.random_range(1..40);
            let line = rng.random_range(0..1u64 << bits);
            let h = line ^ (line >> 7) ^ (line >> 17);
            assert_eq!(
                c.set_of(line),
                (h % sets) as usize * c.set.stride,
                "{line} in {sets} sets"
            );
        }
    }
}

/// The multiplication's bit 12 is the parity the shifts give.
#[test]
fn is_far_is_the_pair_hash_parity() {
    for line in (0..1u64 << 16).chain((0..1000).map(|i| u64::MAX - i)) {
        let pair = line >> 1;
        let shifts = ((pair ^ (pair >> 5) ^ (pair >> 11)) & 1) == 1;
        assert_eq!(Memory::is_far(line), shifts, "line {line}");
    }
}

#[test]
fn ceil_is_the_ceiling() {
    use rand::RngExt;
    let mut rng = StdRng::seed_from_u64(5);
    let mut xs = vec![
        0.0,
        0.5,
        1.0,
        1.5,
        2.5,
        3.0 - 1e-12,
        1e-300,
        4503599627370495.5,
    ];
    xs.extend([4503599627370496.0, 4503599627370497.0, 9.3e18]);
    for _ in 0..100_000 {
        let scale = 10f64.powi(rng.random_range(-3..16));
        xs.push(rng.random::<f64>() * scale);
        xs.push((rng.random_range(0..1u64 << 40) as f64) / 4.0);
    }
    for x in xs {
        assert_eq!(ceil(x), x.ceil() as u64, "{x}");
    }
}

#[test]
fn lru_keeps_the_recent_lines() {
    let mut c = Cache::new(LINE * 4, 4);
    for l in 0..4 {
        c.fill(l, 0);
    }
    assert!(c.lookup(0).is_some());
    c.fill(99, 0);
    assert!(c.lookup(0).is_some(), "recently used line survived");
    assert!(
        c.lookup(1).is_none(),
        "least recently used line was evicted"
    );
}

/// A line shared by other SMs costs the chip's L2 less only when its TPC partner is among
/// them or enough SMs read it (gaps/h100-20261127T111724Z.json, `gap.share.*`): the chip
/// server's time for one 128-byte hit is 128 / (chip rate / busy SMs) / gain, the gain
/// max(sharers / l2_shared_read_sharers, with the partner tpc + (cap - tpc)(1 - 2 /
/// sharers)) clamped to 1..=cap (`Memory::sharing_gain`).
#[test]
fn the_l2_sharing_gain_follows_the_partner_and_the_sharers() {
    let p = crate::Profile::builtin("h100").unwrap();
    let t = &p.t;
    let per_line = 128.0 / (t.l2_bytes_per_clk_chip / 128.0);
    let chip_time = |sharers: u32| {
        let mut m = Memory::new(t, 256 << 10, 128, 3);
        m.warm_l2(0, 0);
        m.begin_request(sharers);
        m.read_l2(0, 4, 1000);
        m.l2_bw.busy[CHIP]
    };
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    // Private, and 8 sharers on other TPCs: no gain.
    assert!(close(chip_time(1), per_line));
    assert!(close(chip_time(8), per_line));
    // 28 sharers on other TPCs: 28 / 14 = 2.
    assert!(close(
        chip_time(28),
        per_line / (28.0 / t.l2_shared_read_sharers)
    ));
    // Two CTAs of one TPC: 1.88; eight consecutive: 1.88 + 0.67 x 3 / 4 = 2.3825 (the
    // fitted cap 2.55); with 128 sharers the cap.
    assert!(close(
        chip_time(2 | TPC_PARTNER),
        per_line / t.l2_tpc_read_gain
    ));
    let eight = t.l2_tpc_read_gain + (t.l2_shared_read_gain - t.l2_tpc_read_gain) * 0.75;
    assert!((eight - 2.3825).abs() < 1e-9);
    assert!(close(chip_time(8 | TPC_PARTNER), per_line / eight));
    assert!(close(
        chip_time(128 | TPC_PARTNER),
        per_line / t.l2_shared_read_gain
    ));
    assert_eq!((t.l2_shared_read_sharers, t.l2_tpc_read_gain), (14.0, 1.88));
}
