//! The words by which a text says how it means the code beside it: as a wrong example (a
//! lesson), as the form to use, as what a release removed or renamed (history), or as what
//! replaced it. Read from a label (a comment, a heading, a table header or status cell, the line
//! before a block) and from the sentence around an inline piece of code.
//!
//! The text is cut into lowercased words ([`tokens`]) and matched against phrase tables: no
//! regular expression to compile on every run, and a word is a word (`not` is no cue in `note`,
//! `invalid` none in `invalid-value`, nothing in a URL). The word lists are English, as skill
//! files and NetBox's documentation are. A site with no cue, or with a cue for the form to use,
//! stays a call: reading a wrong example as a call costs a finding the writer did not want,
//! reading a call as an example hides a real one.

use super::words::MARKS;
pub(crate) use super::words::{normalise, tokens, Tok, CODE};
use std::ops::Range;
use std::sync::OnceLock;

/// What a cue says about the code it is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cue {
    /// A wrong example: "WRONG", "❌", "never use", "is silently ignored".
    Wrong,
    /// The form to use: "CORRECT", "✅", "use", "instead".
    Right,
    /// What a release removed, renamed or deprecated: "removed", "was renamed", "old".
    Old,
    /// What replaced it: "renamed `x` to `y`", "replaced by `y`".
    New,
}

/// A cue found in a text: what it says and where it is (byte range in the text read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    pub cue: Cue,
    pub range: Range<usize>,
}

/// Where a label stands: the readings differ a little (a column may say "Before", a sentence
/// above a block must say more than "NetBox ignores unknown filters").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// A code comment (`# WRONG: returns every device`).
    Comment,
    /// The last sentence above a block, list or table (`**Wrong:**`, `Not like this:`).
    Lead,
    /// A table's column header (`Wrong` / `Right`, `Before` / `After`, `Old` / `New`).
    Column,
    /// A short table cell of the same row (`❌`, `No`, `Ignored`, `✅ correct`).
    Status,
}

/// A phrase of a table: its words (tokens), what it says, and the most words allowed between
/// it and the code (for sentence cues).
struct Phrase {
    words: Vec<&'static str>,
    cue: Option<Cue>,
    gap: usize,
}

/// A phrase table, indexed by first word: one hash look-up per token.
struct Table {
    phrases: Vec<Phrase>,
    by_first: std::collections::HashMap<&'static str, Vec<usize>>,
}

impl Table {
    /// The phrases that start at token `i` of `toks`, longest first.
    fn at<'t>(&'t self, toks: &'t [Tok], i: usize) -> impl Iterator<Item = &'t Phrase> + 't {
        let rest = &toks[i..];
        self.by_first
            .get(rest[0].word.as_str())
            .into_iter()
            .flatten()
            .map(|&k| &self.phrases[k])
            .filter(move |p| {
                p.words.len() <= rest.len() && p.words.iter().zip(rest).all(|(w, t)| *w == t.word)
            })
    }

    /// The longest phrase that starts at token `i`.
    fn first_at<'t>(&'t self, toks: &'t [Tok], i: usize) -> Option<&'t Phrase> {
        self.at(toks, i).next()
    }
}

