//! A sweep's specification: what to run (kernels) over which axes (kernel parameters,
//! profile parameters, profiles, policies) and seeds, read from TOML or built from the
//! command line. Errors point at the spec file's line and column.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

/// An error in a spec, with the byte range of the offending text when it came from a file.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecError {
    /// What is wrong.
    pub message: String,
    /// Valid names close to the one written, when a name was unknown.
    pub help: Option<String>,
    /// Where in the spec file (byte offsets), when known.
    pub span: Option<Range<usize>>,
}

impl SpecError {
    /// An error with no position (command-line axes, or a whole-spec problem).
    pub fn new(message: impl Into<String>) -> SpecError {
        SpecError {
            message: message.into(),
            help: None,
            span: None,
        }
    }

    fn at(mut self, span: Range<usize>) -> SpecError {
        self.span = Some(span);
        self
    }

    fn help(mut self, help: Option<String>) -> SpecError {
        self.help = help;
        self
    }

    /// Renders as `file:line:col: error: ...` with the line and a caret, as kernel-file
    /// errors are.
    pub fn render(&self, file: &str, source: &str) -> String {
        let (line, col) = match &self.span {
            Some(s) => line_col(source, s.start),
            None => (0, 0),
        };
        let d = isa::Diagnostic {
            line,
            col,
            message: self.message.clone(),
            help: self.help.clone(),
        };
        if line == 0 {
            let mut s = format!("{file}: error: {}\n", self.message);
            if let Some(h) = &self.help {
                s.push_str(&format!("  = help: {h}\n"));
            }
            s
        } else {
            d.render(file, source)
        }
    }
}

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(h) = &self.help {
            write!(f, " ({h})")?;
        }
        Ok(())
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(source: &str, offset: usize) -> (u32, u32) {
    let before = &source[..offset.min(source.len())];
    let line = before.matches('\n').count() as u32 + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    (line, col)
}

/// Up to three of `known` nearest to `name` (edit distance, or one containing the
/// other), for "did you mean" help.
pub fn nearest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let lower = name.to_ascii_lowercase();
    let mut scored: Vec<(usize, &str)> = known
        .into_iter()
        .filter_map(|k| {
            let kl = k.to_ascii_lowercase();
            let d = edit_distance(&lower, &kl);
            let close = d <= (name.len() / 3).max(2)
                || (lower.len() >= 3 && (kl.contains(&lower) || lower.contains(&kl)));
            close.then_some((d, k))
        })
        .collect();
    scored.sort();
    // The closest only: `seed` suggests `seeds`, not also `set`.
    let best = scored.first().map_or(0, |x| x.0);
    scored
        .into_iter()
        .filter(|x| x.0 == best)
        .take(3)
        .map(|x| x.1)
        .collect()
}

/// Edit distance with adjacent transpositions (optimal string alignment): `hmb` is one
/// edit from `hbm`.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j - 1] + cost)
                .min(d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// The help line for an unknown name: the nearest valid names, else all of them.
pub fn did_you_mean(name: &str, known: &[&str]) -> Option<String> {
    let near = nearest(name, known.iter().copied());
    if !near.is_empty() {
        Some(format!("did you mean {}?", near.join(", ")))
    } else if known.is_empty() {
        None
    } else {
        Some(format!("valid names: {}", known.join(", ")))
    }
}

/// A kernel parameter axis's values (integers).
pub type ParamValues = Vec<i64>;
/// A profile parameter axis's values.
pub type SetValues = Vec<f64>;

/// One listed point: values for some axes, crossed with the spec's product axes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListedPoint {
    /// A kernel for this point only (else the spec's kernels).
    pub kernel: Option<String>,
    /// Kernel parameters.
    pub params: Vec<(String, i64)>,
    /// Profile parameters.
    pub sets: Vec<(String, f64)>,
}

/// A chart a spec asks `--plot` for.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChartSpec {
    /// `line` (default), `heatmap`, `states` (stacked warp-state bars).
    #[serde(default)]
    pub kind: Option<String>,
    /// The column along x (an axis: `param.PIPE`, `set.lat_hbm`, or its short name).
    pub x: Option<String>,
    /// The metric (default `time_us`); for a heatmap the second axis.
    pub y: Option<String>,
    /// The heatmap's metric.
    pub z: Option<String>,
    /// The column that names a line (default: `kernel`).
    pub by: Option<String>,
    /// The chart's title (default: made from the spec's title and the columns).
    pub title: Option<String>,
    /// The file name, without extension (default: made from the columns).
    pub name: Option<String>,
}

