//! `netbox-lsp check`: picks the knowledge, walks the paths, analyses each file and prints the
//! findings sorted by path then position. Exit code: 1 if any finding is an error, 2 on usage or
//! I/O errors (these win), 0 otherwise. Notes and the summary go to stderr, findings to stdout.

use super::knowledge::{knowledge_from, Named, Origin};
use super::output::{self, Located};
use super::walk::{self, Input};
use super::{CheckArgs, Format};
use crate::analysis::{analyze_report, Knowledge};
use crate::finding::{Finding, Severity};
use crate::intent::Counts;
use crate::lines::LineIndex;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

pub use super::paths::{display_path, path_bytes};

/// Runs `check`; returns the exit code.
pub fn run(args: &CheckArgs) -> i32 {
    super::say::set_quiet(args.quiet);
    if let Some(code) = explained_code(args) {
        return code;
    }
    for (code, _) in &args.severity {
        if let Some(w) = crate::config::unknown_code_warning(code) {
            super::say::note(format!("--severity: {w}"));
        }
    }
    let (args, from_file) = match super::settings::with_config_file(args) {
        Ok(a) => a,
        Err(e) => {
            super::say::error(e);
            return 2;
        }
    };
    let args = &args;
    if args.live.live && args.upgrade_to.is_some() {
        super::say::error(
            "--live verifies the calls against the NetBox as it runs now, and --upgrade-to compares two releases without sending anything: run them one at a time (for the filters an instance stores, `netbox-lsp audit --url URL --upgrade-to VERSION`)",
        );
        return 2;
    }
    if missing_paths(args) {
        return 2;
    }
    if let Some(target) = &args.upgrade_to {
        return super::upgrade::run(args, target);
    }
    let overrides = match super::settings::overrides(args) {
        Ok(o) => o,
        Err(e) => {
            super::say::error(e);
            return 2;
        }
    };
    if let Err(e) = output_choice(args) {
        super::say::error(e);
        return 2;
    }
    let baseline = match &args.baseline {
        Some(path) => match super::baseline::Baseline::read(path, args.update_baseline) {
            Ok(b) => Some(b),
            Err(e) => {
                super::say::error(e);
                return 2;
            }
        },
        None => None,
    };
    let by = |key: &str| match &from_file {
        Some((file, keys)) if keys.contains(&key) => Origin::SettingsFile(file),
        _ => Origin::CommandLine,
    };
    // `--live`: the instance's release first, so the static checks use its knowledge.
    let connected = if args.live.live {
        match super::live::connect(&args.live) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("netbox-lsp: error: live check: {e}");
                return 2;
            }
        }
    } else {
        None
    };
    let mut netbox_version = args.netbox_version.clone();
    if let (Some(c), None) = (&connected, &args.index) {
        match super::live::release_for(
            &c.netbox_version,
            args.netbox_version.as_deref(),
            by("netbox_version") == Origin::CommandLine,
            c.client.base(),
        ) {
            Ok((v, note)) => {
                netbox_version = v;
                if let Some(note) = note {
                    eprintln!("netbox-lsp: note: {note}");
                }
            }
            Err(e) => {
                eprintln!("netbox-lsp: error: {e}");
                return 2;
            }
        }
    }
    let (knowledge, notes) = match knowledge_from(
        netbox_version.as_deref(),
        args.index.as_deref().map(|path| Named {
            path,
            by: by("index"),
        }),
        args.graphql_schema.as_deref().map(|path| Named {
            path,
            by: by("graphql_schema"),
        }),
    ) {
        Ok((k, notes)) => (
            Knowledge {
                readings: args.readings,
                ..k
            },
            notes,
        ),
        Err(e) => {
            super::say::error(e);
            return 2;
        }
    };
    for note in notes {
        super::say::note(note);
    }
    if let (Some(c), Some(index)) = (&connected, &knowledge.index) {
        let minor = crate::live::http::minor;
        if !c.netbox_version.is_empty() && minor(&index.netbox_version) != minor(&c.netbox_version)
        {
            super::say::note(format!(
                "the index is of NetBox {}, but {} runs {}: rebuild it from this NetBox (`netbox-lsp index build --url`)",
                index.netbox_version,
                c.client.base(),
                c.netbox_version
            ));
        }
    }
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    // `-` is standard input, read once (a second `-` adds nothing).
    let (stdin_named, paths): (Vec<PathBuf>, Vec<PathBuf>) =
        paths.into_iter().partition(|p| p.as_os_str() == "-");
    let stdin = match stdin_input(args, !stdin_named.is_empty()) {
        Ok(s) => s,
        Err(e) => {
            super::say::error(e);
            return 2;
        }
    };
    let found = match walk::collect(&paths, &args.exclude) {
        Ok(found) => found,
        Err(e) => {
            super::say::error(e);
            return 2;
        }
    };
    let inputs = found.inputs;
    let mut io_failed = !found.problems.is_empty();
    for p in found.problems {
        super::say::error(p);
    }
    for dir in found.empty_folders {
        say_empty_folder(&dir);
    }
    say_unused_excludes(&found.unused_excludes);

    let mut located: Vec<Located> = Vec::new();
    let mut skipped: Vec<output::Skipped> = Vec::new();
    let mut checked = 0usize;
    let mut found_sites = Sites::default();
    let mut base_run = BaselineRun::default();
    // --fix/--diff first, one file after another (each write is checked against what was read);
    // the check below then reads the fixed files.
    let mut fixes = FixOutput::default();
    if args.fix {
        super::interrupt::install();
    }
    if args.fix || args.diff {
        fix_all(
            &inputs,
            &|input, text| plain_plan(text, input.kind, &knowledge, &overrides),
            args.fix,
            &mut fixes,
        );
    }
    if let (Some(stdin), true) = (&stdin, args.diff) {
        diff_stdin(stdin, &knowledge, &overrides, &mut fixes);
    }
    let how = How {
        knowledge: &knowledge,
        overrides: &overrides,
        explain: args.explain,
        baseline: baseline.as_ref(),
        update_baseline: args.update_baseline,
    };
    // Standard input first, then the files; `--live` verifies standard input too.
    let stdin_live = match (&stdin, &connected) {
        (Some(stdin), Some(_)) => match decode(&stdin.bytes) {
            Decoded::Binary => None,
            Decoded::Utf8(t) | Decoded::Lossy(t) | Decoded::Transcoded(t, _) => {
                Some(super::live::Document {
                    path: None,
                    shown: stdin.shown.clone(),
                    text: t.into(),
                    kind: stdin.kind,
                })
            }
        },
        _ => None,
    };
    let from_stdin = stdin.map(|stdin| {
        let mut notes = Vec::new();
        let mut sites = Sites::default();
        let mut base = FileBase::default();
        let r = check_bytes(
            &stdin.shown,
            None,
            stdin.bytes,
            stdin.kind,
            &how,
            &mut sites,
            &mut notes,
            &mut base,
        );
        (r, notes, sites, base)
    });
    // `--live` sends the findings of the whole run, `--diff` prints only the diff, and
    // `--statistics` counts: these take every finding first. Otherwise they are written as each
    // batch of files is checked.
    let color = use_color(args);
    let stdout = std::io::stdout();
    let gathered = args.diff || args.live.live || args.statistics || args.update_baseline;
    let mut sink = if gathered {
        None
    } else {
        let head = if args.format == Format::Text {
            std::mem::take(&mut fixes.changed)
        } else {
            String::new()
        };
        match output::stream::Sink::new(args.format, std::io::BufWriter::new(stdout.lock()), &head)
        {
            Ok(s) => {
                if let Some(note) = &s.spool_note {
                    super::say::note(note);
                }
                Some(s.with_color(color))
            }
            Err(e) => return write_failed(&e),
        }
    };
    let tally;
    let mut take = |result: FileResult,
                    notes: Vec<String>,
                    sites: Sites,
                    base: FileBase,
                    sink: &mut Option<output::stream::Sink<_>>|
     -> std::io::Result<()> {
        for note in notes {
            super::say::note(note);
        }
        found_sites.add(sites);
        base_run.add(base);
        match result {
            Ok(Some((found, held))) => {
                checked += 1;
                match sink {
                    Some(sink) => sink.add(found, held)?,
                    None => {
                        located.extend(found);
                        skipped.extend(held);
                    }
                }
            }
            Ok(None) => {}
            Err(e) => {
                super::say::error(e);
                io_failed = true;
            }
        }
        Ok(())
    };
    if let Some((r, notes, sites, base)) = from_stdin {
        if let Err(e) = take(r, notes, sites, base, &mut sink) {
            return write_failed(&e);
        }
    }
    // Files are read and checked on all cores, a batch at a time; their results (and notes)
    // are taken in path order, so the output is the same as one file after another.
    for batch in inputs.chunks(BATCH) {
        let results: Vec<(FileResult, Vec<String>, Sites, FileBase)> = batch
            .par_iter()
            .map(|input| {
                let mut notes = Vec::new();
                let mut sites = Sites::default();
                let mut base = FileBase::default();
                let r = check_file(input, &how, &mut sites, &mut notes, &mut base);
                (r, notes, sites, base)
            })
            .collect();
        for (r, notes, sites, base) in results {
            if let Err(e) = take(r, notes, sites, base, &mut sink) {
                return write_failed(&e);
            }
        }
    }

    if let Some(c) = &connected {
        io_failed |= super::live::run(
            &args.live,
            c,
            stdin_live,
            &inputs,
            &knowledge,
            &overrides,
            &mut located,
        );
    } else if args.live.instance.url.is_some() {
        super::say::note("--url is used only with --live; nothing was sent");
    }

    if let Some(sink) = sink {
        if args.format != Format::Text {
            eprint!("{}", fixes.changed);
        }
        match sink.finish(found_sites.not_checked) {
            Ok((_, t)) => tally = t,
            Err(e) => return write_failed(&e),
        }
    } else {
        let rendered = if args.diff {
            // Only the diff on stdout, so that it can be piped to `git apply`.
            std::mem::take(&mut fixes.diff)
        } else if args.update_baseline {
            String::new()
        } else if args.statistics {
            let rows = super::statistics::rows(&located);
            match args.format {
                Format::Json => super::statistics::json(&rows),
                _ => super::statistics::text(&rows),
            }
        } else {
            let findings = output::stream::render(
                args.format,
                color,
                &located,
                &skipped,
                found_sites.not_checked,
            );
            if args.format == Format::Text {
                // What --fix changed, then what is left.
                std::mem::take(&mut fixes.changed) + &findings
            } else {
                eprint!("{}", fixes.changed);
                findings
            }
        };
        let mut stdout = stdout.lock();
        if let Err(e) = stdout
            .write_all(rendered.as_bytes())
            .and_then(|_| stdout.flush())
        {
            return write_failed(&e);
        }
        tally = output::tally(&located);
    }
    if args.fix || args.diff {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        super::say::summary(format!(
            "{} {} in {}{}",
            if args.fix { "fixed" } else { "would fix" },
            plural(fixes.count, "problem", "problems"),
            plural(fixes.files, "file", "files"),
            if args.fix { "; left:" } else { "" }
        ));
    }
    let mut stale_failed = false;
    if let Some(b) = &baseline {
        match finish_baseline(b, base_run, args) {
            Ok(failed) => stale_failed = failed,
            Err(e) => {
                super::say::error(e);
                return 2;
            }
        }
        if args.update_baseline {
            return i32::from(io_failed || fixes.failed) * 2;
        }
    }
    super::say::summary(format!(
        "{} ({})",
        output::summary_of(tally, checked),
        found_sites.describe()
    ));
    if io_failed || fixes.failed {
        2
    } else if args.exit_zero {
        0
    } else if tally[Severity::Error as usize] > 0 || stale_failed {
        1
    } else {
        0
    }
}

