//! The words by which a text says how it means the code beside it: as a wrong example (a
//! lesson), as the form to use, as what a release removed or renamed (history), or as what
//! replaced it. Read from a label (a comment, a heading, a table header or status cell, the line
//! before a block) and from the sentence around an inline piece of code.
//!
//! The word lists are English, as the skill files and NetBox's documentation are. A site with
//! no cue, or with a cue for the form to use, stays a call: reading a wrong example as a call
//! costs a finding the writer did not want, reading a call as an example hides a real one.

use regex::Regex;
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

fn regex(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("valid cue pattern"))
}

/// Label words, one named group per cue; `skip` holds phrases that look like a cue and are
/// none ("to avoid", "don't forget"). The leftmost hit decides.
const LABEL: &str = r"(?ix)
    (?P<skip>\bto\s+avoid\b|\b(?:don[’']?t|do\s+not|never)\s+(?:forget|miss|skip)\b|\bif\s+not\b|\bnot\s+only\b)
  | (?P<wrong>❌|✗|✘|🚫|⛔|✖
      |\bnot\s+(?:correct|right|valid|ok|good|like\s+this|this\s+way)\b
      |\b(?:wrong|wrongly|incorrect|incorrectly|invalid|bad|broken|anti-?patterns?)\b
      |\b(?:don[’']?t|do\s+not|never|avoid)\b(?:\s+(?:use|using|write|writing|do|send|sending|pass|call|query|put|add|this|these|that|like)\b|\s*(?:[:!.—–]|-\s|$))
      |\b(?:silently\s+)?ignored\b|\bsilently\s+ignores\b
      |\breturns?\s+(?:every|all)\s+(?:objects?|results?|rows?|records?|devices?)\b|\breturns?\s+everything\b|\bunfiltered\b
      |\b(?:does\s+not|doesn[’']?t|do\s+not|don[’']?t|won[’']?t|will\s+not)\s+(?:exist|work)\b
      |\bnot\s+(?:a\s+(?:netbox\s+)?(?:filter|lookup|field|argument|endpoint)|supported|allowed)\b|\bunsupported\b|\bno\s+effect\b)
  | (?P<old>\b(?:removed|deprecated|renamed|obsolete|legacy|formerly|previously|no\s+longer|was\s+called|used\s+to\s+be|dropped)\b)
  | (?P<right>✅|✔|✓|☑|👍
      |\b(?:right|correct|correctly|good|valid|works?|working|fixed|better|best|preferred|recommended|ok|okay|instead)\b
      |^\W*(?:do|use|prefer)\b)
";

/// Extra words of a column header or a heading used as one ("Before" / "After", "Old" / "New").
const COLUMN: &str = r"(?ix)^\W*(?:
      (?P<wrong>before|don[’']?t|do\s+not|avoid|never|no)
    | (?P<right>after|do|use|yes)
    | (?P<old>old|previous|former|was|until\s+v?\d)
    | (?P<new>new|replacement|current|now|since\s+v?\d)
)\b";

/// A heading that is nothing but a label (`## Incorrect Pattern`, `### ❌ Don't`,
/// `## Correct Pattern`): what it says of the code block under it. A heading with more words
/// ("Don't forget pagination", "Common filters") is none.
pub(crate) fn heading_label(text: &str) -> Option<Cue> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = regex(
        &RE,
        r"(?ix)^\W*(?:
            (?P<wrong>❌|✗|✘|🚫|⛔)
          | (?P<right>✅|✔|✓)
          | (?P<w>(?:wrong|incorrect|bad|anti-?patterns?|(?:common\s+)?mistakes|pitfalls|what\s+not\s+to\s+(?:do|write|send)
                 |(?:don[’']?t|do\s+not|never|avoid)(?:\s+do\s+this|\s+this)?)
               (?:\s+(?:patterns?|examples?|approach(?:es)?|ways?|usage|code|quer(?:y|ies)|forms?|practices?|calls?|filters?))?\W*$)
          | (?P<r>(?:right|correct|good|do\s+this|do|recommended|preferred)
               (?:\s+(?:patterns?|examples?|approach(?:es)?|ways?|usage|code|quer(?:y|ies)|forms?|practices?|calls?|filters?))?\W*$)
        )",
    );
    let caps = re.captures(text.trim())?;
    if caps.name("wrong").is_some() || caps.name("w").is_some() {
        Some(Cue::Wrong)
    } else {
        Some(Cue::Right)
    }
}

/// The first cue of a label at `place`, with its range in `text`.
pub(crate) fn label(text: &str, place: Place) -> Option<Hit> {
    static LABEL_RE: OnceLock<Regex> = OnceLock::new();
    static COLUMN_RE: OnceLock<Regex> = OnceLock::new();
    let text = text.trim_end();
    let column = matches!(place, Place::Column | Place::Status)
        .then(|| first(regex(&COLUMN_RE, COLUMN), text))
        .flatten();
    static LEAD_RE: OnceLock<Regex> = OnceLock::new();
    // "A common mistake is to write:" above a block; in a comment "one mistake, one finding"
    // is a description.
    let lead = (place == Place::Lead)
        .then(|| {
            first(
                regex(
                    &LEAD_RE,
                    r"(?i)(?P<wrong>\b(?:mistakes?|pitfalls?|gotchas?)\b)",
                ),
                text,
            )
        })
        .flatten();
    let label = first(regex(&LABEL_RE, LABEL), text);
    let hit = match (column, lead, label) {
        (Some(c), _, _) => c,
        (None, Some(l), Some(b)) => {
            if l.range.start < b.range.start {
                l
            } else {
                b
            }
        }
        (None, l, b) => l.or(b)?,
    };
    match place {
        // A status cell is a verdict only when it starts with one (`❌ ignored`, not "returns
        // the devices; the old form is ignored").
        Place::Status => {
            (text[..hit.range.start].trim().is_empty() && words(text) <= 5).then_some(hit)
        }
        // A sentence above a block labels it when it leads into it (ends with `:`) or is a
        // label of a few words (`❌ Wrong`); "Never use `x`." is about `x`. One that states a
        // fact ("NetBox ignores unknown filters, so check the names:") is no label either; one
        // that points at what follows is ("This returns every device:").
        Place::Lead
            if !text.trim_end_matches(['*', '_', ' ']).ends_with(':')
                && (words(text) > 4 || text.contains(CODE)) =>
        {
            None
        }
        Place::Lead if hit.cue == Cue::Wrong && is_predicate(&text[hit.range.clone()]) => {
            deictic(text).then_some(hit)
        }
        _ => Some(hit),
    }
}

/// The leftmost hit of `re` in `text` that is not a `skip` phrase nor part of a compound name
/// (`invalid-value`, `wrong_filter`, `bad-gateway`: a code's or a field's name, no verdict).
fn first(re: &Regex, text: &str) -> Option<Hit> {
    for caps in re.captures_iter(text) {
        let named = |n: &str| caps.name(n).map(|m| m.range());
        if named("skip").is_some() {
            continue;
        }
        let whole = caps.get(0).map_or(0..0, |m| m.range());
        let joined = |s: &str| {
            let mut c = s.chars();
            matches!((c.next(), c.next()), (Some('-' | '_'), Some(x)) if x.is_alphanumeric())
        };
        let before: String = text[..whole.start].chars().rev().take(2).collect();
        if joined(&text[whole.end..]) || joined(&before) {
            continue;
        }
        for (name, cue) in [
            ("wrong", Cue::Wrong),
            ("right", Cue::Right),
            ("old", Cue::Old),
            ("new", Cue::New),
        ] {
            if let Some(range) = named(name) {
                return Some(Hit { cue, range });
            }
        }
    }
    None
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

/// Number of words (whitespace-separated tokens holding a letter, a digit or [`CODE`]).
fn words(s: &str) -> usize {
    s.split_whitespace()
        .filter(|w| w.chars().any(|c| c.is_alphanumeric() || c == CODE))
        .count()
}

/// The cue phrases that may stand before a piece of code in its sentence, each with the most
/// words allowed between it and the code. The phrase that ends nearest the code decides; of
/// two ending at the same place, the longer one ("don't use" over "use").
const BEFORE: &[(&str, Cue, usize)] = &[
    (
        r"(?:never|don[’']?t|do\s+not)\s+(?:use|write|send|pass|put|do)|avoid(?:\s+using)?|instead\s+of|rather\s+than|not\s+like",
        Cue::Wrong,
        6,
    ),
    (
        r"(?:often|usually|sometimes|tend\s+to|might|may|commonly|typically|frequently|likely)\s+(?:writes|write|uses|use|sends|send|tries|try|guesses|guess|reach\s+for)",
        Cue::Wrong,
        6,
    ),
    (
        r"(?:agents?|models?|llms?|the\s+model|the\s+agent|people|users|assistants?)\s+(?:writes|write|uses|use|sends|send|tries|try|guesses|guess)",
        Cue::Wrong,
        6,
    ),
    (
        r"mistakenly|wrongly|incorrectly|(?:silently\s+)?ignores|wrong:|incorrect:|bad:|invalid:|ignored:|❌|✗|✘|🚫|⛔",
        Cue::Wrong,
        6,
    ),
    (r"\bnot|\bnor|\bnever|\bno", Cue::Wrong, 1),
    (
        r"\buse|\bwrite|\bsend|\bpass|\bprefer|\btry|\binstead,?|correct:|right:|good:|✅|✔|✓|the\s+right\s+form\s+is|should\s+be|becomes",
        Cue::Right,
        6,
    ),
    (
        r"renamed|removed|deprecated|replaced|dropped|formerly|previously|(?:was|were)\s+called|used\s+to\s+be|moved|retired|obsoleted",
        Cue::Old,
        6,
    ),
    (r"\bold|\bformer|\bobsolete|\blegacy", Cue::Old, 1),
    (r"\bto|\bby|\bwith|\binto|\bnow|\bnew|→|->|=>", Cue::New, 1),
];

/// The predicates that may follow a piece of code in its sentence ("`x` is silently ignored",
/// "`a` and `b` are both invalid"), each with the most words allowed before it.
const AFTER: &[(&str, Cue, usize)] = &[
    (
        r"(?:(?:is|are|gets?|will\s+be|would\s+be)\s+)?(?:silently\s+)?ignored|returns?\s+(?:every|all)\s+(?:objects?|results?|rows?|records?)|returns?\s+everything|unfiltered|(?:is|are)\s+(?:not\s+valid|invalid|wrong|incorrect|not\s+supported|unsupported|not\s+a\s+(?:netbox\s+)?(?:filter|lookup))|(?:are\s+)?both\s+invalid|(?:neither|none)\s+(?:of\s+them\s+)?(?:is|are)\s+valid|(?:does|do)\s+not\s+(?:exist|work)|(?:doesn[’']?t|don[’']?t|won[’']?t)\s+(?:exist|work)|has\s+no\s+effect|❌|✗|✘",
        Cue::Wrong,
        5,
    ),
    (
        r"(?:was|were|is|are|has\s+been|have\s+been)\s+(?:renamed|removed|replaced|deprecated|dropped|moved|retired)|(?:has|have)\s+moved|moved\s+to|(?:is|are)\s+no\s+longer|no\s+longer\s+(?:exists?|supported|works?|available)|(?:is|are)\s+gone|\(\s*(?:removed|deprecated|renamed)|(?:is|are)\s+(?:obsolete|legacy)",
        Cue::Old,
        3,
    ),
    (r"^\s*(?:→|->|=>)\s*\x01", Cue::Old, 0),
    (
        r"(?:is|are)\s+(?:correct|right|valid|supported|the\s+right\s+form)|\bworks\b|✅|✔",
        Cue::Right,
        5,
    ),
];

fn compiled(
    table: &'static [(&'static str, Cue, usize)],
    cell: &'static OnceLock<Vec<Regex>>,
) -> &'static [Regex] {
    cell.get_or_init(|| {
        table
            .iter()
            .map(|(p, _, _)| Regex::new(&format!("(?i)(?:{p})")).expect("valid cue pattern"))
            .collect()
    })
}

/// The cue nearest the end of `before`, the sentence text before a piece of code (code spans
/// in it written as [`CODE`], see [`normalise`]); its range is in `before`.
pub(crate) fn before(before: &str) -> Option<Hit> {
    static RES: OnceLock<Vec<Regex>> = OnceLock::new();
    let res = compiled(BEFORE, &RES);
    let mut best: Option<(usize, usize, Cue)> = None;
    for (re, (_, cue, gap)) in res.iter().zip(BEFORE) {
        for m in re.find_iter(before) {
            // A word cue must be a word of the sentence: `not` is no cue in `note`, `no` none
            // in `zz-no-such` or a URL.
            let next = before[m.end()..].chars().next();
            let prev = before[..m.start()].chars().next_back();
            let word = m.as_str().starts_with(char::is_alphanumeric);
            if next.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
                || (word && prev.is_some_and(|c| !c.is_whitespace() && !"(\"'“‘,".contains(c)))
            {
                continue;
            }
            if words(&before[m.end()..]) > *gap {
                continue;
            }
            let better = match best {
                None => true,
                Some((s, e, _)) => m.end() > e || (m.end() == e && m.start() < s),
            };
            if better {
                best = Some((m.start(), m.end(), *cue));
            }
        }
    }
    best.map(|(s, e, cue)| Hit { cue, range: s..e })
        .or_else(|| colon_label(before))
}

/// A label that ends with a colon right before the code (`Wrong (on purpose): `x``, `✅ Right:
/// `y``): the label's first cue, when the label is a few words.
fn colon_label(before: &str) -> Option<Hit> {
    let head = before.trim_end().strip_suffix(':')?;
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
    if words(label_text) > 8 {
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
    static RES: OnceLock<Vec<Regex>> = OnceLock::new();
    let res = compiled(AFTER, &RES);
    let mut best: Option<(usize, usize, Cue)> = None;
    for (re, (_, cue, gap)) in res.iter().zip(AFTER) {
        let Some(m) = re.find(after) else { continue };
        let prev = after[..m.start()].chars().next_back();
        if prev.is_some_and(char::is_alphanumeric) || words(&after[..m.start()]) > *gap {
            continue;
        }
        if best.is_none_or(|(s, _, _)| m.start() < s) {
            best = Some((m.start(), m.end(), *cue));
        }
    }
    best.map(|(s, e, cue)| Hit { cue, range: s..e })
}

/// The byte that stands for an inline code span in a [`normalise`]d sentence (one word).
pub(crate) const CODE: char = '\u{1}';

/// `text` as the sentence readers take it, byte for byte the same length: an inline code span
/// becomes [`CODE`] followed by spaces (words inside code are no cue, and a span counts as one
/// word), emphasis marks (`*`, `~`) become spaces.
pub(crate) fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        if c == '`' {
            out.push(if in_code { ' ' } else { CODE });
            in_code = !in_code;
        } else if in_code {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else if matches!(c, '*' | '~') {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
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