/// A sweep before expansion: kernels and axes as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spec {
    /// A one-line description, used in chart titles.
    pub title: Option<String>,
    /// Kernel files, `family/schedule`s, or whole families, in order.
    pub kernels: Vec<String>,
    /// Profiles (built-in names or files); empty: each kernel's family's own.
    pub profiles: Vec<String>,
    /// Policies by name; empty: two-level.
    pub policies: Vec<String>,
    /// Seeds each point runs under (the noise band).
    pub seeds: Vec<u64>,
    /// Kernel parameter axes, in the order given (the product's order).
    pub params: Vec<(String, ParamValues)>,
    /// Profile parameter axes.
    pub sets: Vec<(String, SetValues)>,
    /// Listed points; empty: one point of the product alone.
    pub points: Vec<ListedPoint>,
    /// `RunConfig::max_ctas`.
    pub max_ctas: Option<u32>,
    /// The watchdog, in cycles.
    pub max_cycles: Option<u64>,
    /// Buffers started in L2.
    pub warm_l2: Vec<String>,
    /// The default output file (relative to the spec's directory).
    pub out: Option<PathBuf>,
    /// Charts for `--plot`.
    pub charts: Vec<ChartSpec>,
    /// The directory relative paths in the spec are taken from.
    pub base_dir: PathBuf,
    /// Where each name was written, for errors found when the spec is expanded:
    /// (`kernel:NAME`, `param:NAME`, `set:NAME`, `profile:NAME`, `policy:NAME`) -> span.
    pub spans: BTreeMap<String, Range<usize>>,
}