/// `check --explain CODE...`: when every path named is a diagnostic code and no such file
/// exists, the codes' pages are printed (as `netbox-lsp rule CODE`); the exit code, else `None`.
fn explained_code(args: &CheckArgs) -> Option<i32> {
    if !args.explain || args.paths.is_empty() {
        return None;
    }
    let codes = args.paths.iter().all(|p| {
        crate::catalogue::get(&p.to_string_lossy()).is_some()
            && std::fs::symlink_metadata(p).is_err()
    });
    if !codes {
        return None;
    }
    let mut out = 0;
    for (i, p) in args.paths.iter().enumerate() {
        if i > 0 {
            println!();
        }
        out = out.max(super::rule::print(&p.to_string_lossy()));
    }
    Some(out)
}

/// Says which named paths do not exist (a clear error each, naming `netbox-lsp rule CODE` for a
/// diagnostic code given as a path); true when any is missing, and then nothing is checked.
fn missing_paths(args: &CheckArgs) -> bool {
    let mut missing = false;
    for p in args.paths.iter().filter(|p| p.as_os_str() != "-") {
        if let Err(e) = std::fs::symlink_metadata(p) {
            missing = true;
            let shown = display_path(p);
            let hint = if crate::catalogue::get(&shown).is_some() {
                format!(" (`{shown}` is a diagnostic code: `netbox-lsp rule {shown}` explains it)")
            } else {
                String::new()
            };
            let why = if e.kind() == std::io::ErrorKind::NotFound {
                "no such file or folder".to_string()
            } else {
                e.to_string()
            };
            super::say::error(format!("{shown}: {why}{hint}"));
        }
    }
    if missing {
        super::say::error("nothing was checked");
    }
    missing
}

