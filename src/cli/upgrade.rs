//! `netbox-lsp check --upgrade-to VERSION`: upgrade readiness of files and folders. Every file is
//! checked against the current release (`--netbox-version`, `--index`, the settings file's, or
//! the default) and the shipped target release, and only what changes is reported
//! ([`crate::upgrade`]): `upgrade-breaks` and `upgrade-changes` findings in the formats of
//! `check`, then a summary per file and per kind on stderr. Exit code: 1 if any finding is an
//! error (something breaks), 2 on usage or I/O errors, 0 otherwise. With `--fix` / `--diff`
//! the certain fixes of these findings — the form that works on both releases — are applied
//! first (or shown), as `check --fix` applies the plain check's.

use super::fix_all::{fix_all, FixOutput};
use super::input::{read_regular, say_empty_folder, say_unused_excludes, text_noting};
use super::output::{self, Located};
use super::paths::display_path;
use super::settings::{apply_overrides, use_color};
use super::walk::{self, Input};
use super::{CheckArgs, Format};
use crate::analysis::analyze;
use crate::analysis::Knowledge;
use crate::finding::Severity;
use crate::index::embedded;
use crate::knowledge::knowledge_for;
use crate::lines::LineIndex;
use crate::upgrade::{self, announced, Change, Kind};
use crate::version::Version;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;

/// Runs upgrade readiness for `args` (settings file already applied) towards `target`.
pub fn run(args: &CheckArgs, target: &str) -> i32 {
    let (current, notes) = match knowledge_for(
        args.netbox_version.as_deref(),
        args.index.as_deref(),
        args.graphql_schema.as_deref(),
    ) {
        Ok(k) => k,
        Err(e) => {
            super::say::error(e);
            return 2;
        }
    };
    let (next, next_notes) = match target_knowledge(target) {
        Ok(k) => k,
        Err(e) => {
            super::say::error(format!("--upgrade-to: {e}"));
            return 2;
        }
    };
    let (from, shipped_to) = (upgrade::release_of(&current), upgrade::release_of(&next));
    // A target past every shipped release (`5.0`): what the shipped release's notes announce
    // for it is added on top of the closest shipped one, as expected, not measured.
    let beyond =
        Version::parse(target).is_some_and(|t| Version::parse(&shipped_to).is_some_and(|s| t > s));
    let to = if beyond {
        target.trim().to_string()
    } else {
        shipped_to.clone()
    };
    if !newer(&to, &from) {
        super::say::error(format!(
            "--upgrade-to {target}: NetBox {to} is not newer than the current release {from} (set the current one with --netbox-version)"
        ));
        return 2;
    }
    if args.statistics || args.baseline.is_some() || args.live.live {
        super::say::error("--upgrade-to does not go with --statistics, --baseline or --live");
        return 2;
    }
    let measured = newer(&shipped_to, &from);
    let forecast = if beyond {
        let (base, base_version) = if measured {
            (&next, shipped_to.as_str())
        } else {
            (&current, from.as_str())
        };
        announced::forecast(base, base_version, &to)
    } else {
        None
    };
    for note in notes.iter().chain(&next_notes) {
        super::say::note(note);
    }
    super::say::note(format!("upgrade readiness from NetBox {from} to {to}: only calls whose verdict differs are reported"));
    if let Some(f) = &forecast {
        super::say::note(format!(
            "NetBox {to} is not shipped: the {} removals that the release notes up to {} announce for it are reported as expected (upgrade-announced), not measured",
            f.announcements.len(),
            f.from
        ));
    }
    let step = Step {
        measured,
        forecast: forecast.as_ref(),
    };

    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let walk::Collected {
        inputs,
        problems,
        notes,
        empty_folders,
        unused_excludes,
    } = match walk::collect(&paths, &args.exclude) {
        Ok(found) => found,
        Err(e) => {
            super::say::error(e);
            return 2;
        }
    };
    let mut io_failed = !problems.is_empty();
    for p in problems {
        super::say::error(p);
    }
    for n in notes {
        super::say::note(n);
    }
    for dir in empty_folders {
        say_empty_folder(&dir);
    }
    say_unused_excludes(&unused_excludes);
    let overrides = match super::settings::overrides(args) {
        Ok(o) => o,
        Err(e) => {
            super::say::error(e);
            return 2;
        }
    };
    // `--fix` / `--diff`: the upgrade findings' certain fixes, file after file, before the
    // comparison below reads the fixed files.
    let mut fixes = FixOutput::default();
    if args.fix {
        super::interrupt::install();
    }
    if args.fix || args.diff {
        fix_all(
            &inputs,
            &|input, text| upgrade_plan(text, input.kind, &current, &next, &overrides),
            args.fix,
            &mut fixes,
        );
    }
    let results: Vec<(String, FileChanges, Vec<String>)> = inputs
        .par_iter()
        .map(|input| {
            let mut notes = Vec::new();
            let r = check_file(input, &current, &next, &step, &overrides, &mut notes);
            (display_path(&input.path), r, notes)
        })
        .collect();

    let mut located = Vec::new();
    let mut per_file: BTreeMap<String, BTreeMap<Kind, usize>> = BTreeMap::new();
    let mut checked = 0usize;
    for (shown, result, notes) in results {
        for note in notes {
            super::say::note(note);
        }
        match result {
            Ok(Some(found)) => {
                checked += 1;
                for (l, kind) in found {
                    *per_file
                        .entry(shown.clone())
                        .or_default()
                        .entry(kind)
                        .or_default() += 1;
                    located.push(l);
                }
            }
            Ok(None) => {}
            Err(e) => {
                super::say::error(e);
                io_failed = true;
            }
        }
    }
    let rendered = if args.diff {
        // Only the diff on stdout, so that it can be piped to `git apply`.
        std::mem::take(&mut fixes.diff)
    } else {
        let color = use_color(args);
        let found = output::stream::render(args.format, color, &located, &[], Default::default());
        if args.format == Format::Text {
            std::mem::take(&mut fixes.changed) + &found
        } else {
            eprint!("{}", fixes.changed);
            found
        }
    };
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(rendered.as_bytes())
        .and_then(|_| stdout.flush())
    {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("netbox-lsp: error: writing the output: {e}");
        }
        return 2;
    }
    if args.fix || args.diff {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        super::say::summary(format!(
            "{} {} to the form that works on both releases in {}{}",
            if args.fix { "fixed" } else { "would fix" },
            plural(fixes.count, "call", "calls"),
            plural(fixes.files, "file", "files"),
            if args.fix { "; left:" } else { "" }
        ));
    }
    if !super::say::quiet() {
        eprint!("{}", summary(&from, &to, &per_file, checked));
    }
    if io_failed || fixes.failed {
        2
    } else if !args.exit_zero && located.iter().any(|f| f.severity == Severity::Error) {
        1
    } else {
        0
    }
}

