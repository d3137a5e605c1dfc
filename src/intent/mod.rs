//! One reading of intent for every host form: before any check runs, each site the host
//! readers found (a REST call, a URL, a filter snippet, a GraphQL document) is put to the site
//! filters, which read the text around it and may say it is not a NetBox call to check: a
//! wrong example the text marks as wrong (a lesson), release history, a Django query, another
//! product's call. As harper's maskers feed its one checking core, the checks never see such a
//! site; it is reported as [`NotChecked`] instead (counted by `check`, listed by `--explain`,
//! explained by hover), so that skipping never hides a miss silently.
//!
//! A filter reads only the site, the code it was read from (a fence's body, a whole file: its
//! comments) and the [`Around`] of its Markdown piece (headings, the sentence above its block,
//! its sentence, its table column and row), and the facts it took from the whole document when
//! it was prepared ([`SiteFilter::state`]): the analysis keys its Markdown block cache on
//! exactly these.
//!
//! Each filter is one module: [`foreign`], [`history`], [`django`], [`lesson`]; [`FILTERS`] is
//! the list. The words they read are in [`cues`] (labels and sentences) and [`comments`].

mod around;
mod comments;
mod cues;
mod django;
mod foreign;
mod history;
mod lesson;
mod log;
mod words;

pub use around::{Around, Outline, Piece};

use crate::extract::{OffsetMap, Site};
use cues::{Cue, Place};
use std::cell::OnceCell;
use std::ops::Range;

/// What a site that is not checked was read as. Each has its site filter (see [`FILTERS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReadAs {
    /// A call of another product or client whose calls look like NetBox's (Nautobot, netbox3).
    Foreign,
    /// Release notes, a changelog, a migration note: what a release removed or renamed.
    History,
    /// A Django queryset lookup (a permission constraint, `Model.objects.filter(...)`).
    Django,
    /// A wrong example the text marks as wrong.
    Lesson,
    /// A request log record (`"GET /api/... HTTP/1.1" 200`): what was sent, not what to send.
    Log,
}

impl ReadAs {
    /// Every reading, in the order the site filters are asked.
    pub const ALL: [ReadAs; 5] = [
        ReadAs::Foreign,
        ReadAs::History,
        ReadAs::Django,
        ReadAs::Lesson,
        ReadAs::Log,
    ];

    /// The name used by `--explain`, the JSON and SARIF output and `netbox-lsp.toml`'s
    /// `[skip]` table: `foreign`, `history`, `django`, `lesson`, `log`.
    pub fn name(self) -> &'static str {
        match self {
            ReadAs::Foreign => "foreign",
            ReadAs::History => "history",
            ReadAs::Django => "django",
            ReadAs::Lesson => "lesson",
            ReadAs::Log => "log",
        }
    }

    /// The reading named `name` (see [`ReadAs::name`]).
    pub fn from_name(name: &str) -> Option<ReadAs> {
        ReadAs::ALL.into_iter().find(|r| r.name() == name)
    }

    /// What such a site is, for a message: "a wrong example", "release history", ...
    pub fn noun(self) -> &'static str {
        match self {
            ReadAs::Foreign => "another product's call",
            ReadAs::History => "release history",
            ReadAs::Django => "a Django query",
            ReadAs::Lesson => "a wrong example",
            ReadAs::Log => "a request log record",
        }
    }

    /// `n` such sites in words: `3 lessons`, `1 Django query`, `2 in release history`,
    /// `4 of another product`.
    pub fn count(self, n: usize) -> String {
        let one = n == 1;
        match self {
            ReadAs::Foreign => format!("{n} of another product"),
            ReadAs::History => format!("{n} in release history"),
            ReadAs::Django => format!("{n} Django {}", if one { "query" } else { "queries" }),
            ReadAs::Lesson => format!("{n} {}", if one { "lesson" } else { "lessons" }),
            ReadAs::Log => format!("{n} in request logs"),
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Which readings are on. Every one is by default; `netbox-lsp.toml`'s `[skip]` table (and the
/// editor setting of the same name) turns one off, and the sites it would hold back are
/// checked as calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Readings {
    off: [bool; ReadAs::ALL.len()],
}

impl Readings {
    /// True when sites are read as `r` (held back when they are).
    pub fn is_on(self, r: ReadAs) -> bool {
        !self.off[r.index()]
    }

    /// Turns reading `r` on or off.
    pub fn set(&mut self, r: ReadAs, on: bool) {
        self.off[r.index()] = !on;
    }

    /// Every reading off: every site is checked as a call.
    pub fn none() -> Readings {
        Readings {
            off: [true; ReadAs::ALL.len()],
        }
    }
}

/// A site the site filters held back: not checked, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotChecked {
    pub read_as: ReadAs,
    /// Host byte range of the call: a REST call's range, a GraphQL document or operation.
    pub range: Range<usize>,
    /// Host byte range of the text that decided (a `# WRONG` comment, a heading, a table
    /// header), when there is one.
    pub marker: Option<Range<usize>>,
    /// Why, in a few words, without the line: `“WRONG” in the comment above it`.
    pub why: String,
}

