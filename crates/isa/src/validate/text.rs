//! Wording helpers for diagnostics: suggestions for misspelt names, plurals, warp ranges.

fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(!a[i - 1].eq_ignore_ascii_case(&b[j - 1]));
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// `did you mean `x`?` for the closest candidate, if one is close.
pub(super) fn suggest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let best = candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, c)| *d <= (name.len().max(c.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)?;
    Some(format!("did you mean `{}`?", best.1))
}

pub(super) fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

pub(super) fn warps_text(first: u32, last: u32) -> String {
    if first == last {
        format!("warp {first}")
    } else {
        format!("warps {first}..{last}")
    }
}
