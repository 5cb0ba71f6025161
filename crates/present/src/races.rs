//! The runtime race checker's hazards for a reader (`smsim run`, `smsim check --races`):
//! each hazard as a sentence naming both instructions with their lines and warps, the
//! stage or bytes, how often it happened, and what fixes it.

use sim_core::races::{Hazard, HazardKind, Site};

/// An instruction as a hazard names it: `` `TEXT` (line L, warp W of role R) ``.
fn site(s: &Site) -> String {
    format!(
        "`{}` (line {}, warp {} of role {})",
        s.text, s.line, s.warp, s.role
    )
}

/// What the hazard is, in a sentence.
pub fn sentence(h: &Hazard) -> String {
    let stage = h.stage.as_deref().unwrap_or("its mbarrier");
    let (racing, with, what) = (site(&h.racing), site(&h.with), &h.what);
    match h.kind {
        HazardKind::ReadBeforeFill => format!(
            "{racing} reads {what} before the phase of {stage} that {with} fills it for has completed"
        ),
        HazardKind::ReleaseWhileRead => format!(
            "{racing} releases stage {stage} while {with} may still read {what}: no wait has covered its group"
        ),
        HazardKind::AccumulatorBeforeWait => format!(
            "{racing} uses {what} while {with} accumulates into them: no `WARPGROUP.DEPBAR` has covered its group"
        ),
        HazardKind::FillOverFill => format!(
            "{racing} copies into {what} while {with} is still filling it (the phase of {stage} has not completed)"
        ),
    }
}

/// What fixes a hazard of this kind.
pub fn help(kind: HazardKind) -> &'static str {
    match kind {
        HazardKind::ReadBeforeFill => {
            "wait on the stage's mbarrier (`SYNCS.PHASECHK.TRANS64.TRYWAIT`) with the parity of the phase its copies complete before reading it"
        }
        HazardKind::ReleaseWhileRead => {
            "close the MMA's group with `gsb0` and wait for it (`WARPGROUP.DEPBAR.LE gsb0, N`), or commit and wait for the bulk store (`UTMACMDFLUSH`, `DEPBAR.LE SB1, 0`), before the arrive that releases the stage"
        }
        HazardKind::AccumulatorBeforeWait => {
            "wait for the HGMMA's group (`WARPGROUP.DEPBAR.LE gsb0, 0` after a `gsb0`) before reading or writing its accumulator"
        }
        HazardKind::FillOverFill => {
            "wait until the stage is free (its `empty` mbarrier) before copying into it again, or copy into another stage"
        }
    }
}

/// Every hazard, with the number of distinct ones dropped beyond those kept: a section
/// headed `Races`, empty when there are none.
pub fn render(hazards: &[Hazard], dropped: u64) -> String {
    if hazards.is_empty() && dropped == 0 {
        return String::new();
    }
    let n = hazards.len() as u64 + dropped;
    let mut o = format!(
        "\nRaces: {n} {} found by the runtime race checker\n",
        if n == 1 { "hazard" } else { "hazards" }
    );
    for h in hazards {
        let times = if h.occurrences == 1 {
            "once".to_string()
        } else {
            format!("{} times", h.occurrences)
        };
        o.push_str(&format!(
            "  {} ({times}, first at cycle {} in CTA {}): {}\n    help: {}\n",
            h.kind.name(),
            h.cycle,
            h.cta,
            sentence(h),
            help(h.kind)
        ));
    }
    if dropped > 0 {
        o.push_str(&format!(
            "  ... and {dropped} more pairs of instructions, not kept\n"
        ));
    }
    o
}