impl NotChecked {
    /// What it was read as and why, for `--explain` and hover: `read as a wrong example:
    /// “WRONG” in its comment (line 12)`. `marker_line`: the 1-based line of
    /// [`NotChecked::marker`], when known.
    pub fn message(&self, marker_line: Option<usize>) -> String {
        match marker_line {
            Some(line) => format!(
                "read as {}: {} (line {line})",
                self.read_as.noun(),
                self.why
            ),
            None => format!("read as {}: {}", self.read_as.noun(), self.why),
        }
    }

    /// The same for the same text moved from host offset `from` to `to`.
    pub fn moved(&self, from: usize, to: usize) -> NotChecked {
        let mv = |r: &Range<usize>| {
            (r.start + to).saturating_sub(from)..(r.end + to).saturating_sub(from)
        };
        NotChecked {
            read_as: self.read_as,
            range: mv(&self.range),
            marker: self.marker.as_ref().map(mv),
            why: self.why.clone(),
        }
    }
}

/// How many sites were held back, per reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts([usize; ReadAs::ALL.len()]);

impl Counts {
    /// The counts of `not_checked`.
    pub fn of(not_checked: &[NotChecked]) -> Counts {
        let mut c = Counts::default();
        for n in not_checked {
            c.0[n.read_as.index()] += 1;
        }
        c
    }

    /// The count of `r`.
    pub fn get(&self, r: ReadAs) -> usize {
        self.0[r.index()]
    }

