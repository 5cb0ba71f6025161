//! Warp-scheduling policies. Each sub-partition's scheduler picks one of its eligible
//! warps per cycle; a policy only chooses, the engine does the rest.

use std::fmt;

/// An eligible warp as the policy sees it.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    /// Engine-wide warp slot.
    pub slot: u32,
    /// Launch order: lower is older. (0 for a policy whose `reads_history` is false.)
    pub age: u64,
    /// Cycle of the warp's last issue (0 if never, or if the policy's `reads_history`
    /// is false).
    pub last_issue: u64,
    /// Position of the warp among its sub-partition's warps.
    pub position: u32,
}

/// A scheduling policy. Implement it to try your own; `pick` must return an index into
/// `eligible` (which is never empty).
///
/// ```
/// use sim_core::scheduler::{Candidate, SchedulerPolicy};
///
/// /// Always the youngest eligible warp (the opposite of `oldest`).
/// struct Youngest;
///
/// impl SchedulerPolicy for Youngest {
///     fn name(&self) -> &str {
///         "youngest"
///     }
///     fn pick(&mut self, _subpartition: usize, _now: u64, eligible: &[Candidate]) -> usize {
///         (0..eligible.len()).max_by_key(|&i| eligible[i].age).unwrap()
///     }
///     // It keeps no state between picks.
///     fn wants_issued(&self) -> bool {
///         false
///     }
/// }
///
/// let kernel = isa::parse_kernel(
///     "kernel k\nlaunch cta_threads=256 regs=32 grid=1\nrole main warps=0..7\n  FFMA R0, R1, R2, R3\n  EXIT\n",
/// )
/// .unwrap();
/// let profile = sim_core::Profile::builtin("h100").unwrap();
/// let cfg = sim_core::RunConfig::default();
/// let mut sink = sim_core::sink::NoSink;
/// let r = sim_core::run_with(&kernel, &profile, &cfg, Box::new(Youngest), &mut sink).unwrap();
/// assert_eq!(r.policy, "youngest");
/// assert_eq!(r.instructions, 16);
/// ```
pub trait SchedulerPolicy: Send {
    /// Its name, as results report it.
    fn name(&self) -> &str;
    /// Which of the sub-partition's eligible warps issues at cycle `now`: an index into
    /// `eligible` (in position order, never empty).
    fn pick(&mut self, subpartition: usize, now: u64, eligible: &[Candidate]) -> usize;
    /// Told after every issue, so policies can remember who went last.
    fn issued(&mut self, _subpartition: usize, _slot: u32) {}
    /// Whether `issued` does anything: asked once per run, so that a policy without it
    /// is spared a call per issue. A policy that overrides `issued` must say true (the
    /// default).
    fn wants_issued(&self) -> bool {
        true
    }
    /// Whether `pick` reads a candidate's `age` and `last_issue`: asked once per run;
    /// when false, the engine leaves them 0 and spares each eligible warp their loads.
    /// A policy that reads them must say true (the default).
    fn reads_history(&self) -> bool {
        true
    }
    /// Whether `pick_lone` does what `pick` and then `issued` would do when one warp is
    /// eligible: asked once per run, so that such a cycle (a latency-bound kernel's usual
    /// one) makes one call and no choice. The default, false, has the engine call
    /// `pick` and `issued` on every cycle, as a policy that overrides neither expects.
    fn picks_lone(&self) -> bool {
        false
    }
    /// `pick` with `lone` the only eligible warp (so picked), then `issued` of it if
    /// `wants_issued`: what the two would do to the policy's state. Called instead of
    /// them only when `picks_lone` is true.
    fn pick_lone(&mut self, _subpartition: usize, _now: u64, _lone: &Candidate) {}
}

/// Greedy then oldest: keep issuing from the same warp while it is eligible, else the oldest.
#[derive(Default)]
pub struct Gto {
    last: [Option<u32>; 4],
}

