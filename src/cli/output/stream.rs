//! Findings written as they come: `check` hands over each batch of files' findings in path
//! order and the [`Sink`] writes them out, so its memory holds one batch, not the run
//! (100,000 files with findings: issue 23 §4). The bytes are those of rendering every finding
//! at once ([`render`] is this sink writing to memory).
//!
//! - text and JSON go straight to the writer; `check --format json` renders each file's
//!   findings on the thread that checks it and hands over its chunks as they fill
//!   ([`Sink::add_chunk`]) when the file is next in path order, so that no file's JSON is held
//!   whole (10.4 MB for 10,000 tool calls; [`Sink::add_rendered`] takes the rest);
//! - SARIF puts the run's `properties` (the counts of sites not checked, known only at the end)
//!   before its `results`, so the results are spooled, serialized, to an unnamed temporary file
//!   (removed by the system however the process ends) and the log is written at the end around
//!   them.
//!
//! With `--explain` the sites not checked come after every finding in JSON and SARIF: they are
//! held until the end (one small record per site).

use super::{color, github, gitlab, json, put, sarif, text, Located, Skipped};
use crate::cli::Format;
use crate::intent::Counts;
use std::io::{BufWriter, Seek, SeekFrom, Write};

/// Where findings are written as they come; see the module docs.
pub struct Sink<W: Write> {
    format: Format,
    out: W,
    tally: [usize; 4],
    skipped: Vec<Skipped>,
    /// Elements written so far (JSON array elements or SARIF results).
    written: usize,
    spool: Option<Spool>,
    /// Why the SARIF results are spooled in memory rather than to a temporary file (the
    /// temporary folder is unusable): for the caller to say on stderr.
    pub spool_note: Option<String>,
    /// SARIF rules the catalogue lacks, in order of first occurrence.
    extra_rules: Vec<&'static str>,
    /// The most findings one [`Sink::add`] was given (a test hook: memory holds one batch).
    pub most_held: usize,
    /// The most JSON chunks given at once ([`Sink::add_chunk`]: one; [`Sink::add_rendered`]:
    /// those of a file not drained as they filled). A test hook: a file streamed is never held
    /// whole.
    pub most_chunks: usize,
    /// The output's `[` was written before the first file's elements were counted (its
    /// first chunk came through [`Sink::add_chunk`]).
    opened: bool,
    /// Text in colour ([`color`]).
    color: bool,
    /// GitLab fingerprints given so far.
    fingerprints: gitlab::Fingerprints,
    /// Written batches being freed.
    freeing: Freeing,
    /// A batch's GitLab issues, written out every [`CHUNK`] bytes and at the end of the batch
    /// (one buffer for the run, not one per finding).
    buf: Vec<u8>,
    /// A batch's JSON elements or SARIF results, as `buf` ([`put::Room`]).
    room: put::Room,
    /// The last file's path as a JSON string.
    paths: json::PathLiteral,
    /// The last file's SARIF URI.
    uris: sarif::Uris,
    /// SARIF rule indexes by code.
    rule_indexes: sarif::RuleIndexes,
}

/// How many bytes of a batch [`Sink::add`] gathers before writing them.
const CHUNK: usize = 1 << 16;

/// Written batches being freed on the pool's threads ([`Freeing::free`]), waited for at the
/// end of the run ([`Sink::finish`]), so that every free is done before the process exits.
#[derive(Default)]
struct Freeing(std::sync::Arc<(std::sync::Mutex<usize>, std::sync::Condvar)>);

impl Freeing {
    /// Frees a written batch on a worker thread of the pool that checked it, beside the
    /// writing. Its strings and vectors were allocated there: freed on the writing thread, each
    /// one took the allocator's cross-thread path (~106 instructions a free, 5.9 M of a check
    /// of 10,000 calls for its 14,324 findings on one thread), and held up the output.
    fn free(&self, found: Vec<Located>) {
        // On a pool thread already (a sink used inside the pool): freed here, for a wait on a
        // one-thread pool would never see its job run.
        if found.is_empty() || rayon::current_thread_index().is_some() {
            return;
        }
        let pending = self.0.clone();
        *pending.0.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        rayon::spawn(move || {
            drop(found);
            let (count, done) = &*pending;
            *count.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
            done.notify_all();
        });
    }