/// Flags that do not go together with `--format` or each other (a usage error).
fn output_choice(args: &CheckArgs) -> Result<(), String> {
    if args.statistics && !matches!(args.format, Format::Text | Format::Json) {
        return Err("--statistics prints text or JSON (--format text or json)".into());
    }
    if args.update_baseline && (args.fix || args.diff || args.live.live) {
        return Err("--update-baseline records findings; run --fix, --diff or --live apart".into());
    }
    Ok(())
}

/// Whether the text output is coloured: `--color always|never`, or with `auto` when stdout is
/// a terminal and `NO_COLOR` is unset or empty.
pub(super) fn use_color(args: &CheckArgs) -> bool {
    match args.color {
        super::ColorChoice::Always => true,
        super::ColorChoice::Never => false,
        super::ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::IsTerminal::is_terminal(&std::io::stdout())
        }
    }
}

/// The baseline's side of one file: its key path, the counts it used, the findings it held
/// back, and (with `--update-baseline`) every finding's key.
#[derive(Debug, Default)]
struct FileBase {
    path: Option<String>,
    used: BTreeMap<super::baseline::Key, usize>,
    held: usize,
}

/// The baseline's side of the run.
#[derive(Debug, Default)]
struct BaselineRun {
    checked: Vec<String>,
    used: super::baseline::Entries,
    held: usize,
}

impl BaselineRun {
    fn add(&mut self, f: FileBase) {
        if let Some(p) = f.path {
            self.held += f.held;
            if !f.used.is_empty() {
                self.used.insert(p.clone(), f.used);
            }
            self.checked.push(p);
        }
    }
}

