//! The command line: `check` and its output formats, `index build` / `index info`, `serve`
//! (the language server; also the default with no arguments or with `--stdio`), for agents
//! `hook` (a pre-tool-use hook) and `mcp` (an MCP server), `audit` of an instance's stored
//! filters, and the maintainers' `release add | review | remove` (hidden from `--help`).

pub mod allocator;
pub mod audit;
pub mod baseline;
pub mod check;
pub mod fix;
pub mod fix_all;
pub mod hook;
pub mod index_cmd;
pub mod input;
pub mod instance_build;
pub mod interrupt;
#[cfg(target_os = "linux")]
pub mod lease;
pub mod live;
pub mod mcp;
pub mod output;
pub mod own_report;
pub mod paths;
pub mod place;
pub mod release_cmd;
pub mod rule;
pub mod say;
pub mod settings;
pub mod statistics;
pub mod upgrade;
pub mod walk;
#[cfg(target_os = "linux")]
pub mod xattr;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// A NetBox release given on the command line (`--upgrade-to`, `check --netbox-version`): an
/// empty or blank value is refused here, where it would otherwise stand for the default
/// release and compare it with itself (or check against it unasked).
fn release_name(v: &str) -> Result<String, String> {
    if v.trim().is_empty() {
        return Err(
            "give a NetBox release such as 4.7 or 4.7.3 (an empty value names none)".into(),
        );
    }
    Ok(v.to_string())
}

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(
    name = "netbox-lsp",
    version,
    about = "Checks NetBox REST filters and GraphQL documents in skill files, prompts, Python, YAML and JSON; \
             with no command (or --stdio) it runs as a language server on stdio",
    after_help = shipped_versions()
)]
pub struct Cli {
    /// Run the language server on stdio (the default when no command is given).
    #[arg(long, global = false)]
    pub stdio: bool,
    /// Print the documentation of a diagnostic code (as `netbox-lsp rule CODE`) and exit.
    #[arg(long, value_name = "CODE")]
    pub explain: Option<String>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the language server on stdio.
    Serve {
        /// Accepted for editors that pass it; stdio is the only transport.
        #[arg(long)]
        stdio: bool,
    },
    /// Check files and folders; exit 1 if any error is found, 2 on usage or I/O errors.
    #[command(after_help = shipped_versions())]
    Check(CheckArgs),
    /// Build or inspect filter indexes and GraphQL schemas.
    Index {
        #[command(subcommand)]
        command: IndexCommand,
    },
    /// Pre-tool-use hook for agent harnesses (Claude Code `PreToolUse`): reads one hook event
    /// on stdin; a NetBox call that NetBox would ignore, refuse or misread is denied (exit 2,
    /// the reason on stderr). Fails closed. See docs/agents.md.
    Hook(hook::HookArgs),
    /// MCP server on stdio: tools `check_call`, `check_graphql`, `list_filters`, `explain`.
    /// See docs/agents.md.
    Mcp(mcp::McpArgs),
    /// Check the filters a NetBox stores (saved filters, dashboard widgets, custom links,
    /// export templates) against its release and, with --upgrade-to, a newer one; read-only.
    /// Exit 1 with any error finding, 2 when something could not be read. See docs/live.md.
    Audit(audit::AuditArgs),
    /// Add a NetBox release to a checkout of this project and print its review sheet (for
    /// maintainers: CONTRIBUTING.md "Adding a NetBox release").
    #[command(hide = true)]
    Release {
        #[command(subcommand)]
        command: release_cmd::ReleaseCommand,
    },
    /// Print the documentation of a diagnostic code (`netbox-lsp rule unknown-filter`), or
    /// with `--all` the list of codes.
    Rule(rule::RuleArgs),
}

