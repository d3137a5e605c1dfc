//! `invalid-choice`: a value outside the parameter's choice set (HTTP 400 "Select a valid
//! choice"). A warning against the stock index (an instance can extend some choice sets with
//! `FIELD_CHOICES`), an error when the index was built from the instance itself. The bare key
//! and every text lookup (`__n`, `__ic`, `__isw`, `__regex`, ...) take whole choice values:
//! NetBox validates the value against the choices before it applies the lookup.

use super::endpoint::View;
use super::lookups::Key;
use super::{finding_sev, render, Ctx};
use crate::extract::FilterEntry;
use crate::finding::{Finding, Severity};
use crate::index::{ChoiceSketch, Parameter, Sketch};
use std::ops::Range;

/// Lookups whose value NetBox validates as a whole choice, like the bare filter. Live 4.6.8:
/// `status__ic=act`, `status__ie=ACTIVE`, `status__n=xyz` → 400 "Select a valid choice"; the
/// sweeps (4.3.3, 4.6.8) show the same for `__isw`, `__iew`, `__regex`, `__iregex`
/// (`role__regex=zz-no-such` on ip-addresses → 400). `__empty` takes a boolean. Only for
/// declared (multi-value) choice filters: see [`check`].
const CHOICE_LOOKUPS: &[&str] = &[
    "n", "ic", "nic", "isw", "nisw", "iew", "niew", "ie", "nie", "regex", "iregex",
];

/// Past-tense and other verbs agents write for change-log actions (the labels are
/// "Created", "Updated", "Deleted"; values `create`, `update`, `delete`).
const VERBS: &[(&str, &str)] = &[
    ("created", "create"),
    ("added", "create"),
    ("updated", "update"),
    ("modified", "update"),
    ("changed", "update"),
    ("deleted", "delete"),
    ("removed", "delete"),
];

/// The choice set (its number in the index's `choice_sets`) that [`check`] holds values of
/// filter `key` (`parsed`, of parameter `param`; `own` as there) to; `None` when it holds them
/// to none and so reports no value.
pub(crate) fn set_of(
    view: &View,
    key: &str,
    parsed: &Key,
    param: &Parameter,
    own: bool,
) -> Option<u32> {
    let lookup = parsed.lookup();
    if super::lookups::has_dunder(key) && !lookup.is_some_and(|l| CHOICE_LOOKUPS.contains(&l)) {
        return None;
    }
    // The lookup parameters carry no enum in the schema; NetBox validates them against the
    // filter's own choices.
    // Past the test above a key without a lookup has no `__`: it is its own base, whose
    // parameter is `param`.
    let own = match param.choices {
        Some(_) => param,
        None if own && lookup.is_none() => return None,
        None => view.param(parsed.base())?,
    };
    // Only a declared `MultipleChoiceFilter` (schema: an array) validates its lookups; the
    // single-valued filters NetBox generates from a model field (`cable_end`, `face`,
    // `length_unit`) have plain text lookups (v4.6.8 sweep: `face__ic=zz-no-such` honoured).
    if lookup.is_some() && lookup != Some("n") && !own.multi {
        return None;
    }
    own.choices
}