/// After the run: `--update-baseline` writes the file; otherwise the findings it held back
/// and its stale entries are told. True when `--baseline-strict` fails the run.
fn finish_baseline(
    b: &super::baseline::Baseline,
    run: BaselineRun,
    args: &CheckArgs,
) -> Result<bool, String> {
    let shown = b.path.display();
    if args.update_baseline {
        let before: usize = b.entries.values().flat_map(|e| e.values()).sum();
        let entries = b.updated(&run.checked, run.used);
        super::baseline::write(&b.path, &entries)?;
        let after: usize = entries.values().flat_map(|e| e.values()).sum();
        let files = entries.len();
        super::say::summary(format!(
            "netbox-lsp: baseline {shown}: {after} {} in {files} {} recorded (was {before})",
            if after == 1 { "finding" } else { "findings" },
            if files == 1 { "file" } else { "files" },
        ));
        return Ok(false);
    }
    let stale = b.stale(&run.checked, &run.used);
    if run.held > 0 {
        super::say::note(format!(
            "baseline {shown}: {} known findings not shown",
            run.held
        ));
    }
    if stale == 0 {
        return Ok(false);
    }
    let what = format!(
        "baseline {shown}: {stale} recorded findings are gone (fixed, or their call changed); `--update-baseline` shrinks it"
    );
    if args.baseline_strict {
        super::say::error(format!("{what} (--baseline-strict)"));
        Ok(true)
    } else {
        super::say::note(what);
        Ok(false)
    }
}

/// The fix-all plan of a plain check: `text` analysed with the run's overrides.
fn plain_plan(
    text: &str,
    kind: crate::extract::HostKind,
    knowledge: &Knowledge,
    overrides: &HashMap<&str, Option<Severity>>,
) -> super::fix::Planned {
    super::fix::plan(text, kind, knowledge, &|f| apply_overrides(f, overrides))
}

/// Files checked at once on all cores before their findings are written: enough to keep the
/// cores busy, few enough that memory holds one batch's findings, not the run's.
const BATCH: usize = 512;

/// Exit code 2 after stdout could not be written (a closed pipe says nothing).
fn write_failed(e: &std::io::Error) -> i32 {
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        eprintln!("netbox-lsp: error: writing the output: {e}");
    }
    2
}

/// What `--fix` / `--diff` produced over the run.
#[derive(Debug, Default)]
pub(super) struct FixOutput {
    /// `path:line:col: fixed[code] title` lines (`--fix`).
    pub changed: String,
    /// Unified diffs (`--diff`).
    pub diff: String,
    /// Fixes applied (or that would be), and files they touch.
    pub count: usize,
    pub files: usize,
    /// A fixed file could not be written (I/O error; exit 2).
    pub failed: bool,
}

/// What `--fix` / `--diff` did for one file: its part of [`FixOutput`] and its messages
/// (level, text), said in path order.
#[derive(Debug, Default)]
struct FileFix {
    out: FixOutput,
    says: Vec<(&'static str, String)>,
}

impl FixOutput {
    fn add(&mut self, f: FileFix) {
        for (level, m) in f.says {
            if level == "error" {
                super::say::error(m);
            } else {
                super::say::note(m);
            }
        }
        self.changed.push_str(&f.out.changed);
        self.diff.push_str(&f.out.diff);
        self.count += f.out.count;
        self.files += f.out.files;
        self.failed |= f.out.failed;
    }
}

/// `--fix` / `--diff` over `inputs`, on several threads (a fixed file is written and synced
/// before it replaces the old one, so most of a file's time is the disk's: one file after
/// another, 100,000 files took 817 s), in batches whose results are taken in path order.
///
/// `plan` is fix-all of the plain check, or of the upgrade findings, for a file's text.
pub(super) fn fix_all(
    inputs: &[Input],
    plan: &(dyn Fn(&Input, &str) -> super::fix::Planned + Sync),
    write: bool,
    out: &mut FixOutput,
) {
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .saturating_mul(4)
        .clamp(4, 32);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    let swept = super::fix::Swept::default();
    for batch in inputs.chunks(BATCH) {
        let one = |input: &Input| fix_file(input, &|text| plan(input, text), write, &swept);
        let results: Vec<FileFix> = match &pool {
            Ok(pool) => pool.install(|| batch.par_iter().map(one).collect()),
            Err(_) => batch.iter().map(one).collect(),
        };
        for r in results {
            out.add(r);
        }
    }
}

/// `--fix` / `--diff` for one file: runs `plan` (fix-all of the plain check, or of the upgrade
/// findings) on its text and writes the result back (`write`) or gives its diff. A file that cannot be read is left to the check that follows
/// (which reports it); a file that is not valid UTF-8 is not fixed (its invalid bytes would be
/// lost); a file changed on disk since it was read, or whose path left the named folder, is
/// left alone with a message. Before a file is written, the temporary files a killed run left
/// in its folder are removed (once per folder: `swept`).
fn fix_file(
    input: &Input,
    plan: &dyn Fn(&str) -> super::fix::Planned,
    write: bool,
    swept: &super::fix::Swept,
) -> FileFix {
    let mut done = FileFix::default();
    let shown = display_path(&input.path);
    // The folder is held from the read to the replacement: nothing is read or written
    // through a folder that became a symbolic link.
    let place = match super::place::Place::of(&input.path, input.root.as_deref()) {
        Ok(p) => p,
        Err(super::place::PlaceError::Io(_)) => return done, // the check reports it
        Err(e) => {
            done.says.push(("note", format!("{shown}: {e}")));
            return done;
        }
    };
    let read = match super::fix::ReadAt::read_in(&place) {
        Ok(r) => r,
        Err(super::fix::WriteError::Io(_)) => return done,
        Err(e) => {
            done.says.push(("note", format!("{shown}: {e}")));
            return done;
        }
    };
    let text = match decode(&read.bytes) {
        Decoded::Utf8(text) => text,
        Decoded::Binary => return done,
        Decoded::Lossy(_) => {
            done.says
                .push(("note", format!("{shown}: not valid UTF-8; not fixed")));
            return done;
        }
        Decoded::Transcoded(_, name) => {
            done.says.push((
                "note",
                format!("{shown}: {name}; not fixed (fixes are written as UTF-8 only)"),
            ));
            return done;
        }
    };
    let planned = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| plan(&text))) {
        Ok(p) => p,
        Err(_) => return done, // the check that follows reports the internal error
    };
    if planned.fixed == text {
        return done;
    }
    let out = &mut done.out;
    if write {
        super::fix::sweep_once(&place, swept);
        if let Err(e) = super::fix::write_in(&place, &read, &planned.fixed) {
            // Changed on disk: left alone, and its findings as it is now are reported below.
            let io = matches!(e, super::fix::WriteError::Io(_));
            let level = if io { "error" } else { "note" };
            done.says.push((level, format!("{shown}: {e}")));
            done.out.failed |= io;
            return done;
        }
        // Columns as in the findings' text output: a byte-order mark is not counted.
        let bom = text.starts_with('\u{feff}');
        for c in &planned.changes {
            let col = if bom && c.line == 0 {
                c.char_col.saturating_sub(1)
            } else {
                c.char_col
            };
            out.changed.push_str(&format!(
                "{}:{}:{}: fixed[{}] {}\n",
                super::output::escape::text(&shown),
                c.line + 1,
                col + 1,
                c.code,
                super::output::escape::text(&c.title.replace(['\n', '\r'], " "))
            ));
        }
    } else {
        out.diff
            .push_str(&super::fix::unified_diff(&shown, &text, &planned.fixed));
    }
    out.count += planned.changes.len();
    out.files += 1;
    done
}