    /// Adds `other` to these.
    pub fn add(&mut self, other: Counts) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }

    /// The sum over all readings.
    pub fn total(&self) -> usize {
        self.0.iter().sum()
    }

    /// `3 lessons, 30 in release history` (readings with a count, in [`ReadAs::ALL`] order);
    /// empty when nothing was held back.
    pub fn describe(&self) -> String {
        ReadAs::ALL
            .into_iter()
            .filter(|r| self.get(*r) > 0)
            .map(|r| r.count(self.get(r)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Why a filter held a site back: words for the message and the text that decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Why {
    pub text: String,
    pub marker: Option<Range<usize>>,
}

/// A filter's answer for one site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// A call (as far as this filter can tell): left to the next filter and the checks.
    Call,
    /// Not a call: not checked.
    NotACall(Why),
    /// A GraphQL document some of whose operations are not calls (the wrong half of a
    /// WRONG/CORRECT pair): their byte ranges in the document's text, each with why. The rest
    /// is checked.
    Parts(Vec<(Range<usize>, Why)>),
}

/// One site filter: a reading of the text around a site that may say it is not a NetBox call.
pub(crate) trait SiteFilter: Send + Sync {
    /// What this filter makes of `cx`'s site.
    fn read(&self, cx: &SiteCx<'_>) -> Verdict;

    /// What the filter took from the whole document when it was prepared, as bits (the
    /// analysis compares it between analyses: a change empties its block cache).
    fn state(&self) -> u64 {
        0
    }

    /// True when [`SiteFilter::read`] answers [`Verdict::Call`] for `site` whenever the site
    /// has no label ([`SiteCx::label`] is `None`), whatever else stands around it: then a
    /// site without a label is a call without a [`SiteCx`] built for it. False (the default)
    /// when the filter reads anything else of the site or its surroundings. The answer must
    /// be the same for every site of one [`SiteClass`] (it is asked once per class).
    fn unlabelled_call(&self, _site: &Site) -> bool {
        false
    }
}

/// A host document as the filters are prepared for it.
pub(crate) struct Doc<'a> {
    pub text: &'a str,
    pub outline: &'a Outline,
    /// For a text read in place of its host (a notebook's cells as one Markdown document):
    /// the map from its offsets to the host's. `None` when `text` is the host.
    pub to_host: Option<&'a OffsetMap>,
}

impl Doc<'_> {
    /// Host range of `r`, a byte range of [`Doc::text`].
    pub fn host(&self, r: Range<usize>) -> Range<usize> {
        match self.to_host {
            Some(map) => map.range_to_host(r),
            None => r,
        }
    }
}

/// Prepares a filter for a document; `None` when it can hold back nothing there.
type Prepare = fn(&Doc<'_>) -> Option<Box<dyn SiteFilter>>;

/// The site filters, in the order a site is put to them: the first that holds it back decides.
/// Adding one: a module with its `prepare`, a [`ReadAs`] variant, a row here (see
/// CONTRIBUTING.md, "A new site filter").
const FILTERS: [(ReadAs, Prepare); 5] = [
    (ReadAs::Foreign, foreign::prepare),
    (ReadAs::History, history::prepare),
    (ReadAs::Django, django::prepare),
    (ReadAs::Lesson, lesson::prepare),
    (ReadAs::Log, log::prepare),
];

/// The site filters prepared for one document.
#[derive(Default)]
pub struct Filters {
    list: Vec<(ReadAs, Box<dyn SiteFilter>)>,
}

impl std::fmt::Debug for Filters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.state()).finish()
    }
}

/// What a site became after the filters.
#[derive(Debug, Clone, PartialEq)]
pub enum Sorted {
    /// A call to check (a GraphQL document with its wrong operations blanked out, then
    /// `not_checked` holds those).
    Call(Site, Vec<NotChecked>),
    /// Not a call.
    NotChecked(NotChecked),
}

impl Filters {
    /// The filters that apply to host `text` whose Markdown outline is `outline`
    /// ([`Outline::plain`] for other hosts), with the readings `readings` turned on.
    pub fn of(text: &str, outline: &Outline, readings: Readings) -> Filters {
        Filters::of_view(text, outline, None, readings)
    }

    /// [`Filters::of`] for a text read in place of its host (a notebook's cells as one
    /// Markdown document, see `notebook::View`), whose offsets `to_host` maps to the host's:
    /// the sites put to them are in host offsets, their surroundings [`Around::mapped`].
    pub fn of_view(
        text: &str,
        outline: &Outline,
        to_host: Option<&OffsetMap>,
        readings: Readings,
    ) -> Filters {
        let doc = Doc {
            text,
            outline,
            to_host,
        };
        let list = FILTERS
            .iter()
            .filter(|(r, _)| readings.is_on(*r))
            .filter_map(|(r, prepare)| prepare(&doc).map(|f| (*r, f)))
            .collect();
        Filters { list }
    }

    /// What the filters took from the whole document (equal states hold back the same sites
    /// given the same code and surroundings).
    pub fn state(&self) -> Vec<(ReadAs, u64)> {
        self.list.iter().map(|(r, f)| (*r, f.state())).collect()
    }

    /// True when no filter applies: every site is a call.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// What `site` is: read from `code` (the text it was extracted from, with its map to the
    /// host; `None` for prose), standing in `around`.
    pub fn sort(&self, site: Site, code: Option<(&str, &OffsetMap)>, around: &Around) -> Sorted {
        self.sort_in(site, code, around, &OnceCell::new(), None)
    }

