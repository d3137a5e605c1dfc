//! End-to-end tests of how `netbox-lsp check` walks symbolic links under a named folder, through
//! the real binary on trees made in a temporary folder: a linked file or folder is checked under
//! the path as walked, a loop and a link to nothing are notes (the run goes on, its exit code is
//! the findings'), a file reached twice is checked once, `--exclude` and `.git` apply to the
//! walked paths, and `--fix` does not write through a link.
#![cfg(unix)]

use crate::cli::files_checked;
use crate::cli_fix::{run_in, Run};
use serde_json::Value;
use std::path::Path;

/// A renamed filter (an error with a certain fix) and its twin with the current name.
const BAD: &str = "GET /api/dcim/devices/?device_role_id=1\n";
const GOOD: &str = "GET /api/dcim/devices/?role_id=1\n";

/// The paths of a JSON run's findings, in output order.
fn finding_paths(r: &Run) -> Vec<String> {
    let v: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", r.stdout));
    v.as_array()
        .expect("a JSON array")
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

/// Makes the files (path, text) and the symbolic links (link, what it holds) under `dir`.
fn make_tree(dir: &Path, files: &[(&str, &str)], links: &[(&str, &str)]) {
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    for (link, target) in links {
        let p = dir.join(link);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, p).unwrap();
    }
}

/// One tree, one run and what it must give.
struct Case {
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    links: &'static [(&'static str, &'static str)],
    /// The arguments after `check --format json`.
    args: &'static [&'static str],
    /// The paths of the findings, in output order.
    findings: &'static [&'static str],
    /// The files checked (the summary's count).
    checked: usize,
    /// Lines stderr must have, and text it must not.
    notes: &'static [&'static str],
    absent: &'static [&'static str],
    code: i32,
}

const EMPTY: &str = "no file here has an extension netbox-lsp reads";

/// The tester's layout: a skill folder and a file linked in from outside the named folder.
const LINKED: &[(&str, &str)] = &[
    ("p/.claude/skills/skill", "../../../r/skill"),
    ("p/linked.md", "../r/file.md"),
];

const CASES: &[Case] = &[
    Case {
        name: "a linked folder and a linked file are checked under the walked paths",
        files: &[("r/skill/SKILL.md", BAD), ("r/file.md", BAD)],
        links: LINKED,
        args: &["p"],
        findings: &["p/.claude/skills/skill/SKILL.md", "p/linked.md"],
        checked: 2,
        notes: &[],
        absent: &[EMPTY, "note:"],
        code: 1,
    },
    Case {
        name: "quiet twin: the same links to valid filters",
        files: &[("r/skill/SKILL.md", GOOD), ("r/file.md", GOOD)],
        links: LINKED,
        args: &["p"],
        findings: &[],
        checked: 2,
        notes: &[],
        absent: &[EMPTY, "note:"],
        code: 0,
    },
    Case {
        name: "the folder holding the linked skill, named",
        files: &[("r/skill/SKILL.md", BAD)],
        links: LINKED,
        args: &["p/.claude/skills"],
        findings: &["p/.claude/skills/skill/SKILL.md"],
        checked: 1,
        notes: &[],
        absent: &[EMPTY],
        code: 1,
    },
    Case {
        name: "links beside a real file",
        files: &[("r/skill/SKILL.md", BAD), ("r/file.md", BAD), ("p/own.md", GOOD)],
        links: LINKED,
        args: &["p"],
        findings: &["p/.claude/skills/skill/SKILL.md", "p/linked.md"],
        checked: 3,
        notes: &[],
        absent: &[EMPTY],
        code: 1,
    },
    Case {
        name: "a loop is a note; the rest is checked once",
        files: &[("p/a.md", BAD)],
        links: &[("p/sub/up", "..")],
        args: &["p"],
        findings: &["p/a.md"],
        checked: 1,
        notes: &["netbox-lsp: note: p/sub/up: a symbolic link to p, a folder it is in; not followed"],
        absent: &["error:"],
        code: 1,
    },
    Case {
        name: "quiet twin: a loop beside a valid file exits 0",
        files: &[("p/a.md", GOOD)],
        links: &[("p/sub/up", "..")],
        args: &["p"],
        findings: &[],
        checked: 1,
        notes: &["netbox-lsp: note: p/sub/up: a symbolic link to p, a folder it is in; not followed"],
        absent: &["error:"],
        code: 0,
    },
    Case {
        name: "a loop through two links",
        files: &[("p/x/a.md", GOOD), ("p/y/b.md", GOOD)],
        links: &[("p/x/to_y", "../y"), ("p/y/to_x", "../x")],
        args: &["p"],
        findings: &[],
        checked: 2,
        notes: &[
            "netbox-lsp: note: p/x/to_y/to_x: a symbolic link to p/x, a folder it is in; not followed",
            "netbox-lsp: note: p/y/to_x/to_y: a symbolic link to p/y, a folder it is in; not followed",
        ],
        absent: &["error:"],
        code: 0,
    },
    Case {
        name: "a link to itself and a link to nothing are notes",
        files: &[("p/a.md", GOOD)],
        links: &[("p/self.md", "self.md"), ("p/gone.md", "../nowhere.md")],
        args: &["p"],
        findings: &[],
        checked: 1,
        notes: &[
            "netbox-lsp: note: p/gone.md: a symbolic link to nothing (../nowhere.md); skipped",
            "netbox-lsp: note: p/self.md: a symbolic link that leads back to itself (self.md); skipped",
        ],
        absent: &["error:"],
        code: 0,
    },
    Case {
        name: "a folder with only a link to nothing says so",
        files: &[],
        links: &[("p/gone.md", "../nowhere.md")],
        args: &["p"],
        findings: &[],
        checked: 0,
        notes: &[
            "netbox-lsp: note: p/gone.md: a symbolic link to nothing (../nowhere.md); skipped",
            EMPTY,
        ],
        absent: &["error:"],
        code: 0,
    },
    Case {
        name: "a file reached directly and through two links is checked once, under the first path",
        files: &[("p/real.md", BAD)],
        links: &[("p/alias.md", "real.md"), ("p/z/again.md", "../real.md")],
        args: &["p"],
        findings: &["p/alias.md"],
        checked: 1,
        notes: &[],
        absent: &["note:"],
        code: 1,
    },
    Case {
        name: "quiet twin: the same file valid",
        files: &[("p/real.md", GOOD)],
        links: &[("p/alias.md", "real.md"), ("p/z/again.md", "../real.md")],
        args: &["p"],
        findings: &[],
        checked: 1,
        notes: &[],
        absent: &["note:"],
        code: 0,
    },
    Case {
        name: "a linked folder also named is checked once",
        files: &[("r/skill/SKILL.md", BAD), ("r/file.md", BAD)],
        links: LINKED,
        args: &["p", "r"],
        findings: &["p/.claude/skills/skill/SKILL.md", "p/linked.md"],
        checked: 2,
        notes: &[],
        absent: &[EMPTY],
        code: 1,
    },
    Case {
        name: "--exclude applies to the walked path of a link",
        files: &[("r/skill/SKILL.md", BAD), ("r/file.md", BAD), ("p/own.md", GOOD)],
        links: LINKED,
        args: &["--exclude", "linked.md", "--exclude", ".claude/**", "p"],
        findings: &[],
        checked: 1,
        notes: &[],
        absent: &["matched no path", EMPTY],
        code: 0,
    },
    Case {
        name: "--exclude silences a loop it leaves out",
        files: &[("p/a.md", GOOD)],
        links: &[("p/sub/up", ".."), ("p/gone.md", "nowhere.md")],
        args: &["--exclude", "sub/up", "--exclude", "gone.md", "p"],
        findings: &[],
        checked: 1,
        notes: &[],
        absent: &["note:", "error:"],
        code: 0,
    },
    Case {
        name: "a link to a .git folder, or into one, is skipped like .git",
        files: &[("p/a.md", GOOD), ("r/.git/x.md", BAD), ("p/.git/y.md", BAD)],
        links: &[("p/gitdir", "../r/.git"), ("p/gitfile.md", "../r/.git/x.md")],
        args: &["p"],
        findings: &[],
        checked: 1,
        notes: &[],
        absent: &["note:"],
        code: 0,
    },
];