/// Standard input named as `-`: its bytes, the host kind and the path shown for it.
struct Stdin {
    bytes: Vec<u8>,
    kind: crate::extract::HostKind,
    /// `--stdin-filename` as shown in the output, else `-`.
    shown: String,
}

/// Most bytes read from standard input (a stream that never ends is refused, not buffered).
const STDIN_CAP: u64 = 256 * 1024 * 1024;

/// Reads standard input when `-` is among the paths. Its kind is that of `--stdin-filename`'s
/// extension (any other name, or none: Markdown, which also reads URLs and fences in prose).
/// `--fix` cannot write back to a pipe: a usage error (`--diff` works).
fn stdin_input(args: &CheckArgs, named: bool) -> Result<Option<Stdin>, String> {
    if !named {
        if args.stdin_filename.is_some() {
            eprintln!("netbox-lsp: note: --stdin-filename is used only with `-` among the paths");
        }
        return Ok(None);
    }
    if args.fix {
        return Err("--fix cannot write back to standard input (`-`); use --diff".into());
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(std::io::stdin().lock(), STDIN_CAP + 1),
        &mut bytes,
    )
    .map_err(|e| format!("reading standard input: {e}"))?;
    if bytes.len() as u64 > STDIN_CAP {
        return Err(format!(
            "standard input is larger than {} MiB",
            STDIN_CAP / 1024 / 1024
        ));
    }
    let name = args.stdin_filename.as_deref();
    Ok(Some(Stdin {
        bytes,
        kind: name
            .and_then(crate::extract::HostKind::from_path)
            .unwrap_or(crate::extract::HostKind::Markdown),
        shown: name.map_or_else(|| "-".to_string(), display_path),
    }))
}

/// `--diff` for standard input: its certain fixes as a diff of the shown path.
fn diff_stdin(
    stdin: &Stdin,
    knowledge: &Knowledge,
    overrides: &HashMap<&str, Option<Severity>>,
    out: &mut FixOutput,
) {
    let Decoded::Utf8(text) = decode(&stdin.bytes) else {
        return;
    };
    let planned = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        super::fix::plan(&text, stdin.kind, knowledge, &|f| {
            apply_overrides(f, overrides)
        })
    })) {
        Ok(p) => p,
        Err(_) => return, // the check that follows reports the internal error
    };
    if planned.fixed == text {
        return;
    }
    out.diff.push_str(&super::fix::unified_diff(
        &stdin.shown,
        &text,
        &planned.fixed,
    ));
    out.count += planned.changes.len();
    out.files += 1;
}

/// What [`check_file`] gives for one file: its findings and (with `--explain`) the sites it
/// did not check.
type FileResult = Result<Option<(Vec<Located>, Vec<output::Skipped>)>, String>;

/// How every file of one run is checked: the knowledge, the `--severity` overrides, whether
/// the sites not checked are located too (`--explain`), and the baseline.
struct How<'a, 'k> {
    knowledge: &'a Knowledge,
    overrides: &'a HashMap<&'k str, Option<Severity>>,
    explain: bool,
    /// `--baseline`: findings it holds are not reported (all are recorded with
    /// `update_baseline`).
    baseline: Option<&'a super::baseline::Baseline>,
    update_baseline: bool,
}

/// Reads and analyses one file. `Ok(None)` when the file is skipped (binary); errors are
/// one-line messages naming the file; notes for the user (skipped, not UTF-8) go to `notes`.
fn check_file(
    input: &Input,
    how: &How,
    sites: &mut Sites,
    notes: &mut Vec<String>,
    base: &mut FileBase,
) -> FileResult {
    let shown = display_path(&input.path);
    let bytes = read_regular(&input.path, &shown, input.root.is_some())?;
    let mut r = check_bytes(
        &shown,
        Some(&input.path),
        bytes,
        input.kind,
        how,
        sites,
        notes,
        base,
    );
    if let Ok(Some((found, skipped))) = &mut r {
        output::set_path_bytes(path_bytes(&input.path).as_ref(), found, skipped);
    }
    r
}

