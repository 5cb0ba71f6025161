//! The report's "What the largest errors say about the model": short items written by hand
//! in `report/gaps.md`, with the profile's parameter values filled in.
//!
//! The prose names parameters as `{{name}}`; [`render`] writes each as the name and the
//! value the report's profile has, so a refit that moves a value moves the prose with it
//! (the committed report is checked against the generated one, so a stale figure cannot
//! hide). Figures that come from the model's output (MAPE, a kernel's error) are not
//! typed in the prose at all: the report's tables carry them. The history of how each
//! item got where it is, and its evidence, is in the data folders' README.md files the
//! items cite.
//!
//! Each item stays short: [`MAX_ITEM_WORDS`] words at most, checked by a test on the
//! rendered text.

use sim_core::Profile;

/// The items, as markdown with `{{parameter}}` placeholders.
pub const SOURCE: &str = include_str!("../../report/gaps.md");

/// The most words one item (a numbered item's own text, or one of its sub-items) may
/// have once rendered: enough for what the model does, what it rests on and the open
/// miss; a longer story belongs in the data folder's README.
pub const MAX_ITEM_WORDS: usize = 120;

/// `text` with every `{{name}}` replaced by `` `name` value ``, the value the profile's
/// parameter `name` has. An unknown name or an unclosed `{{` is an error that says which.
pub fn render(text: &str, p: &Profile) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let close = after.find("}}").ok_or_else(|| {
            format!(
                "report gaps: `{{{{` without `}}}}` near \"{}\"",
                after.chars().take(40).collect::<String>()
            )
        })?;
        let name = after[..close].trim();
        let entry = p.file.params.get(name).ok_or_else(|| {
            format!(
                "report gaps: `{{{{{name}}}}}` is not a parameter of profile `{}`",
                p.file.name
            )
        })?;
        out.push_str(&format!("`{name}` {}", entry.value));
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The section as the report prints it for profile `p`.
pub fn section(p: &Profile) -> Result<String, String> {
    render(SOURCE, p)
}

/// Each item's label (`4b`, `9c`) and its word count: a numbered item's own lines, and
/// each sub-item (`- a. ...`) on its own. A paragraph after a blank line (the open miss
/// after an item's sub-items) is the numbered item's.
pub fn item_words(text: &str) -> Vec<(String, usize)> {
    let mut items: Vec<(String, usize)> = Vec::new();
    let (mut parent, mut current) = (None::<usize>, None::<usize>);
    let mut after_blank = false;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() {
            after_blank = true;
            continue;
        }
        if t.starts_with('#') {
            continue;
        }
        // The label (`4b.`, `- a.`) is not a word of the item.
        let words = |text: &str| text.split_whitespace().count();
        if let Some(label) = numbered(t).filter(|l| l.starts_with(|c: char| c.is_ascii_digit())) {
            items.push((label.to_string(), words(&t[label.len() + 1..])));
            parent = Some(items.len() - 1);
            current = parent;
        } else if let (Some(sub), Some(p)) = (
            t.strip_prefix("- ")
                .and_then(numbered)
                .filter(|l| l.len() == 1 && l.starts_with(|c: char| c.is_ascii_lowercase())),
            parent,
        ) {
            items.push((format!("{}{sub}", items[p].0), words(&t[sub.len() + 3..])));
            current = Some(items.len() - 1);
        } else {
            if after_blank {
                current = parent;
            }
            if let Some(i) = current {
                items[i].1 += words(t);
            }
        }
        after_blank = false;
    }
    items
}