    /// [`Filters::sort`] with the label of `around` kept in `shared` for the next site that
    /// stands in it (the sites of one block share it).
    fn sort_in(
        &self,
        site: Site,
        code: Option<(&str, &OffsetMap)>,
        around: &Around,
        shared: &OnceCell<Option<Label>>,
        marks: Option<&OnceCell<comments::Marks>>,
    ) -> Sorted {
        match self.read_in(&site, code, around, shared, marks) {
            Outcome::Call => Sorted::Call(site, Vec::new()),
            Outcome::Held(n) => Sorted::NotChecked(n),
            Outcome::Parts(doc, held) => Sorted::Call(Site::Graphql(*doc), held),
        }
    }

    /// What the filters make of `site` (see [`Filters::sort_in`]), read in place: the site
    /// is not moved (a site moved in and out of each sort was ~120 instructions of copies).
    fn read_in(
        &self,
        site: &Site,
        code: Option<(&str, &OffsetMap)>,
        around: &Around,
        shared: &OnceCell<Option<Label>>,
        marks: Option<&OnceCell<comments::Marks>>,
    ) -> Outcome {
        let range = site_range(site);
        let cx = SiteCx {
            site,
            range: range.clone(),
            code,
            around,
            cue: OnceCell::new(),
            around_cue: shared,
            marks,
        };
        for (read_as, filter) in &self.list {
            match filter.read(&cx) {
                Verdict::Call => {}
                Verdict::NotACall(why) => {
                    return Outcome::Held(NotChecked {
                        read_as: *read_as,
                        range,
                        marker: why.marker,
                        why: why.text,
                    });
                }
                Verdict::Parts(parts) => {
                    let Site::Graphql(doc) = site else { continue };
                    let mut doc = doc.clone();
                    let mut held = Vec::new();
                    for (part, why) in parts {
                        blank(&mut doc.text, &part);
                        held.push(NotChecked {
                            read_as: *read_as,
                            range: doc.map.range_to_host(part),
                            marker: why.marker,
                            why: why.text,
                        });
                    }
                    return Outcome::Parts(Box::new(doc), held);
                }
            }
        }
        Outcome::Call
    }

    /// True when `site` surely has no label and every filter answers a site without one as a
    /// call ([`SiteFilter::unlabelled_call`], asked once per [`SiteClass`] and kept in
    /// `classes`): no comment can label it (its code's [`comments::Marks`] say it is quiet)
    /// and its surroundings give none.
    fn no_label_call(
        &self,
        site: &Site,
        code: Option<(&str, &OffsetMap)>,
        around: &Around,
        shared: &OnceCell<Option<Label>>,
        marks: &OnceCell<comments::Marks>,
        classes: &mut [Option<bool>; SiteClass::COUNT],
    ) -> bool {
        let unlabelled = *classes[SiteClass::of(site) as usize]
            .get_or_insert_with(|| self.list.iter().all(|(_, f)| f.unlabelled_call(site)));
        if !unlabelled {
            return false;
        }
        // As `SiteCx::comment_label` reads: no code or no place in it, no comment label.
        let quiet = match code {
            None => true,
            Some((text, map)) => match map.to_embedded(site_start(site)) {
                None => true,
                Some(start) => {
                    start.min(text.len())
                        >= marks
                            .get_or_init(|| comments::Marks::new(text))
                            .quiet_from()
                }
            },
        };
        quiet && shared.get_or_init(|| label_of(around)).is_none()
    }

    /// [`Filters::sort`] for sites that share their code and surroundings: the calls to check,
    /// and the sites not checked.
    pub fn sort_all(
        &self,
        mut sites: Vec<Site>,
        code: Option<(&str, &OffsetMap)>,
        around: &Around,
    ) -> (Vec<Site>, Vec<NotChecked>) {
        if self.is_empty() {
            return (sites, Vec::new());
        }
        let mut held = Vec::new();
        let shared = OnceCell::new();
        // The comment lines of the code, read once when the sites are many (one site's walk up
        // reads at most 40 lines; the marks read the code to 40 lines past its last `#` or `/`).
        let marks = OnceCell::new();
        let marks = (sites.len() >= MARKS_FROM).then_some(&marks);
        // The calls stay in the sites' own buffer, each read in place (in order): a second
        // buffer of every site was 13.6 MB for a file of 100,000 tool calls, and a collect of
        // `into_iter` moved each site in and out of its sort.
        let mut classes = [None; SiteClass::COUNT];
        sites.retain_mut(|site| {
            if let Some(marks) = marks {
                if self.no_label_call(site, code, around, &shared, marks, &mut classes) {
                    return true;
                }
            }
            match self.read_in(site, code, around, &shared, marks) {
                Outcome::Call => true,
                Outcome::Held(n) => {
                    held.push(n);
                    false
                }
                Outcome::Parts(doc, parts) => {
                    *site = Site::Graphql(*doc);
                    held.extend(parts);
                    true
                }
            }
        });
        (sites, held)
    }
}