/// The bytes of the regular file at `path` (shown as `shown`); errors are one-line messages
/// naming the file. A named pipe or device named on the command line would block or never
/// end: it is refused as not a regular file.
///
/// A file found by walking a folder (`walked`) was no symbolic link then (links are not
/// followed by the walk): on Linux it is opened without following one, so a file swapped for
/// a link during the run is not read through it.
pub(super) fn read_regular(path: &Path, shown: &str, walked: bool) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{shown}: not a regular file"));
    }
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(target_os = "linux")]
    if walked {
        use std::os::unix::fs::OpenOptionsExt;
        open.custom_flags(libc::O_NOFOLLOW);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = walked;
    let mut file = open.open(path).map_err(|e| {
        #[cfg(target_os = "linux")]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return format!(
                "{shown}: is a symbolic link now (it was not when the folder was walked); not read"
            );
        }
        format!("{shown}: {e}")
    })?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    std::io::Read::read_to_end(&mut file, &mut bytes).map_err(|e| format!("{shown}: {e}"))?;
    Ok(bytes)
}

/// The text `check` reads from the bytes of `shown` ([`decode`]): `None` for a binary file
/// and for a report netbox-lsp wrote ([`super::own_report`]), with a note for them and for invalid UTF-8 (whose bytes are replaced by U+FFFD) in `notes`.
pub(super) fn text_noting(shown: &str, bytes: &[u8], notes: &mut Vec<String>) -> Option<String> {
    match decode(bytes) {
        Decoded::Binary => {
            notes.push(format!("{shown}: binary file skipped"));
            None
        }
        Decoded::Lossy(text) => {
            notes.push(format!(
                "{shown}: not valid UTF-8; invalid bytes were replaced by U+FFFD"
            ));
            Some(text)
        }
        Decoded::Utf8(text) | Decoded::Transcoded(text, _) => {
            match super::own_report::kind(&text) {
                // Checking it would report every finding again, inside the report.
                Some(what) => {
                    notes.push(format!("{shown}: a netbox-lsp {what} report, not checked"));
                    None
                }
                None => Some(text),
            }
        }
    }
}

/// Analyses the bytes of one file (or of standard input) shown as `shown`, at `path` on disk
/// (`None` for standard input, which the baseline keys by `shown`); see [`check_file`].
#[allow(clippy::too_many_arguments)] // one call per file, each a separate output of the run
fn check_bytes(
    shown: &str,
    path: Option<&Path>,
    bytes: Vec<u8>,
    kind: crate::extract::HostKind,
    how: &How,
    sites: &mut Sites,
    notes: &mut Vec<String>,
    base: &mut FileBase,
) -> FileResult {
    let Some(text) = text_noting(shown, &bytes, notes) else {
        return Ok(None);
    };
    drop(bytes);
    // A byte-order mark stays in the text: the JSON and SARIF positions count it as LSP does
    // for a document sent as it is on disk (the server gets the same numbers); only the text
    // output's columns, which people read in editors that hide it, leave it out (below).
    let bom = text.starts_with('\u{feff}');
    // The core must not panic; if it does, report that file and keep the others.
    let analysed = || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            analyze_report(&text, kind, how.knowledge, None)
        }))
    };
    // A large file's line index is built on the other core while it is analysed (it is needed
    // for the positions of its findings).
    let (analysed, lines) = if text.len() >= PARALLEL_LINES {
        let (a, l) = rayon::join(analysed, || LineIndex::new(&text));
        (a, Some(l))
    } else {
        (analysed(), None)
    };
    let report = analysed.map_err(|_| {
        format!("{shown}: internal error while checking this file (please report it)")
    })?;
    sites.add(Sites {
        rest: report.found.rest_calls,
        graphql: report.found.graphql_documents,
        not_checked: report.found.not_checked,
    });
    let mut findings = apply_overrides(report.findings, how.overrides);
    if let Some(b) = how.baseline {
        let key_path = b.key_path(path.unwrap_or(Path::new(shown)));
        let keys = super::baseline::keys(&text, &findings, &report.calls);
        if how.update_baseline {
            for k in keys {
                *base.used.entry(k).or_default() += 1;
            }
            findings.clear();
        } else {
            let (kept, held) = b.filter(&key_path, findings, &keys, &mut base.used);
            findings = kept;
            base.held = held;
        }
        base.path = Some(key_path);
    }
    let held = if how.explain {
        report.not_checked
    } else {
        Vec::new()
    };
    if findings.is_empty() && held.is_empty() {
        return Ok(Some((Vec::new(), Vec::new())));
    }
    let lines = lines.unwrap_or_else(|| LineIndex::new(&text));
    let mut located = output::locate(shown, &text, &lines, findings);
    let mut skipped = output::locate_skipped(shown, &text, &lines, &held);
    if bom {
        hide_bom(&mut located);
        hide_bom_skipped(&mut skipped);
    }
    Ok(Some((located, skipped)))
}