/// Builds a phrase table from `(phrases separated by `|`, cue, gap)` rows; `None` cues are skip
/// phrases (they look like a cue and are none: "to avoid", "don't forget").
fn table(rows: &[(&'static str, Option<Cue>, usize)]) -> Table {
    let mut phrases: Vec<Phrase> = rows
        .iter()
        .flat_map(|(alts, cue, gap)| {
            alts.split('|').map(move |p| Phrase {
                words: p.split_whitespace().collect(),
                cue: *cue,
                gap: *gap,
            })
        })
        .collect();
    // Longer phrases first: of two starting at one token, the longer is taken.
    phrases.sort_by_key(|p| std::cmp::Reverse(p.words.len()));
    let mut by_first: std::collections::HashMap<&'static str, Vec<usize>> = Default::default();
    for (k, p) in phrases.iter().enumerate() {
        by_first.entry(p.words[0]).or_default().push(k);
    }
    Table { phrases, by_first }
}

/// [`table`] of rows built at run time (the phrase texts are kept for the process's life).
fn owned_table(rows: Vec<(String, Option<Cue>, usize)>) -> Table {
    let rows: Vec<(&'static str, Option<Cue>, usize)> = rows
        .into_iter()
        .map(|(p, c, g)| (&*Box::leak(p.into_boxed_str()), c, g))
        .collect();
    table(&rows)
}

/// The cue a table row's phrases give (a row without one gives none), short so that a row
/// stays one line: `("wrong|incorrect", SAYS_WRONG, 0)`.
const SAYS_WRONG: Option<Cue> = Some(Cue::Wrong);
const SAYS_RIGHT: Option<Cue> = Some(Cue::Right);
const SAYS_OLD: Option<Cue> = Some(Cue::Old);
const SAYS_NEW: Option<Cue> = Some(Cue::New);

/// Verbs a "don't" / "never" / "avoid" must precede to be a verdict ("never use", "don't do
/// this"; "never forget" is none).
const VERBS: &str =
    "use|using|write|writing|do|send|sending|pass|call|query|put|add|this|these|that|like";

/// The label words (comments, leads, cells): the first one in the text decides.
fn labels() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        let mut rows: Vec<(String, Option<Cue>, usize)> = vec![
            ("to avoid|don't forget|do not forget|never forget|don't miss|never miss|don't skip|if not|not only|look wrong|looks wrong|seem wrong|seems wrong|go wrong|goes wrong|went wrong|gone wrong|something wrong|anything wrong|what's wrong|what went wrong".into(), None, 0),
            ("❌|✗|✘|🚫|⛔|✖|wrong|wrongly|incorrect|incorrectly|invalid|bad|broken|anti-pattern|anti-patterns|antipattern|antipatterns|unfiltered|unsupported".into(), SAYS_WRONG, 0),
            ("not correct|not right|not valid|not ok|not good|not like this|not this way|silently ignored|silently ignores|ignored|no effect|not supported|not allowed".into(), SAYS_WRONG, 0),
            ("returns everything|return everything|does not exist|doesn't exist|do not exist|don't exist|does not work|doesn't work|do not work|don't work|won't work|will not work".into(), SAYS_WRONG, 0),
            ("not a filter|not a netbox filter|not a lookup|not a netbox lookup|not a field|not an argument|not an endpoint".into(), SAYS_WRONG, 0),
            ("removed|deprecated|renamed|obsolete|legacy|formerly|previously|dropped|no longer|was called|used to be".into(), SAYS_OLD, 0),
            ("✅|✔|✓|☑|👍|right|correct|correctly|good|valid|works|working|fixed|better|best|preferred|recommended|ok|okay|instead".into(), SAYS_RIGHT, 0),
        ];
        for verb in ["returns", "return"] {
            for all in ["every", "all"] {
                for obj in ["object", "objects", "result", "results", "row", "rows", "record", "records", "device", "devices"] {
                    rows.push((format!("{verb} {all} {obj}"), SAYS_WRONG, 0));
                }
            }
        }
        for neg in ["don't", "dont", "do not", "never", "avoid"] {
            for v in VERBS.split('|') {
                rows.push((format!("{neg} {v}"), SAYS_WRONG, 0));
            }
        }
        owned_table(rows)
    })
}

/// Words of a column header (or status cell) at its start: `Before` / `After`, `Old` / `New`,
/// `No` / `Yes`.
fn column_words() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        table(&[
            ("before|don't|do not|avoid|never|no", SAYS_WRONG, 0),
            ("after|do|use|yes", SAYS_RIGHT, 0),
            ("old|previous|former|was|deprecated|removed", SAYS_OLD, 0),
            ("new|replacement|current|now", SAYS_NEW, 0),
        ])
    })
}