/// Checks `text` (the wire text of one value) against choice set `number` of the index (the
/// [`set_of`] the entry's key); `parsed` is the entry's key parsed.
pub(crate) fn check(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    parsed: &Key,
    number: usize,
    text: &str,
    r: Range<usize>,
) -> Option<Finding> {
    let key = entry.key.as_str();
    let lookup = parsed.lookup();
    let set = view.index.choice_sets.get(number)?;
    if set.choices.is_empty() || text == "null" || set.choices.iter().any(|(v, _)| v == text) {
        return None;
    }
    let severity = if view.index.from_instance {
        Severity::Error
    } else {
        Severity::Warning
    };
    // One sketch per choice (made once per set); a set without them is scanned whole.
    let sketches = view
        .index
        .choice_sets
        .sketches(number)
        .filter(|s| s.len() == set.choices.len());
    let answer = near_values(view, number, &set.choices, sketches, text);
    let fix = answer.fix.clone();
    // One allocation: the head, the lookup's sentence, the advice (at most twelve values).
    let listed: usize = set.choices.iter().take(12).map(|(v, _)| v.len() + 2).sum();
    let mut msg = String::with_capacity(320 + 2 * text.len() + key.len() + listed);
    for part in [
        "`",
        text,
        "` is not a choice of `",
        key,
        "` in NetBox ",
        view.version(),
        ": NetBox answers HTTP 400.",
    ] {
        msg.push_str(part);
    }
    if lookup.is_some_and(|l| l != "n") {
        msg.push_str(" The lookup does not match parts of values: NetBox checks the value against the choices first.");
    }
    match &fix {
        Some(v) => {
            msg.push_str(" Use `");
            msg.push_str(v);
            msg.push_str("`.");
        }
        None => {
            // "a, b, c" (the first twelve values, then ", ...").
            msg.push_str(" Choices: ");
            for (i, (v, _)) in set.choices.iter().take(12).enumerate() {
                if i > 0 {
                    msg.push_str(", ");
                }
                msg.push_str(v);
            }
            if set.choices.len() > 12 {
                msg.push_str(", ...");
            }
            msg.push('.');
        }
    }
    if !view.index.from_instance {
        msg.push_str(" (Stock choices; an instance can add its own.)");
    }
    let mut f = finding_sev(r.clone(), "invalid-choice", severity, msg);
    // The titles joined, not formatted (`format!` was ~400 instructions a title).
    let title = |v: &str| super::text::cat(&["Replace with `", v, "`"]);
    if let Some(v) = fix {
        let new = render::string(&v, ctx.syntax());
        f = f.with_fix(title(&v), r, new, true);
    } else {
        for v in &answer.similar {
            let new = render::string(v, ctx.syntax());
            f = f.with_fix(title(v), r.clone(), new, false);
        }
    }
    Some(f)
}

/// The values near a text that is no choice of a set: the one it surely means
/// ([`best_value`]), else the similar ones ([`similar`], made only without the first).
struct Near {
    fix: Option<String>,
    similar: Vec<String>,
}

/// Most answers a thread remembers ([`near_values`]); past it the memo starts again (each
/// holds a few short values).
const NEAR_MAX: usize = 4096;

/// Longest text (bytes) whose answer is remembered: the server's threads keep the memo across
/// documents, so a long value (a pasted blob) is ranked each time rather than held.
const NEAR_TEXT_MAX: usize = 64;

/// Per release: choice set number → text → [`Near`] (probed with the text borrowed), hashed as
/// the name suggestions' memo is (SipHash of the number and the text was ~300 instructions a
/// probe, a fifth of a wrong choice's check).
type NearMemo = Vec<(
    Box<str>,
    FastMap<usize, FastMap<Box<str>, std::rc::Rc<Near>>>,
)>;

/// A map hashed with [`super::suggest::NameHasher`].
type FastMap<K, V> =
    std::collections::HashMap<K, V, std::hash::BuildHasherDefault<super::suggest::NameHasher>>;

thread_local! {
    /// [`near_values`]' answers for the shipped releases, and how many it holds.
    static NEAR: std::cell::RefCell<(NearMemo, usize)> = std::cell::RefCell::default();
}

/// [`Near`] of `text` for choice set `number` of `view`'s index (`choices`, `sketches`).
/// Remembered per thread for the shipped indexes, whose sets are named by their release and
/// number (the same data each time the release is decoded), as the name suggestions are
/// (`suggest`): code repeats its wrong values (`status="Active"` on every call), and the
/// ranking of a set's values cost ~6,000 instructions a value. A text's own index is not
/// remembered.
fn near_values(
    view: &View,
    number: usize,
    choices: &[(String, String)],
    sketches: Option<&[ChoiceSketch]>,
    text: &str,
) -> std::rc::Rc<Near> {
    let compute = || {
        let fix = best_value(choices, sketches, text);
        let similar = match fix {
            Some(_) => Vec::new(),
            None => similar(choices, sketches, text),
        };
        std::rc::Rc::new(Near { fix, similar })
    };
    if text.len() > NEAR_TEXT_MAX || !super::versions::is_shipped(view.index) {
        return compute();
    }
    let release = view.index.netbox_version.as_str();
    NEAR.with(|memo| {
        let kept = memo
            .borrow()
            .0
            .iter()
            .find(|(r, _)| **r == *release)
            .and_then(|(_, sets)| sets.get(&number)?.get(text).cloned());
        if let Some(n) = kept {
            return n;
        }
        let n = compute();
        let mut memo = memo.borrow_mut();
        let (releases, len) = &mut *memo;
        if *len >= NEAR_MAX {
            releases.clear();
            *len = 0;
        }
        let at = match releases.iter().position(|(r, _)| **r == *release) {
            Some(at) => at,
            None => {
                releases.push((release.into(), Default::default()));
                releases.len() - 1
            }
        };
        let sets = &mut releases[at].1;
        if sets
            .entry(number)
            .or_default()
            .insert(text.into(), n.clone())
            .is_none()
        {
            *len += 1;
        }
        n
    })
}