/// Arguments of `check`.
#[derive(Debug, Clone, clap::Args)]
pub struct CheckArgs {
    /// Files and folders to check (folders are walked, honouring .gitignore); `-` reads
    /// standard input. Default: `.`. In folders, files ending in .md .markdown .mdx .py .pyi
    /// .yaml .yml .json .ipynb .graphql .gql .txt .prompt .j2 .jinja .jinja2 .tmpl .sh .bash
    /// are read; a file named here is read whatever its extension.
    pub paths: Vec<PathBuf>,
    /// With `-` among the paths: the file name standard input stands for, shown in the output
    /// and choosing how it is read by its extension (default: Markdown, shown as `-`).
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,
    /// NetBox version whose embedded index and schema to use (`4.3`, `4.3.3`); default: newest.
    #[arg(long, value_parser = release_name)]
    pub netbox_version: Option<String>,
    /// An index file built by `netbox-lsp index build` (overrides --netbox-version for REST).
    #[arg(long)]
    pub index: Option<PathBuf>,
    /// A GraphQL schema (SDL or introspection JSON, optionally .gz) to check GraphQL against.
    #[arg(long)]
    pub graphql_schema: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Colour in the text output: `auto` (when stdout is a terminal and NO_COLOR is unset or
    /// empty), `always`, `never`.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    /// Report only these codes (comma-separated or repeated; a prefix such as `graphql` takes
    /// every `graphql-…` code, `ALL` every code); replaces the settings file's `select`.
    #[arg(long, value_delimiter = ',', value_name = "CODE")]
    pub select: Option<Vec<String>>,
    /// Report these codes too (codes or prefixes), on top of the selection.
    #[arg(long, value_delimiter = ',', value_name = "CODE")]
    pub extend_select: Vec<String>,
    /// Do not report these codes (codes or prefixes).
    #[arg(long, value_delimiter = ',', value_name = "CODE")]
    pub ignore: Vec<String>,
    /// Exit 0 even when errors are found (usage and I/O errors still exit 2).
    #[arg(long)]
    pub exit_zero: bool,
    /// Print the findings only: no summary and no notes on stderr (errors still are).
    #[arg(short, long)]
    pub quiet: bool,
    /// Print how many findings each code has (text or JSON) instead of the findings.
    #[arg(long)]
    pub statistics: bool,
    /// Report only the findings not recorded in this baseline file (keyed by path, code and
    /// the call's text, not the line: edits elsewhere keep them). See docs/output-formats.md.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write the findings of the checked files to the `--baseline` file (entries of files not
    /// checked are kept) and report nothing.
    #[arg(long, requires = "baseline")]
    pub update_baseline: bool,
    /// Fail (exit 1) when the baseline holds findings that are gone, until `--update-baseline`
    /// shrinks it: the baseline only ever gets smaller.
    #[arg(long, requires = "baseline")]
    pub baseline_strict: bool,
    /// Override a code's severity: `CODE=error|warning|information|hint|off` (repeatable).
    #[arg(long = "severity", value_name = "CODE=LEVEL", value_parser = parse_severity_override)]
    pub severity: Vec<(String, Option<crate::finding::Severity>)>,
    /// Skip files and folders matching a glob (relative to the named folder; repeatable),
    /// e.g. `--exclude 'drafts/**'`.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Settings file with the editor's keys (`netbox_version`, `index`, `graphql_schema`,
    /// `severity`, `exclude`); default: `netbox-lsp.toml` in the current folder, if there is one.
    /// Command-line flags win over the file.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Apply the certain fixes (the ones the editor's fix-all applies) in place, print what was
    /// changed, then report what is left; the exit code follows what is left. A file is written
    /// whole (temporary file + rename) and left alone if it changed on disk during the run. With
    /// `--upgrade-to`: the fixes to the form that works on both releases.
    #[arg(long, conflicts_with = "diff")]
    pub fix: bool,
    /// Print the certain fixes as a unified diff on stdout (`git apply` / `patch -p1` take it)
    /// and change nothing; the exit code is that of a plain check.
    #[arg(long)]
    pub diff: bool,
    /// `--live` and the NetBox to verify against (see docs/live.md).
    #[command(flatten, next_help_heading = "Live check (--live)")]
    pub live: live::LiveArgs,
    /// Upgrade readiness: check every file against the current release (`--netbox-version`,
    /// the settings file's, or the default) and this newer one (`4.7`, `4.7.3`), and report
    /// only what changes: `upgrade-breaks` (works now, wrong after the upgrade; exit 1) and
    /// `upgrade-changes` (becomes a no-op or starts to work), with a summary per file and kind;
    /// `--fix` / `--diff` apply or show the fixes to the form that works on both releases.
    /// See docs/upgrade.md.
    #[arg(long, value_name = "VERSION", value_parser = release_name)]
    pub upgrade_to: Option<String>,
    /// Also list the calls that were not checked, and why: those the text around them marks
    /// as a wrong example (a lesson), release history, Django queries (permission
    /// constraints) and calls of another product. Text: `path:line:col: skipped[lesson] ...`
    /// lines after the findings; JSON: extra elements with a `skipped` field; SARIF:
    /// `notApplicable` results. `[skip]` in netbox-lsp.toml checks a kind as calls instead.
    /// `--explain CODE` (a diagnostic code, not a path) prints the code's documentation.
    #[arg(long)]
    pub explain: bool,
    /// The readings of `[skip]` in the settings file (not a flag).
    #[arg(skip)]
    pub readings: crate::intent::Readings,
    /// The settings file's `select` / `extend_select` / `ignore` layers (not a flag).
    #[arg(skip)]
    pub selection: Vec<crate::config::select::Selection>,
}

/// When the text output is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// When stdout is a terminal and `NO_COLOR` is unset or empty.
    Auto,
    /// Always (also with `NO_COLOR`: a flag wins over the environment).
    Always,
    /// Never.
    Never,
}

