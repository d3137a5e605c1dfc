//! The reading of intent (issue 18) through the real pipeline: each case of
//! `tests/fixtures/lessons/cases.txt` is analysed with the NetBox 4.6.8 knowledge; the readings
//! of the sites not checked and the number of errors and warnings must match, fix-all must
//! leave every site not checked as it is, and with every reading turned off
//! (`[skip]` all false) each held site is checked again as a call.

use netbox_lsp::analysis::{analyze_report, Knowledge, Report};
use netbox_lsp::extract::HostKind;
use netbox_lsp::finding::Severity;
use netbox_lsp::graphql::embedded_schema;
use netbox_lsp::index::embedded::embedded_index;
use netbox_lsp::intent::{ReadAs, Readings};
use std::path::Path;

struct Case {
    name: String,
    kind: HostKind,
    held: Vec<ReadAs>,
    loud: usize,
    text: String,
}

fn cases() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lessons/cases.txt");
    let text = std::fs::read_to_string(&path).expect("tests/fixtures/lessons/cases.txt");
    let mut out = Vec::new();
    for block in text.split("\n=== ").skip(1) {
        let (head, body) = block.split_once("\n---\n").expect("`---` after the header");
        let mut lines = head.lines();
        let mut case = Case {
            name: lines.next().unwrap_or_default().to_string(),
            kind: HostKind::Text,
            held: Vec::new(),
            loud: 0,
            text: body.trim_end_matches('\n').to_string() + "\n",
        };
        for l in lines {
            let (k, v) = l.split_once(':').expect("key: value");
            let v = v.trim();
            match k {
                "kind" => {
                    case.kind = HostKind::from_path(Path::new(&format!("x.{v}"))).expect("kind")
                }
                "held" if v == "none" => {}
                "held" => {
                    case.held = v
                        .split(',')
                        .map(|r| ReadAs::from_name(r.trim()).expect("a reading"))
                        .collect()
                }
                "loud" => case.loud = v.parse().expect("a count"),
                other => panic!("unknown header {other}"),
            }
        }
        out.push(case);
    }
    out
}

fn knowledge(readings: Readings) -> Knowledge {
    Knowledge {
        index: Some(embedded_index("4.6.8")),
        graphql: embedded_schema("4.6.8"),
        readings,
        ..Default::default()
    }
}

fn loud(r: &Report) -> usize {
    r.findings
        .iter()
        .filter(|f| matches!(f.severity, Severity::Error | Severity::Warning))
        .count()
}

