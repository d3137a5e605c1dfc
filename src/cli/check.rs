//! `netbox-lsp check`: picks the knowledge, walks the paths, analyses each file and prints the
//! findings sorted by path then position. Exit code: 1 if any finding is an error, 2 on usage or
//! I/O errors (these win), 0 otherwise. Notes and the summary go to stderr, findings to stdout.

use super::fix_all::{fix_all, FixOutput};
use super::input::{
    decode, hide_bom, hide_bom_skipped, read_regular, say_empty_folder, say_unused_excludes,
    stdin_input, text_noting_owned, Decoded, Stdin, BATCH,
};
use super::output::{self, put::Drain, Located};
use super::settings::{apply_overrides, use_color, FromFile};
use super::walk::{self, Input};
use super::{CheckArgs, Format};
use crate::analysis::{analyze_kept, analyze_parted, analyze_report, Knowledge, Written};
use crate::finding::Severity;
use crate::intent::Counts;
use crate::knowledge::{knowledge_from, Named, Origin};
use crate::lines::LineIndex;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

pub use super::paths::{display_path, path_bytes};

/// Runs `check` (the settings file already applied, the named paths there; `from_file`: the
/// settings file and the keys it set); returns the exit code. The phases: [`setup`] (the
/// knowledge, `--live`'s instance, overrides, baseline), [`read_inputs`] (standard input and the
/// walk), `--fix`/`--diff`, [`check_all`] (each file's check, with `--live` as its last step,
/// written as it comes), then [`finish`] (the summaries and the exit code). `after`: whether
/// the process exits after the run (the last file's findings are then left to that exit).
pub fn run(args: &CheckArgs, from_file: &FromFile, after: super::After) -> i32 {
    let setup = match setup(args, from_file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let (stdin, inputs, mut io_failed) = match read_inputs(args) {
        Ok(i) => i,
        Err(code) => return code,
    };
    // --fix/--diff first, one file after another (each write is checked against what was read);
    // the check below then reads the fixed files.
    let mut fixes = FixOutput::default();
    if args.fix {
        super::interrupt::install();
    }
    if args.fix || args.diff {
        let (knowledge, overrides) = (&setup.knowledge, &setup.overrides);
        fix_all(
            &inputs,
            &|input, text| plain_plan(text, input.kind, knowledge, overrides),
            args.fix,
            &mut fixes,
        );
    }
    if let (Some(stdin), true) = (&stdin, args.diff) {
        diff_stdin(stdin, &setup.knowledge, &setup.overrides, &mut fixes);
    }
    let transport = setup
        .connected
        .as_ref()
        .map(|c| crate::live::http::Http { client: &c.client });
    let live = match (&setup.connected, &transport) {
        (Some(c), Some(t)) => Some(super::live::Step::new(&args.live, c, t, &setup.knowledge)),
        _ => None,
    };
    if live.is_none() && args.live.instance.url.is_some() {
        super::say::note("--url is used only with --live; nothing was sent");
    }
    let done = match check_all(args, &setup, stdin, &inputs, live, &mut fixes, after) {
        Ok(d) => d,
        Err(code) => return code,
    };
    io_failed |= done.io_failed;
    finish(args, &setup, done, io_failed, &fixes)
}

/// What a run checks with: the knowledge (of `--live`'s instance when there is one), the
/// `--severity` overrides, the baseline, and `--live`'s instance.
struct Setup<'a> {
    knowledge: Knowledge,
    overrides: HashMap<&'a str, Option<Severity>>,
    baseline: Option<super::baseline::Baseline>,
    connected: Option<super::live::Connected>,
}

/// The [`Setup`] of a run, or the exit code of a usage error (said on stderr). With `--live`
/// the instance's `/api/status/` is read first, so the static checks use its release.
fn setup<'a>(args: &'a CheckArgs, from_file: &FromFile) -> Result<Setup<'a>, i32> {
    let fail = |e: String| {
        super::say::error(e);
        2
    };
    let overrides = super::settings::overrides(args).map_err(fail)?;
    output_choice(args).map_err(fail)?;
    let baseline = match &args.baseline {
        Some(path) => {
            Some(super::baseline::Baseline::read(path, args.update_baseline).map_err(fail)?)
        }
        None => None,
    };
    let by = |key: &str| match from_file {
        Some((file, keys)) if keys.contains(&key) => Origin::SettingsFile(file),
        _ => Origin::CommandLine,
    };
    let connected = if args.live.live {
        match super::live::connect(&args.live) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("netbox-lsp: error: live check: {e}");
                return Err(2);
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
                return Err(2);
            }
        }
    }
    let (knowledge, notes) = knowledge_from(
        netbox_version.as_deref(),
        args.index.as_deref().map(|path| Named {
            path,
            by: by("index"),
        }),
        args.graphql_schema.as_deref().map(|path| Named {
            path,
            by: by("graphql_schema"),
        }),
    )
    .map_err(fail)?;
    let knowledge = Knowledge {
        readings: args.readings,
        ..knowledge
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
    Ok(Setup {
        knowledge,
        overrides,
        baseline,
        connected,
    })
}