impl Spec {
    /// The span a name was written at, if it came from a file.
    pub fn span_of(&self, key: &str) -> Option<Range<usize>> {
        self.spans.get(key).cloned()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    title: Option<String>,
    kernels: Spanned<toml::Value>,
    profile: Option<Spanned<toml::Value>>,
    policy: Option<Spanned<toml::Value>>,
    seeds: Option<Spanned<toml::Value>>,
    max_ctas: Option<Spanned<i64>>,
    max_cycles: Option<Spanned<i64>>,
    #[serde(default)]
    warm_l2: Vec<String>,
    out: Option<String>,
    #[serde(default)]
    param: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    #[serde(default)]
    set: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    #[serde(default)]
    point: Vec<RawPoint>,
    #[serde(default)]
    plot: Vec<ChartSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPoint {
    kernel: Option<Spanned<String>>,
    #[serde(default)]
    param: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    #[serde(default)]
    set: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
}

/// Reads a spec file's text. `base_dir` is where its relative paths start.
pub fn parse(text: &str, base_dir: &Path) -> Result<Spec, SpecError> {
    let raw: RawSpec = toml::from_str(text).map_err(|e| {
        let msg = e.message().trim().to_string();
        let help = unknown_field_help(&msg);
        let err = SpecError::new(msg).help(help);
        match e.span() {
            Some(s) => err.at(s),
            None => err,
        }
    })?;
    let mut spec = Spec {
        title: raw.title,
        warm_l2: raw.warm_l2,
        out: raw.out.map(PathBuf::from),
        charts: raw.plot,
        base_dir: base_dir.to_path_buf(),
        ..Spec::default()
    };
    for (name, span) in strings(&raw.kernels, "kernels")? {
        spec.spans.insert(format!("kernel:{name}"), span);
        spec.kernels.push(name);
    }
    if let Some(p) = &raw.profile {
        for (name, span) in strings(p, "profile")? {
            spec.spans.insert(format!("profile:{name}"), span);
            spec.profiles.push(name);
        }
    }
    if let Some(p) = &raw.policy {
        for (name, span) in strings(p, "policy")? {
            spec.spans.insert(format!("policy:{name}"), span);
            spec.policies.push(name);
        }
    }
    if let Some(s) = &raw.seeds {
        spec.seeds = ints(s)?
            .into_iter()
            .map(|v| {
                u64::try_from(v).map_err(|_| {
                    SpecError::new(format!("a seed is a non-negative integer, not {v}"))
                        .at(s.span())
                })
            })
            .collect::<Result<_, _>>()?;
    }
    if let Some(m) = &raw.max_ctas {
        let v = u32::try_from(*m.get_ref())
            .ok()
            .filter(|&v| v >= 1)
            .ok_or_else(|| SpecError::new("max_ctas is at least 1").at(m.span()))?;
        spec.max_ctas = Some(v);
    }
    if let Some(m) = &raw.max_cycles {
        let v = u64::try_from(*m.get_ref())
            .ok()
            .filter(|&v| v >= 1)
            .ok_or_else(|| SpecError::new("max_cycles is at least 1").at(m.span()))?;
        spec.max_cycles = Some(v);
    }
    for (k, v) in &raw.param {
        spec.spans
            .insert(format!("param:{}", k.get_ref()), k.span());
        spec.params.push((k.get_ref().clone(), ints(v)?));
    }
    for (k, v) in &raw.set {
        spec.spans.insert(format!("set:{}", k.get_ref()), k.span());
        spec.sets.push((k.get_ref().clone(), floats(v)?));
    }
    for p in &raw.point {
        let mut lp = ListedPoint::default();
        if let Some(k) = &p.kernel {
            spec.spans
                .entry(format!("kernel:{}", k.get_ref()))
                .or_insert(k.span());
            lp.kernel = Some(k.get_ref().clone());
        }
        for (k, v) in &p.param {
            spec.spans
                .entry(format!("param:{}", k.get_ref()))
                .or_insert(k.span());
            let vs = ints(v)?;
            if vs.len() != 1 {
                return Err(SpecError::new("a listed point takes one value per axis").at(v.span()));
            }
            lp.params.push((k.get_ref().clone(), vs[0]));
        }
        for (k, v) in &p.set {
            spec.spans
                .entry(format!("set:{}", k.get_ref()))
                .or_insert(k.span());
            let vs = floats(v)?;
            if vs.len() != 1 {
                return Err(SpecError::new("a listed point takes one value per axis").at(v.span()));
            }
            lp.sets.push((k.get_ref().clone(), vs[0]));
        }
        spec.points.push(lp);
    }
    Ok(spec)
}

/// toml's message for an unknown key lists the expected ones; say it as help.
fn unknown_field_help(msg: &str) -> Option<String> {
    let (_, rest) = msg.split_once("unknown field `")?;
    let (name, expected) = rest.split_once('`')?;
    let known: Vec<&str> = expected
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| !s.is_empty())
        .collect();
    did_you_mean(name, &known)
}

fn strings(v: &Spanned<toml::Value>, what: &str) -> Result<Vec<(String, Range<usize>)>, SpecError> {
    let bad = || SpecError::new(format!("`{what}` is a string or a list of strings")).at(v.span());
    match v.get_ref() {
        toml::Value::String(s) => Ok(vec![(s.clone(), v.span())]),
        toml::Value::Array(a) if !a.is_empty() => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(|s| (s.to_string(), v.span()))
                    .ok_or_else(bad)
            })
            .collect(),
        _ => Err(bad()),
    }
}

fn ints(v: &Spanned<toml::Value>) -> Result<Vec<i64>, SpecError> {
    let r = match v.get_ref() {
        toml::Value::Integer(i) => Ok(vec![*i]),
        toml::Value::String(s) => parse_int_values(s),
        toml::Value::Array(a) if !a.is_empty() => a
            .iter()
            .map(|x| {
                x.as_integer()
                    .ok_or_else(|| format!("`{x}` is not an integer"))
            })
            .collect(),
        other => Err(format!(
            "`{other}` is not an integer, a list of integers or a range such as \"2..6\""
        )),
    };
    r.map_err(|m| SpecError::new(m).at(v.span()))
}

fn floats(v: &Spanned<toml::Value>) -> Result<Vec<f64>, SpecError> {
    let one = |x: &toml::Value| match x {
        toml::Value::Integer(i) => Ok(*i as f64),
        toml::Value::Float(f) => Ok(*f),
        other => Err(format!("`{other}` is not a number")),
    };
    let r = match v.get_ref() {
        toml::Value::String(s) => parse_float_values(s),
        toml::Value::Array(a) if !a.is_empty() => a.iter().map(one).collect(),
        other => one(other).map(|x| vec![x]),
    };
    r.map_err(|m| SpecError::new(m).at(v.span()))
}