    /// Waits until every batch given to [`Freeing::free`] is freed.
    fn wait(&self) {
        let (count, done) = &*self.0;
        let mut n = count.lock().unwrap_or_else(|e| e.into_inner());
        while *n > 0 {
            n = done.wait(n).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// A sink given up on (a write failed) waits for its batches too.
impl Drop for Freeing {
    fn drop(&mut self) {
        self.wait();
    }
}

/// Writes `v` pretty-printed with every line indented by `indent` spaces (its first line too),
/// as it would stand inside a pretty-printed container; JSON strings hold no raw newline, so
/// lines are the printer's own.
fn write_indented(
    out: &mut impl Write,
    v: &serde_json::Value,
    indent: usize,
) -> std::io::Result<()> {
    let s = serde_json::to_string_pretty(v).map_err(std::io::Error::other)?;
    let pad = " ".repeat(indent);
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
        }
        out.write_all(pad.as_bytes())?;
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Where SARIF results wait for the end of the run: an unnamed temporary file, or memory when
/// none can be made (or when the whole output goes to memory anyway).
enum Spool {
    File(BufWriter<std::fs::File>),
    Memory(Vec<u8>),
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Spool::File(f) => f.write(buf),
            Spool::Memory(m) => m.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Spool::File(f) => f.flush(),
            Spool::Memory(_) => Ok(()),
        }
    }
}

impl Spool {
    /// A temporary file in the system's temporary folder, else memory with the reason: a
    /// `TMPDIR` that does not exist or cannot be written must not cost the output (an empty
    /// SARIF log and exit 2 before), and the message names it.
    fn new() -> (Spool, Option<String>) {
        match tempfile::tempfile() {
            Ok(f) => (Spool::File(BufWriter::new(f)), None),
            Err(e) => {
                let dir = std::env::temp_dir();
                let named = if std::env::var_os("TMPDIR").is_some() {
                    "TMPDIR="
                } else {
                    "the temporary folder "
                };
                (
                    Spool::Memory(Vec::new()),
                    Some(format!(
                        "cannot create a temporary file in {named}{} ({e}); the SARIF results are held in memory until the end of the run",
                        dir.display()
                    )),
                )
            }
        }
    }

    /// Copies what was spooled to `out`.
    fn copy_to(self, out: &mut impl Write) -> std::io::Result<()> {
        match self {
            Spool::File(f) => {
                let mut file = f.into_inner().map_err(|e| e.into_error())?;
                file.seek(SeekFrom::Start(0))?;
                std::io::copy(&mut file, out)?;
                Ok(())
            }
            Spool::Memory(m) => out.write_all(&m),
        }
    }
}

/// Depth of a SARIF result in the log (`runs[0].results[i]`), in spaces.
const SARIF_RESULT_INDENT: usize = 8;

impl<W: Write> Sink<W> {
    /// A sink writing `format` to `out`; text output starts with `head` (what `--fix`
    /// changed). SARIF opens its spool here (an I/O error if no temporary file can be made).
    pub fn new(format: Format, out: W, head: &str) -> std::io::Result<Sink<W>> {
        Sink::with_spool(format, out, head, false)
    }

    /// [`Sink::new`] whose SARIF results wait in memory (for output rendered to memory).
    pub fn in_memory(format: Format, out: W, head: &str) -> std::io::Result<Sink<W>> {
        Sink::with_spool(format, out, head, true)
    }

    fn with_spool(
        format: Format,
        mut out: W,
        head: &str,
        memory: bool,
    ) -> std::io::Result<Sink<W>> {
        let mut spool_note = None;
        let spool = match format {
            Format::Sarif if memory => Some(Spool::Memory(Vec::new())),
            Format::Sarif => {
                let (spool, note) = Spool::new();
                spool_note = note;
                Some(spool)
            }
            Format::Text => {
                out.write_all(head.as_bytes())?;
                None
            }
            Format::Json | Format::Github | Format::Gitlab => None,
        };
        Ok(Sink {
            format,
            out,
            tally: [0; 4],
            skipped: Vec::new(),
            written: 0,
            spool,
            spool_note,
            extra_rules: Vec::new(),
            most_held: 0,
            most_chunks: 0,
            opened: false,
            color: false,
            fingerprints: gitlab::Fingerprints::default(),
            freeing: Freeing::default(),
            buf: Vec::new(),
            room: put::Room::default(),
            paths: json::PathLiteral::default(),
            uris: sarif::Uris::default(),
            rule_indexes: sarif::RuleIndexes::default(),
        })
    }