/// The fix-all plan of upgrade readiness: each round compares `text` on both releases and
/// takes the certain fixes of the findings left after `overrides`.
fn upgrade_plan(
    text: &str,
    kind: crate::extract::HostKind,
    current: &Knowledge,
    next: &Knowledge,
    overrides: &HashMap<&str, Option<Severity>>,
) -> super::fix::Planned {
    super::fix::plan_with(text, &|t: &str| {
        let found = upgrade::compare(t, kind, current, next)
            .into_iter()
            .map(|c| c.finding)
            .collect();
        apply_overrides(found, overrides)
    })
}

/// The shipped knowledge of the target release (the closest shipped one, with a note, for a
/// release that is not shipped).
pub(crate) fn target_knowledge(target: &str) -> Result<(Knowledge, Vec<String>), String> {
    let sel = embedded::select(Some(target))?;
    knowledge_for(Some(sel.version), None, None).map(|(k, mut notes)| {
        if let Some(note) = sel.note {
            notes.insert(0, note);
        }
        (k, notes)
    })
}

/// True when release `a` is newer than `b` (both `X.Y.Z`); true when `b` is not a version (an
/// index without one: the comparison cannot refuse it).
pub(crate) fn newer(a: &str, b: &str) -> bool {
    match (Version::parse(a), Version::parse(b)) {
        (Some(a), Some(b)) => a > b,
        _ => true,
    }
}

/// What is compared: the shipped target when it is newer than the current release
/// (`measured`), and the removals announced for a target past the shipped ones.
struct Step<'a> {
    measured: bool,
    forecast: Option<&'a announced::Forecast>,
}

/// What [`check_file`] gives for one file: its changes with their kinds, `Ok(None)` for a
/// skipped (binary or too large) file, or a one-line error naming the file.
type FileChanges = Result<Option<Vec<(Located, Kind)>>, String>;

