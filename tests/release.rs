//! `netbox-lsp release add | review | remove` (the non-lab part of `scripts/add-release.sh`),
//! end to end on a scratch copy of the checkout's release files:
//! - a pre-release added from captured files: its index is `index build`'s bytes, its row goes
//!   after the newest final release, which stays the default, the table of differences and
//!   README's table follow, the ground-truth fixtures carry the previous release's codes and
//!   mark the rows whose verdict changed, the review sheet is printed; `remove` restores every
//!   file byte for byte;
//! - the re-add of 4.7.3 from `../shared/netbox/v4.7.3/` (skipped, loudly, without it): the
//!   knowledge files come out byte-identical to the vendored ones.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_netbox-lsp"))
}

/// The files `release` reads and writes, copied from the checkout into `dir`.
fn scratch_checkout(dir: &Path) {
    let r = root();
    for d in [
        "src/index",
        "index",
        "tests/fixtures/ground-truth",
        "tests/fixtures/graphql-ground-truth",
    ] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    let mut files = vec![
        "src/index/embedded.rs".to_string(),
        "README.md".to_string(),
        "index/version-differences.tsv".to_string(),
        "tests/fixtures/ground-truth/reviewed.tsv".to_string(),
    ];
    for e in std::fs::read_dir(r.join("index")).unwrap().flatten() {
        files.push(format!("index/{}", e.file_name().to_string_lossy()));
    }
    for v in ["4.6.8", "4.7.3"] {
        files.push(format!("tests/fixtures/ground-truth/v{v}.tsv"));
        files.push(format!("tests/fixtures/ground-truth/v{v}-sweep.tsv"));
        files.push(format!("tests/fixtures/graphql-ground-truth/v{v}.tsv"));
    }
    for f in files {
        std::fs::copy(r.join(&f), dir.join(&f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    }
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin()).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// The live ground truth of 4.7.3 in the shared layout, from its fixture (without the
/// expected codes), with one row whose verdict changed.
fn live_ground_truth() -> String {
    let fx =
        String::from_utf8(read(&root().join("tests/fixtures/ground-truth/v4.7.3.tsv"))).unwrap();
    let mut out = String::from(
        "endpoint\tquery_string_or_graphql\thttp_status\tcount_filtered\tcount_unfiltered\tverdict\tnote\n",
    );
    for (i, l) in fx.lines().skip(1).enumerate() {
        let c: Vec<&str> = l.split('\t').collect();
        let verdict = if i == 1 { "honoured" } else { c[3] };
        out.push_str(&format!(
            "{}\t{}\t{}\t\t\t{verdict}\t{}\n",
            c[0], c[1], c[2], c[5]
        ));
    }
    let g = String::from_utf8(read(
        &root().join("tests/fixtures/graphql-ground-truth/v4.7.3.tsv"),
    ))
    .unwrap();
    for l in g.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let c: Vec<&str> = l.split('\t').collect();
        out.push_str(&format!("graphql\t{}\t200\t\t\t{}\t{}\n", c[0], c[1], c[2]));
    }
    out
}

#[test]
fn a_pre_release_is_added_from_captured_files_and_removed_again() {
    let tmp = tempfile::tempdir().unwrap();
    let (co, from) = (tmp.path().join("checkout"), tmp.path().join("v4.8.0b1"));
    scratch_checkout(&co);
    std::fs::create_dir_all(&from).unwrap();
    let before: Vec<(String, Vec<u8>)> = [
        "src/index/embedded.rs",
        "README.md",
        "index/version-differences.tsv",
    ]
    .iter()
    .map(|f| (f.to_string(), read(&co.join(f))))
    .collect();
    // A beta's document names its version `4.8.0-beta1`; the release is `4.8.0b1` on PyPI.
    let doc = String::from_utf8(read(&root().join("tests/fixtures/openapi/mini.json")))
        .unwrap()
        .replace(
            "\"version\": \"9.1.2\"",
            "\"version\": \"4.8.0-beta1 (4.8)\"",
        );
    std::fs::write(from.join("openapi.json.gz"), gzip(doc.as_bytes())).unwrap();
    std::fs::copy(
        root().join("index/netbox-4.7.3.schema.graphql.gz"),
        from.join("schema.graphql.gz"),
    )
    .unwrap();
    std::fs::write(from.join("ground-truth.tsv"), live_ground_truth()).unwrap();

    let (code, sheet, err) = run(&[
        "release",
        "add",
        "4.8.0b1",
        "--from",
        from.to_str().unwrap(),
        "--root",
        co.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    // The row, after the newest final release; the default stays 4.7.3.
    let rs = String::from_utf8(read(&co.join("src/index/embedded.rs"))).unwrap();
    let t = rs.find("release!(\"4.7.3\"),").unwrap();
    let b = rs.find("release!(\"4.8.0b1\"),").unwrap();
    assert!(t < b, "{rs}");
    // The index is `index build`'s, byte for byte.
    let direct = tmp.path().join("direct.index.json.gz");
    let (c, _, e) = run(&[
        "index",
        "build",
        "--openapi",
        from.join("openapi.json.gz").to_str().unwrap(),
        "--netbox-version",
        "4.8.0b1",
        "-o",
        direct.to_str().unwrap(),
    ]);
    assert_eq!(c, 0, "{e}");
    assert_eq!(
        read(&co.join("index/netbox-4.8.0b1.index.json.gz")),
        read(&direct)
    );
    assert_eq!(
        read(&co.join("index/netbox-4.8.0b1.schema.graphql.gz")),
        read(&from.join("schema.graphql.gz"))
    );
    let table = String::from_utf8(read(&co.join("index/version-differences.tsv"))).unwrap();
    assert!(
        table.contains("releases\t4.3.3\t4.4.10\t4.5.10\t4.6.8\t4.7.3\t4.8.0b1\n"),
        "{}",
        &table[..400]
    );
    let readme = String::from_utf8(read(&co.join("README.md"))).unwrap();
    assert!(
        readme.contains("\n| 4.7.3 (default) |"),
        "README keeps the default"
    );
    assert!(readme.contains("\n| 4.8.0b1 (pre-release) |"));
    // Ground truth: the codes of 4.7.3 carried over, the changed row left to decide.
    let fx = String::from_utf8(read(&co.join("tests/fixtures/ground-truth/v4.8.0b1.tsv"))).unwrap();
    let old = String::from_utf8(read(&co.join("tests/fixtures/ground-truth/v4.7.3.tsv"))).unwrap();
    let codes = |t: &str| -> Vec<String> {
        t.lines()
            .skip(1)
            .map(|l| l.split('\t').nth(4).unwrap().to_string())
            .collect()
    };
    let (new_codes, old_codes) = (codes(&fx), codes(&old));
    assert_eq!(new_codes.len(), old_codes.len());
    for (i, (n, o)) in new_codes.iter().zip(&old_codes).enumerate() {
        if i == 1 && !o.is_empty() {
            assert_eq!(n, "", "the row now honoured expects no code");
        } else {
            assert_eq!(n, o, "row {i}");
        }
    }
    let gfx = String::from_utf8(read(
        &co.join("tests/fixtures/graphql-ground-truth/v4.8.0b1.tsv"),
    ))
    .unwrap();
    let gold = String::from_utf8(read(
        &co.join("tests/fixtures/graphql-ground-truth/v4.7.3.tsv"),
    ))
    .unwrap();
    assert_eq!(
        gfx.lines().skip(2).collect::<Vec<_>>(),
        gold.lines().skip(2).collect::<Vec<_>>(),
        "the same GraphQL rows and verdicts keep their expectations"
    );
    assert!(
        err.contains("to decide: tests/fixtures/graphql/4.8.0b1/"),
        "{err}"
    );
    // The sheet against 4.7.3.
    for want in [
        "# Review sheet: NetBox 4.8.0b1 against 4.7.3",
        "## 1. REST",
        "## 3. Live",
        "## 5. Hand rules",
        "per-release rows have no 4.8.0b1 entry",
    ] {
        assert!(sheet.contains(want), "{want}:\n{sheet}");
    }
    // `review` prints the same sheet and writes nothing.
    let (c, again, e) = run(&[
        "release",
        "review",
        "4.8.0b1",
        "--from",
        from.to_str().unwrap(),
        "--root",
        co.to_str().unwrap(),
    ]);
    assert_eq!(c, 0, "{e}");
    // `add` prints `index build`'s report first.
    let start = sheet.find("# Review sheet").unwrap();
    assert!(sheet[..start].contains("NetBox version:            4.8.0b1"));
    assert_eq!(again, sheet[start..]);

    // Remove: every file as it was.
    let (c, _, e) = run(&[
        "release",
        "remove",
        "4.8.0b1",
        "--root",
        co.to_str().unwrap(),
    ]);
    assert_eq!(c, 0, "{e}");
    for (f, bytes) in before {
        assert!(read(&co.join(&f)) == bytes, "{f} differs after remove");
    }
    assert!(!co.join("index/netbox-4.8.0b1.index.json.gz").exists());
    assert!(!co.join("tests/fixtures/ground-truth/v4.8.0b1.tsv").exists());
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let co = tmp.path().join("checkout");
    scratch_checkout(&co);
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let c = co.to_str().unwrap();
    for args in [
        vec![
            "release",
            "add",
            "4.8.0",
            "--from",
            empty.to_str().unwrap(),
            "--root",
            c,
        ],
        vec![
            "release",
            "add",
            "not-a-version",
            "--from",
            empty.to_str().unwrap(),
            "--root",
            c,
        ],
        vec![
            "release",
            "add",
            "4.2.1",
            "--from",
            empty.to_str().unwrap(),
            "--root",
            c,
        ],
        vec!["release", "remove", "4.9.9", "--root", c],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.starts_with("netbox-lsp release: error: "),
            "{args:?}: {err}"
        );
    }
    // A document of another release than named.
    let from = tmp.path().join("from");
    std::fs::create_dir_all(&from).unwrap();
    std::fs::copy(
        root().join("tests/fixtures/openapi/mini.json"),
        from.join("openapi.json"),
    )
    .unwrap();
    std::fs::copy(
        root().join("index/netbox-4.7.3.schema.graphql.gz"),
        from.join("schema.graphql.gz"),
    )
    .unwrap();
    let (code, _, err) = run(&[
        "release",
        "add",
        "4.8.0",
        "--from",
        from.to_str().unwrap(),
        "--root",
        c,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("NetBox 9.1.2's document, not 4.8.0's"),
        "{err}"
    );
}

fn shared() -> Option<PathBuf> {
    [root().join("../shared"), PathBuf::from("/work/shared")]
        .into_iter()
        .find(|p| p.join("netbox/v4.7.3/openapi.json.gz").is_file())
}

/// Removing 4.7.3 and adding it again from its captures gives the vendored knowledge files
/// byte for byte, and the ground-truth fixtures too: the rows the previous release cannot carry
/// take the hand review's decisions (`tests/fixtures/ground-truth/reviewed.tsv`).
#[test]
fn re_adding_4_7_3_gives_the_same_knowledge_files() {
    let Some(shared) = shared() else {
        eprintln!("\n*** SKIPPED: ../shared/netbox/v4.7.3 not found (the re-add proof) ***\n");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let co = tmp.path().join("checkout");
    scratch_checkout(&co);
    let c = co.to_str().unwrap();
    let (code, _, err) = run(&["release", "remove", "4.7.3", "--root", c]);
    assert_eq!(code, 0, "{err}");
    assert!(!co.join("index/netbox-4.7.3.index.json.gz").exists());
    let from = shared.join("netbox/v4.7.3");
    let (code, sheet, err) = run(&[
        "release",
        "add",
        "4.7.3",
        "--from",
        from.to_str().unwrap(),
        "--previous-from",
        shared.join("netbox/v4.6.8").to_str().unwrap(),
        "--root",
        c,
    ]);
    assert_eq!(code, 0, "{err}");
    for f in [
        "index/netbox-4.7.3.index.json.gz",
        "index/netbox-4.7.3.schema.graphql.gz",
        "index/version-differences.tsv",
        "src/index/embedded.rs",
        "README.md",
    ] {
        assert!(
            read(&co.join(f)) == read(&root().join(f)),
            "{f}: the re-added file differs from the vendored one"
        );
    }
    for f in [
        "tests/fixtures/ground-truth/v4.7.3.tsv",
        "tests/fixtures/graphql-ground-truth/v4.7.3.tsv",
    ] {
        assert!(
            read(&co.join(f)) == read(&root().join(f)),
            "{f}: the re-added fixture differs from the vendored one"
        );
    }
    assert!(!err.contains("expected_code `?`"), "{err}");
    assert!(!err.contains("expected_error `?`"), "{err}");
    for want in [
        "dcim/front-ports rear_port_id=1250: HTTP 500 → honoured",
        "- lookups `protocol__empty`, `protocol__ic`",
        "`protocol` lost its choice set",
    ] {
        assert!(sheet.contains(want), "{want}");
    }
}

/// Every hand-review decision (`tests/fixtures/ground-truth/reviewed.tsv`) is the row of its
/// release's fixture: same verdict, same expected code (and span for GraphQL), with evidence.
#[test]
fn review_decisions_are_the_fixture_rows() {
    let text = String::from_utf8(read(
        &root().join("tests/fixtures/ground-truth/reviewed.tsv"),
    ))
    .unwrap();
    let mut n = 0;
    for l in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let c: Vec<&str> = l.split('\t').collect();
        let [release, endpoint, query, verdict, expected, span, evidence] = c[..] else {
            panic!("reviewed.tsv: not 7 columns: {l:?}");
        };
        assert!(
            evidence.contains(&format!("v{release}")),
            "no source of {release}: {l:?}"
        );
        let found = if endpoint == "graphql" {
            let f = format!("tests/fixtures/graphql-ground-truth/v{release}.tsv");
            let fx = String::from_utf8(read(&root().join(f))).unwrap();
            fx.lines().any(|r| {
                let r: Vec<&str> = r.split('\t').collect();
                r.len() == 5 && r[0] == query && r[1] == verdict && r[3] == expected && r[4] == span
            })
        } else {
            let f = format!("tests/fixtures/ground-truth/v{release}.tsv");
            let fx = String::from_utf8(read(&root().join(f))).unwrap();
            span == "-"
                && fx.lines().any(|r| {
                    let r: Vec<&str> = r.split('\t').collect();
                    r.len() >= 5
                        && r[0] == endpoint
                        && r[1] == query
                        && r[3] == verdict
                        && r[4] == expected
                })
        };
        assert!(found, "reviewed.tsv row is not its fixture's row: {l:?}");
        n += 1;
    }
    assert!(n > 0, "reviewed.tsv has no decisions");
}