    /// The same sink, writing the text output in colour when `color` ([`color`]).
    pub fn with_color(mut self, color: bool) -> Sink<W> {
        self.color = color;
        self
    }

    /// Writes one batch of findings (files in path order) and holds its sites not checked.
    pub fn add(&mut self, found: Vec<Located>, skipped: Vec<Skipped>) -> std::io::Result<()> {
        self.most_held = self.most_held.max(found.len());
        for f in &found {
            self.tally[f.severity as usize] += 1;
        }
        self.skipped.extend(skipped);
        match self.format {
            Format::Text if self.color => self.out.write_all(color::render(&found).as_bytes())?,
            Format::Text => self.out.write_all(text::render(&found).as_bytes())?,
            Format::Github => self.out.write_all(github::render(&found).as_bytes())?,
            Format::Json => json::push_findings(
                &mut self.room,
                &found,
                &mut self.paths,
                &mut self.written,
                CHUNK,
                &mut self.out,
            )?,
            Format::Gitlab => {
                let b = &mut self.buf;
                for f in &found {
                    let fingerprint = self.fingerprints.hex(f);
                    b.extend_from_slice(if self.written == 0 { b"[\n" } else { b",\n" });
                    self.written += 1;
                    gitlab::push_issue(b, f, &fingerprint);
                    if b.len() >= CHUNK {
                        self.out.write_all(b)?;
                        b.clear();
                    }
                }
                self.out.write_all(b)?;
                b.clear();
            }
            Format::Sarif => {
                let spool = self.spool.as_mut().expect("a SARIF sink has a spool");
                let room = &mut self.room;
                for f in &found {
                    let index = self.rule_indexes.of(f.code, &mut self.extra_rules);
                    room.put(2)
                        .bytes(if self.written == 0 { b"\n" } else { b",\n" });
                    sarif::push_result(room, f, index, &mut self.uris)?;
                    self.written += 1;
                    if room.len() >= CHUNK {
                        spool.write_all(room.bytes())?;
                        room.clear();
                    }
                }
                spool.write_all(room.bytes())?;
                room.clear();
            }
        }
        self.freeing.free(found);
        Ok(())
    }

    /// Writes one file's findings rendered as JSON elements on the thread that checked it
    /// ([`json::locate_json`]: `--format json` only) and holds its sites not checked: the
    /// bytes of [`Sink::add`] of the same findings located. `rendered.chunks` are what is left
    /// of the file after the chunks given to [`Sink::add_chunk`] as they filled (all of them
    /// when none were); `rendered.count` and `tally` count the whole file.
    pub fn add_rendered(
        &mut self,
        rendered: json::Rendered,
        skipped: Vec<Skipped>,
    ) -> std::io::Result<()> {
        debug_assert_eq!(self.format, Format::Json);
        self.most_held = self.most_held.max(rendered.count);
        self.most_chunks = self.most_chunks.max(rendered.chunks.len());
        for (t, n) in self.tally.iter_mut().zip(rendered.tally) {
            *t += n;
        }
        self.skipped.extend(skipped);
        for chunk in &rendered.chunks {
            self.put_chunk(chunk)?;
        }
        self.written += rendered.count;
        Ok(())
    }

    /// Writes one full chunk of JSON elements of the file being written ([`json::locate_json`]
    /// with a drain), before the rest of the file comes with [`Sink::add_rendered`], which
    /// counts it.
    pub fn add_chunk(&mut self, chunk: &[u8]) -> std::io::Result<()> {
        debug_assert_eq!(self.format, Format::Json);
        self.most_chunks = self.most_chunks.max(1);
        self.put_chunk(chunk)
    }