/// The label of a line that starts an item: `0.`, `4b.`, `a.` (digits and at most one
/// letter, then a dot and a space); the caller says which kind it expects.
fn numbered(t: &str) -> Option<&str> {
    let (label, _) = t.split_once(". ")?;
    let digits = label.trim_end_matches(|c: char| c.is_ascii_lowercase());
    let letters = label.len() - digits.len();
    (letters <= 1 && digits.chars().all(|c| c.is_ascii_digit()) && !label.is_empty())
        .then_some(label)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100() -> Profile {
        Profile::builtin("h100").expect("built-in h100 profile")
    }

    /// Every item of the committed section, rendered with the h100 profile, is at most
    /// MAX_ITEM_WORDS words, and the section has the items the report and the data
    /// READMEs cite by number (0 to 9, 4b; 5 and 9 with their parts).
    #[test]
    fn every_item_is_short() {
        let text = section(&h100()).expect("the section renders");
        let items = item_words(&text);
        let labels: Vec<&str> = items.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(
            labels,
            [
                "0", "1", "2", "3", "4", "4b", "5", "5a", "5b", "5c", "5d", "6", "7", "8", "9",
                "9a", "9b", "9c"
            ]
        );
        let long: Vec<_> = items.iter().filter(|(_, w)| *w > MAX_ITEM_WORDS).collect();
        assert!(
            long.is_empty(),
            "items over {MAX_ITEM_WORDS} words: {long:?}"
        );
    }

    /// The section as a whole stays short: 6 KiB at most, rendered.
    #[test]
    fn the_section_is_short() {
        let text = section(&h100()).expect("the section renders");
        assert!(text.len() <= 6144, "{} bytes", text.len());
    }

    /// Every placeholder names a parameter every built-in profile has, so no report fails
    /// on the prose.
    #[test]
    fn every_placeholder_is_a_parameter() {
        for name in Profile::builtin_names() {
            let p = Profile::builtin(name).expect("built-in profile");
            section(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    /// A placeholder becomes the name and the profile's value; an unknown name and an
    /// unclosed brace are errors naming the text, not panics.
    #[test]
    fn placeholders_take_the_profiles_values() {
        let mut p = h100();
        p.set("lat_bar", 17.0).expect("lat_bar is a parameter");
        assert_eq!(
            render("BAR.SYNC {{lat_bar}} cycles", &p).unwrap(),
            "BAR.SYNC `lat_bar` 17 cycles"
        );
        let e = render("{{no_such_parameter}}", &p).unwrap_err();
        assert!(e.contains("no_such_parameter"), "{e}");
        let e = render("a {{lat_bar", &p).unwrap_err();
        assert!(e.contains("without"), "{e}");
    }

    /// Word counts: a sub-item counts on its own; the paragraph after the sub-items is
    /// the parent's.
    #[test]
    fn item_words_splits_sub_items() {
        let text = "## T\n\n1. **One** two three.\n   - a. four five\n   - b. six\n\n   Open: seven eight.\n2. nine\n";
        assert_eq!(
            item_words(text),
            [
                ("1".to_string(), 6),
                ("1a".to_string(), 2),
                ("1b".to_string(), 1),
                ("2".to_string(), 1)
            ]
        );
    }

    /// The places the items send a reader ("More: data/README.md, \"Report item 0\"",
    /// "(data/gaps/hgmma/)") exist: each cited path under this crate, and each quoted
    /// heading after a README as a heading or a bold row label of that file (`"X" there`:
    /// the last file cited), so a renamed folder or heading fails here rather than in a reader's hands.
    #[test]
    fn every_pointer_names_what_exists() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files: Vec<(usize, std::path::PathBuf)> = Vec::new();
        let mut checked = 0;
        let mut rest = SOURCE;
        while let Some(at) = rest.find("data/") {
            let tail = &rest[at..];
            let end = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || "/._-".contains(c)))
                .unwrap_or(tail.len());
            let path = tail[..end].trim_end_matches('.');
            let full = root.join(path);
            assert!(
                full.exists(),
                "report/gaps.md cites {path}, which does not exist"
            );
            checked += 1;
            if full.is_file() {
                files.push((SOURCE.len() - tail.len(), full.clone()));
            }
            rest = &tail[end..];
            let heading = rest
                .strip_prefix(", \"")
                .or_else(|| rest.strip_prefix(" there, \""))
                .and_then(|h| h.split_once('"'));
            if let Some((heading, _)) = heading {
                assert!(full.is_file(), "{path}: a heading is cited in a folder");
                assert_has_heading(&full, heading);
            }
        }
        for (at, _) in SOURCE.match_indices("\" there") {
            let open = SOURCE[..at].rfind('"').expect("an opening quote");
            let (_, file) = files
                .iter()
                .rev()
                .find(|(pos, _)| *pos < open)
                .expect("a file cited before \"there\"");
            assert_has_heading(file, &SOURCE[open + 1..at]);
        }
        assert!(
            checked >= 10,
            "only {checked} paths cited: the parser lost them"
        );
    }

    fn assert_has_heading(file: &std::path::Path, heading: &str) {
        let text = std::fs::read_to_string(file).expect("a cited README reads");
        assert!(
            text.lines()
                .any(|l| (l.starts_with('#') && l.contains(heading))
                    || l.contains(&format!("**{heading}**"))),
            "{} has no heading or bold label \"{heading}\"",
            file.display()
        );
    }
}
