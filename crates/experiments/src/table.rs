//! The results file: JSON Lines or CSV (by extension), one row per point, readable by
//! pandas and polars as they are. Rows are written as whole lines so that a file cut
//! short (Ctrl-C, a killed job) is valid up to its last newline.

use std::path::Path;

use crate::metrics::Cell;

/// The two formats, chosen by the output's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `.jsonl` / `.ndjson`: one JSON object per line.
    JsonLines,
    /// `.csv`: a header line, then comma-separated rows.
    Csv,
}

impl Format {
    /// The format a path's extension names.
    pub fn of(path: &Path) -> Result<Format, String> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("jsonl" | "ndjson") => Ok(Format::JsonLines),
            Some("csv") => Ok(Format::Csv),
            _ => Err(format!(
                "{}: a results file ends in .jsonl or .csv (the extension chooses the format)",
                path.display()
            )),
        }
    }
}

/// A number as both formats write it: the shortest text that reads back to the same
/// value (`700.0`, `0.125`), so that a file is the same byte for byte on every machine.
pub fn format_float(f: f64) -> String {
    if f.is_finite() {
        serde_json::to_string(&f).expect("a finite float serializes")
    } else {
        "null".to_string()
    }
}

fn json_cell(c: &Cell) -> String {
    match c {
        Cell::Null => "null".into(),
        Cell::Int(i) => i.to_string(),
        Cell::Float(f) => format_float(*f),
        Cell::Text(t) => serde_json::to_string(t).expect("a string serializes"),
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv_cell(c: &Cell) -> String {
    match c {
        Cell::Null => String::new(),
        Cell::Float(f) if !f.is_finite() => String::new(),
        other => csv_field(&other.label()),
    }
}

/// A CSV file's header line (with its newline).
pub fn csv_header(columns: &[String]) -> String {
    let f: Vec<String> = columns.iter().map(|c| csv_field(c)).collect();
    format!("{}\n", f.join(","))
}

/// One row as a line of the format (with its newline). Text is kept on one line: a
/// multi-line error (a deadlock's report) has its line breaks written as ` | `.
pub fn format_row(fmt: Format, columns: &[String], row: &[Cell]) -> String {
    let one_line: Vec<Cell> = row
        .iter()
        .map(|c| match c {
            Cell::Text(t) if t.contains(['\n', '\r']) => Cell::Text(
                t.trim_end()
                    .lines()
                    .map(str::trim_end)
                    .collect::<Vec<_>>()
                    .join(" | "),
            ),
            other => other.clone(),
        })
        .collect();
    match fmt {
        Format::JsonLines => {
            let fields: Vec<String> = columns
                .iter()
                .zip(&one_line)
                .map(|(k, v)| format!("{}:{}", json_cell(&Cell::Text(k.clone())), json_cell(v)))
                .collect();
            format!("{{{}}}\n", fields.join(","))
        }
        Format::Csv => {
            let f: Vec<String> = one_line.iter().map(csv_cell).collect();
            format!("{}\n", f.join(","))
        }
    }
}

/// Splits a CSV line into fields (quotes as RFC 4180 writes them, on one line).
pub fn split_csv(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            ('"', false) if cur.is_empty() => quoted = true,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    out.push(cur);
    out
}

fn csv_to_cell(s: &str) -> Cell {
    if s.is_empty() {
        Cell::Null
    } else if let Ok(i) = s.parse::<i64>() {
        Cell::Int(i)
    } else if let Ok(f) = s.parse::<f64>() {
        Cell::Float(f)
    } else {
        Cell::Text(s.to_string())
    }
}

fn json_to_cell(v: &serde_json::Value) -> Cell {
    match v {
        serde_json::Value::Null => Cell::Null,
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) if !n.to_string().contains(['.', 'e']) => Cell::Int(i),
            _ => n.as_f64().map_or(Cell::Null, Cell::Float),
        },
        serde_json::Value::String(s) => Cell::Text(s.clone()),
        other => Cell::Text(other.to_string()),
    }
}