    /// Writes a chunk of JSON elements, each after `,` and a new line: the output's first
    /// after `[` instead.
    fn put_chunk(&mut self, chunk: &[u8]) -> std::io::Result<()> {
        if self.written == 0 && !self.opened && !chunk.is_empty() {
            self.opened = true;
            self.out.write_all(b"[")?;
            self.out.write_all(&chunk[1..])
        } else {
            self.out.write_all(chunk)
        }
    }

    /// Flushes what [`Sink::add`] wrote to the writer (SARIF results wait in the spool).
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }

    /// What comes before an element of the JSON array (`[` or `,`, a new line), counted.
    fn open_element(&mut self) -> std::io::Result<()> {
        self.out
            .write_all(if self.written == 0 { b"[\n" } else { b",\n" })?;
        self.written += 1;
        Ok(())
    }

    /// Writes the sites not checked and the end of the output (SARIF: the whole log, with the
    /// counts `not_checked`), flushes, and gives back the writer and the findings' counts by
    /// severity (`[errors, warnings, information, hints]`).
    pub fn finish(mut self, not_checked: Counts) -> std::io::Result<(W, [usize; 4])> {
        self.freeing.wait();
        let skipped = std::mem::take(&mut self.skipped);
        match self.format {
            Format::Text if self.color => self
                .out
                .write_all(color::render_skipped(&skipped).as_bytes())?,
            Format::Text => self
                .out
                .write_all(text::render_skipped(&skipped).as_bytes())?,
            // Annotations and code quality issues are findings only.
            Format::Github => {}
            Format::Json | Format::Gitlab => {
                if self.format == Format::Json {
                    for s in &skipped {
                        self.open_element()?;
                        json::write_skipped(&mut self.out, s)?;
                    }
                }
                self.out
                    .write_all(if self.written == 0 { b"[]\n" } else { b"\n]\n" })?;
            }
            Format::Sarif => {
                let index = sarif::CODES_LEN + self.extra_rules.len();
                let mut spool = self.spool.take().expect("a SARIF sink has a spool");
                for s in &skipped {
                    spool.write_all(if self.written == 0 { b"\n" } else { b",\n" })?;
                    write_indented(
                        &mut spool,
                        &sarif::skipped_result(s, index),
                        SARIF_RESULT_INDENT,
                    )?;
                    self.written += 1;
                }
                let log = sarif::log(
                    &self.extra_rules,
                    !skipped.is_empty(),
                    not_checked,
                    Vec::new(),
                );
                let mut whole =
                    serde_json::to_string_pretty(&log).map_err(std::io::Error::other)?;
                whole.push('\n');
                // The empty `results` array is the one place the spooled results go; any
                // other `"results": []` would be inside a string, where quotes are escaped.
                let at = whole
                    .find("\"results\": []")
                    .map(|i| i + "\"results\": [".len())
                    .ok_or_else(|| std::io::Error::other("SARIF log without results"))?;
                self.out.write_all(&whole.as_bytes()[..at])?;
                if self.written > 0 {
                    spool.copy_to(&mut self.out)?;
                    self.out.write_all(b"\n")?;
                    self.out
                        .write_all(" ".repeat(SARIF_RESULT_INDENT - 2).as_bytes())?;
                }
                self.out.write_all(&whole.as_bytes()[at..])?;
            }
        }
        self.out.flush()?;
        Ok((self.out, self.tally))
    }
}