/// The first cue of a label at `place`, with its range in `text`.
pub(crate) fn label(text: &str, place: Place) -> Option<Hit> {
    let text = text.trim_end();
    let toks = tokens(text);
    let first_word = toks.iter().position(Tok::is_word);
    let at_start = |i: usize| first_word.is_none_or(|f| i <= f);
    let hit = |i: usize, p: &Phrase| {
        p.cue.map(|cue| Hit {
            cue,
            range: toks[i].range.start..toks[i + p.words.len() - 1].range.end,
        })
    };
    let mut found = None;
    if matches!(place, Place::Column | Place::Status) {
        if let Some(i) = first_word {
            found = column_words().first_at(&toks, i).and_then(|p| hit(i, p));
        }
    }
    let mut i = 0;
    while found.is_none() && i < toks.len() {
        let w = toks[i].word.as_str();
        // "Don't:" / "NEVER." / "Avoid —" (a verdict with nothing after it).
        let bare = matches!(w, "don't" | "dont" | "never" | "avoid")
            || (w == "do" && toks.get(i + 1).is_some_and(|t| t.word == "not"));
        if let Some(p) = labels().first_at(&toks, i) {
            match p.cue {
                None => i += p.words.len(),
                Some(_) => found = hit(i, p),
            }
            continue;
        }
        if bare {
            let len = if w == "do" { 2 } else { 1 };
            let after = toks.get(i + len).map(|t| t.word.as_str());
            if after.is_none_or(|a| matches!(a, ":" | "." | "—")) {
                found = Some(Hit {
                    cue: Cue::Wrong,
                    range: toks[i].range.start..toks[i + len - 1].range.end,
                });
                continue;
            }
        }
        if place == Place::Lead
            && matches!(
                w,
                "mistake" | "mistakes" | "pitfall" | "pitfalls" | "gotcha" | "gotchas"
            )
        {
            found = Some(Hit {
                cue: Cue::Wrong,
                range: toks[i].range.clone(),
            });
            continue;
        }
        if at_start(i) && matches!(w, "do" | "use" | "prefer") {
            found = Some(Hit {
                cue: Cue::Right,
                range: toks[i].range.clone(),
            });
            continue;
        }
        i += 1;
    }
    let hit = found?;
    let words = toks.iter().filter(|t| t.is_word()).count();
    match place {
        // A status cell is a verdict only when it starts with one (`❌ ignored`, not "returns
        // the devices; the old form is ignored").
        Place::Status => (text[..hit.range.start].trim().is_empty() && words <= 5).then_some(hit),
        // A sentence above a block labels it when it leads into it (ends with `:`) or is a
        // label of a few words (`❌ Wrong`); "Never use `x`." is about `x`. One that states a
        // fact ("NetBox ignores unknown filters, so check the names:") is no label either; one
        // that points at what follows is ("This returns every device:").
        Place::Lead
            if !text.trim_end_matches(['*', '_', ' ']).ends_with(':')
                && (words > 4 || text.contains(CODE)) =>
        {
            None
        }
        Place::Lead if hit.cue == Cue::Wrong && is_predicate(&text[hit.range.clone()]) => {
            deictic(text).then_some(hit)
        }
        // A comment that states what NetBox does is about the code when it says nothing else
        // first (`# returns every object`) or names the code (`# this filter is ignored`,
        // `# device_role_id does not exist`); "# device doesn't exist yet" is about the data.
        Place::Comment if hit.cue == Cue::Wrong && is_predicate(&text[hit.range.clone()]) => {
            about_the_code(text, &toks, hit.range.start).then_some(hit)
        }
        _ => Some(hit),
    }
}

/// True for a wrong-cue that states what NetBox does (`ignored`, `returns every object`,
/// `does not exist`) rather than naming a wrong example.
fn is_predicate(hit: &str) -> bool {
    let h = hit.to_ascii_lowercase();
    [
        "ignore",
        "return",
        "unfiltered",
        "exist",
        "work",
        "not a",
        "not supported",
        "not allowed",
        "unsupported",
        "effect",
    ]
    .iter()
    .any(|w| h.contains(w))
}