impl SchedulerPolicy for Gto {
    fn name(&self) -> &str {
        "gto"
    }
    fn pick(&mut self, sp: usize, _: u64, eligible: &[Candidate]) -> usize {
        if let Some(last) = self.last[sp]
            && let Some(i) = eligible.iter().position(|c| c.slot == last)
        {
            return i;
        }
        oldest(eligible)
    }
    fn issued(&mut self, sp: usize, slot: u32) {
        self.last[sp] = Some(slot);
    }
    fn picks_lone(&self) -> bool {
        true
    }
    fn pick_lone(&mut self, sp: usize, _: u64, lone: &Candidate) {
        // `pick` of one warp changes nothing; `issued` remembers it.
        self.issued(sp, lone.slot);
    }
}

fn oldest(eligible: &[Candidate]) -> usize {
    let mut best = 0;
    for (i, c) in eligible.iter().enumerate() {
        if (c.age, c.position) < (eligible[best].age, eligible[best].position) {
            best = i;
        }
    }
    best
}

/// Loose round robin: the next eligible warp after the one that issued last.
pub struct RoundRobin {
    /// Position (within its sub-partition) of the warp that issued last.
    last: [u32; 4],
}

impl Default for RoundRobin {
    fn default() -> Self {
        RoundRobin {
            last: [u32::MAX; 4],
        }
    }
}

impl RoundRobin {
    /// The eligible warp closest after `last`, wrapping, among those `keep` accepts.
    fn next_after(
        last: u32,
        eligible: &[Candidate],
        keep: impl Fn(&Candidate) -> bool,
    ) -> Option<usize> {
        let mut best = None;
        let mut best_key = u32::MAX;
        for (i, c) in eligible.iter().enumerate() {
            let key = c.position.wrapping_sub(last).wrapping_sub(1);
            if keep(c) && key < best_key {
                best_key = key;
                best = Some(i);
            }
        }
        best
    }
}

impl SchedulerPolicy for RoundRobin {
    fn wants_issued(&self) -> bool {
        false
    }
    fn reads_history(&self) -> bool {
        false
    }
    fn name(&self) -> &str {
        "lrr"
    }
    fn pick(&mut self, sp: usize, _: u64, eligible: &[Candidate]) -> usize {
        let i = Self::next_after(self.last[sp], eligible, |_| true).unwrap_or(0);
        self.last[sp] = eligible[i].position;
        i
    }
    fn picks_lone(&self) -> bool {
        true
    }
    fn pick_lone(&mut self, sp: usize, _: u64, lone: &Candidate) {
        self.last[sp] = lone.position;
    }
}

/// Always the oldest eligible warp.
#[derive(Default)]
pub struct OldestFirst;

impl SchedulerPolicy for OldestFirst {
    fn wants_issued(&self) -> bool {
        false
    }
    fn name(&self) -> &str {
        "oldest"
    }
    fn pick(&mut self, _: usize, _: u64, eligible: &[Candidate]) -> usize {
        oldest(eligible)
    }
    fn picks_lone(&self) -> bool {
        true
    }
}

/// Two-level: warps are split into fetch groups of `group` warps; the scheduler round-
/// robins within the active group and moves to the next group (round robin over groups)
/// only when none of the active group's warps has been eligible for longer than a
/// control code can stall a warp (Narasiman et al., MICRO 2011). A shorter gap (both
/// warps of the pair in their stall counts, as after a loop's branch) is a bubble that
/// another group fills while the active group keeps its turn: the H100 finishes the
/// first pair of four always-ready warps at half the span with branches in the loop
/// (`sched.first_finish`), which a switch at every bubble would make the whole span.
/// (`next_after` never returns the warp that issued last, so that warp issuing again
/// alone refreshes its group's turn only after a gap longer than a stall count: the
/// calibrated behaviour, kept as it is.)
pub struct TwoLevel {
    /// (Not zero: a division by it has no panic path, and `pick_lone` then no frame.)
    group: std::num::NonZeroU32,
    /// The group of each position an SM may hold (`due::MAX_POSITIONS`): a load, not a
    /// division, per warp.
    group_of_position: [u32; crate::due::MAX_POSITIONS],
    active: [u32; 4],
    last: [u32; 4],
    /// When the active group last issued, per sub-partition.
    active_issued: [u64; 4],
}

