//! The public-code corpus (issue 30): files of code that build NetBox calls (MCP servers, API
//! wrappers, inventory scripts, Nornir tasks, a Django helper, Ansible tasks), each restated from
//! a public repository under `tests/fixtures/corpus-code/` (`sources.tsv`: repository, path,
//! commit, and the NetBox release the file is judged against), with hand labels of every call it
//! sends (`labels.tsv`), judged against NetBox itself rather than against this tool.
//!
//! The test runs the real `check` on every file with its release, compares the errors and
//! warnings (information and hints are advice, not claims that NetBox misbehaves) with the labels,
//! and prints a table per file: true positives (`found`), false positives (`false`), misses
//! (`miss`), precision and recall. It fails on every disagreement, so the figures can only move
//! with a label edit in the same change: a `found` or `false` label no longer reported, a `miss`
//! or `quiet` line now reported, or a finding on a line no label names. See the table with
//! `cargo test --release --test suite corpus_code:: -- --nocapture`.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_netbox-lsp");

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus-code")
}

/// One row of `sources.tsv`.
struct Source {
    file: String,
    release: String,
    repository: String,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Status {
    /// A wrong call reported on its line with its code.
    Found,
    /// A wrong call not reported today.
    Miss,
    /// A valid call, or text not sent to NetBox: nothing may be reported on the line.
    Quiet,
    /// A valid call or unsent text that is reported today.
    False,
}

/// One row of `labels.tsv`.
struct Label {
    file: String,
    line: u64,
    /// The acceptable codes (`a|b`); empty for a quiet row.
    codes: Vec<String>,
    status: Status,
}

/// The data rows of a tab-separated file: no blank lines, no `#` comments.
fn rows(name: &str) -> Vec<(usize, Vec<String>)> {
    let path = folder().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| (i + 1, l.split('\t').map(str::to_string).collect()))
        .collect()
}

fn sources() -> Vec<Source> {
    rows("sources.tsv")
        .into_iter()
        .map(|(n, cols)| {
            assert_eq!(
                cols.len(),
                5,
                "sources.tsv:{n}: file, release, repository, path, commit"
            );
            assert!(
                cols[4].len() == 40 && cols[4].bytes().all(|b| b.is_ascii_hexdigit()),
                "sources.tsv:{n}: a full commit id"
            );
            Source {
                file: cols[0].clone(),
                release: cols[1].clone(),
                repository: cols[2].clone(),
            }
        })
        .collect()
}

fn labels() -> Vec<Label> {
    rows("labels.tsv")
        .into_iter()
        .map(|(n, cols)| {
            assert_eq!(
                cols.len(),
                5,
                "labels.tsv:{n}: file, line, code, status, reason"
            );
            let status = match cols[3].as_str() {
                "found" => Status::Found,
                "miss" => Status::Miss,
                "quiet" => Status::Quiet,
                "false" => Status::False,
                other => panic!("labels.tsv:{n}: unknown status `{other}`"),
            };
            let codes: Vec<String> = match cols[2].as_str() {
                "-" => Vec::new(),
                c => c.split('|').map(str::to_string).collect(),
            };
            assert_eq!(
                codes.is_empty(),
                status == Status::Quiet,
                "labels.tsv:{n}: a quiet row has the code `-`, any other row a code"
            );
            assert!(!cols[4].trim().is_empty(), "labels.tsv:{n}: a reason");
            Label {
                file: cols[0].clone(),
                line: cols[1]
                    .parse()
                    .unwrap_or_else(|_| panic!("labels.tsv:{n}: a line number")),
                codes,
                status,
            }
        })
        .collect()
}

/// `(file, 1-based line, code)` of every error and warning `check` gives on `files` with the
/// embedded knowledge of `release`, run in the fixture folder so paths are the file names.
fn findings(release: &str, files: &[&str]) -> BTreeSet<(String, u64, String)> {
    let out = Command::new(BIN)
        .args(["check", "--format", "json", "--netbox-version", release])
        .args(files)
        .current_dir(folder())
        .output()
        .expect("run netbox-lsp");
    let code = out.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 1,
        "check exited {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all: Value = serde_json::from_slice(&out.stdout).expect("check --format json prints JSON");
    all.as_array()
        .expect("a JSON array")
        .iter()
        .filter(|f| matches!(f["severity"].as_str(), Some("error" | "warning")))
        .map(|f| {
            (
                f["path"].as_str().expect("a path").to_string(),
                f["range"]["start"]["line"].as_u64().expect("a line") + 1,
                f["code"].as_str().expect("a code").to_string(),
            )
        })
        .collect()
}

fn ratio(num: usize, den: usize) -> String {
    if den == 0 {
        "n/a".to_string()
    } else {
        format!("{:.0}%", 100.0 * num as f64 / den as f64)
    }
}