/// True when the words of `text` before byte `at` (its tokens `toks`) are none, point at the
/// code (`this`, `it`), quote it, or name a filter, a field or a call (`name__in`, `filter`).
fn about_the_code(text: &str, toks: &[Tok], at: usize) -> bool {
    const NOUNS: &[&str] = &[
        "filter",
        "filters",
        "lookup",
        "lookups",
        "parameter",
        "parameters",
        "param",
        "params",
        "field",
        "fields",
        "key",
        "keys",
        "argument",
        "arguments",
        "endpoint",
        "endpoints",
        "query",
        "queries",
        "url",
        "call",
        "form",
        "path",
    ];
    let before: Vec<&Tok> = toks
        .iter()
        .filter(|t| t.range.end <= at && t.is_word())
        .collect();
    before.is_empty()
        || deictic(text)
        || text[..at].contains(['`', CODE])
        || before
            .iter()
            .any(|t| t.word == "§" || t.word.contains('_') || NOUNS.contains(&t.word.as_str()))
}

/// True when `text` starts by pointing at what follows ("This", "These", "The following").
fn deictic(text: &str) -> bool {
    let t = text
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_ascii_lowercase();
    [
        "this ",
        "these ",
        "that ",
        "the following",
        "both ",
        "neither ",
        "it ",
        "such ",
    ]
    .iter()
    .any(|w| t.starts_with(w))
}

/// A heading that is nothing but a label (`## Incorrect Pattern`, `### ❌ Don't`,
/// `## Correct Pattern`): what it says of the code block under it. A heading with more words
/// ("Don't forget pagination", "Common filters") is none.
pub(crate) fn heading_label(text: &str) -> Option<Cue> {
    static T: OnceLock<Table> = OnceLock::new();
    let heads = T.get_or_init(|| {
        table(&[
            ("wrong|incorrect|bad|anti-pattern|anti-patterns|mistakes|common mistakes|pitfalls|what not to do|what not to write|what not to send|don't|don't do this|don't do|do not|do not do this|avoid|avoid this|never|never do this", SAYS_WRONG, 0),
            ("right|correct|good|do|do this|recommended|preferred", SAYS_RIGHT, 0),
        ])
    });
    const NOUNS: &[&str] = &[
        "pattern",
        "patterns",
        "example",
        "examples",
        "approach",
        "approaches",
        "way",
        "ways",
        "usage",
        "code",
        "query",
        "queries",
        "form",
        "forms",
        "practice",
        "practices",
        "call",
        "calls",
        "filter",
        "filters",
    ];
    let toks: Vec<Tok> = tokens(text)
        .into_iter()
        .filter(|t| t.is_word() || MARKS.contains(&t.word.chars().next().unwrap_or(' ')))
        .collect();
    let first = toks.first()?;
    if let Some(c) = first.word.chars().next().filter(|c| MARKS.contains(c)) {
        return Some(if "✅✔✓☑👍".contains(c) {
            Cue::Right
        } else {
            Cue::Wrong
        });
    }
    let p = heads.first_at(&toks, 0)?;
    let rest = &toks[p.words.len()..];
    let nouns_only = rest.len() <= 1 && rest.iter().all(|t| NOUNS.contains(&t.word.as_str()));
    nouns_only.then_some(p.cue).flatten()
}

/// A heading that states a prohibition (`## Never use __in`, `### Don't send device_role`,
/// `## Avoid \`device_role\``): the section under it holds the wrong form. A heading that only
/// starts like one ("Don't forget pagination", "Avoid surprises in pagination") is none: the
/// words after the negation must be one of the label verbs or code.
pub(crate) fn heading_lesson(text: &str) -> Option<Cue> {
    let toks = tokens(text);
    let i = toks.iter().position(Tok::is_word)?;
    if let Some(p) = labels().first_at(&toks, i) {
        return p.cue.filter(|c| *c == Cue::Wrong && p.words.len() > 1);
    }
    let w = toks[i].word.as_str();
    let len = if w == "do" && toks.get(i + 1).is_some_and(|t| t.word == "not") {
        2
    } else if matches!(w, "never" | "avoid" | "don't" | "dont") {
        1
    } else {
        return None;
    };
    // "Avoid `device_role`": the negation right before code.
    let after = toks.get(i + len)?;
    (!after.is_word() || after.word.contains("__")).then_some(Cue::Wrong)
}