/// A results file as it stands on disk: its complete lines, kept as written.
#[derive(Clone, Debug, Default)]
pub struct RawFile {
    /// The CSV header's columns (None for JSON Lines).
    pub header: Option<Vec<String>>,
    /// Each row: its point index, its spec fingerprint, its line as written (with the
    /// newline).
    pub rows: Vec<(usize, String, String)>,
    /// Bytes up to the end of the last complete line: a row cut short beyond it is
    /// dropped on resume.
    pub valid_len: u64,
    /// The total points the rows say their sweep has (None if there are no rows).
    pub points: Option<usize>,
}

/// Reads a results file's rows, keeping each line's text for a byte-identical rewrite.
pub fn read_raw(path: &Path, fmt: Format) -> Result<RawFile, String> {
    let shown = path.display();
    let text = std::fs::read(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    let text = String::from_utf8(text).map_err(|_| format!("{shown}: not a UTF-8 text file"))?;
    let valid_len = text.rfind('\n').map_or(0, |i| i + 1);
    let complete = &text[..valid_len];
    let mut raw = RawFile {
        valid_len: valid_len as u64,
        ..RawFile::default()
    };
    let mut lines = complete.split_inclusive('\n').enumerate();
    if fmt == Format::Csv
        && let Some((_, h)) = lines.next()
    {
        raw.header = Some(split_csv(h.trim_end_matches(['\n', '\r'])));
    }
    let header = raw.header.clone();
    for (n, line) in lines {
        let body = line.trim_end_matches(['\n', '\r']);
        if body.trim().is_empty() {
            continue;
        }
        let bad = |what: &str| format!("{shown}:{}: {what}; not a sweep's results file?", n + 1);
        let (point, points, spec) = match fmt {
            Format::JsonLines => {
                let v: serde_json::Value =
                    serde_json::from_str(body).map_err(|e| bad(&format!("not JSON ({e})")))?;
                (
                    v.get("point").and_then(|x| x.as_u64()),
                    v.get("points").and_then(|x| x.as_u64()),
                    v.get("spec").and_then(|x| x.as_str()).map(str::to_string),
                )
            }
            Format::Csv => {
                let h = header.as_ref().expect("the header came first");
                let f = split_csv(body);
                let get = |name: &str| h.iter().position(|c| c == name).and_then(|i| f.get(i));
                (
                    get("point").and_then(|x| x.parse().ok()),
                    get("points").and_then(|x| x.parse().ok()),
                    get("spec").cloned(),
                )
            }
        };
        let (Some(point), Some(points), Some(spec)) = (point, points, spec) else {
            return Err(bad("a row without `point`, `points` and `spec`"));
        };
        let points = points as usize;
        if raw.points.is_some_and(|p| p != points) {
            return Err(bad("rows from sweeps of different sizes"));
        }
        raw.points = Some(points);
        raw.rows.push((point as usize, spec, line.to_string()));
    }
    Ok(raw)
}

/// A results file read as cells, for charts and checks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Column names (the file's order for CSV; the first row's for JSON Lines).
    pub columns: Vec<String>,
    /// Rows, aligned to `columns`.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// Reads a results file of either format.
    pub fn read(path: &Path) -> Result<Table, String> {
        let fmt = Format::of(path)?;
        let shown = path.display();
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
        let mut t = Table::default();
        match fmt {
            Format::Csv => {
                let mut lines = text.lines();
                let Some(h) = lines.next() else {
                    return Ok(t);
                };
                t.columns = split_csv(h);
                for l in lines.filter(|l| !l.trim().is_empty()) {
                    let mut r: Vec<Cell> = split_csv(l).iter().map(|s| csv_to_cell(s)).collect();
                    r.resize(t.columns.len(), Cell::Null);
                    t.rows.push(r);
                }
            }
            Format::JsonLines => {
                for (n, l) in text.lines().enumerate().filter(|l| !l.1.trim().is_empty()) {
                    let v: serde_json::Map<String, serde_json::Value> = serde_json::from_str(l)
                        .map_err(|e| format!("{shown}:{}: not a JSON object: {e}", n + 1))?;
                    if t.columns.is_empty() {
                        t.columns = first_line_keys(l);
                    }
                    t.rows.push(
                        t.columns
                            .iter()
                            .map(|c| v.get(c).map_or(Cell::Null, json_to_cell))
                            .collect(),
                    );
                }
            }
        }
        Ok(t)
    }

    /// Builds a table from rows made in memory.
    pub fn new(columns: Vec<String>, rows: Vec<Vec<Cell>>) -> Table {
        Table { columns, rows }
    }

    /// The index of a column: the exact name, else a unique one ending in `.NAME`
    /// (`PIPE` for `param.PIPE`). The error lists the nearest columns.
    pub fn column(&self, name: &str) -> Result<usize, String> {
        if let Some(i) = self.columns.iter().position(|c| c == name) {
            return Ok(i);
        }
        let suffix = format!(".{name}");
        let ends: Vec<usize> = (0..self.columns.len())
            .filter(|&i| {
                self.columns[i].ends_with(&suffix) && !self.columns[i].starts_with("role.")
            })
            .collect();
        if ends.len() == 1 {
            return Ok(ends[0]);
        }
        // Compared by their short names too: `lat_hmb` is near `set.lat_hbm`.
        let short = |c: &str| c.split_once('.').map_or(c, |x| x.1).to_string();
        let shorts: Vec<String> = self.columns.iter().map(|c| short(c)).collect();
        let mut near: Vec<&str> = crate::spec::nearest(name, shorts.iter().map(|s| s.as_str()))
            .into_iter()
            .filter_map(|n| shorts.iter().position(|s| s == n))
            .map(|i| self.columns[i].as_str())
            .collect();
        near.extend(crate::spec::nearest(
            name,
            self.columns.iter().map(|s| s.as_str()),
        ));
        near.dedup();
        let help = if near.is_empty() {
            format!("valid names: {}", self.columns.join(", "))
        } else {
            format!("did you mean {}?", near.join(", "))
        };
        Err(format!("no column `{name}` in the results ({help})"))
    }

    /// The columns whose values differ between rows (the axes that vary), among the
    /// axis columns.
    pub fn varying_axes(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| is_axis(&self.columns[i]))
            .filter(|&i| {
                let first = self.rows.first().map(|r| &r[i]);
                self.rows.iter().any(|r| Some(&r[i]) != first)
            })
            .collect()
    }
}