impl TwoLevel {
    /// Groups of `group` warps (at least 1; the default policy's is 2).
    pub fn new(group: u32) -> TwoLevel {
        let group = std::num::NonZeroU32::new(group).unwrap_or(std::num::NonZeroU32::MIN);
        TwoLevel {
            group,
            group_of_position: std::array::from_fn(|p| p as u32 / group),
            active: [0; 4],
            last: [u32::MAX; 4],
            active_issued: [0; 4],
        }
    }

    #[inline(always)]
    fn group_of(&self, position: u32) -> u32 {
        match self.group_of_position.get(position as usize) {
            Some(&g) => g,
            None => position / self.group,
        }
    }
}

impl SchedulerPolicy for TwoLevel {
    fn wants_issued(&self) -> bool {
        false
    }
    fn reads_history(&self) -> bool {
        false
    }
    fn name(&self) -> &str {
        "two-level"
    }
    fn pick(&mut self, sp: usize, now: u64, eligible: &[Candidate]) -> usize {
        if let [only] = eligible {
            self.pick_lone(sp, now, only);
            return 0;
        }
        self.pick_among(sp, now, eligible)
    }
    fn picks_lone(&self) -> bool {
        true
    }
    fn pick_lone(&mut self, sp: usize, now: u64, lone: &Candidate) {
        let group = self.group_of(lone.position);
        self.pick_lone_of_group::<false>(sp, now, lone.position, group);
    }
}

impl TwoLevel {
    /// `pick_lone` as the engine calls it, whose positions are below
    /// `due::MAX_POSITIONS` and whose cycles never go back: the group a load from the
    /// table, without the test for a position beyond it, and the gap since the active
    /// group's issue a plain difference.
    #[inline(always)]
    fn pick_lone_in_engine(&mut self, sp: usize, now: u64, lone: &Candidate) {
        let group = self.group_of_position[lone.position as usize % crate::due::MAX_POSITIONS];
        debug_assert_eq!(group, self.group_of(lone.position));
        self.pick_lone_of_group::<true>(sp, now, lone.position, group);
    }

    /// `pick_lone` of the warp at `position`, of group `group`; `FORWARD`: `now` is no
    /// earlier than any cycle the policy was told before.
    #[inline(always)]
    fn pick_lone_of_group<const FORWARD: bool>(
        &mut self,
        sp: usize,
        now: u64,
        position: u32,
        group: u32,
    ) {
        // One eligible warp (a latency-bound kernel's usual cycle): what the pass of
        // `pick_among` decides for it, without the ranking. (A sub-partition is below
        // 4: a mask, not a bounds check.)
        let sp = sp & 3;
        let (active, last) = (self.active[sp], self.last[sp]);
        let group = group.wrapping_sub(active);
        let issued = self.active_issued[sp];
        // The active group's warp keeps the group's turn; another group's warp takes
        // it after a gap longer than a stall count (as `pick_among`). Either way the
        // warp is the last one picked, and the group's turn is refreshed. Computed
        // with masks, not branches: which warp is alone is data a host predictor
        // misses about one time in two.
        let stays = group == 0 && position != last;
        let gap = if FORWARD {
            debug_assert!(now >= issued);
            now.wrapping_sub(issued)
        } else {
            now.saturating_sub(issued)
        };
        let takes = gap > MAX_STALL_CYCLES;
        let moves = stays | takes;
        let mask = u32::from(moves).wrapping_neg();
        // (A warp of the active group moves it by 0.)
        self.active[sp] = active.wrapping_add(group & mask);
        self.last[sp] = (position & mask) | (last & !mask);
        let mask64 = u64::from(moves).wrapping_neg();
        self.active_issued[sp] = (now & mask64) | (issued & !mask64);
    }
}