/// The sentence cues that may stand before a piece of code, with the most words allowed
/// between the cue and the code. The cue that ends nearest the code decides; of two ending at
/// one place, the longer ("don't use" over "use").
fn before_table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        let mut rows: Vec<(String, Option<Cue>, usize)> = vec![
            ("avoid|avoid using|instead of|rather than|not like|mistakenly|wrongly|incorrectly|ignores|silently ignores|wrong :|incorrect :|bad :|invalid :|ignored :|❌|✗|✘|🚫|⛔".into(), SAYS_WRONG, 6),
            ("not|nor|never|no".into(), SAYS_WRONG, 1),
            ("use|write|send|pass|prefer|try|instead|correct :|right :|good :|✅|✔|✓|the right form is|should be|becomes".into(), SAYS_RIGHT, 6),
            ("renamed|removed|deprecated|replaced|dropped|formerly|previously|was called|were called|used to be|moved|retired|obsoleted".into(), SAYS_OLD, 6),
            ("old|former|obsolete|legacy".into(), SAYS_OLD, 1),
            ("to|by|with|into|now|new|→".into(), SAYS_NEW, 1),
        ];
        let verbs = "write|writes|use|uses|send|sends|try|tries|guess|guesses|reach for";
        for neg in ["never", "don't", "dont", "do not"] {
            for v in ["use", "write", "send", "pass", "put", "do"] {
                rows.push((format!("{neg} {v}"), SAYS_WRONG, 6));
            }
        }
        for who in ["often", "usually", "sometimes", "tend to", "might", "may", "commonly", "typically", "frequently", "likely", "agent", "agents", "model", "models", "llm", "llms", "the model", "the agent", "people", "users", "assistant", "assistants"] {
            for v in verbs.split('|') {
                rows.push((format!("{who} {v}"), SAYS_WRONG, 6));
            }
        }
        owned_table(rows)
    })
}

/// The predicates that may follow a piece of code ("`x` is silently ignored", "`a` and `b`
/// are both invalid"), with the most words allowed before them.
fn after_table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        let mut rows: Vec<(String, Option<Cue>, usize)> = vec![
            ("ignored|unfiltered|invalid|wrong|incorrect|unsupported|not valid|not supported|not a filter|not a netbox filter|not a lookup|not a netbox lookup|returns everything|does not exist|doesn't exist|do not exist|don't exist|does not work|doesn't work|do not work|don't work|won't work|no effect|neither is valid|none is valid|none are valid|neither of them is valid|❌|✗|✘".into(), SAYS_WRONG, 5),
            ("has moved|have moved|moved to|no longer|is gone|are gone|( removed|( deprecated|( renamed|is obsolete|is legacy|are obsolete".into(), SAYS_OLD, 3),
            ("→ §".into(), SAYS_OLD, 0),
            ("is correct|are correct|is right|is valid|are valid|is supported|is the right form|works|✅|✔".into(), SAYS_RIGHT, 5),
        ];
        for obj in ["object", "objects", "result", "results", "row", "rows", "record", "records"] {
            for all in ["every", "all"] {
                rows.push((format!("returns {all} {obj}"), SAYS_WRONG, 5));
            }
        }
        for aux in ["was", "were", "is", "are", "has been", "have been"] {
            for v in ["renamed", "removed", "replaced", "deprecated", "dropped", "moved", "retired"] {
                rows.push((format!("{aux} {v}"), SAYS_OLD, 3));
            }
        }
        owned_table(rows)
    })
}

/// Most bytes of a sentence read on each side of its code: a cue is within a few words.
const NEAR: usize = 160;

/// The cue nearest the end of `before`, the sentence text before a piece of code (code spans
/// in it written as [`CODE`], see [`normalise`]); its range is in `before`.
pub(crate) fn before(before: &str) -> Option<Hit> {
    let from = before.floor_char_boundary(before.len().saturating_sub(NEAR));
    let toks = tokens(&before[from..]);
    let words_after = |end: usize| toks[end..].iter().filter(|t| t.is_word()).count();
    let mut best: Option<(usize, usize, Cue)> = None;
    for i in 0..toks.len() {
        // The longest phrase here whose gap to the code is short enough.
        let Some(p) = before_table()
            .at(&toks, i)
            .find(|p| words_after(i + p.words.len()) <= p.gap)
        else {
            continue;
        };
        let end = i + p.words.len();
        if best.is_none_or(|(s, e, _)| end > e || (end == e && i < s)) {
            best = Some((i, end, p.cue.unwrap_or(Cue::Wrong)));
        }
    }
    best.map(|(s, e, cue)| Hit {
        cue,
        range: from + toks[s].range.start..from + toks[e - 1].range.end,
    })
    .or_else(|| colon_label(before))
}