/// Whether a column is an axis (what a point is), not a metric.
pub fn is_axis(c: &str) -> bool {
    matches!(c, "kernel" | "profile" | "policy") || c.starts_with("param.") || c.starts_with("set.")
}

/// The keys of a JSON object line in the order written (serde_json's map sorts them).
fn first_line_keys(line: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut de = serde_json::Deserializer::from_str(line).into_iter::<serde_json::Value>();
    if let Some(Ok(serde_json::Value::Object(_))) = de.next() {
        // Walk the text: a key is a string followed by a colon at depth one.
        let bytes = line.as_bytes();
        let (mut i, mut depth) = (0usize, 0i32);
        while i < bytes.len() {
            match bytes[i] {
                b'{' | b'[' => depth += 1,
                b'}' | b']' => depth -= 1,
                b'"' => {
                    let start = i;
                    i += 1;
                    while i < bytes.len() && bytes[i] != b'"' {
                        if bytes[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    let s = &line[start..=i.min(line.len() - 1)];
                    let after = line[i + 1..].trim_start();
                    if depth == 1
                        && after.starts_with(':')
                        && let Ok(k) = serde_json::from_str::<String>(s)
                    {
                        keys.push(k);
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_round_trip_through_quotes() {
        let cols = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let row = vec![Cell::Text("x, \"y\"".into()), Cell::Float(0.5), Cell::Null];
        let line = format_row(Format::Csv, &cols, &row);
        assert_eq!(line, "\"x, \"\"y\"\"\",0.5,\n");
        assert_eq!(split_csv(line.trim_end()), vec!["x, \"y\"", "0.5", ""]);
    }

    #[test]
    fn json_lines_keep_column_order_and_one_line() {
        let cols = vec!["z".to_string(), "a".to_string()];
        let row = vec![Cell::Int(3), Cell::Text("two\nlines".into())];
        let line = format_row(Format::JsonLines, &cols, &row);
        assert_eq!(line, "{\"z\":3,\"a\":\"two | lines\"}\n");
        assert_eq!(first_line_keys(line.trim_end()), vec!["z", "a"]);
    }
}
