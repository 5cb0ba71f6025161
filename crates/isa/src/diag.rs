//! Diagnostics that point at a line and column of a kernel file.

use std::fmt;

use crate::ast::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
/// An error in a kernel: where it is, what is wrong, and often how to fix it.
pub struct Diagnostic {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What is wrong.
    pub message: String,
    /// A hint on a line of its own (`help: ...`), when there is one.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            line: span.line,
            col: span.col,
            message: message.into(),
            help: None,
        }
    }

    /// Adds a `help:` line.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Renders in the manner of rustc: `file:line:col: error: ...`, the source line, a
    /// caret under the column.
    pub fn render(&self, file: &str, source: &str) -> String {
        let mut out = format!(
            "{file}:{}:{}: error: {}\n",
            self.line, self.col, self.message
        );
        if self.line >= 1
            && let Some(text) = source.lines().nth(self.line as usize - 1)
        {
            let num = self.line.to_string();
            let pad = " ".repeat(num.len());
            out.push_str(&format!("{pad} |\n{num} | {text}\n"));
            let caret_col = (self.col.max(1) - 1) as usize;
            // Keep tabs so the caret lines up under tab-indented text.
            let lead: String = text
                .chars()
                .take(caret_col)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            out.push_str(&format!("{pad} | {lead}^\n"));
        }
        if let Some(h) = &self.help {
            out.push_str(&format!("  = help: {h}\n"));
        }
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for Diagnostic {}
