//! Numbers as a reader wants them: percentages, byte sizes, large counts, plurals.

/// A fraction as a percentage with one decimal: `0.1234` is `12.3%`.
pub fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// Bytes in the largest binary unit that keeps them readable: `192 KiB`, `16.50 MiB`.
pub fn bytes(v: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (m, u) in UNITS {
        if v >= m {
            let x = v as f64 / m as f64;
            return if v.is_multiple_of(m) {
                format!("{} {u}", v / m)
            } else {
                format!("{x:.2} {u}")
            };
        }
    }
    format!("{v} B")
}

/// Large counts with SI prefixes: `4.29 G`; below a thousand, the number itself.
pub fn si(v: i64) -> String {
    let a = v.unsigned_abs() as f64;
    let (d, p) = if a >= 1e12 {
        (1e12, " T")
    } else if a >= 1e9 {
        (1e9, " G")
    } else if a >= 1e6 {
        (1e6, " M")
    } else if a >= 1e3 {
        (1e3, " k")
    } else {
        return v.to_string();
    };
    format!("{:.2}{p}", v as f64 / d)
}

/// `n` things, with an `s` unless there is one: `1 warp`, `4 warps`.
pub fn plural(n: u64, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

/// `text` wrapped at word boundaries to lines of at most `width` characters (a word
/// longer than that has a line of its own), each line starting with `indent`.
pub fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent.len() + line.len() + 1 + word.len() > width {
            out.push_str(indent);
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(indent);
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_counts_read_as_written() {
        assert_eq!(pct(0.1234), "12.3%");
        assert_eq!(bytes(196_608), "192 KiB");
        assert_eq!(bytes(17_301_504), "16.50 MiB");
        assert_eq!(bytes(1000), "1000 B");
        assert_eq!(si(4_294_967_296), "4.29 G");
        assert_eq!(si(-2_500), "-2.50 k");
        assert_eq!(si(999), "999");
        assert_eq!(plural(1, "warp"), "1 warp");
        assert_eq!(plural(0, "CTA"), "0 CTAs");
        assert_eq!(
            wrap("one two three four", 12, "  "),
            "  one two\n  three four\n"
        );
        assert_eq!(wrap("abcdefghijklmnop q", 8, ""), "abcdefghijklmnop\nq\n");
        assert_eq!(wrap("", 8, "  "), "");
    }
}