impl TwoLevel {
    /// `pick` for any number of eligible warps. (Out of line: `pick`'s common case, one
    /// eligible warp, then saves and restores none of the registers this needs.)
    #[inline(never)]
    fn pick_among(&mut self, sp: usize, now: u64, eligible: &[Candidate]) -> usize {
        // (A sub-partition is below 4: a mask, not a bounds check.)
        let sp = sp & 3;
        let (active, last) = (self.active[sp], self.last[sp]);
        // One pass over the warps. Groups are ranked by their distance after the active
        // group (0: the active group itself, then round-robin order), warps within a
        // group by their distance after the last warp picked (round robin), which is
        // never the last warp itself (`u32::MAX`: see the type's comment).
        // `turn`: the smallest (group, warp) rank of a warp round robin may pick;
        // `next`: the nearest group after the active one with an eligible warp.
        let mut turn = (u64::MAX, 0);
        // (Kept as `next - 1`, wrapping, which is what each warp's group is compared
        // with: 0 is none, `u32::MAX` here.)
        let mut next_less_one = u32::MAX;
        for (i, c) in eligible.iter().enumerate() {
            let group = self.group_of(c.position).wrapping_sub(active);
            next_less_one = next_less_one.min(group.wrapping_sub(1));
            let rank = c.position.wrapping_sub(last).wrapping_sub(1);
            // The last warp itself ranks last of all (`u64::MAX`, never below `turn`'s
            // start): one comparison per warp, not two.
            let key = if rank == u32::MAX {
                u64::MAX
            } else {
                (u64::from(group) << 32) | u64::from(rank)
            };
            if key < turn.0 {
                turn = (key, i);
            }
        }
        if turn.0 >> 32 == 0 {
            let i = turn.1;
            self.last[sp] = eligible[i].position;
            self.active_issued[sp] = now;
            return i;
        }
        // No warp of the active group can issue. A gap no longer than a control code's
        // stall count is a bubble: another group fills it and the active group keeps
        // its turn. A longer one is a wait on memory or synchronization: the next group
        // (round robin) that has an eligible warp becomes the active one.
        let bubble = now.saturating_sub(self.active_issued[sp]) <= MAX_STALL_CYCLES;
        // The next group's first warp round robin, or the first warp if round robin
        // finds none there.
        let next = next_less_one.wrapping_add(1);
        let i = if turn.0 >> 32 == u64::from(next) && next != 0 {
            turn.1
        } else {
            0
        };
        if !bubble {
            self.active[sp] = active.wrapping_add(next);
            self.active_issued[sp] = now;
            self.last[sp] = eligible[i].position;
        }
        i
    }
}

/// The longest stall a SASS control code holds a warp (its 4-bit stall count): an
/// encoding limit, not a timing of the GPU's.
const MAX_STALL_CYCLES: u64 = isa::validate::MAX_STALL as u64;

/// The run's scheduling policy as the engine holds it: a built-in one by value, so that
/// the cycle loop's lone pick (a latency-bound kernel's usual cycle) is its few lines
/// inlined, not a dynamic call and the register saves around it; or a caller's, called
/// through its box. (`run` builds a built-in one; `run_with` takes the caller's box.)
// One per run, never moved in the cycle loop: two-level's table held in place, not
// behind a box that the lone pick would load first.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Scheduler {
    Gto(Gto),
    Lrr(RoundRobin),
    Oldest(OldestFirst),
    TwoLevel(TwoLevel),
    Custom(Box<dyn SchedulerPolicy>),
}

