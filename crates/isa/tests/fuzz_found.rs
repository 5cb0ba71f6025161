//! What the offline fuzzers found (issue 29), each kept as a regression test.

use isa::{parse_kernel, validate};

/// `line:col: message` of every diagnostic.
fn diags(src: &str) -> Vec<String> {
    let k = parse_kernel(src).unwrap_or_else(|d| panic!("does not parse: {d}\n{src}"));
    validate(&k).iter().map(|d| d.to_string()).collect()
}

/// fuzz_text_sim seed 2002, case 184059: `DEPBAR.LE SB0, x2` passed `check` (the op's
/// own words `SB0`/`gsb0` excused every bare word) and the simulator then refused the
/// unknown name.
#[test]
fn a_wait_depth_naming_an_unknown_variable_is_refused() {
    let k = |wait: &str| {
        format!(
            "kernel k\nlaunch cta_threads=128 regs=32 grid=1\nparam D=1\nrole r warps=0..3\n  {wait}\n  EXIT\n"
        )
    };
    assert_eq!(
        diags(&k("DEPBAR.LE SB0, x2")),
        [
            "5:18: `x2` is not a loop variable in scope, a parameter or a built-in (warp, lane, warpgroup, cta)"
        ]
    );
    assert_eq!(
        diags(&k("WARPGROUP.DEPBAR.LE gsb0, x2")),
        [
            "5:29: `x2` is not a loop variable in scope, a parameter or a built-in (warp, lane, warpgroup, cta)"
        ]
    );
    // A parameter and the op's own words stay fine.
    assert_eq!(diags(&k("DEPBAR.LE SB0, D")), Vec::<String>::new());
    assert_eq!(
        diags(&k("WARPGROUP.DEPBAR.LE gsb0, D")),
        Vec::<String>::new()
    );
}