#[test]
fn sources_and_labels_cover_the_folder() {
    let sources = sources();
    let labels = labels();
    let listed: BTreeSet<&str> = sources.iter().map(|s| s.file.as_str()).collect();
    assert_eq!(
        listed.len(),
        sources.len(),
        "a file listed twice in sources.tsv"
    );
    assert!(sources.len() >= 20, "at least twenty files");
    let on_disk: BTreeSet<String> = std::fs::read_dir(folder())
        .expect("the fixture folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| !n.ends_with(".tsv"))
        .collect();
    let listed_owned: BTreeSet<String> = listed.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        on_disk, listed_owned,
        "every fixture in sources.tsv and nothing else"
    );
    let mut keys = BTreeSet::new();
    for l in &labels {
        assert!(
            listed.contains(l.file.as_str()),
            "{} is not in sources.tsv",
            l.file
        );
        let text = std::fs::read_to_string(folder().join(&l.file)).expect("the fixture");
        assert!(
            l.line >= 1 && l.line as usize <= text.lines().count(),
            "{}:{} is not a line of the file",
            l.file,
            l.line
        );
        for c in l
            .codes
            .iter()
            .map(String::as_str)
            .chain(l.codes.is_empty().then_some("-"))
        {
            assert!(
                keys.insert((l.file.clone(), l.line, c.to_string())),
                "{}:{} `{c}` is labelled twice",
                l.file,
                l.line
            );
        }
    }
    for s in &sources {
        assert!(
            labels.iter().any(|l| l.file == s.file),
            "{} has no label",
            s.file
        );
    }
}

#[test]
fn check_agrees_with_the_hand_labels() {
    let sources = sources();
    let labels = labels();
    let mut by_release: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for s in &sources {
        by_release.entry(&s.release).or_default().push(&s.file);
    }
    let mut reported = BTreeSet::new();
    for (release, files) in &by_release {
        reported.extend(findings(release, files));
    }

    let mut problems = Vec::new();
    // Every finding needs a `found` or `false` label with its code on its line.
    for (file, line, code) in &reported {
        let here: Vec<&Label> = labels
            .iter()
            .filter(|l| &l.file == file && l.line == *line)
            .collect();
        let with_code = here.iter().find(|l| l.codes.contains(code));
        match with_code.map(|l| l.status) {
            Some(Status::Found | Status::False) => {}
            Some(Status::Miss) => problems.push(format!(
                "{file}:{line}: `{code}` is now reported: flip its label from miss to found"
            )),
            _ if here.iter().any(|l| l.status == Status::Quiet) => problems.push(format!(
                "{file}:{line}: `{code}` is reported on a quiet line: a false finding (label it \
                 `false` only if it cannot be avoided)"
            )),
            _ => problems.push(format!(
                "{file}:{line}: `{code}` is reported but no label names it: judge it against NetBox \
                 and add a row to labels.tsv"
            )),
        }
    }
    // Every `found` and `false` label must still be reported.
    for l in labels
        .iter()
        .filter(|l| matches!(l.status, Status::Found | Status::False))
    {
        let seen = l
            .codes
            .iter()
            .any(|c| reported.contains(&(l.file.clone(), l.line, c.clone())));
        if !seen {
            problems.push(match l.status {
                Status::Found => format!(
                    "{}:{}: `{}` is no longer reported: a lost true finding (a regression, or flip \
                     the label to miss)",
                    l.file,
                    l.line,
                    l.codes.join("|")
                ),
                _ => format!(
                    "{}:{}: the false `{}` is gone: flip the label to quiet",
                    l.file,
                    l.line,
                    l.codes.join("|")
                ),
            });
        }
    }

    // The table: per file, then overall.
    let count = |file: Option<&str>, status: Status| {
        labels
            .iter()
            .filter(|l| l.status == status && file.is_none_or(|f| l.file == f))
            .count()
    };
    println!(
        "{:<30} {:>7} {:>3} {:>3} {:>4} {:>5} {:>9} {:>7}",
        "file", "release", "tp", "fp", "miss", "quiet", "precision", "recall"
    );
    let line = |name: &str, release: &str, file: Option<&str>| {
        let (tp, fp, miss) = (
            count(file, Status::Found),
            count(file, Status::False),
            count(file, Status::Miss),
        );
        println!(
            "{:<30} {:>7} {:>3} {:>3} {:>4} {:>5} {:>9} {:>7}",
            name,
            release,
            tp,
            fp,
            miss,
            count(file, Status::Quiet),
            ratio(tp, tp + fp),
            ratio(tp, tp + miss)
        );
    };
    for s in &sources {
        line(&s.file, &s.release, Some(&s.file));
    }
    let repositories: BTreeSet<&str> = sources.iter().map(|s| s.repository.as_str()).collect();
    line(
        &format!(
            "all ({} files, {} repos)",
            sources.len(),
            repositories.len()
        ),
        "",
        None,
    );

    assert!(
        problems.is_empty(),
        "check and labels.tsv disagree:\n{}",
        problems.join("\n")
    );
}