/// A label that ends with a colon right before the code (`Wrong (on purpose): `x``, `✅ Right:
/// `y``): the label's first cue, when the label is a few words.
fn colon_label(before: &str) -> Option<Hit> {
    // The method of a request line is the call's, not the label's (`Wrong:\nGET /api/...`).
    let mut head = before.trim_end();
    for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] {
        if let Some(h) = head.strip_suffix(method) {
            if h.is_empty() || h.ends_with(char::is_whitespace) {
                head = h.trim_end();
                break;
            }
        }
    }
    let head = head.strip_suffix(':')?;
    // The label starts after the last sentence end (`3.x` is none: a stop needs a space after).
    let b = head.as_bytes();
    let start = (0..b.len())
        .rev()
        .find(|&i| {
            matches!(b[i], b':' | b';' | b'\n')
                || (matches!(b[i], b'.' | b'!' | b'?')
                    && b.get(i + 1).is_some_and(u8::is_ascii_whitespace))
        })
        .map_or(0, |i| i + 1);
    let label_text = &head[start..];
    if tokens(label_text).iter().filter(|t| t.is_word()).count() > 8 {
        return None;
    }
    let hit = label(label_text, Place::Comment)?;
    Some(Hit {
        cue: hit.cue,
        range: start + hit.range.start..start + hit.range.end,
    })
}