/// Standard input (when `-` is named: read once, a second `-` adds nothing) and the files of
/// the named paths, with what the walk found wrong said on stderr (true: an I/O error); or the
/// exit code of an error that stops the run.
fn read_inputs(args: &CheckArgs) -> Result<(Option<Stdin>, Vec<Input>, bool), i32> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let (stdin_named, paths): (Vec<PathBuf>, Vec<PathBuf>) =
        paths.into_iter().partition(|p| p.as_os_str() == "-");
    let fail = |e: String| {
        super::say::error(e);
        2
    };
    let stdin = stdin_input(args, !stdin_named.is_empty()).map_err(fail)?;
    let found = walk::collect(&paths, &args.exclude).map_err(fail)?;
    let io_failed = !found.problems.is_empty();
    for p in found.problems {
        super::say::error(p);
    }
    for n in found.notes {
        super::say::note(n);
    }
    for dir in found.empty_folders {
        say_empty_folder(&dir);
    }
    say_unused_excludes(&found.unused_excludes);
    Ok((stdin, found.inputs, io_failed))
}

/// What checking every file gave: the findings when they are taken whole (`--diff`,
/// `--statistics`, `--update-baseline`; else they were written as they came), the sites not
/// checked, the counts, the baseline's side and whether `--live` or an input failed.
#[derive(Default)]
struct Done {
    located: Vec<Located>,
    skipped: Vec<output::Skipped>,
    checked: usize,
    sites: Sites,
    base: BaselineRun,
    io_failed: bool,
    /// The findings' counts by severity, when the sink wrote them.
    tally: Option<[usize; 4]>,
}

