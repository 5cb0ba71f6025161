//! Issue 29's parser and checker reproducers: inputs that overflowed the stack, wrapped
//! silently or passed `check` only to fail in `run` are positioned errors. Each test
//! runs on a test thread's default stack, so a recursion that grows with the input
//! would still overflow here.

use isa::{parse_kernel, validate};

const HEAD: &str = "kernel k\nlaunch cta_threads=32 regs=32 grid=1\nbuffer A size=4096\n";

/// The first error `src` gets, from the parser or else the validator, as `line:col: message`.
fn first_error(src: &str) -> String {
    match parse_kernel(src) {
        Err(d) => d.to_string(),
        Ok(k) => validate(&k)
            .first()
            .map(|d| d.to_string())
            .unwrap_or_default(),
    }
}

fn loop_bound(bound: &str) -> String {
    format!("{HEAD}role r warps=0..0\n  loop i 0..{bound}\n    FFMA R1, R2, R3, R4\n")
}

const TOO_DEEP: &str = "this expression nests more than 100 deep";

#[test]
fn twenty_thousand_nested_parentheses_are_an_error() {
    let src = loop_bound(&format!("{}4{}", "(".repeat(20_000), ")".repeat(20_000)));
    let e = first_error(&src);
    // The 101st parenthesis opens one level too many: columns 13..112 hold 100.
    assert!(e.starts_with(&format!("5:113: {TOO_DEEP}")), "{e}");
}

#[test]
fn a_flat_sum_of_fifty_thousand_terms_is_an_error() {
    let src = loop_bound(&vec!["1"; 50_000].join("+"));
    let e = first_error(&src);
    // The 100th `+` (column 12 + 2 x 100) makes the tree 101 deep (a leaf is 1).
    assert!(e.starts_with(&format!("5:212: {TOO_DEEP}")), "{e}");
    // A hundred terms are fine, and a balanced tree of thousands too.
    assert_eq!(first_error(&loop_bound(&vec!["1"; 100].join("+"))), "");
    let balanced = (0..12).fold("1".to_string(), |e, _| format!("({e} + {e})"));
    assert_eq!(first_error(&loop_bound(&balanced)), "");
}

#[test]
fn a_hundred_thousand_unary_minuses_are_an_error() {
    let e = first_error(&loop_bound(&format!("{}4", "-".repeat(100_000))));
    assert!(e.starts_with(&format!("5:113: {TOO_DEEP}")), "{e}");
    let e = first_error(&loop_bound(&format!("{}4", "~".repeat(100_000))));
    assert!(e.starts_with(&format!("5:113: {TOO_DEEP}")), "{e}");
}

#[test]
fn thirty_thousand_nested_mins_are_an_error() {
    let src = loop_bound(&format!(
        "{}4{}",
        "min(".repeat(30_000),
        ", 4)".repeat(30_000)
    ));
    let e = first_error(&src);
    assert!(e.contains(TOO_DEEP), "{e}");
    assert!(e.starts_with("5:"), "{e}");
}

#[test]
fn blocks_nested_past_the_limit_are_an_error() {
    let mut src = format!("{HEAD}role r warps=0..0\n");
    for d in 0..100 {
        src.push_str(&format!("{}if 1\n", " ".repeat(d + 1)));
    }
    src.push_str(&format!("{}EXIT\n", " ".repeat(101)));
    // The 65th `if` (line 69, indented 65) opens one block too many.
    assert_eq!(
        first_error(&src),
        "69:66: blocks nest more than 64 deep here"
    );
}