/// The classes of sites a filter's [`SiteFilter::unlabelled_call`] tells apart.
#[derive(Clone, Copy)]
pub(crate) enum SiteClass {
    /// A REST call with its endpoint (any form but a filter snippet).
    Call,
    /// A filter written without an endpoint ([`crate::extract::CallForm::Snippet`]).
    Snippet,
    /// A GraphQL document.
    Graphql,
    /// A unit that could not be read.
    NotChecked,
}

impl SiteClass {
    /// How many classes there are.
    const COUNT: usize = 4;

    /// The class of `site`.
    fn of(site: &Site) -> SiteClass {
        match site {
            Site::Rest(c) if c.form == crate::extract::CallForm::Snippet => SiteClass::Snippet,
            Site::Rest(_) => SiteClass::Call,
            Site::Graphql(_) => SiteClass::Graphql,
            Site::NotChecked(_) => SiteClass::NotChecked,
        }
    }
}

/// The start of [`site_range`], without its end.
fn site_start(site: &Site) -> usize {
    match site {
        Site::Rest(c) => c.call_range.start,
        Site::Graphql(d) => d.map.to_host(0),
        Site::NotChecked(n) => n.range.start,
    }
}

/// What [`Filters::read_in`] made of a site it read in place.
enum Outcome {
    /// A call to check as it is.
    Call,
    /// Not a call.
    Held(NotChecked),
    /// A GraphQL document to check with some operations blanked out (the new document), and
    /// those operations.
    Parts(Box<crate::extract::GraphqlDoc>, Vec<NotChecked>),
}

/// How many sites of one code make [`Filters::sort_all`] read its comment lines once
/// ([`comments::Marks`]) rather than walk up from each site.
const MARKS_FROM: usize = 8;

/// Host range of a site: a REST call's range, a GraphQL document's text.
pub fn site_range(site: &Site) -> Range<usize> {
    match site {
        Site::Rest(c) => c.call_range.clone(),
        Site::Graphql(d) => d.map.to_host(0)..d.map.to_host_end(d.text.len()),
        Site::NotChecked(n) => n.range.clone(),
    }
}

/// Blanks `range` of `text` (each character becomes as many spaces as it has bytes, so every
/// offset keeps its place); line ends stay.
fn blank(text: &mut String, range: &Range<usize>) {
    let start = text.floor_char_boundary(range.start.min(text.len()));
    let end = text.floor_char_boundary(range.end.clamp(start, text.len()));
    let blanked: String = text[start..end]
        .chars()
        .flat_map(|c| {
            let n = if matches!(c, '\n' | '\r') {
                0
            } else {
                c.len_utf8()
            };
            std::iter::repeat_n(' ', n).chain((n == 0).then_some(c))
        })
        .collect();
    text.replace_range(start..end, &blanked);
}

/// Where in the text around a site its label was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    Comment,
    Column,
    Row,
    Sentence,
    Lead,
    Heading,
}

/// The label of a site: what the nearest cue says, where it is, and its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Label {
    pub cue: Cue,
    pub source: Source,
    /// Host range of the cue's words.
    pub marker: Range<usize>,
    /// The cue's words as written.
    pub words: String,
}

impl Label {
    /// Why a filter read the site as it did, in words: `“WRONG” in the comment above it`.
    pub fn why(&self) -> Why {
        let w = quote(&self.words);
        let text = match self.source {
            Source::Comment => format!("{w} in its comment"),
            Source::Column => format!("its table column is headed {w}"),
            Source::Row => format!("its table row says {w}"),
            Source::Sentence => format!("its sentence says {w}"),
            Source::Lead => format!("{w} above it"),
            Source::Heading => format!("under the heading {w}"),
        };
        Why {
            text,
            marker: Some(self.marker.clone()),
        }
    }
}