/// The one value `text` surely means: same value ignoring case, a label (ignoring case), the
/// label slugified (`Access Switch` → `access-switch`), or a known verb.
/// `sketches`: the choices' [`ChoiceSketch`]es, when made (an ASCII text of another length
/// than `lower` is no match: not compared).
fn best_value(
    choices: &[(String, String)],
    sketches: Option<&[ChoiceSketch]>,
    text: &str,
) -> Option<String> {
    let lower = text.trim().to_lowercase();
    // The one choice `pred` holds for (no list of hits made).
    let unique = |pred: &dyn Fn(usize, &(String, String)) -> bool| -> Option<String> {
        let mut hits = choices.iter().enumerate().filter(|(i, c)| pred(*i, c));
        let (_, (v, _)) = hits.next()?;
        hits.next().is_none().then(|| v.clone())
    };
    // `lower_eq(s, &lower)`, `s` being the text `sketch` picks of choice `i`.
    let lower_eq_at = |i: usize, s: &str, sketch: fn(&ChoiceSketch) -> &Sketch| {
        let other_length = sketches
            .and_then(|all| all.get(i))
            .map(sketch)
            .is_some_and(|sk| sk.ascii && sk.len as usize != lower.len());
        !other_length && lower_eq(s, &lower)
    };
    if let Some(v) = unique(&|i, (v, _)| lower_eq_at(i, v, |c| &c.value)) {
        return Some(v);
    }
    if let Some(v) = unique(&|i, (_, l)| lower_eq_at(i, l, |c| &c.label)) {
        return Some(v);
    }
    // The non-empty runs of alphanumerics joined with `-`.
    let mut slug = String::with_capacity(lower.len());
    for part in lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|s| !s.is_empty())
    {
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(part);
    }
    // `v.replace('_', "-") == slug` without a string per choice.
    let dashed_eq = |v: &str| {
        v.len() == slug.len()
            && v.bytes()
                .zip(slug.bytes())
                .all(|(a, b)| if a == b'_' { b == b'-' } else { a == b })
    };
    if let Some(v) = unique(&|_, (v, _)| *v == slug || dashed_eq(v)) {
        return Some(v);
    }
    let verb = VERBS.iter().find(|(w, _)| *w == lower).map(|(_, v)| *v)?;
    unique(&|_, (v, _)| v == verb)
}

/// `s.to_lowercase() == lower`, without lowercasing into a new string for an ASCII `s` (a
/// choice value or label; one allocation per choice was most of a wrong choice's check).
fn lower_eq(s: &str, lower: &str) -> bool {
    if s.is_ascii() {
        s.len() == lower.len()
            && s.bytes()
                .zip(lower.bytes())
                .all(|(a, b)| a.to_ascii_lowercase() == b)
    } else {
        s.to_lowercase() == lower
    }
}

/// [`near::Bound`](super::near::Bound)'s test from the [`Sketch`]es of a choice set: the
/// lowercased text a wrong value is compared with, as its byte set, length and first bytes.
struct Probe<'a> {
    text: &'a [u8],
    bytes: u128,
}