impl Scheduler {
    /// The policy, for all but the lone pick (rarer, or once per run).
    pub(crate) fn as_dyn(&mut self) -> &mut dyn SchedulerPolicy {
        match self {
            Scheduler::Gto(p) => p,
            Scheduler::Lrr(p) => p,
            Scheduler::Oldest(p) => p,
            Scheduler::TwoLevel(p) => p,
            Scheduler::Custom(p) => p.as_mut(),
        }
    }

    /// The policy's `pick_lone`: a built-in one's inlined (which arm is the run's, so
    /// the host predicts the match).
    #[inline(always)]
    pub(crate) fn pick_lone(&mut self, sp: usize, now: u64, lone: &Candidate) {
        match self {
            Scheduler::Gto(p) => p.pick_lone(sp, now, lone),
            Scheduler::Lrr(p) => p.pick_lone(sp, now, lone),
            Scheduler::Oldest(p) => p.pick_lone(sp, now, lone),
            Scheduler::TwoLevel(p) => p.pick_lone_in_engine(sp, now, lone),
            Scheduler::Custom(p) => p.pick_lone(sp, now, lone),
        }
    }
}

/// The built-in policies by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize)]
pub enum Policy {
    /// Greedy then oldest (`Gto`).
    Gto,
    /// Loose round robin (`RoundRobin`).
    Lrr,
    /// The oldest eligible warp (`OldestFirst`).
    Oldest,
    /// The default: the order the H100 shows (calibrate: `sched.first_finish.*`).
    #[default]
    TwoLevel,
}

impl Policy {
    /// Every built-in policy.
    pub const ALL: [Policy; 4] = [Policy::Gto, Policy::Lrr, Policy::Oldest, Policy::TwoLevel];