/// Checks standard input, then the files in path order, and writes their findings as each
/// batch of files is checked (`--diff`, `--statistics` and `--update-baseline` take every
/// finding first). With `--live` (`live`), each file's calls are verified right after its
/// check, from that analysis, and its live findings join its static ones: one file's output is
/// complete before the next file's requests are sent. `Err`: the exit code when stdout could
/// not be written.
fn check_all(
    args: &CheckArgs,
    setup: &Setup,
    stdin: Option<Stdin>,
    inputs: &[Input],
    mut live: Option<super::live::Step>,
    fixes: &mut FixOutput,
    after: super::After,
) -> Result<Done, i32> {
    let how = How {
        exit_follows: after == super::After::Exit,
        knowledge: &setup.knowledge,
        overrides: &setup.overrides,
        explain: args.explain,
        baseline: setup.baseline.as_ref(),
        update_baseline: args.update_baseline,
        live: live.is_some(),
        json_direct: args.format == Format::Json
            && live.is_none()
            && !(args.diff || args.statistics || args.update_baseline),
    };
    let color = use_color(args);
    let stdout = std::io::stdout();
    let gathered = args.diff || args.statistics || args.update_baseline;
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
            Err(e) => return Err(write_failed(&e)),
        }
    };
    let mut done = Done::default();
    let mut take = |one: OneFile, sink: &mut Option<Out>| -> std::io::Result<()> {
        for note in one.notes {
            super::say::note(note);
        }
        done.sites.add(one.sites);
        done.base.add(one.base);
        match one.result {
            Ok(Some(mut file)) => {
                done.checked += 1;
                if let (Some(step), Some(doc)) = (live.as_mut(), file.live.take()) {
                    file.located = step.file(doc, file.located, &setup.overrides);
                }
                match sink {
                    Some(sink) if file.rendered.is_some() => {
                        let rendered = file.rendered.take().unwrap_or_default();
                        sink.add_rendered(rendered, file.skipped)?;
                    }
                    Some(sink) => {
                        sink.add(file.located, file.skipped)?;
                        if live.is_some() {
                            // The requests of the next file wait: this one is shown first.
                            sink.flush()?;
                        }
                    }
                    None => {
                        done.located.extend(file.located);
                        done.skipped.extend(file.skipped);
                    }
                }
            }
            Ok(None) => {}
            Err(e) => {
                super::say::error(e);
                done.io_failed = true;
            }
        }
        Ok(())
    };
    // `--format json` alone: each file's JSON is written as it is made when the file is next
    // in path order (always so for standard input and a single file), not held whole.
    let streamed = how.json_direct && sink.is_some() && rayon::current_thread_index().is_none();
    if let Some(stdin) = stdin {
        let mut one = OneFile::default();
        let mut failed = None;
        {
            let mut write = |chunk: Vec<u8>| {
                if let (Some(sink), true) = (sink.as_mut(), failed.is_none()) {
                    failed = sink.add_chunk(&chunk).err();
                }
                chunk
            };
            let drain: Option<&mut Drain> = if streamed { Some(&mut write) } else { None };
            one.result = check_bytes(
                &stdin.shown,
                None,
                stdin.bytes,
                stdin.kind,
                &how,
                To {
                    one: &mut one,
                    drain,
                    ends_run: inputs.is_empty(),
                },
            );
        }
        match failed {
            Some(e) => return Err(failed_after(one, &e)),
            None => take(one, &mut sink).map_err(|e| write_failed(&e))?,
        }
    }
    // Files are read and checked on all cores, a batch at a time; their results (and notes)
    // are taken in path order, so the output is the same as one file after another.
    let batches = inputs.len().div_ceil(BATCH);
    for (b, batch) in inputs.chunks(BATCH).enumerate() {
        if streamed {
            stream_batch(batch, &how, b + 1 == batches, &mut sink, &mut take)?;
            continue;
        }
        let results: Vec<OneFile> = batch
            .par_iter()
            .map(|input| {
                let mut one = OneFile::default();
                one.result = check_file(input, &how, To::held(&mut one));
                one
            })
            .collect();
        for one in results {
            take(one, &mut sink).map_err(|e| write_failed(&e))?;
        }
    }
    if let Some(step) = live {
        done.io_failed |= step.finish();
    }
    if let Some(sink) = sink {
        if args.format != Format::Text {
            eprint!("{}", fixes.changed);
        }
        match sink.finish(done.sites.not_checked) {
            Ok((_, t)) => done.tally = Some(t),
            Err(e) => return Err(write_failed(&e)),
        }
    }
    Ok(done)
}

/// The sink of a run that writes as it goes: buffered standard output.
type Out = output::stream::Sink<std::io::BufWriter<std::io::StdoutLock<'static>>>;

/// What a file being checked sends to the thread that writes ([`stream_batch`]).
enum Piece {
    /// A full chunk of its JSON elements ([`output::json::locate_json`]'s drain).
    Chunk(Vec<u8>),
    /// The file's result, after its last chunk.
    Done(Box<OneFile>),
}

/// Checks one batch of files on the pool's threads (one job each, started in path order) while
/// this thread writes: the chunks of the file next in path order as they fill, the others'
/// when their turn comes (held until then), then each file's result by `take`, so the bytes
/// and the notes are those of checking one file after another. Written chunks go back to the
/// checking threads for reuse. `Err`: the exit code when stdout could not be written (the
/// file's notes said first, as `take` does). `last`: this batch ends the run (its last file's
/// findings are left to the process's exit: [`output::json::locate_json`]).
fn stream_batch<W: Write>(
    batch: &[Input],
    how: &How,
    last: bool,
    sink: &mut Option<output::stream::Sink<W>>,
    take: &mut impl FnMut(OneFile, &mut Option<output::stream::Sink<W>>) -> std::io::Result<()>,
) -> Result<(), i32> {
    let spare: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());
    let (senders, receivers): (Vec<_>, Vec<_>) = batch
        .iter()
        .map(|_| std::sync::mpsc::channel::<Piece>())
        .unzip();
    rayon::in_place_scope(|scope| {
        for (i, (input, tx)) in batch.iter().zip(senders).enumerate() {
            let spare = &spare;
            let ends_run = last && i + 1 == batch.len();
            scope.spawn(move |_| {
                let mut one = OneFile::default();
                let mut send = |chunk: Vec<u8>| {
                    // The writer is gone (a write failed): the rest is not written.
                    let _ = tx.send(Piece::Chunk(chunk));
                    let mut spare = spare.lock().unwrap_or_else(|e| e.into_inner());
                    spare.pop().unwrap_or_default()
                };
                one.result = check_file(
                    input,
                    how,
                    To {
                        one: &mut one,
                        drain: Some(&mut send),
                        ends_run,
                    },
                );
                let _ = tx.send(Piece::Done(Box::new(one)));
            });
        }
        let mut failed = None;
        for rx in receivers {
            // A job that panicked dropped its sender: the scope raises its panic at the end.
            while let Ok(piece) = rx.recv() {
                match piece {
                    Piece::Chunk(mut chunk) => {
                        if let (Some(sink), true) = (sink.as_mut(), failed.is_none()) {
                            failed = sink.add_chunk(&chunk).err();
                        }
                        chunk.clear();
                        spare.lock().unwrap_or_else(|e| e.into_inner()).push(chunk);
                    }
                    Piece::Done(one) => {
                        if let Some(e) = &failed {
                            return Err(failed_after(*one, e));
                        }
                        take(*one, sink).map_err(|e| write_failed(&e))?;
                        break;
                    }
                }
            }
        }
        Ok(())
    })
}