impl<'a> Probe<'a> {
    /// `None` where `Bound::new` gives none (a text not ASCII, empty or over 128 bytes).
    fn new(text: &'a str) -> Option<Probe<'a>> {
        let text = text.as_bytes();
        if text.is_empty() || text.len() > 128 || !text.is_ascii() {
            return None;
        }
        let bytes = text.iter().fold(0u128, |m, &c| m | 1u128 << c);
        Some(Probe { text, bytes })
    }

    /// False only when `Bound::may_reach(other, true, 0.8)` is surely false for the text
    /// `sk` sketches (so that `similar` would not score it): its Jaro matches are at most the
    /// bytes of `other` that occur in the text, which are at most the distinct ones plus the
    /// repeats; the bound grows with that number, and a wider margin than `Bound`'s covers
    /// rounding. True for a text without a sketch.
    #[inline(always)]
    fn may_reach(&self, sk: &Sketch) -> bool {
        if !sk.bounded {
            return true;
        }
        let shared = (self.bytes & sk.bytes).count_ones() + sk.repeats;
        let m = (shared as usize).min(self.text.len());
        // Jaro-Winkler reaches 0.8 only with Jaro ≥ 2/3 (Winkler adds at most 0.4 of the
        // rest), so only when m/|a| + m/|b| ≥ 1: asked in integers first, with a margin far
        // above any rounding when it fails (at least 2e-5 below 0.8 for texts this short).
        let (a, b) = (self.text.len(), sk.len as usize);
        if m == 0 || m * (a + b) < a * b {
            return false;
        }
        let m = m as f64;
        let jaro = (m / self.text.len() as f64 + m / f64::from(sk.len) + 1.0) / 3.0;
        let prefix = self
            .text
            .iter()
            .take(4)
            .zip(&sk.head[..(sk.len as usize).min(4)])
            .take_while(|(x, y)| x == y)
            .count();
        jaro + 0.1 * prefix as f64 * (1.0 - jaro) >= 0.8 - 1e-6
    }
}

/// [`scan_into`] compiled with the `popcnt` instruction ([`Probe::may_reach`] counts the bits
/// of two sketches per choice; the baseline x86-64 target counts them with shifts and masks).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn scan_popcnt<'c>(
    choices: &'c [(String, String)],
    sketches: Option<&[ChoiceSketch]>,
    probe: Option<&Probe>,
    score: &dyn Fn(&str) -> f64,
    scored: &mut Vec<(f64, &'c String)>,
) {
    scan_into(choices, sketches, probe, score, scored);
}

/// Pushes onto `scored` each value of `choices` whose value or label scores 0.8 or more by
/// `score`, with that score. A text below 0.8 scores as 0.0 (it is filtered out either way):
/// one its sketch shows cannot reach 0.8 is not scored.
#[inline(always)]
fn scan_into<'c>(
    choices: &'c [(String, String)],
    sketches: Option<&[ChoiceSketch]>,
    probe: Option<&Probe>,
    score: &dyn Fn(&str) -> f64,
    scored: &mut Vec<(f64, &'c String)>,
) {
    for (i, (v, l)) in choices.iter().enumerate() {
        let sk = sketches.and_then(|all| all.get(i));
        // A label that is the value but for ASCII case (`Active`, `active`) scores the same
        // (both are lower-cased first): scored once.
        let same = sk.map_or_else(|| l.eq_ignore_ascii_case(v), |sk| sk.same);
        let s = if same {
            score_sk(probe, score, v, sk.map(|sk| &sk.value))
        } else {
            score_sk(probe, score, v, sk.map(|sk| &sk.value)).max(score_sk(
                probe,
                score,
                l,
                sk.map(|sk| &sk.label),
            ))
        };
        if s >= 0.8 {
            scored.push((s, v));
        }
    }
}

/// `score(s)`, or 0.0 when the sketch `sk` of `s` shows it cannot reach 0.8 (a function, not
/// a closure: inlined into [`scan_popcnt`], it counts bits with `popcnt`).
#[inline(always)]
fn score_sk(
    probe: Option<&Probe>,
    score: &dyn Fn(&str) -> f64,
    s: &str,
    sk: Option<&Sketch>,
) -> f64 {
    match (probe, sk) {
        (Some(p), Some(sk)) if !p.may_reach(sk) => 0.0,
        _ => score(s),
    }
}

/// Up to three values close to `text` (Jaro-Winkler ≥ 0.8 on value or label). `sketches`:
/// the choices' [`ChoiceSketch`]es, when made: a text they show cannot reach 0.8 is not
/// looked at.
fn similar(
    choices: &[(String, String)],
    sketches: Option<&[ChoiceSketch]>,
    text: &str,
) -> Vec<String> {
    let t = text.to_lowercase();
    // A choice that cannot reach 0.8 is not scored (`near::Bound`): it is filtered out
    // whatever its exact score.
    let bound = super::near::Bound::new(&t);
    let probe = Probe::new(&t);
    // strsim's number on the lowercased texts; for ASCII ones lowercased on the stack and
    // scored on bytes (a `to_lowercase` and strsim's allocation per choice made this 37,000
    // instructions a value).
    let score = |s: &str| {
        if s.len() <= 64
            && bound
                .as_ref()
                .is_some_and(|b| !b.may_reach(s.as_bytes(), true, 0.8))
        {
            return 0.0;
        }
        let mut buf = [0u8; 64];
        match buf.get_mut(..s.len()) {
            Some(low) if s.is_ascii() && t.is_ascii() => {
                low.copy_from_slice(s.as_bytes());
                low.make_ascii_lowercase();
                super::suggest::jaro_winkler_bytes(t.as_bytes(), low, 0.79)
            }
            _ => strsim::jaro_winkler(&t, &s.to_lowercase()),
        }
    };
    let mut scored: Vec<(f64, &String)> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has `popcnt`, checked just above.
            unsafe { scan_popcnt(choices, sketches, probe.as_ref(), &score, &mut scored) };
        } else {
            scan_into(choices, sketches, probe.as_ref(), &score, &mut scored);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    scan_into(choices, sketches, probe.as_ref(), &score, &mut scored);
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().take(3).map(|(_, v)| v.clone()).collect()
}

#[cfg(test)]
mod sketch_tests {
    use crate::index::{ChoiceSet, ChoiceSets};