    /// Its name on the command line and in results.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Gto => "gto",
            Policy::Lrr => "lrr",
            Policy::Oldest => "oldest",
            Policy::TwoLevel => "two-level",
        }
    }

    /// The policy of a name (`two_level` accepted too), or a message naming the choices.
    pub fn from_name(s: &str) -> Result<Policy, String> {
        Policy::ALL
            .iter()
            .copied()
            .find(|p| p.name() == s || (s == "two_level" && *p == Policy::TwoLevel))
            .ok_or_else(|| {
                format!("no scheduling policy `{s}`; choose gto, lrr, oldest or two-level")
            })
    }

    /// The policy as a trait object, for `run_with`.
    pub fn build(self) -> Box<dyn SchedulerPolicy> {
        match self.scheduler() {
            Scheduler::Gto(p) => Box::new(p),
            Scheduler::Lrr(p) => Box::new(p),
            Scheduler::Oldest(p) => Box::new(p),
            Scheduler::TwoLevel(p) => Box::new(p),
            Scheduler::Custom(p) => p,
        }
    }

    /// The policy as the engine holds it (`build`'s, by value).
    pub(crate) fn scheduler(self) -> Scheduler {
        match self {
            Policy::Gto => Scheduler::Gto(Gto::default()),
            Policy::Lrr => Scheduler::Lrr(RoundRobin::default()),
            Policy::Oldest => Scheduler::Oldest(OldestFirst),
            // Pairs: the H100 interleaves two always-ready warps per scheduler and runs a
            // third and fourth after them (calibrate: sched.first_finish.*).
            Policy::TwoLevel => Scheduler::TwoLevel(TwoLevel::new(2)),
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The two-level rule as first written, in two stages (round robin within the
    /// active group; else the next group with an eligible warp, round robin within it,
    /// or the first warp): the one-pass `pick` must choose as it does.
    struct TwoStage {
        group: u32,
        active: [u32; 4],
        last: [u32; 4],
        active_issued: [u64; 4],
    }

    impl TwoStage {
        fn pick(&mut self, sp: usize, now: u64, eligible: &[Candidate]) -> usize {
            let g = self.group;
            let active = self.active[sp];
            if let Some(i) =
                RoundRobin::next_after(self.last[sp], eligible, |c| c.position / g == active)
            {
                self.last[sp] = eligible[i].position;
                self.active_issued[sp] = now;
                return i;
            }
            let bubble = now.saturating_sub(self.active_issued[sp]) <= MAX_STALL_CYCLES;
            let mut best = u32::MAX;
            let mut next = active;
            for c in eligible {
                let key = (c.position / g).wrapping_sub(active).wrapping_sub(1);
                if key < best {
                    best = key;
                    next = c.position / g;
                }
            }
            let i = RoundRobin::next_after(self.last[sp], eligible, |c| c.position / g == next)
                .unwrap_or(0);
            if !bubble {
                self.active[sp] = next;
                self.active_issued[sp] = now;
                self.last[sp] = eligible[i].position;
            }
            i
        }
    }

    proptest! {
        /// Every built-in policy's `pick_lone` does what `pick` and `issued` do: two
        /// copies, one told each way whenever one warp is eligible, pick alike after.
        #[test]
        fn pick_lone_stands_for_pick_and_issued(
            steps in prop::collection::vec(
                (prop_oneof![any::<u16>(), (0u32..16).prop_map(|p| 1u16 << p)], 1u64..40, 0usize..4),
                1..200,
            ),
        ) {
            for policy in Policy::ALL {
                // (The lone copy as the engine holds it: its `pick_lone` is the one a
                // run calls.)
                let (mut lone, mut full) = (policy.scheduler(), policy.build());
                prop_assert!(lone.as_dyn().picks_lone());
                let mut now = 0;
                for &(mask, gap, sp) in &steps {
                    now += gap;
                    let eligible: Vec<Candidate> = (0..16u32)
                        .filter(|p| mask & (1 << p) != 0)
                        .map(|p| Candidate {
                            slot: 4 * p + sp as u32,
                            age: u64::from(p ^ 5),
                            last_issue: now - 1,
                            position: p,
                        })
                        .collect();
                    if eligible.is_empty() {
                        continue;
                    }
                    let i = full.pick(sp, now, &eligible);
                    if full.wants_issued() {
                        full.issued(sp, eligible[i].slot);
                    }
                    if let [only] = &eligible[..] {
                        lone.pick_lone(sp, now, only);
                    } else {
                        let lone = lone.as_dyn();
                        prop_assert_eq!(lone.pick(sp, now, &eligible), i, "{}", policy);
                        if lone.wants_issued() {
                            lone.issued(sp, eligible[i].slot);
                        }
                    }
                }
            }
        }

        /// Runs of picks with random eligible sets (positions in order, as the engine
        /// lists them; half of them a single warp, which `pick` decides on its own
        /// path), random gaps between picks and group sizes 1 to 5.
        #[test]
        fn two_level_picks_as_the_two_stage_rule(
            group in 1u32..=5,
            steps in prop::collection::vec(
                (prop_oneof![any::<u16>(), (0u32..16).prop_map(|p| 1u16 << p)], 1u64..40, 0usize..4),
                1..200,
            ),
        ) {
            let mut fast = TwoLevel::new(group);
            let mut slow = TwoStage {
                group,
                active: [0; 4],
                last: [u32::MAX; 4],
                active_issued: [0; 4],
            };
            let mut now = 0;
            for (mask, gap, sp) in steps {
                now += gap;
                let eligible: Vec<Candidate> = (0..16u32)
                    .filter(|p| mask & (1 << p) != 0)
                    .map(|p| Candidate { slot: 4 * p + sp as u32, age: 0, last_issue: 0, position: p })
                    .collect();
                if eligible.is_empty() {
                    continue;
                }
                prop_assert_eq!(fast.pick(sp, now, &eligible), slow.pick(sp, now, &eligible));
                prop_assert_eq!((fast.active, fast.last, fast.active_issued),
                    (slow.active, slow.last, slow.active_issued));
            }
        }
    }
}
