//! Nsight Compute's warp-state ratios of the validation kernels, read from the CSV
//! committed beside their measurements (the report sets them beside the simulated states).

/// Nsight Compute's warp-state ratios for (kernel, warps): median over the launches.
pub fn ncu_ratios(csv: &str) -> Vec<(String, u32, String, f64)> {
    use std::collections::BTreeMap;
    let mut acc: BTreeMap<(String, u32, String), Vec<f64>> = BTreeMap::new();
    for line in csv.lines() {
        if !line.starts_with('"') || line.starts_with("\"ID\"") {
            continue;
        }
        let f: Vec<&str> = line.split("\",\"").map(|x| x.trim_matches('"')).collect();
        if f.len() < 15 {
            continue;
        }
        let kernel = f[4].to_string();
        let warps = f[7]
            .trim_start_matches('(')
            .split(',')
            .next()
            .and_then(|x| x.trim().parse::<u32>().ok())
            .unwrap_or(0)
            / 32;
        let metric = f[12];
        let Some(reason) = metric
            .strip_prefix("smsp__average_warps_issue_stalled_")
            .and_then(|r| r.strip_suffix("_per_issue_active.ratio"))
        else {
            continue;
        };
        let Ok(v) = f[14].replace(',', "").parse::<f64>() else {
            continue;
        };
        acc.entry((kernel, warps, reason.to_string()))
            .or_default()
            .push(v);
    }
    acc.into_iter()
        .map(|((k, w, r), v)| (k, w, r, crate::schema::median(&v).unwrap_or(0.0)))
        .collect()
}

/// Nsight Compute's warp-state ratios of the gemm kernels with PIPE 4 on one CTA:
/// (kernel, reason, median). The quick run profiled each configuration's warm-up and two
/// repetitions in the collector's order (PIPE 2 then 4; one CTA then 132), so the second
/// three launches of a kernel with a one-CTA grid are PIPE 4.
pub fn ncu_gemm_pipe4_cta1(csv: &str) -> Vec<(String, String, f64)> {
    use std::collections::BTreeMap;
    let mut ids: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut vals: BTreeMap<(u64, String), f64> = BTreeMap::new();
    for line in csv.lines() {
        if !line.starts_with('"') || line.starts_with("\"ID\"") {
            continue;
        }
        let f: Vec<&str> = line.split("\",\"").map(|x| x.trim_matches('"')).collect();
        if f.len() < 15 || !f[4].starts_with("vg_") || f[8] != "(1, 1, 1)" {
            continue;
        }
        let Ok(id) = f[0].parse::<u64>() else {
            continue;
        };
        let Some(reason) = f[12]
            .strip_prefix("smsp__average_warps_issue_stalled_")
            .and_then(|r| r.strip_suffix("_per_issue_active.ratio"))
        else {
            continue;
        };
        let Ok(v) = f[14].replace(',', "").parse::<f64>() else {
            continue;
        };
        let e = ids.entry(f[4].to_string()).or_default();
        if !e.contains(&id) {
            e.push(id);
        }
        vals.insert((id, reason.to_string()), v);
    }
    let mut out = Vec::new();
    for (kernel, mut launches) in ids {
        launches.sort_unstable();
        let pipe4: Vec<u64> = launches.iter().skip(3).take(3).copied().collect();
        let mut by: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for ((id, reason), v) in &vals {
            if pipe4.contains(id) {
                by.entry(reason.clone()).or_default().push(*v);
            }
        }
        for (reason, v) in by {
            out.push((
                kernel.clone(),
                reason,
                crate::schema::median(&v).unwrap_or(0.0),
            ));
        }
    }
    out
}