/// `s` in quotation marks, shortened to 60 characters.
pub(crate) fn quote(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let s = s.replace(cues::CODE, "`…`");
    let short: String = s.chars().take(60).collect();
    if short.len() < s.len() {
        format!("“{short}…”")
    } else {
        format!("“{short}”")
    }
}

/// What a site filter may read of one site.
pub(crate) struct SiteCx<'a> {
    pub site: &'a Site,
    /// The site's host range.
    pub range: Range<usize>,
    /// The code the site was read from and its map to the host; `None` for prose.
    pub code: Option<(&'a str, &'a OffsetMap)>,
    pub around: &'a Around,
    cue: OnceCell<Option<Label>>,
    /// The label of `around`, shared by the sites that stand in it.
    around_cue: &'a OnceCell<Option<Label>>,
    /// The comment lines of `code`, shared by the sites read from it (when they are many).
    marks: Option<&'a OnceCell<comments::Marks>>,
}

impl<'a> SiteCx<'a> {
    /// The code the site was read from and the site's range in it.
    pub fn in_code(&self) -> Option<(&'a str, Range<usize>)> {
        let (code, map) = self.code?;
        let start = map.to_embedded(self.range.start)?;
        let end = map.to_embedded(self.range.end).unwrap_or(code.len());
        Some((code, start..end.max(start)))
    }

    /// The label of the site, from the first place that has one: a comment at or above it in
    /// its code, its table column, a status cell of its row, its sentence, the sentence above
    /// its block, list or table, and (for a code block) a heading that is nothing but a label
    /// (`## Incorrect Pattern`). Read once per site, shared by the filters.
    pub fn label(&self) -> Option<&Label> {
        self.cue.get_or_init(|| self.find_label()).as_ref()
    }

    fn find_label(&self) -> Option<Label> {
        self.comment_label().or_else(|| self.around_label())
    }

    /// The label a comment at or above the site gives it in its code.
    fn comment_label(&self) -> Option<Label> {
        let (code, at) = self.in_code()?;
        let (_, map) = self.code?;
        let hit = match self.marks {
            Some(marks) => {
                comments::cue_marked(code, at, marks.get_or_init(|| comments::Marks::new(code)))?
            }
            None => comments::cue(code, at)?,
        };
        Some(Label {
            cue: hit.cue,
            source: Source::Comment,
            marker: map.range_to_host(hit.range.clone()),
            words: code[hit.range].to_string(),
        })
    }

    /// The label the text around the site gives it (see [`SiteCx::label`]; no comments).
    pub fn around_label(&self) -> Option<Label> {
        self.around_cue
            .get_or_init(|| label_of(self.around))
            .clone()
    }
}

