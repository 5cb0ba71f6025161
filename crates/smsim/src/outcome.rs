//! How a subcommand ends: what it prints, and its exit status.
//!
//! Exit statuses (README, "Exit statuses"): 0 success; 1 the kernel or the run failed
//! (a kernel that cannot be read, parsed, validated or built, a run that deadlocks,
//! faults or meets the watchdog, a result that could not be written); 2 the command
//! line is wrong (clap's own errors, an unknown `--set` or `--param` name, a profile
//! that does not exist or load, an output file that exists); 130 Ctrl-C stopped the
//! run (its report so far printed, marked partial).
//!
//! Every write to stdout goes through [`print()`]: a reader that closes the pipe early
//! (`smsim ... | head`) ends the command quietly instead of a panic.

use std::io::Write;
use std::process::ExitCode;

/// Why a subcommand did not succeed.
#[derive(Debug)]
pub enum Fail {
    /// The command line is wrong (exit 2); printed as `error: MESSAGE`.
    Usage(String),
    /// The kernel or the run failed (exit 1); printed as `error: MESSAGE`.
    Failed(String),
    /// The kernel or the run failed and stderr's text is already rendered (a kernel's
    /// diagnostics with their carets, a deadlock's report): printed as it is (exit 1).
    Rendered(String),
    /// The failure was reported on stdout (`--json`): nothing more to say (exit 1).
    Reported,
    /// stdout's reader went away (a pipe into `head`): stop quietly (exit 0).
    Closed,
    /// Ctrl-C stopped the run; its partial report is printed (exit 130, as a shell
    /// reports a command that SIGINT ended).
    Interrupted,
}

impl std::fmt::Display for Fail {
    /// The message alone (without `error: `); empty where there is none.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fail::Usage(m) | Fail::Failed(m) => f.write_str(m),
            Fail::Rendered(m) => f.write_str(m.trim_end()),
            Fail::Reported | Fail::Closed => Ok(()),
            Fail::Interrupted => f.write_str("stopped by Ctrl-C"),
        }
    }
}

/// What a subcommand returns.
pub type Outcome = Result<(), Fail>;

/// Exit status 1: the kernel or the run failed.
pub const FAILED: u8 = 1;
/// Exit status 2: the command line is wrong.
pub const USAGE: u8 = 2;
/// Exit status 130: Ctrl-C stopped the run (its partial report printed).
pub const INTERRUPTED: u8 = 130;

/// Writes `text` to stdout and flushes it; a closed pipe is [`Fail::Closed`], any
/// other failure to write is a failure (exit 1).
pub fn print(text: &str) -> Outcome {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(Fail::Closed),
        Err(e) => Err(Fail::Failed(format!("writing to stdout: {e}"))),
    }
}

/// `value` as pretty JSON and a newline, on stdout.
pub fn print_json(value: &impl serde::Serialize) -> Outcome {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Fail::Failed(format!("the result does not serialize: {e}")))?;
    print(&(text + "\n"))
}

/// Writes to stderr, ignoring a failure (there is nowhere left to say it).
pub fn say(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// The exit status of an outcome, with its message said on stderr.
pub fn exit(o: Outcome) -> ExitCode {
    match o {
        Ok(()) | Err(Fail::Closed) => ExitCode::SUCCESS,
        Err(Fail::Usage(m)) => {
            say(&format!("error: {m}\n"));
            ExitCode::from(USAGE)
        }
        Err(Fail::Failed(m)) => {
            say(&format!("error: {m}\n"));
            ExitCode::from(FAILED)
        }
        Err(Fail::Rendered(m)) => {
            say(&m);
            ExitCode::from(FAILED)
        }
        Err(Fail::Reported) => ExitCode::from(FAILED),
        Err(Fail::Interrupted) => ExitCode::from(INTERRUPTED),
    }
}