/// Integer values as written on a command line or in a spec string: `4`, `2,4,8`,
/// `2..6` (both ends included), `512..4096:512` (a step), `1..64*2` (a factor).
pub fn parse_int_values(s: &str) -> Result<Vec<i64>, String> {
    let vals = parse_float_values(s)?;
    vals.iter()
        .map(|&v| {
            if v.fract() == 0.0 && v.abs() < 9.0e15 {
                Ok(v as i64)
            } else {
                Err(format!("`{s}` gives {v}, which is not an integer"))
            }
        })
        .collect()
}

/// Number values: `700`, `500,700,900`, `500..900` (step 1), `500..900:100`,
/// `1..1024*2` (geometric, factor 2). Both ends are included.
pub fn parse_float_values(s: &str) -> Result<Vec<f64>, String> {
    let s = s.trim();
    let num = |t: &str| -> Result<f64, String> {
        t.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("`{}` is not a number (in `{s}`)", t.trim()))
    };
    if s.contains(',') {
        return s.split(',').map(num).collect();
    }
    let Some((lo, rest)) = s.split_once("..") else {
        return Ok(vec![num(s)?]);
    };
    let rest = rest.strip_prefix('=').unwrap_or(rest);
    let (hi, step, geometric) = if let Some((h, st)) = rest.split_once(':') {
        (h, num(st)?, false)
    } else if let Some((h, f)) = rest.split_once('*') {
        (h, num(f)?, true)
    } else {
        (rest, 1.0, false)
    };
    let (lo, hi) = (num(lo)?, num(hi)?);
    if hi < lo {
        return Err(format!("`{s}`: the range ends below its start"));
    }
    let mut out = Vec::new();
    if geometric {
        if step <= 1.0 || lo <= 0.0 {
            return Err(format!(
                "`{s}`: a geometric range needs a start above 0 and a factor above 1"
            ));
        }
        let mut v = lo;
        while v <= hi * (1.0 + 1e-12) {
            out.push(v);
            v *= step;
        }
    } else {
        if step <= 0.0 {
            return Err(format!("`{s}`: the step must be above 0"));
        }
        let n = ((hi - lo) / step + 1e-9).floor() as u64;
        if n > 100_000 {
            return Err(format!("`{s}` has more than 100,000 values"));
        }
        for i in 0..=n {
            // From the start each time, so steps such as 0.1 do not accumulate error.
            let v = lo + i as f64 * step;
            out.push((v * 1e9).round() / 1e9);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_include_both_ends() {
        assert_eq!(parse_int_values("2..6").unwrap(), vec![2, 3, 4, 5, 6]);
        assert_eq!(
            parse_float_values("500..900:100").unwrap(),
            vec![500.0, 600.0, 700.0, 800.0, 900.0]
        );
        assert_eq!(parse_int_values("1..16*2").unwrap(), vec![1, 2, 4, 8, 16]);
        assert_eq!(parse_int_values("3,1,2").unwrap(), vec![3, 1, 2]);
        assert_eq!(
            parse_float_values("0..0.3:0.1").unwrap(),
            vec![0.0, 0.1, 0.2, 0.3]
        );
        assert!(parse_int_values("6..2").is_err());
        assert!(parse_int_values("1..2:0.5").is_err());
        assert!(parse_int_values("x").is_err());
    }

    #[test]
    fn an_unknown_key_points_at_its_line_with_the_nearest_name() {
        let text = "kernels = \"gemm-mainloop\"\nseed = [1, 2]\n";
        let e = parse(text, Path::new(".")).unwrap_err();
        let r = e.render("s.toml", text);
        assert!(
            r.starts_with("s.toml:2:1: error: unknown field `seed`"),
            "{r}"
        );
        assert!(r.contains("did you mean seeds?"), "{r}");
    }

    #[test]
    fn the_nearest_names_are_close_ones() {
        let known = ["lat_hbm", "lat_l2_near", "lat_fma", "hbm_gbps"];
        assert_eq!(nearest("lat_hmb", known), vec!["lat_hbm"]);
        assert!(nearest("zzzzzzzz", known).is_empty());
    }
}