/// `Shipped NetBox versions: 4.3.3, 4.4.10, 4.5.10, 4.6.8 (default)`: the embedded indexes
/// ([`crate::index::embedded::RELEASES`]), for `--help`.
pub fn shipped_versions() -> String {
    let default = crate::index::embedded::default_version();
    let names: Vec<String> = crate::index::embedded::versions()
        .map(|v| {
            if v == default {
                format!("{v} (default)")
            } else if crate::version::is_pre_release(v) {
                format!("{v} (pre-release)")
            } else {
                v.to_string()
            }
        })
        .collect();
    format!(
        "Shipped NetBox versions (embedded; --netbox-version picks one): {}",
        names.join(", ")
    )
}

/// Parses `code=level` for `--severity`; `off` (or `none`) drops the code (`None`).
fn parse_severity_override(s: &str) -> Result<(String, Option<crate::finding::Severity>), String> {
    let (code, level) = s
        .split_once('=')
        .ok_or_else(|| format!("expected CODE=LEVEL, got `{s}`"))?;
    let code = code.trim();
    if code.is_empty() {
        return Err(format!("expected CODE=LEVEL, got `{s}`"));
    }
    let level = level.trim();
    if level.eq_ignore_ascii_case("off") || level.eq_ignore_ascii_case("none") {
        return Ok((code.to_string(), None));
    }
    crate::finding::Severity::parse(level)
        .map(|sev| (code.to_string(), Some(sev)))
        .ok_or_else(|| {
            format!("unknown severity `{level}` (error, warning, information, hint, off)")
        })
}

/// Output formats of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// `path:line:col: severity[code] message`, the fix on the next line.
    Text,
    /// One JSON array of findings (documented in docs/output-formats.md).
    Json,
    /// SARIF 2.1.0 for code-scanning uploads.
    Sarif,
    /// GitHub Actions workflow commands (`::error file=…,line=…::…`): annotations on a pull
    /// request's files.
    Github,
    /// GitLab code quality report (JSON), for `artifacts: reports: codequality`.
    Gitlab,
}

/// `index` subcommands.
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant)] // parsed once per run; boxing buys nothing
pub enum IndexCommand {
    /// Build an index file from an OpenAPI document and/or a GraphQL schema.
    Build(index_cmd::BuildArgs),
    /// Print the version, counts and source hash of an index.
    Info(index_cmd::InfoArgs),
}