/// The whole output of `findings` and `skipped` in `format` at once (the sink writing to
/// memory): for runs that gather every finding first (`--live`, `--upgrade-to`).
pub fn render(
    format: Format,
    color: bool,
    findings: &[Located],
    skipped: &[Skipped],
    not_checked: Counts,
) -> String {
    let run = || -> std::io::Result<Vec<u8>> {
        let mut sink = Sink::new(format, Vec::new(), "")?.with_color(color);
        sink.add(findings.to_vec(), skipped.to_vec())?;
        Ok(sink.finish(not_checked)?.0)
    };
    run().map_or_else(
        |e| format!("netbox-lsp: cannot render the findings: {e}\n"),
        |out| String::from_utf8_lossy(&out).into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::HostKind;
    use crate::lines::LineIndex;
    use serde_json::Value;

    /// 2,000 generated files with findings (and a site not checked each), in batches of 500:
    /// each batch is on the writer before the next is given (JSON; text the same way), the
    /// sink never holds more than one batch, and the bytes equal the whole output rendered at
    /// once as before streaming (one pretty-printed array; one SARIF log value).
    #[test]
    fn writes_each_batch_before_the_next_with_the_same_bytes() {
        let (k, _) = crate::knowledge::knowledge_for(Some("4.7.3"), None, None).unwrap();
        let mut all = Vec::new();
        let mut all_skipped = Vec::new();
        let mut counts = Counts::default();
        let mut batches = Vec::new();
        for b in 0..4 {
            let mut found = Vec::new();
            let mut held = Vec::new();
            for i in 0..500 {
                let text = format!(
                    "# Skill {b}.{i}\n\nCall `/api/dcim/devices/?device_role_id={i}&site_id__in=1`.\n\nNever use `/api/dcim/devices/?x=1`.\n"
                );
                let report = crate::analysis::analyze_report(&text, HostKind::Markdown, &k, None);
                counts.add(report.found.not_checked);
                let lines = LineIndex::new(&text);
                let path = format!("d/s{b}-{i:03}.md");
                found.extend(super::super::locate(&path, &text, &lines, report.findings));
                held.extend(super::super::locate_skipped(
                    &path,
                    &text,
                    &lines,
                    &report.not_checked,
                ));
            }
            all.extend(found.clone());
            all_skipped.extend(held.clone());
            batches.push((found, held));
        }
        assert_eq!(all.len(), 4000);
        assert_eq!(all_skipped.len(), 2000);

        for format in [
            Format::Text,
            Format::Json,
            Format::Sarif,
            Format::Github,
            Format::Gitlab,
        ] {
            let mut sink = Sink::new(format, Vec::new(), "").unwrap();
            let mut sizes = Vec::new();
            for (found, held) in batches.clone() {
                sink.add(found, held).unwrap();
                sizes.push(sink.out.len());
            }
            assert_eq!(sink.most_held, 1000, "{format:?}: one batch at a time");
            if format != Format::Sarif {
                assert!(
                    sizes.windows(2).all(|w| w[0] > 0 && w[1] > w[0]),
                    "{format:?}: each batch is written when given: {sizes:?}"
                );
            }
            let (out, tally) = sink.finish(counts).unwrap();
            assert_eq!(tally, [4000, 0, 0, 0]);
            let expected = match format {
                Format::Text => text::render(&all) + &text::render_skipped(&all_skipped),
                Format::Json => {
                    let arr = Value::Array(
                        all.iter()
                            .map(json::finding)
                            .chain(all_skipped.iter().map(json::skipped))
                            .collect(),
                    );
                    serde_json::to_string_pretty(&arr).unwrap() + "\n"
                }
                Format::Sarif => {
                    let mut extra = Vec::new();
                    let mut results: Vec<Value> = all
                        .iter()
                        .map(|f| sarif::result(f, sarif::rule_index(f.code, &mut extra)))
                        .collect();
                    let index = sarif::CODES_LEN + extra.len();
                    results.extend(all_skipped.iter().map(|s| sarif::skipped_result(s, index)));
                    let log = sarif::log(&extra, true, counts, results);
                    serde_json::to_string_pretty(&log).unwrap() + "\n"
                }
                Format::Github => github::render(&all),
                Format::Gitlab => {
                    let mut prints = gitlab::Fingerprints::default();
                    let arr =
                        Value::Array(all.iter().map(|f| gitlab::issue(f, prints.of(f))).collect());
                    serde_json::to_string_pretty(&arr).unwrap() + "\n"
                }
            };
            assert!(String::from_utf8(out).unwrap() == expected, "{format:?}");
        }
        // Nothing at all: the empty forms.
        let (out, _) = Sink::new(Format::Json, Vec::new(), "")
            .unwrap()
            .finish(Counts::default())
            .unwrap();
        assert_eq!(out, b"[]\n");
        let (out, _) = Sink::new(Format::Sarif, Vec::new(), "")
            .unwrap()
            .finish(Counts::default())
            .unwrap();
        let log = sarif::log(&[], false, Counts::default(), Vec::new());
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string_pretty(&log).unwrap() + "\n"
        );
    }
}