    /// The sketches change no answer: `similar` and `best_value` give the same with and
    /// without them, over choices near and far, long and short, ASCII or not.
    #[test]
    fn sketches_change_no_answer() {
        let pairs = [
            ("active", "Active"),
            ("planned", "Planned"),
            ("staged", "Staged"),
            ("failed", "Failed"),
            ("offline", "Offline"),
            ("decommissioning", "Decommissioning"),
            ("1000base-t", "1000BASE-T (1GE)"),
            ("1000base-x-sfp", "SFP (1GE)"),
            ("10gbase-x-sfpp", "SFP+ (10GE)"),
            ("virtual", "Virtual"),
            ("lag", "Link Aggregation Group (LAG)"),
            ("access-switch", "Access Switch"),
            ("create", "Created"),
            ("dcim.device", "DCIM > Device"),
            ("straße", "Straße"),
            ("é", "É"),
            (
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                "long",
            ),
            ("", "Empty"),
            ("10", "10"),
            ("abab", "baba"),
        ];
        let choices: Vec<(String, String)> = pairs
            .iter()
            .map(|(v, l)| (v.to_string(), l.to_string()))
            .collect();
        let sets = ChoiceSets::from(vec![ChoiceSet {
            choices: choices.clone(),
        }]);
        let sketches = sets.sketches(0);
        assert_eq!(sketches.map(<[_]>::len), Some(choices.len()));
        let texts = [
            "activ",
            "Actve",
            "ACTIVE",
            "active",
            "plan",
            "planed",
            "stged",
            "fail",
            "ofline",
            "decom",
            "1000base",
            "1000BASE-T",
            "sfp",
            "SFP+",
            "virt",
            "Lag",
            "access switch",
            "Access-Switch",
            "created",
            "deleted",
            "dcim device",
            "strasse",
            "straße",
            "e",
            "é",
            "a",
            "aa",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "",
            " ",
            "10",
            "1",
            "baab",
            "zz-no-such",
            "edge",
            "dc1",
            "core",
            "42",
        ];
        for t in texts {
            assert_eq!(
                super::similar(&choices, None, t),
                super::similar(&choices, sketches, t),
                "{t:?}"
            );
            assert_eq!(
                super::best_value(&choices, None, t),
                super::best_value(&choices, sketches, t),
                "{t:?}"
            );
        }
    }
}

#[cfg(test)]
mod lower_tests {
    /// `lower_eq` answers as comparing `to_lowercase()` texts.
    #[test]
    fn lower_eq_is_to_lowercase() {
        let words = [
            "",
            "a",
            "A",
            "active",
            "Active",
            "ACTIVE",
            "activ",
            "Access Switch",
            "access switch",
            "İ",
            "i̇",
            "ß",
            "SS",
            "Straße",
            "é",
            "É",
            "k",
            "\u{212a}",
            "dcim.device",
        ];
        for s in words {
            for t in words {
                let lower = t.to_lowercase();
                assert_eq!(
                    super::lower_eq(s, &lower),
                    s.to_lowercase() == lower,
                    "{s:?} {t:?}"
                );
            }
        }
    }
}