/// The one line a bare `netbox-lsp` prints on stderr when its standard input is a terminal.
pub const SERVER_ON_A_TERMINAL: &str = "netbox-lsp: this is the language server, waiting for an editor (LSP client) on stdin/stdout; to check files run `netbox-lsp check PATH...` (`netbox-lsp --help`); Ctrl-C quits";

/// Runs the command line; returns the process exit code (0 ok, 1 error findings, 2 usage or I/O).
/// The caller exits right after (`src/main.rs`): `check` leaves its last file's findings to
/// that exit instead of freeing them.
pub fn main() -> i32 {
    run(std::env::args_os(), After::Exit)
}

/// [`main`] on the arguments `args` (the program's name first, as `std::env::args_os` gives
/// them) instead of the process's: the same parsing, output and exit code. For running the
/// command line more than once in one process (`benches/python_calls_warm.rs`): what a command
/// allocated for its run is freed before it returns (the tables of the shipped index, made on
/// first use, stay for the next run). What a command sets for the whole process stays set
/// after it: `--quiet`, and `check`'s allocator settings ([`allocator::for_batch_run`]).
pub fn main_from<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    run(args, After::Return)
}

/// What follows a command: the process's exit ([`main`]), or more work in the same process
/// ([`main_from`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// The process exits: memory still held is left to the exit (no time spent freeing it).
    Exit,
    /// The caller goes on: everything is freed.
    Return,
}

/// [`main`] and [`main_from`]: the command line `args`, then `after`.
fn run<I, T>(args: I, after: After) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    if let Some(code) = &cli.explain {
        return rule::print(code);
    }
    match cli.command {
        None | Some(Command::Serve { .. }) => {
            if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
                // Started by hand: say what is waiting, instead of seeming to hang.
                eprintln!("{SERVER_ON_A_TERMINAL}");
            }
            crate::server::run_stdio()
        }
        Some(Command::Check(args)) => check_command(&args, after),
        Some(Command::Index {
            command: IndexCommand::Build(args),
        }) if args.from_instance() => instance_build::build(&args),
        Some(Command::Index {
            command: IndexCommand::Build(args),
        }) => index_cmd::build(&args),
        Some(Command::Index {
            command: IndexCommand::Info(args),
        }) => index_cmd::info(&args),
        Some(Command::Hook(args)) => hook::run(&args),
        Some(Command::Mcp(args)) => mcp::run(&args),
        Some(Command::Audit(args)) => audit::run(&args),
        Some(Command::Release { command }) => release_cmd::run(&command),
        Some(Command::Rule(args)) => rule::run(&args),
    }
}

/// `netbox-lsp check`: what every mode shares (codes named for `--explain`, the settings file,
/// the paths named), then the mode: upgrade readiness ([`upgrade::run`]) or the check, whose
/// files are verified live with `--live` ([`check::run`]).
fn check_command(args: &CheckArgs, after: After) -> i32 {
    allocator::for_batch_run();
    say::set_quiet(args.quiet);
    if let Some(code) = input::explained_code(args) {
        return code;
    }
    for (code, _) in &args.severity {
        if let Some(w) = crate::config::unknown_code_warning(code) {
            say::note(format!("--severity: {w}"));
        }
    }
    let (args, from_file) = match settings::with_config_file(args) {
        Ok(a) => a,
        Err(e) => {
            say::error(e);
            return 2;
        }
    };
    if args.live.live && args.upgrade_to.is_some() {
        say::error(
            "--live verifies the calls against the NetBox as it runs now, and --upgrade-to compares two releases without sending anything: run them one at a time (for the filters an instance stores, `netbox-lsp audit --url URL --upgrade-to VERSION`)",
        );
        return 2;
    }
    if input::missing_paths(&args) {
        return 2;
    }
    match &args.upgrade_to {
        Some(target) => upgrade::run(&args, target),
        None => check::run(&args, &from_file, after),
    }
}
