//! `docs/grammar.md` against the parser: its kernels parse and validate, its instruction
//! and expression examples parse, every directive and key the parser accepts is named,
//! and its op table is the opcode table (regenerate it with `SMSIM_BLESS=1 cargo test
//! -p isa --test grammar`).

use isa::expr::{BUILTIN_VARS, BinOp};
use isa::opcode::{FORMS, Op};
use isa::{parse_expr, parse_instr, parse_kernel, validate};

const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/grammar.md");

fn doc() -> String {
    std::fs::read_to_string(DOC).expect("docs/grammar.md")
}

/// The fenced blocks of language `lang`, each with the line its text starts on.
fn blocks(doc: &str, lang: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in doc.lines().enumerate() {
        let closing = current.is_some() && line.trim_start().starts_with("```");
        if closing {
            out.extend(current.take());
            continue;
        }
        match &mut current {
            Some((_, text)) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {
                if line.trim() == format!("```{lang}") {
                    current = Some((i + 2, String::new()));
                }
            }
        }
    }
    out
}

#[test]
fn every_kernel_in_the_grammar_parses_and_validates() {
    let doc = doc();
    let kernels = blocks(&doc, "smk");
    assert!(!kernels.is_empty());
    for (line, src) in kernels {
        let k = parse_kernel(&src).unwrap_or_else(|d| panic!("grammar.md:{line}: {d}"));
        let diags: Vec<String> = validate(&k).iter().map(|d| d.to_string()).collect();
        assert!(diags.is_empty(), "grammar.md:{line}: {diags:?}");
    }
}

#[test]
fn every_instruction_and_expression_example_parses() {
    let doc = doc();
    let mut n = 0;
    for (line, text) in blocks(&doc, "smk-instr") {
        for (i, ins) in text.lines().enumerate() {
            parse_instr(ins).unwrap_or_else(|d| panic!("grammar.md:{}: {d}", line + i));
            n += 1;
        }
    }
    for (line, text) in blocks(&doc, "smk-expr") {
        for (i, e) in text.lines().enumerate() {
            parse_expr(e).unwrap_or_else(|d| panic!("grammar.md:{}: {d}", line + i));
            n += 1;
        }
    }
    assert!(n >= 10, "only {n} examples");
}

#[test]
fn every_directive_key_operator_and_builtin_is_named() {
    let doc = doc();
    let words = [
        "kernel",
        "launch",
        "buffer",
        "shared",
        "mbarrier",
        "barrier",
        "param",
        "work",
        "role",
        "loop",
        "if",
        "cta_threads",
        "threads",
        "regs",
        "smem",
        "grid",
        "cluster",
        "tmem",
        "global",
        "size",
        "count",
        "id",
        "flops",
        "bytes",
        "warps",
        "maxnreg",
        "stall",
        "local",
        "gsb0",
        "min",
        "max",
        "KiB",
        "MiB",
        "GiB",
    ];
    for w in words.iter().chain(BUILTIN_VARS.iter()) {
        assert!(
            doc.contains(&format!("`{w}")) || doc.contains(&format!("{w} ")),
            "grammar.md does not name `{w}`"
        );
    }
    for op in BinOp::ALL {
        assert!(
            doc.contains(&format!("`{}`", op.symbol())),
            "grammar.md does not list `{}`",
            op.symbol()
        );
    }
}

/// The op table, from the opcode table.
fn op_table() -> String {
    let mut t =
        String::from("| Op | Pipe | Operands | Keys | Modifiers |\n|---|---|---|---|---|\n");
    for &op in Op::ALL {
        for form in FORMS.iter().filter(|f| f.op == op) {
            let syntax = match (form.operands, op) {
                (Some(o), _) => format!("`{}`", o.syntax),
                (None, Op::Bar) => "`BAR.SYNC id[, threads]`, `BAR.ARV id, threads`".into(),
                // The row that only says a mode is missing.
                (None, _) => continue,
            };
            let when = match form.when {
                [] => String::new(),
                w => format!(
                    "with {}: ",
                    w.iter()
                        .map(|m| format!("`.{m}`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
            };
            let keys: Vec<String> = form
                .keys
                .iter()
                .map(|k| {
                    let need = match k.required {
                        Some(None) => "*".to_string(),
                        Some(Some(m)) => format!(" *{m}"),
                        None => String::new(),
                    };
                    let only = k.only_with.map(|m| format!(" ({m})")).unwrap_or_default();
                    format!("`{}=`{need}{only}", k.key)
                })
                .collect();
            let mods: Vec<String> = op.modifiers().iter().map(|m| format!("`.{m}`")).collect();
            t.push_str(&format!(
                "| `{}` | {} | {when}{syntax} | {} | {} |\n",
                op.mnemonic(),
                op.pipe().name(),
                keys.join(" "),
                mods.join(" ")
            ));
        }
    }
    t
}

#[test]
fn the_op_table_is_the_opcode_table() {
    let doc = doc();
    let (begin, end) = ("<!-- ops:begin -->\n", "<!-- ops:end -->");
    let a = doc.find(begin).expect("ops:begin marker") + begin.len();
    let b = doc.find(end).expect("ops:end marker");
    let want = op_table();
    if doc[a..b] != want {
        if std::env::var_os("SMSIM_BLESS").is_some() {
            let new = format!("{}{want}{}", &doc[..a], &doc[b..]);
            std::fs::write(DOC, new).expect("write docs/grammar.md");
        } else {
            panic!(
                "docs/grammar.md's op table is not the opcode table; rerun with SMSIM_BLESS=1 to regenerate it. Expected:\n{want}"
            );
        }
    }
    for &op in Op::ALL {
        assert!(want.contains(&format!("| `{}` |", op.mnemonic())), "{op}");
    }
}