/// The first predicate in `after`, the sentence text after a piece of code (code spans as
/// [`CODE`]); its range is in `after`.
pub(crate) fn after(after: &str) -> Option<Hit> {
    let to = after.floor_char_boundary(after.len().min(NEAR));
    let toks = tokens(&after[..to]);
    let mut words = 0;
    for i in 0..toks.len() {
        if let Some(p) = after_table().first_at(&toks, i) {
            if words <= p.gap {
                return Some(Hit {
                    cue: p.cue.unwrap_or(Cue::Wrong),
                    range: toks[i].range.start..toks[i + p.words.len() - 1].range.end,
                });
            }
        }
        if toks[i].is_word() {
            words += 1;
        }
        if words > 5 {
            break;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lab(s: &str, p: Place) -> Option<Cue> {
        label(s, p).map(|h| h.cue)
    }

    #[test]
    fn headings_that_are_labels() {
        for (text, want) in [
            ("Incorrect Pattern", Some(Cue::Wrong)),
            ("❌ Don't", Some(Cue::Wrong)),
            ("What not to write", Some(Cue::Wrong)),
            ("Correct Pattern", Some(Cue::Right)),
            ("Don't forget pagination", None),
            ("Common filters", None),
            ("Wrong turns in NetBox history", None),
        ] {
            assert_eq!(heading_label(text), want, "{text:?}");
        }
    }

    #[test]
    fn labels_both_ways() {
        for (text, place, want) in [
            (
                "WRONG: label instead of value",
                Place::Comment,
                Some(Cue::Wrong),
            ),
            ("❌ ignored", Place::Comment, Some(Cue::Wrong)),
            ("Don't:", Place::Comment, Some(Cue::Wrong)),
            ("Don't forget the limit", Place::Comment, None),
            (
                "Use role_id to avoid the trap",
                Place::Comment,
                Some(Cue::Right),
            ),
            ("To avoid timeouts, paginate", Place::Comment, None),
            ("CORRECT: repeated keys", Place::Comment, Some(Cue::Right)),
            ("list devices at site 1", Place::Comment, None),
            (
                "### invalid-value: a name on an id filter",
                Place::Comment,
                None,
            ),
            (
                "wrong-filter-for-type on IP addresses",
                Place::Comment,
                None,
            ),
            ("an anti-pattern", Place::Comment, Some(Cue::Wrong)),
            ("returns every object", Place::Comment, Some(Cue::Wrong)),
            (
                "device_role_id is ignored",
                Place::Comment,
                Some(Cue::Wrong),
            ),
            (
                "this filter does not exist",
                Place::Comment,
                Some(Cue::Wrong),
            ),
            (
                "Read from main - device doesn't exist yet",
                Place::Comment,
                None,
            ),
            ("the cache is ignored here", Place::Comment, None),
            (
                "Not like this (`filter` is not an argument):",
                Place::Lead,
                Some(Cue::Wrong),
            ),
            (
                "NetBox ignores unknown filters, so check names:",
                Place::Lead,
                None,
            ),
            ("This returns every object:", Place::Lead, Some(Cue::Wrong)),
            ("Never use `x` in a request.", Place::Lead, None),
            ("**Wrong**", Place::Lead, Some(Cue::Wrong)),
            ("Avoid N+1 queries by fetching once:", Place::Lead, None),
            ("Wrong approach", Place::Column, Some(Cue::Wrong)),
            ("Before", Place::Column, Some(Cue::Wrong)),
            ("After", Place::Column, Some(Cue::Right)),
            ("Old name", Place::Column, Some(Cue::Old)),
            ("Replacement", Place::Column, Some(Cue::New)),
            ("Filter", Place::Column, None),
            ("❌", Place::Status, Some(Cue::Wrong)),
            ("No", Place::Status, Some(Cue::Wrong)),
            ("Not supported", Place::Status, Some(Cue::Wrong)),
            ("✅ correct", Place::Status, Some(Cue::Right)),
            ("Null check", Place::Status, None),
            ("Devices whose name is not valid", Place::Status, None),
        ] {
            assert_eq!(lab(text, place), want, "{text:?} at {place:?}");
        }
    }

    fn cue_before(s: &str) -> Option<Cue> {
        before(&normalise(s)).map(|h| h.cue)
    }

    fn cue_after(s: &str) -> Option<Cue> {
        after(&normalise(s)).map(|h| h.cue)
    }

    #[test]
    fn sentence_cues_both_ways() {
        for (text, want) in [
            ("Never use ", Some(Cue::Wrong)),
            ("Use `role_id`, not ", Some(Cue::Wrong)),
            ("Instead of `x`, use ", Some(Cue::Right)),
            ("the model often writes ", Some(Cue::Wrong)),
            ("agents write ", Some(Cue::Wrong)),
            ("use ", Some(Cue::Right)),
            ("Don't use `a` or ", Some(Cue::Wrong)),
            ("Renamed `device_role_id` to ", Some(Cue::New)),
            ("NetBox 4.0 removed ", Some(Cue::Old)),
            ("This is a note about ", None),
            ("Do not forget that ", None),
            ("Wrong (ümlaut before it on purpose): ", Some(Cue::Wrong)),
            ("Wrong (the 3.x name): ", Some(Cue::Wrong)),
            ("✅ Right: ", Some(Cue::Right)),
            ("Anti-pattern:\nGET ", Some(Cue::Wrong)),
            ("Send:\nGET ", Some(Cue::Right)),
            ("See the GET ", None),
            ("/api/dcim/devices/?wwn=zz-no-such\n", None),
        ] {
            assert_eq!(cue_before(text), want, "{text:?}");
        }
        for (text, want) in [
            (" is silently ignored", Some(Cue::Wrong)),
            (" and `b` are both invalid", Some(Cue::Wrong)),
            (" returns every object", Some(Cue::Wrong)),
            (" was renamed in 4.0", Some(Cue::Old)),
            (" endpoint has moved to `x`", Some(Cue::Old)),
            (" to match several sites", None),
            (" works on every release", Some(Cue::Right)),
        ] {
            assert_eq!(cue_after(text), want, "{text:?}");
        }
    }

    #[test]
    fn normalise_keeps_the_length_and_hides_code() {
        for s in [
            "a `never use` b",
            "`x`",
            "**Wrong:** `é` ok",
            "``",
            "a `b",
            "x ✅ `y`",
        ] {
            let n = normalise(s);
            assert_eq!(n.len(), s.len(), "{s:?} → {n:?}");
            assert!(!n.contains("never"), "{n:?}");
        }
    }
}