#[test]
fn every_marker_both_ways_in_every_host() {
    let cases = cases();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let k = knowledge(Readings::default());
    let mut bad = Vec::new();
    for c in &cases {
        let r = analyze_report(&c.text, c.kind, &k, None);
        let held: Vec<ReadAs> = r.not_checked.iter().map(|n| n.read_as).collect();
        if held != c.held || loud(&r) != c.loud {
            bad.push(format!(
                "{}: held {held:?} (want {:?}), {} loud (want {}): {:?}\n  why: {:?}",
                c.name,
                c.held,
                loud(&r),
                c.loud,
                r.findings
                    .iter()
                    .map(|f| (f.code, &c.text[f.range.clone()]))
                    .collect::<Vec<_>>(),
                r.not_checked.iter().map(|n| &n.why).collect::<Vec<_>>()
            ));
        }
        // What was held back is counted, and no finding lies inside it.
        assert_eq!(
            r.found.not_checked.total(),
            r.not_checked.len(),
            "{}",
            c.name
        );
        for n in &r.not_checked {
            assert!(
                !r.findings
                    .iter()
                    .any(|f| n.range.start <= f.range.start && f.range.end <= n.range.end),
                "{}: a finding inside a site not checked",
                c.name
            );
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Each case has a twin: for every case that holds a site back there is one that does not, and
/// the loud twins are loud (the list is both ways, not only quiet).
#[test]
fn the_cases_go_both_ways() {
    let cases = cases();
    let quiet = cases.iter().filter(|c| !c.held.is_empty()).count();
    let twins = cases.iter().filter(|c| c.name.contains("twin")).count();
    assert!(twins * 3 >= quiet, "{twins} twins for {quiet} quiet cases");
    for c in cases.iter().filter(|c| c.name.contains("twin")) {
        assert!(c.loud > 0, "{}: a twin must be loud", c.name);
    }
}

/// With every reading off, nothing is held back and every held site is checked: the quiet
/// cases that hold a wrong form become loud.
#[test]
fn readings_turned_off_check_every_site() {
    let off = knowledge(Readings::none());
    let on = knowledge(Readings::default());
    let mut louder = 0;
    for c in cases() {
        let r = analyze_report(&c.text, c.kind, &off, None);
        assert!(r.not_checked.is_empty(), "{}", c.name);
        let with = analyze_report(&c.text, c.kind, &on, None);
        assert!(loud(&r) >= loud(&with), "{}", c.name);
        louder += usize::from(loud(&r) > loud(&with));
    }
    assert!(
        louder >= 30,
        "only {louder} cases got louder with the readings off"
    );
    // One reading off leaves the others on.
    let mut no_lessons = Readings::default();
    no_lessons.set(ReadAs::Lesson, false);
    let k = knowledge(no_lessons);
    let text = "# NetBox v9.1\n\n## v9.1.0 (2031-01-02)\n\n* Removed `/api/dcim/console-connections/`\n\n```python\n# WRONG\nnb.dcim.devices.filter(device_role=\"leaf\")\n```\n";
    let r = analyze_report(text, HostKind::Markdown, &k, None);
    assert_eq!(
        r.not_checked.iter().map(|n| n.read_as).collect::<Vec<_>>(),
        [ReadAs::History, ReadAs::History]
    );
}

/// Fix-all never edits a site that was not checked: on every case, the edits of fix-all (what
/// the editor's `source.fixAll` applies) lie outside every held site, and `check --fix`'s
/// rounds leave the held sites' text as it was.
#[test]
fn fix_all_never_edits_a_lesson() {
    let k = knowledge(Readings::default());
    for c in cases() {
        let r = analyze_report(&c.text, c.kind, &k, None);
        for e in netbox_lsp::fix::fix_all_edits(&r.findings) {
            for n in &r.not_checked {
                assert!(
                    e.range.end <= n.range.start || n.range.end <= e.range.start,
                    "{}: fix-all edits `{}` inside a site not checked",
                    c.name,
                    &c.text[e.range.clone()]
                );
            }
        }
        let planned = netbox_lsp::cli::fix::plan(&c.text, c.kind, &k, &|f| f);
        for n in &r.not_checked {
            let held = &c.text[n.range.clone()];
            assert!(
                planned.fixed.contains(held),
                "{}: check --fix changed the site not checked `{held}`",
                c.name
            );
        }
    }
}

/// The message of a site not checked names what it was read as and where the text said so.
#[test]
fn messages_say_why() {
    let k = knowledge(Readings::default());
    let text = "# NetBox notes\n\n```python\n# WRONG: returns every device\nnb.dcim.devices.filter(device_role=\"leaf\")\n```\n";
    let r = analyze_report(text, HostKind::Markdown, &k, None);
    assert_eq!(r.not_checked.len(), 1);
    let n = &r.not_checked[0];
    assert_eq!(
        &text[n.range.clone()],
        "nb.dcim.devices.filter(device_role=\"leaf\")"
    );
    let marker = n.marker.clone().expect("a marker");
    assert_eq!(&text[marker], "WRONG");
    assert_eq!(
        n.message(Some(4)),
        "read as a wrong example: “WRONG” in its comment (line 4)"
    );
}

/// One host of `tests/fixtures/lessons/matrix.txt`: a text with `{}` where a marker goes.
struct Host {
    title: String,
    slot: String,
    kind: HostKind,
    text: String,
}

/// The marker rows (`slot`, words, twin's words) and hosts of the matrix.
fn matrix() -> (Vec<(String, String, String)>, Vec<Host>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lessons/matrix.txt");
    let text = std::fs::read_to_string(&path).expect("tests/fixtures/lessons/matrix.txt");
    let mut blocks = text.split("\n=== ");
    let markers = blocks
        .next()
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix("marker: "))
        .map(|l| {
            let parts: Vec<&str> = l.split(" | ").map(str::trim).collect();
            assert_eq!(parts.len(), 3, "a marker row has three parts: {l}");
            (parts[0].into(), parts[1].into(), parts[2].into())
        })
        .collect();
    let hosts = blocks
        .map(|block| {
            let (head, body) = block.split_once("\n---\n").expect("`---` after the header");
            let mut lines = head.lines();
            let title = lines.next().unwrap_or_default().to_string();
            let (mut slot, mut kind) = (String::new(), HostKind::Text);
            for l in lines {
                match l.split_once(':').expect("key: value") {
                    ("slot", v) => slot = v.trim().into(),
                    ("kind", v) => {
                        kind = HostKind::from_path(Path::new(&format!("x.{}", v.trim())))
                            .expect("kind")
                    }
                    (other, _) => panic!("unknown header {other}"),
                }
            }
            let text = body.trim_end_matches('\n').to_string() + "\n";
            assert!(text.contains("{}"), "{title}: no `{{}}`");
            Host {
                title,
                slot,
                kind,
                text,
            }
        })
        .collect();
    (markers, hosts)
}

/// Every marker in every host of its slot, both ways: the marker holds the one site back as a
/// lesson with nothing loud; its twin's words leave it a call with a loud finding.
#[test]
fn every_marker_in_every_host_of_the_matrix() {
    let (markers, hosts) = matrix();
    let k = knowledge(Readings::default());
    let mut bad = Vec::new();
    let mut pairs = 0;
    for (slot, wrong, twin) in &markers {
        let of_slot: Vec<&Host> = hosts.iter().filter(|h| &h.slot == slot).collect();
        assert!(!of_slot.is_empty(), "no host for the slot {slot}");
        for h in of_slot {
            pairs += 1;
            for (words, quiet) in [(wrong, true), (twin, false)] {
                let text = h.text.replace("{}", words);
                let r = analyze_report(&text, h.kind, &k, None);
                let held: Vec<ReadAs> = r.not_checked.iter().map(|n| n.read_as).collect();
                let ok = if quiet {
                    held == [ReadAs::Lesson] && loud(&r) == 0
                } else {
                    held.is_empty() && loud(&r) > 0
                };
                // Fix-all edits nothing inside a lesson (an information note may carry a fix).
                let edits_lesson = netbox_lsp::fix::fix_all_edits(&r.findings).iter().any(|e| {
                    r.not_checked
                        .iter()
                        .any(|n| e.range.start < n.range.end && n.range.start < e.range.end)
                });
                if !ok || edits_lesson {
                    bad.push(format!(
                        "{} with {words:?}: held {held:?}, {} loud, fix-all edits it: {edits_lesson}: {:?}",
                        h.title,
                        loud(&r),
                        r.findings.iter().map(|f| f.code).collect::<Vec<_>>()
                    ));
                }
            }
        }
    }
    assert!(pairs >= 150, "only {pairs} marker/host pairs");
    assert!(
        bad.is_empty(),
        "{} of {pairs} pairs:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