/// Text-output columns of findings in a file that starts with a byte-order mark: the mark is
/// not counted on the first line (editors that people read the columns in hide it).
pub(super) fn hide_bom(located: &mut [Located]) {
    let hide = |p: &mut output::Pos| {
        if p.line == 0 {
            p.char_col = p.char_col.saturating_sub(1);
        }
    };
    for l in located {
        hide(&mut l.span.start);
        hide(&mut l.span.end);
        for e in l.fixes.iter_mut().flat_map(|f| f.edits.iter_mut()) {
            hide(&mut e.span.start);
            hide(&mut e.span.end);
        }
    }
}

/// [`hide_bom`] for the sites not checked.
fn hide_bom_skipped(skipped: &mut [output::Skipped]) {
    for s in skipped {
        for p in [&mut s.span.start, &mut s.span.end] {
            if p.line == 0 {
                p.char_col = p.char_col.saturating_sub(1);
            }
        }
    }
}

/// From this many bytes on, a file's line index is built beside its analysis.
const PARALLEL_LINES: usize = 1024 * 1024;

/// How many NetBox calls and GraphQL documents the checked files hold, and how many sites
/// were not checked, so that "0 errors" cannot hide "nothing read" nor "read as a lesson".
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Sites {
    rest: usize,
    graphql: usize,
    not_checked: Counts,
}

impl Sites {
    fn add(&mut self, other: Sites) {
        self.rest += other.rest;
        self.graphql += other.graphql;
        self.not_checked.add(other.not_checked);
    }

    /// `12 NetBox REST calls, 3 GraphQL documents found`, then `; not checked: 2 lessons,
    /// 30 in release history` when sites were held back.
    fn describe(&self) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut s = format!(
            "{}, {} found",
            plural(self.rest, "NetBox REST call", "NetBox REST calls"),
            plural(self.graphql, "GraphQL document", "GraphQL documents")
        );
        if self.not_checked.total() > 0 {
            s.push_str("; not checked: ");
            s.push_str(&self.not_checked.describe());
        }
        s
    }
}