/// The exit code after a chunk of `one`'s findings could not be written: its notes are said
/// first, as when its findings are written whole.
fn failed_after(one: OneFile, e: &std::io::Error) -> i32 {
    for note in one.notes {
        super::say::note(note);
    }
    write_failed(e)
}

/// Writes what was taken whole (`--diff`'s diff, `--statistics`, the findings), says the
/// summaries, settles the baseline, and gives the exit code: 2 on an I/O error, else 1 when a
/// finding is an error (or the strict baseline is stale), else 0.
fn finish(args: &CheckArgs, setup: &Setup, done: Done, io_failed: bool, fixes: &FixOutput) -> i32 {
    let tally = match done.tally {
        Some(t) => t,
        None => {
            let rendered = if args.diff {
                // Only the diff on stdout, so that it can be piped to `git apply`.
                fixes.diff.clone()
            } else if args.update_baseline {
                String::new()
            } else if args.statistics {
                let rows = super::statistics::rows(&done.located);
                match args.format {
                    Format::Json => super::statistics::json(&rows),
                    _ => super::statistics::text(&rows),
                }
            } else {
                let findings = output::stream::render(
                    args.format,
                    use_color(args),
                    &done.located,
                    &done.skipped,
                    done.sites.not_checked,
                );
                if args.format == Format::Text {
                    // What --fix changed, then what is left.
                    fixes.changed.clone() + &findings
                } else {
                    eprint!("{}", fixes.changed);
                    findings
                }
            };
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = stdout
                .write_all(rendered.as_bytes())
                .and_then(|_| stdout.flush())
            {
                return write_failed(&e);
            }
            output::tally(&done.located)
        }
    };
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
    if let Some(b) = &setup.baseline {
        match finish_baseline(b, done.base, args) {
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
        output::summary_of(tally, done.checked),
        done.sites.describe()
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

/// Exit code 2 after stdout could not be written (a closed pipe says nothing).
fn write_failed(e: &std::io::Error) -> i32 {
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        eprintln!("netbox-lsp: error: writing the output: {e}");
    }
    2
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

/// What [`check_file`] gives for one file: its findings, (with `--explain`) the sites it did not
/// check and (with `--live`) what its live step reads; `Ok(None)` for a skipped file.
type FileResult = Result<Option<FileChecked>, String>;

/// One file's located findings and sites not checked, and its text and analysis for `--live`.
#[derive(Default)]
struct FileChecked {
    located: Vec<Located>,
    /// The findings written as JSON elements instead of `located` ([`How::json_direct`]).
    rendered: Option<output::json::Rendered>,
    skipped: Vec<output::Skipped>,
    live: Option<super::live::Document>,
}

/// One file's part of the run: its result, notes for the user (skipped, not UTF-8), its
/// counts and its baseline side; taken in path order.
struct OneFile {
    result: FileResult,
    notes: Vec<String>,
    sites: Sites,
    base: FileBase,
}

impl Default for OneFile {
    fn default() -> Self {
        OneFile {
            result: Ok(None),
            notes: Vec::new(),
            sites: Sites::default(),
            base: FileBase::default(),
        }
    }
}

/// How every file of one run is checked: the knowledge, the `--severity` overrides, whether
/// the sites not checked are located too (`--explain`), the baseline, and whether the
/// analysis is kept for `--live`.
struct How<'a, 'k> {
    knowledge: &'a Knowledge,
    overrides: &'a HashMap<&'k str, Option<Severity>>,
    explain: bool,
    /// `--baseline`: findings it holds are not reported (all are recorded with
    /// `update_baseline`).
    baseline: Option<&'a super::baseline::Baseline>,
    update_baseline: bool,
    live: bool,
    /// The findings are written as JSON elements on the thread that checks their file
    /// ([`output::json::locate_json`]) rather than located: `--format json` streamed, without
    /// `--live`.
    json_direct: bool,
    /// The process exits after the run: the run's last file's findings are left to that
    /// exit, not freed ([`output::json::locate_json`]'s `free`).
    exit_follows: bool,
}

/// Where one file's check goes: its [`OneFile`] (notes, counts, the baseline's side), the
/// drain of its JSON chunks ([`output::json::locate_json`], with [`How::json_direct`]), and
/// whether it is the run's last input (its findings are then left to the process's exit).
struct To<'o, 'd, 'e> {
    one: &'o mut OneFile,
    drain: Option<&'d mut Drain<'e>>,
    ends_run: bool,
}

impl<'o> To<'o, '_, '_> {
    /// To `one`, without a drain (the JSON held whole), not the run's last input.
    fn held(one: &'o mut OneFile) -> Self {
        To {
            one,
            drain: None,
            ends_run: false,
        }
    }
}

/// Reads and analyses one file. `Ok(None)` when the file is skipped (binary, too large: with a
/// note); errors are one-line messages naming the file; notes, counts and the baseline's side
/// go to `to`'s [`OneFile`].
fn check_file(input: &Input, how: &How, to: To) -> FileResult {
    let shown = display_path(&input.path);
    let Some(bytes) = read_regular(
        &input.path,
        &shown,
        input.read_without_following(),
        &mut to.one.notes,
    )?
    else {
        return Ok(None);
    };
    let mut r = check_bytes(&shown, Some(&input.path), bytes, input.kind, how, to);
    if let Ok(Some(file)) = &mut r {
        output::set_path_bytes(
            path_bytes(&input.path).as_ref(),
            &mut file.located,
            &mut file.skipped,
        );
        if let Some(doc) = &mut file.live {
            doc.path = Some(input.path.clone());
        }
    }
    r
}

/// Analyses the bytes of one file (or of standard input) shown as `shown`, at `path` on disk
/// (`None` for standard input, which the baseline keys by `shown`); see [`check_file`].
fn check_bytes(
    shown: &str,
    path: Option<&Path>,
    bytes: Vec<u8>,
    kind: crate::extract::HostKind,
    how: &How,
    to: To,
) -> FileResult {
    let To {
        one,
        drain,
        ends_run,
    } = to;
    let Some(text) = text_noting_owned(shown, bytes, &mut one.notes) else {
        return Ok(None);
    };
    // A byte-order mark stays in the text: the JSON and SARIF positions count it as LSP does
    // for a document sent as it is on disk (the server gets the same numbers); only the text
    // output's columns, which people read in editors that hide it, leave it out (below).
    let bom = text.starts_with('\u{feff}');
    // `--format json` without a baseline writes the findings part after part (a large file's
    // are never joined into one buffer: [`analyze_parted`]).
    let parted = how.json_direct && how.baseline.is_none();
    // The core must not panic; if it does, report that file and keep the others.
    let analysed = || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if how.live {
                // `--live` plans its requests from this analysis: its sites are kept.
                (analyze_kept(&text, kind, how.knowledge, None), Vec::new())
            } else if parted {
                analyze_parted(&text, kind, how.knowledge)
            } else {
                (analyze_report(&text, kind, how.knowledge, None), Vec::new())
            }
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
    let (mut report, parts) = analysed.map_err(|_| {
        format!("{shown}: internal error while checking this file (please report it)")
    })?;
    one.sites.add(Sites {
        rest: report.found.rest_calls,
        graphql: report.found.graphql_documents,
        not_checked: report.found.not_checked,
    });
    let mut findings = apply_overrides(std::mem::take(&mut report.findings), how.overrides);
    let parts = written_overrides(parts, how.overrides);
    if let Some(b) = how.baseline {
        let base = &mut one.base;
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
        std::mem::take(&mut report.not_checked)
    } else {
        Vec::new()
    };
    let mut file = FileChecked::default();
    let any = !findings.is_empty() || parts.iter().any(|p| !p.is_empty());
    if any || !held.is_empty() {
        let lines = lines.unwrap_or_else(|| LineIndex::new(&text));
        if how.json_direct {
            // JSON shows no column in characters: the byte-order mark needs no hiding there.
            let free = !(ends_run && how.exit_follows);
            let mut parts = parts;
            if !findings.is_empty() {
                parts.insert(0, findings.into_iter().map(Into::into).collect());
            }
            file.rendered = Some(output::json::locate_json(
                shown, &text, &lines, parts, drain, free,
            ));
        } else {
            file.located = output::locate(shown, &text, &lines, findings);
        }
        file.skipped = output::locate_skipped(shown, &text, &lines, &held);
        if bom {
            hide_bom(&mut file.located);
            hide_bom_skipped(&mut file.skipped);
        }
    }
    if how.live {
        file.live = Some(super::live::Document {
            shown: shown.to_string(),
            path: None,
            text,
            kind,
            report,
        });
    }
    Ok(Some(file))
}

/// [`apply_overrides`] for findings in parts, as `check --format json` writes them.
fn written_overrides(
    mut parts: Vec<Vec<Written>>,
    overrides: &HashMap<&str, Option<Severity>>,
) -> Vec<Vec<Written>> {
    if overrides.is_empty() {
        return parts;
    }
    for part in &mut parts {
        part.retain_mut(|f| match overrides.get(f.code) {
            None => true,
            Some(None) => false,
            Some(Some(sev)) => {
                f.severity = *sev;
                true
            }
        });
    }
    parts
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::HostKind;

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

    /// A check's JSON streamed (each file's chunks written as they fill when the file is next
    /// in path order: [`stream_batch`]) has the bytes of the same files' JSON held whole per
    /// file, and the sink is never given more than one chunk at a time: a file of 3,000
    /// calls (its JSON ~50 chunks) is never held whole, first or last in the batch.
    #[test]
    fn streams_each_file_with_the_bytes_held_whole() {
        use crate::cli::output::stream::Sink;
        let (k, _) = crate::knowledge::knowledge_for(Some("4.7.3"), None, None).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut big = String::new();
        for i in 0..3000 {
            big.push_str(&format!(
                "netbox_get_objects(\"dcim.devices\", {{\"nmae\": \"d{i}\", \"site_idd\": {i}, \"status\": \"active\"}})\n"
            ));
        }
        let small = "netbox_get_objects(\"dcim.sites\", {\"slgu\": \"a\"})\n";
        let files = [
            ("a.py", big.as_str()),
            ("b.py", small),
            ("c.py", "x = 1\n"),
            ("d.py", big.as_str()),
        ];
        let inputs: Vec<Input> = files
            .iter()
            .map(|(name, text)| {
                let path = dir.path().join(name);
                std::fs::write(&path, text).unwrap();
                Input {
                    path,
                    kind: crate::extract::HostKind::Python,
                    root: None,
                    linked: false,
                }
            })
            .collect();
        let overrides = HashMap::new();
        let how = How {
            knowledge: &k,
            overrides: &overrides,
            explain: true,
            baseline: None,
            update_baseline: false,
            live: false,
            json_direct: true,
            exit_follows: true,
        };
        let take = |one: OneFile, sink: &mut Option<Sink<Vec<u8>>>| {
            if let (Ok(Some(file)), Some(sink)) = (one.result, sink.as_mut()) {
                sink.add_rendered(file.rendered.unwrap_or_default(), file.skipped)?;
            }
            Ok(())
        };
        // Held whole: each file's JSON given at once.
        let mut held = Sink::new(Format::Json, Vec::new(), "").unwrap();
        for input in &inputs {
            let mut one = OneFile::default();
            one.result = check_file(input, &how, To::held(&mut one));
            let file = one.result.unwrap().unwrap();
            held.add_rendered(file.rendered.unwrap_or_default(), file.skipped)
                .unwrap();
        }
        assert!(held.most_chunks > 40, "{}", held.most_chunks);
        let (held, held_tally) = held.finish(Counts::default()).unwrap();
        // Streamed, in batches of 3 then 1 and of all 4.
        for size in [3, 4] {
            let mut sink = Some(Sink::new(Format::Json, Vec::new(), "").unwrap());
            let mut take = take;
            for (b, batch) in inputs.chunks(size).enumerate() {
                let last = (b + 1) * size >= inputs.len();
                stream_batch(batch, &how, last, &mut sink, &mut take).unwrap();
            }
            let sink = sink.unwrap();
            assert_eq!(sink.most_chunks, 1, "batches of {size}");
            let (out, tally) = sink.finish(Counts::default()).unwrap();
            assert_eq!(tally, held_tally);
            assert!(tally[0] > 6000, "{tally:?}");
            assert!(out == held, "batches of {size}");
        }
    }
}