#[test]
fn symbolic_links_in_walked_folders() {
    for case in CASES {
        let dir = tempfile::tempdir().unwrap();
        make_tree(dir.path(), case.files, case.links);
        let mut args = vec!["check", "--format", "json"];
        args.extend_from_slice(case.args);
        let r = run_in(dir.path(), &args);
        let name = case.name;
        assert_eq!(r.code, case.code, "{name}: exit code\n{}", r.stderr);
        assert_eq!(finding_paths(&r), case.findings, "{name}\n{}", r.stderr);
        assert_eq!(
            files_checked(&r.stderr),
            case.checked,
            "{name}\n{}",
            r.stderr
        );
        for n in case.notes {
            assert!(
                r.stderr.lines().any(|l| l.contains(n)),
                "{name}: no {n:?} in\n{}",
                r.stderr
            );
        }
        for a in case.absent {
            assert!(!r.stderr.contains(a), "{name}: {a:?} in\n{}", r.stderr);
        }
    }
}

/// `--diff` shows a linked file's fix; `--fix` leaves it alone with a note (it writes only
/// through real folders under the named one) and fixes the real file beside it. Naming the
/// linked file fixes its target, as for any named link.
#[test]
fn fix_does_not_write_through_a_walked_link() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    make_tree(
        d,
        &[
            ("r/skill/SKILL.md", BAD),
            ("r/file.md", BAD),
            ("p/own.md", BAD),
        ],
        LINKED,
    );
    let r = run_in(d, &["check", "--diff", "p"]);
    for f in ["p/.claude/skills/skill/SKILL.md", "p/linked.md", "p/own.md"] {
        assert!(
            r.stdout.contains(&format!("+++ b/{f}\n")),
            "{f}:\n{}",
            r.stdout
        );
    }
    let r = run_in(d, &["check", "--fix", "p"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    for f in ["p/.claude/skills/skill/SKILL.md", "p/linked.md"] {
        let note = format!("netbox-lsp: note: {f}: reached through a symbolic link; not fixed");
        assert!(r.stderr.contains(&note), "{f}:\n{}", r.stderr);
    }
    assert_eq!(
        std::fs::read_to_string(d.join("r/skill/SKILL.md")).unwrap(),
        BAD
    );
    assert_eq!(std::fs::read_to_string(d.join("r/file.md")).unwrap(), BAD);
    assert_eq!(std::fs::read_to_string(d.join("p/own.md")).unwrap(), GOOD);
    assert!(std::fs::symlink_metadata(d.join("p/linked.md"))
        .unwrap()
        .file_type()
        .is_symlink());
    // Named, the link is followed to the file it leads to, which is fixed.
    let r = run_in(d, &["check", "--fix", "p/linked.md"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(d.join("r/file.md")).unwrap(), GOOD);
    // The quiet twin: nothing left to fix, no note.
    let r = run_in(d, &["check", "--fix", "p"]);
    assert!(!r.stderr.contains("p/linked.md"), "{}", r.stderr);
}