/// File bytes as text.
#[derive(Debug, PartialEq, Eq)]
pub enum Decoded {
    /// A NUL byte in the first 8 KB: not checked.
    Binary,
    Utf8(String),
    /// Invalid UTF-8, decoded with U+FFFD replacements (positions refer to the decoded text).
    Lossy(String),
    /// UTF-16 or UTF-32 text with a byte-order mark (the encoding's name, `UTF-16LE`), decoded
    /// (the mark kept as U+FEFF, like a UTF-8 one; bad units as U+FFFD). Checked, never fixed:
    /// fixes are written as UTF-8.
    Transcoded(String, &'static str),
}

/// Tells binary from text and decodes text.
pub fn decode(bytes: &[u8]) -> Decoded {
    if let Some(t) = by_byte_order_mark(bytes) {
        return t;
    }
    if crate::analysis::is_binary(bytes) {
        return utf16_without_mark(bytes).unwrap_or(Decoded::Binary);
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Decoded::Utf8(s.to_string()),
        Err(_) => Decoded::Lossy(String::from_utf8_lossy(bytes).into_owned()),
    }
}

/// UTF-32 (checked first: its little-endian mark starts like UTF-16's) or UTF-16 text, told by
/// its byte-order mark; `None` without one (such text has NULs and counts as binary).
fn by_byte_order_mark(b: &[u8]) -> Option<Decoded> {
    let (name, width, big) = match b {
        [0xFF, 0xFE, 0, 0, ..] => ("UTF-32LE", 4, false),
        [0, 0, 0xFE, 0xFF, ..] => ("UTF-32BE", 4, true),
        [0xFF, 0xFE, ..] => ("UTF-16LE", 2, false),
        [0xFE, 0xFF, ..] => ("UTF-16BE", 2, true),
        _ => return None,
    };
    let text: String = if width == 2 {
        let units = b.chunks(2).map(|c| match (c, big) {
            ([x, y], true) => u16::from_be_bytes([*x, *y]),
            ([x, y], false) => u16::from_le_bytes([*x, *y]),
            _ => 0xFFFD, // an odd last byte
        });
        char::decode_utf16(units)
            .map(|r| r.unwrap_or('\u{fffd}'))
            .collect()
    } else {
        b.chunks(4)
            .map(|c| {
                let v = match (<[u8; 4]>::try_from(c), big) {
                    (Ok(a), true) => u32::from_be_bytes(a),
                    (Ok(a), false) => u32::from_le_bytes(a),
                    _ => 0xFFFD,
                };
                char::from_u32(v).unwrap_or('\u{fffd}')
            })
            .collect()
    };
    Some(Decoded::Transcoded(text, name))
}

/// UTF-16 text without a byte-order mark (Windows tools write it so), told by its NULs: in the
/// first [`crate::analysis::BINARY_SNIFF`] bytes, every unit's high byte is NUL at the odd
/// (little-endian) or even (big-endian) offsets and no other byte is, as for text that is mostly
/// ASCII; decoded like a marked file. `None` for anything else (a binary file).
fn utf16_without_mark(bytes: &[u8]) -> Option<Decoded> {
    let head = &bytes[..bytes.len().min(crate::analysis::BINARY_SNIFF) & !1];
    if head.len() < 4 || !bytes.len().is_multiple_of(2) {
        return None;
    }
    let units = head.len() / 2;
    let nul_at = |parity: usize| {
        head.iter()
            .skip(parity)
            .step_by(2)
            .filter(|&&b| b == 0)
            .count()
    };
    let (even, odd) = (nul_at(0), nul_at(1));
    // Mostly ASCII: the high byte of nine units in ten is NUL, the low byte never is.
    let (name, mark): (&str, [u8; 2]) = if even == 0 && odd * 10 >= units * 9 {
        ("UTF-16LE (no byte-order mark)", [0xFF, 0xFE])
    } else if odd == 0 && even * 10 >= units * 9 {
        ("UTF-16BE (no byte-order mark)", [0xFE, 0xFF])
    } else {
        return None;
    };
    let mut marked = Vec::with_capacity(bytes.len() + 2);
    marked.extend_from_slice(&mark);
    marked.extend_from_slice(bytes);
    match by_byte_order_mark(&marked)? {
        // The mark added here is no part of the file: positions are the file's.
        Decoded::Transcoded(text, _) => Some(Decoded::Transcoded(
            text.strip_prefix('\u{feff}').unwrap_or(&text).to_string(),
            name,
        )),
        _ => None,
    }
}

/// Applies `--severity code=level` overrides; `off` drops the code's findings.
pub(super) fn apply_overrides(
    findings: Vec<Finding>,
    overrides: &HashMap<&str, Option<Severity>>,
) -> Vec<Finding> {
    if overrides.is_empty() {
        return findings;
    }
    findings
        .into_iter()
        .filter_map(|mut f| match overrides.get(f.code) {
            None => Some(f),
            Some(None) => None,
            Some(Some(sev)) => {
                f.severity = *sev;
                Some(f)
            }
        })
        .collect()
}

/// The stderr notes for `--exclude` globs that matched nothing (`check` and `check
/// --upgrade-to`).
pub(super) fn say_unused_excludes(globs: &[String]) {
    for g in globs {
        let read = crate::config::exclude_pattern(g);
        let shown = if read == *g {
            String::new()
        } else {
            format!(" (read as {read})")
        };
        super::say::note(format!(
            "--exclude {g}{shown} matched no path under the named folders"
        ));
    }
}

/// The stderr note for a named folder with no file the tool reads, so that "0 errors" never
/// hides "nothing read" (`check` and `check --upgrade-to`).
pub(super) fn say_empty_folder(dir: &std::path::Path) {
    eprintln!(
        "netbox-lsp: note: {}: no file here has an extension netbox-lsp reads ({})",
        super::output::escape::text(&display_path(dir)),
        crate::extract::EXTENSIONS
            .iter()
            .map(|e| format!(".{e}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::BINARY_SNIFF;
    use crate::extract::HostKind;

    #[test]
    fn decodes_binary_lossy_and_utf8() {
        assert_eq!(decode(b"a\0b"), Decoded::Binary);
        assert_eq!(decode(b"caf\xc3\xa9"), Decoded::Utf8("café".into()));
        assert_eq!(decode(b"a\xffb"), Decoded::Lossy("a\u{fffd}b".into()));
        // A NUL after the first 8 KB does not make a file binary.
        let mut late = vec![b'a'; BINARY_SNIFF];
        late.push(0);
        assert!(matches!(decode(&late), Decoded::Utf8(_)));
    }

    /// UTF-16 and UTF-32 with a byte-order mark, both byte orders, are decoded (the mark kept,
    /// an astral character through a surrogate pair, an odd last byte as U+FFFD).
    #[test]
    fn decodes_utf16_and_utf32_by_their_mark() {
        let text = "\u{feff}`/api/dcim/devices/?rol=x` \u{1f600}é";
        let le16: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be16: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let le32: Vec<u8> = text
            .chars()
            .flat_map(|c| (c as u32).to_le_bytes())
            .collect();
        let be32: Vec<u8> = text
            .chars()
            .flat_map(|c| (c as u32).to_be_bytes())
            .collect();
        for (bytes, name) in [
            (le16, "UTF-16LE"),
            (be16, "UTF-16BE"),
            (le32, "UTF-32LE"),
            (be32, "UTF-32BE"),
        ] {
            assert_eq!(decode(&bytes), Decoded::Transcoded(text.into(), name));
        }
        let mut odd: Vec<u8> = "\u{feff}a"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        odd.push(b'b');
        assert_eq!(
            decode(&odd),
            Decoded::Transcoded("\u{feff}a\u{fffd}".into(), "UTF-16LE")
        );
    }

    #[test]
    fn counts_sites() {
        let k = Knowledge::default();
        let count = |text: &str, kind| analyze_report(text, kind, &k, None).found;
        let n = count(
            "`/api/dcim/devices/?name=a`\n\nNever use `/api/dcim/devices/?x=1`.\n\n```graphql\n{ site_list { id } }\n```\n",
            HostKind::Markdown,
        );
        assert_eq!((n.rest_calls, n.graphql_documents), (1, 1));
        assert_eq!(n.not_checked.total(), 1);
        let sites = Sites {
            rest: n.rest_calls,
            graphql: n.graphql_documents,
            not_checked: n.not_checked,
        };
        assert_eq!(
            sites.describe(),
            "1 NetBox REST call, 1 GraphQL document found; not checked: 1 lesson"
        );
        let none = count("resource \"x\" {}", HostKind::Text);
        assert_eq!(none, crate::analysis::Found::default());
    }
}