/// Reads one file and compares it on both releases. `Ok(None)` for a skipped (binary or too
/// large) file.
fn check_file(
    input: &Input,
    current: &Knowledge,
    next: &Knowledge,
    step: &Step,
    overrides: &HashMap<&str, Option<Severity>>,
    notes: &mut Vec<String>,
) -> FileChanges {
    let shown = display_path(&input.path);
    let Some(bytes) = read_regular(&input.path, &shown, input.read_without_following(), notes)?
    else {
        return Ok(None);
    };
    let Some(text) = text_noting(&shown, &bytes, notes) else {
        return Ok(None);
    };
    let changes: Vec<Change> = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let now = analyze(&text, input.kind, current);
        // The target's analysis, once: the comparison and the forecast both read it.
        let then = step.measured.then(|| analyze(&text, input.kind, next));
        let mut out = match &then {
            Some(then) => upgrade::compare_both(&text, input.kind, &now, then, current, next),
            None => Vec::new(),
        };
        if let Some(f) = step.forecast {
            let base = then.as_deref().unwrap_or(&now);
            out.extend(announced::changes(&text, input.kind, base, &now, f));
            out.sort_by_key(|c| c.finding.sort_key());
        }
        out
    }))
    .map_err(|_| format!("{shown}: internal error while checking this file (please report it)"))?;
    let (findings, kinds): (Vec<_>, Vec<_>) =
        changes.into_iter().map(|c| (c.finding, c.kind)).unzip();
    // Severity overrides may drop findings: keep each kind with its finding.
    let mut kept = Vec::new();
    for (f, kind) in findings.into_iter().zip(kinds) {
        if let Some(f) = apply_overrides(vec![f], overrides).pop() {
            kept.push((f, kind));
        }
    }
    if kept.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let lines = LineIndex::new(&text);
    let (findings, kinds): (Vec<_>, Vec<_>) = kept.into_iter().unzip();
    let mut located = output::locate(&shown, &text, &lines, findings);
    output::set_path_bytes(
        super::paths::path_bytes(&input.path).as_ref(),
        &mut located,
        &mut [],
    );
    Ok(Some(located.into_iter().zip(kinds).collect()))
}

/// The stderr summary: one line per file with its counts per kind, then the totals.
fn summary(
    from: &str,
    to: &str,
    per_file: &BTreeMap<String, BTreeMap<Kind, usize>>,
    checked: usize,
) -> String {
    let counts = |m: &BTreeMap<Kind, usize>| -> String {
        Kind::ALL
            .iter()
            .filter_map(|k| m.get(k).map(|n| format!("{n} {}", k.as_str())))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = String::new();
    let mut total: BTreeMap<Kind, usize> = BTreeMap::new();
    for (path, kinds) in per_file {
        out.push_str(&format!(
            "{}: {}\n",
            super::output::escape::text(path),
            counts(kinds)
        ));
        for (k, n) in kinds {
            *total.entry(*k).or_default() += n;
        }
    }
    let of_code = |code: &str| -> usize {
        total
            .iter()
            .filter(|(k, _)| k.code() == code)
            .map(|(_, n)| n)
            .sum()
    };
    let breaks = of_code(upgrade::BREAKS);
    let expected = of_code(upgrade::ANNOUNCED);
    let changes: usize = total.values().sum::<usize>() - breaks - expected;
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let expected = if expected == 0 {
        String::new()
    } else {
        format!(
            ", {} as announced (not measured)",
            plural(
                expected,
                "call is expected to break",
                "calls are expected to break"
            )
        )
    };
    out.push_str(&format!(
        "NetBox {from} → {to}: {}{expected} and {} in {} of {}{}\n",
        plural(breaks, "call breaks", "calls break"),
        plural(changes, "change", "changes"),
        plural(per_file.len(), "file", "files"),
        plural(checked, "file checked", "files checked"),
        if total.is_empty() {
            String::new()
        } else {
            format!(" ({})", counts(&total))
        }
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_per_file_and_kind() {
        let mut per_file = BTreeMap::new();
        per_file.insert(
            "a.md".to_string(),
            BTreeMap::from([(Kind::RemovedFilter, 2), (Kind::NoOp, 1)]),
        );
        per_file.insert(
            "b.py".to_string(),
            BTreeMap::from([(Kind::StartsToWork, 1)]),
        );
        assert_eq!(
            summary("4.6.8", "4.7.3", &per_file, 3),
            "a.md: 2 removed-filter, 1 no-op\nb.py: 1 starts-to-work\n\
             NetBox 4.6.8 → 4.7.3: 2 calls break and 2 changes in 2 files of 3 files checked (2 removed-filter, 1 no-op, 1 starts-to-work)\n"
        );
        assert!(newer("4.7.3", "4.6.8") && !newer("4.6.8", "4.6.8") && !newer("4.5.10", "4.6.8"));
    }
}