#[test]
fn a_parameter_of_i64_max_that_overflows_is_an_error() {
    // Check passed and the run then faulted on "negative address -4".
    let src =
        format!("{HEAD}param N=9223372036854775807\nrole r warps=0..0\n  LDG.E R0, A[N * 4]\n");
    assert_eq!(
        first_error(&src),
        "6:13: `N * 4` overflows 64-bit integers for values the program reaches"
    );
    // Through a loop variable: i reaches N - 1, and (N - 1) * 4 overflows.
    let src = format!(
        "{HEAD}param N=9223372036854775807\nrole r warps=0..0\n  loop i 0..N\n    LDG.E R0, A[i * 4 + 8]\n"
    );
    assert_eq!(
        first_error(&src),
        "7:15: `i * 4` in `i * 4 + 8` overflows 64-bit integers for values the program reaches"
    );
    // In a key: the copy's byte count.
    let src = "kernel k\nlaunch cta_threads=32 regs=32 smem=4096 grid=1\nbuffer A size=4096\nshared s size=4096\nmbarrier m count=1\nparam N=4611686018427387904\nrole r warps=0..0\n  SYNCS.ARRIVE.TRANS64.EXPECT_TX m[0], bytes=16\n  UTMALDG s[0], A[0], bytes=N * 2, bar=m[0]\n";
    assert_eq!(
        first_error(src),
        "9:23: `N * 2` overflows 64-bit integers for values the program reaches"
    );
    // A value that fits is fine, and an `if` may keep an overflowing value unreached.
    let src = format!("{HEAD}param N=1000\nrole r warps=0..0\n  LDG.E R0, A[N * 4]\n");
    assert_eq!(first_error(&src), "");
}

#[test]
fn loops_nested_nine_deep_are_an_error_in_check() {
    // `check` passed them and `run` failed (with no file name): the simulator runs
    // loops at most 8 deep.
    let nest = |depth: usize| {
        let mut src =
            String::from("kernel k\nlaunch cta_threads=32 regs=32 grid=1\nrole r warps=0..0\n");
        for d in 0..depth {
            src.push_str(&format!("{}loop v{d} 0..2\n", "  ".repeat(d + 1)));
        }
        src.push_str(&format!("{}FFMA R1, R2, R3, R4\n", "  ".repeat(depth + 1)));
        src
    };
    assert_eq!(first_error(&nest(8)), "");
    assert_eq!(
        first_error(&nest(9)),
        "12:19: this loop is nested 9 deep: the simulator runs loops at most 8 deep"
    );
}

#[test]
fn an_expression_the_simulator_cannot_evaluate_is_an_error_in_check() {
    // Right-nested: each `+ (` holds one more value pending. 15 are fine, 16 + 1 not.
    let right = |n: usize| format!("{}lane{}", "lane + (".repeat(n), ")".repeat(n));
    let src = |n: usize| format!("{HEAD}role r warps=0..0\n  LDG.E R0, A[{}]\n", right(n));
    assert_eq!(first_error(&src(15)), "");
    assert_eq!(
        first_error(&src(16)),
        "5:13: an address needs 17 values pending at once to evaluate; the simulator evaluates at most 16"
    );
    // Constant right operands fold into their operator: any depth of them is fine.
    let consts = format!("{}lane{}", "(".repeat(40), " + 1)".repeat(40));
    assert_eq!(
        first_error(&format!(
            "{HEAD}role r warps=0..0\n  LDG.E R0, A[{consts}]\n"
        )),
        ""
    );
}

#[test]
fn an_or_with_i64_max_does_not_panic_the_interval_arithmetic() {
    // Found by the text fuzzer: the bound of `a | b` was 2^63 - 1 computed through
    // i64::MIN - 1, an overflow. The offset's range is now unknown, not a panic.
    let src = format!(
        "{HEAD}param N=9223372036854775807\nrole r warps=0..0\n  LDG.E R0, A[(N | lane) & 4092]\n"
    );
    assert_eq!(first_error(&src), "");
}

#[test]
fn a_loop_of_i64_max_trips_that_runs_nothing_validates_at_once() {
    // Found by the text fuzzer: the protocol walk took a step per instruction only, so
    // a huge loop whose body never runs walked its trips for ever.
    let src = format!(
        "{HEAD}param N=9223372036854775807\nrole r warps=0..0\n  loop i 0..N\n    if i < 0\n      FFMA R1, R2, R3, R4\n"
    );
    assert_eq!(first_error(&src), "");
}