/// The label `a` gives the sites that stand in it (see [`SiteCx::label`]).
fn label_of(a: &Around) -> Option<Label> {
    let from = |piece: &Piece, hit: cues::Hit, source: Source| Label {
        cue: hit.cue,
        source,
        marker: piece.host(&hit.range),
        words: piece.text[hit.range].to_string(),
    };
    if let Some(col) = &a.column {
        if let Some(hit) = cues::label(&col.text, Place::Column) {
            return Some(from(col, hit, Source::Column));
        }
    }
    for cell in &a.row {
        if let Some(hit) = cues::label(&cell.text, Place::Status) {
            return Some(from(cell, hit, Source::Row));
        }
    }
    if let Some(b) = &a.before {
        if let Some(hit) = cues::before(&b.text) {
            return Some(from(b, hit, Source::Sentence));
        }
    }
    if let Some(after) = &a.after {
        if let Some(hit) = cues::after(&after.text) {
            return Some(from(after, hit, Source::Sentence));
        }
    }
    if let Some(lead) = &a.lead {
        if let Some(hit) = cues::label(&lead.text, Place::Lead) {
            return Some(from(lead, hit, Source::Lead));
        }
    }
    // A heading that marks a lesson (`## Wrong`, `### ❌ Don't`, `## Never use __in`) covers
    // its section, subsections included, until the next heading of its level or higher: the
    // nearest heading that says something decides (issue 31 §5). Only where nothing nearer
    // (a comment, the piece's sentence, the sentence above its block) did.
    for h in a.headings.iter().rev() {
        if let Some(cue) = cues::heading_label(&h.text).or_else(|| cues::heading_lesson(&h.text)) {
            return Some(Label {
                cue,
                source: Source::Heading,
                marker: h.host_range(),
                words: h.text.clone(),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reading_has_one_filter_in_its_order() {
        let kinds: Vec<ReadAs> = FILTERS.iter().map(|(r, _)| *r).collect();
        assert_eq!(kinds, ReadAs::ALL);
        for (i, r) in ReadAs::ALL.into_iter().enumerate() {
            assert_eq!(r.index(), i);
            assert_eq!(ReadAs::from_name(r.name()), Some(r));
        }
    }

    /// [`Filters::sort_all`] (the code's comment marks read once, and the sites no comment or
    /// surrounding text can label passed without a context) holds back and keeps the sites
    /// [`Filters::sort`] does, one at a time: labels near the top, in the middle, trailing,
    /// at the reach's edge, and none.
    #[test]
    fn sort_all_sorts_as_each_site_alone() {
        let call = "netbox_get_objects(\"dcim.device\", {\"site\": \"a\"})\n";
        let pair = "# WRONG: ignored\nnb.dcim.devices.filter(site_id__in=[1])\n# CORRECT\nnb.dcim.devices.filter(site_id=[1])\n";
        let texts = [
            format!(
                "# WRONG: ignored\n{}\n\n{}",
                call.repeat(3),
                call.repeat(60)
            ),
            format!("{}# WRONG\n{}", call.repeat(50), call.repeat(50)),
            call.repeat(20),
            format!(
                "x = 1  # ❌ no\n{}nb.dcim.devices.filter(site_id__in=[1])  # WRONG\n{}",
                call.repeat(45),
                call.repeat(10)
            ),
            format!("{}{pair}{}", call.repeat(12), call.repeat(39)),
            format!("{}{pair}{}", call.repeat(12), call.repeat(41)),
            format!("# url: https://x/api/\n{}", call.repeat(45)),
        ];
        let mut held_some = false;
        for text in &texts {
            let ex = crate::extract::extract(text, crate::extract::HostKind::Python);
            assert!(ex.sites.len() >= MARKS_FROM, "{text}");
            let outline = Outline::plain();
            let filters = Filters::of(text, &outline, Readings::default());
            let map = OffsetMap::identity(0, text.len());
            let code = Some((text.as_str(), &map));
            let around = Around::default();
            let (mut calls, mut held) = (Vec::new(), Vec::new());
            for site in ex.sites.clone() {
                match filters.sort(site, code, &around) {
                    Sorted::Call(site, parts) => {
                        calls.push(site);
                        held.extend(parts);
                    }
                    Sorted::NotChecked(n) => held.push(n),
                }
            }
            held_some |= !held.is_empty();
            let (all_calls, all_held) = filters.sort_all(ex.sites, code, &around);
            assert_eq!(all_calls, calls, "{text}");
            assert_eq!(all_held, held, "{text}");
        }
        assert!(held_some);
    }

    #[test]
    fn blank_keeps_offsets_and_lines() {
        let mut t = "# é\n{ a }\nrest".to_string();
        let len = t.len();
        blank(&mut t, &(0..10));
        assert_eq!(t.len(), len);
        assert_eq!(t, "    \n     \nrest");
    }

    #[test]
    fn counts_describe_what_was_held_back() {
        let n = |r| NotChecked {
            read_as: r,
            range: 0..1,
            marker: None,
            why: String::new(),
        };
        let c = Counts::of(&[n(ReadAs::Lesson), n(ReadAs::Lesson), n(ReadAs::Django)]);
        assert_eq!(c.describe(), "1 Django query, 2 lessons");
        assert_eq!(c.total(), 3);
        assert_eq!(Counts::default().describe(), "");
    }
}
