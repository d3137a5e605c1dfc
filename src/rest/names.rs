//! Rules for a filter key the endpoint does not list. "Not in this endpoint's parameters" is
//! the authority (NetBox ignores unknown query parameters, netbox#19579); these rules only pick
//! the code, the message and the fix by cause.

use super::endpoint::View;
use super::fit::Fit;
use super::lookups::{django_to_netbox, has_dunder, is_lookup, Key, NETBOX_LOOKUPS};
use super::render;
use super::suggest::{Asked, Suggestions};
use super::text::{comma_parts, rsplit_dunder, slugify, split_dunder};
use super::{finding, Ctx};
use crate::extract::FilterEntry;
use crate::extract::Value;
use crate::finding::{Advice, Finding};

/// The strings given, joined into one `String` allocated at their total length (a `format!`
/// of a message cost ~900 instructions; every finding of these rules has one or more).
macro_rules! cat {
    ($($part:expr),+ $(,)?) => {{
        let parts: &[&str] = &[$($part),+];
        let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
        for p in parts {
            out.push_str(p);
        }
        out
    }};
}

/// A message built by appending borrowed parts to one `String`: the thread's scratch buffer
/// (room for most messages kept from one message to the next), copied into a string of
/// exactly the message's length at [`Msg::done`]. Each part was kept in a list of 32 and
/// joined at the end before; then each message was a string of [`MSG_ROOM`] bytes of which
/// ~150 were used, held with its finding until the output (~1.5 MB at 10,000 calls).
struct Msg(String);

/// Bytes the scratch buffer of [`Msg`] starts with: most messages of these rules fit (an
/// unknown filter's with three suggestions is ~200).
const MSG_ROOM: usize = 256;

thread_local! {
    /// The buffer [`Msg`] writes in, lent to one message at a time (a message begun while
    /// another is being written gets a buffer of its own).
    static SCRATCH: std::cell::Cell<String> = const { std::cell::Cell::new(String::new()) };
}

impl Msg {
    fn of(parts: &[&str]) -> Self {
        let mut out = SCRATCH.with(|s| s.take());
        out.clear();
        out.reserve(MSG_ROOM);
        for p in parts {
            out.push_str(p);
        }
        Msg(out)
    }

    /// Appends `parts`.
    fn and(mut self, parts: &[&str]) -> Self {
        for p in parts {
            self.0.push_str(p);
        }
        self
    }

    /// Appends [`ignored`]'s text.
    fn ignored(self, view: &View) -> Self {
        self.and(&[
            "NetBox ",
            view.version(),
            " ignores it and returns every object of /api/",
            view.key,
            "/",
        ])
    }

    /// Appends [`lookup_list`]'s text.
    fn lookup_list(mut self, view: &View, base: &str) -> Self {
        let start = self.0.len();
        for l in view.ep.params.lookups(base) {
            let sep = if self.0.len() == start {
                " Its lookups here: `__"
            } else {
                ", `__"
            };
            self = self.and(&[sep, l, "`"]);
        }
        if self.0.len() == start {
            self.and(&[" `", base, "` takes no lookups here."])
        } else {
            self.and(&["."])
        }
    }

    /// Appends [`suggestion_text`]'s text.
    fn suggestion(mut self, s: &Suggestions) -> Self {
        match s.names.as_slice() {
            [one] => self.and(&[" Use `", one, "`", &s.note, "."]),
            [] if !s.relation_hint.is_empty() => {
                self = self.and(&[" Its relation filters include "]);
                for (i, n) in s.relation_hint.iter().enumerate() {
                    self = self.and(&[if i == 0 { "`" } else { ", `" }, n, "`"]);
                }
                self.and(&["."])
            }
            [] => self,
            // `quote_list`: "`a`, `b` or `c`".
            many => {
                self = self.and(&[" Did you mean "]);
                let last = many.len() - 1;
                for (i, n) in many.iter().enumerate() {
                    let sep = match i {
                        0 => "`",
                        i if i == last => " or `",
                        _ => ", `",
                    };
                    self = self.and(&[sep, n, "`"]);
                }
                self.and(&["?"])
            }
        }
    }

    /// The message, in a string of its length; the buffer goes back to the thread.
    fn done(self) -> String {
        let out = self.0.as_str().to_owned();
        SCRATCH.with(|s| s.set(self.0));
        out
    }
}

/// Checks `entry`, whose key is not a parameter of `view`.
pub(crate) fn check(ctx: &Ctx, view: &View, entry: &FilterEntry, out: &mut Vec<Finding>) {
    let asked = Asked::new(view);
    let asked = &asked;
    let key = entry.key.as_str();
    let k = Key::parse(key);
    if let Some(f) = wrong_filter_for_type(view, entry, &k) {
        out.push(f);
        return;
    }
    // `k` has one part exactly when the key has no `__`.
    if let Some(f) = own_relation_filter(view, entry, k.parts.len() > 1) {
        out.push(f);
        return;
    }
    if k.parts.len() >= 3 || (k.parts.len() == 2 && !is_lookup(k.parts[1])) {
        out.push(multi_hop(view, entry, &k));
        return;
    }
    if let Some(lookup) = k.lookup() {
        let base = k.base();
        if lookup == "in" {
            out.push(in_lookup(ctx, view, asked, entry, base));
            return;
        }
        if matches!(lookup, "isnull" | "null" | "empty") {
            if let Some(nk) = view.null_key(base) {
                // A key another shipped release has is a removed filter, whatever the base looks
                // like here (`protocol__empty` on 4.7 services, where `protocol` has only `__n`).
                let f = version_only(ctx, view, asked, entry, &k)
                    .unwrap_or_else(|| null_relation(ctx, view, entry, lookup, &nk));
                out.push(f);
                return;
            }
        }
        if let Some(f) = version_only(ctx, view, asked, entry, &k) {
            out.push(f);
            return;
        }
        if let Some(f) = other_lookup(ctx, view, entry, base, lookup) {
            out.push(f);
            return;
        }
    } else if let Some(f) = version_only(ctx, view, asked, entry, &k) {
        out.push(f);
        return;
    }
    out.push(unknown(view, entry, &asked.suggest_absent(key, &k)));
}

fn ignored(view: &View) -> String {
    cat!(
        "NetBox ",
        view.version(),
        " ignores it and returns every object of /api/",
        view.key,
        "/"
    )
}

/// `within`, `within_include`, `contains` on IP addresses (prefix filters) and `without`
/// (no such filter anywhere). Source: NetBox ipam filtersets; ground truth rows on
/// ipam/ip-addresses.
fn wrong_filter_for_type(view: &View, entry: &FilterEntry, k: &Key) -> Option<Finding> {
    let base = k.base();
    let r = entry.key_range.clone();
    if base == "without" {
        return Some(finding(
            r,
            "wrong-filter-for-type",
            format!(
                "`{}` is not a NetBox filter on any endpoint: {}. To leave out addresses inside a prefix, fetch with `parent`/`within` and remove them yourself, or use `__n` on a filter that has it.",
                entry.key,
                ignored(view)
            ),
        ));
    }
    if view.key != "ipam/ip-addresses" || k.parts.len() != 1 {
        return None;
    }
    match base {
        "within" | "within_include" if view.has("parent") => Some(
            finding(
                r.clone(),
                "wrong-filter-for-type",
                format!(
                    "`{base}` is a prefix filter: {}. IP addresses inside a prefix are selected with `parent`.",
                    ignored(view)
                ),
            )
            .with_fix("Replace with `parent`", r, "parent", true),
        ),
        "contains" => {
            let mut f = finding(
                r.clone(),
                "wrong-filter-for-type",
                format!(
                    "`contains` is a prefix filter: {}. Use `address` for one address or `parent` for the addresses inside a prefix.",
                    ignored(view)
                ),
            );
            for n in ["address", "parent"] {
                if view.has(n) {
                    f = f.with_fix(format!("Replace with `{n}`"), r.clone(), n, false);
                }
            }
            Some(f)
        }
        _ => None,
    }
}

/// `device__site_id`, `interface__device__name`: a relation traversal. Points at the
/// endpoint's own filter for the end of the path when it has one (`device__rack__name` on
/// power-outlets → `rack`, `termination_a__device__site_id` on cables → `site_id`), and names
/// only filters that exist here.
fn multi_hop(view: &View, entry: &FilterEntry, k: &Key) -> Finding {
    let first = k.parts[0];
    let first_id = format!("{first}_id");
    let mut msg = format!(
        "`{}` follows a relation, which NetBox filters cannot do: {}.",
        entry.key,
        ignored(view)
    );
    let own = own_filter(view, &k.parts[1..]);
    if let Some(n) = &own {
        msg.push_str(&format!(" This endpoint has `{n}` itself."));
    }
    let what = match k.parts.last() {
        Some(&"id") | Some(&"name") | Some(&"slug") => "",
        _ => " by that field",
    };
    if view.has(&first_id) {
        msg.push_str(&format!(
            " {}query in two steps: find the related {}{what} on its own endpoint, then filter here with `{first_id}` (a list of ids).",
            if own.is_some() { "Otherwise " } else { "Or " },
            first.replace('_', " ")
        ));
    } else {
        msg.push_str(
            " Query in two steps: find the related objects first, then filter here by their ids.",
        );
    }
    let r = entry.key_range.clone();
    let mut f = finding(r.clone(), "multi-hop", msg);
    if let Some(n) = own {
        f = f.with_fix(format!("Replace with `{n}`"), r, n, false);
    }
    f
}

/// The fields people name after a relation that a relation filter can match instead
/// (`manufacturer__name` where `manufacturer` matches the slug).
const NAMING_FIELDS: &[&str] = &["name", "slug", "model", "display", "label"];

/// `<relation>__<field>` (`installed_device__name`, `role__slug`, `site__id`, also with `__n`
/// or `__in`) and the dotted `<relation>.<field>` of other tools' query builders, where this
/// endpoint has its own filter for the relation: the one step instead of a detour. Which field
/// a relation filter matches comes from the index ([`View::relation_field`]); the fix is
/// certain when that is the written field and the value fits the filter. `None` when the
/// endpoint has no filter for the relation (the traversal advice then applies). `dunder`:
/// whether the key has a `__`.
fn own_relation_filter(view: &View, entry: &FilterEntry, dunder: bool) -> Option<Finding> {
    let key = entry.key.as_str();
    // Neither a `__` nor a `.`: no relation and field to split (most misspelt names; the
    // three scans below for them were a third of this rule's check).
    if !dunder && !key.as_bytes().contains(&b'.') {
        return None;
    }
    let (path, lookup) = match rsplit_dunder(key) {
        Some((p, l)) if matches!(l, "n" | "in") => (p, Some(l)),
        _ => (key, None),
    };
    let dotted = path.contains('.');
    let (rel, field) = if dotted {
        path.split_once('.')?
    } else {
        split_dunder(path)?
    };
    let ident =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !ident(rel) || !ident(field) || has_dunder(field) || is_lookup(field) {
        return None;
    }
    let field = if field == "pk" { "id" } else { field };
    let id = format!("{rel}_id");
    let own_field = view.relation_field(rel);
    let (name, matches) = if field == "id" && view.is_relation(&id) {
        (id.clone(), "id".to_string())
    } else {
        match own_field {
            Some(f) if f == field || NAMING_FIELDS.contains(&field) || field == "id" => {
                (rel.to_string(), f)
            }
            _ => return None,
        }
    };
    let target = match lookup {
        Some("n") => format!("{name}__n"),
        _ => name.clone(),
    };
    if !view.has(&target) {
        return None;
    }
    let spoken = rel.replace('_', " ");
    let mut msg = if dotted {
        format!(
            "`{key}` is a dotted path (another tool's query-builder spelling), which NetBox filters do not read: {}.",
            ignored(view)
        )
    } else {
        format!(
            "`{key}` follows a relation, which NetBox filters cannot do: {}.",
            ignored(view)
        )
    };
    let list = if lookup == Some("in") {
        " (several values as a list, sent as repeated keys)"
    } else {
        ""
    };
    let same = matches == field;
    // `__in` keeps its values only when they are already a list.
    let mut certain = same && (lookup != Some("in") || matches!(entry.value, Value::List(_)));
    if same {
        msg.push_str(&format!(
            " This endpoint filters the {spoken} by {matches} itself: use `{target}`{list}."
        ));
        if super::faults::broken(view, &target) {
            certain = false;
            msg.push_str(&format!(
                " `{target}` is broken in NetBox {} for any value, though (`server-fault`): filter another way.",
                view.version()
            ));
        } else if let Fit::No(reason) = view.value_fits(&target, &entry.value) {
            certain = false;
            push_fit_advice(&mut msg, view, &target, reason);
        }
    } else {
        certain = false;
        let guess = match (&entry.value, matches.as_str()) {
            (Value::Str(s), "slug") if slugify(s) != *s && !slugify(s).is_empty() => {
                format!(" (probably `{}`)", slugify(s))
            }
            _ => String::new(),
        };
        msg.push_str(&format!(
            " This endpoint filters the {spoken} by its {matches}, not its {field}: use `{target}` with the {spoken}'s {matches}{guess}{list}"
        ));
        if name != id && view.is_relation(&id) {
            msg.push_str(&format!(", or `{id}` with its id"));
        }
        msg.push('.');
    }
    let r = entry.key_range.clone();
    Some(finding(r.clone(), "multi-hop", msg).with_fix(
        format!("Replace with `{target}`"),
        r,
        target.clone(),
        certain,
    ))
}

/// The endpoint's own filter for the end of a traversal: the longest tail of `rest` that is a
/// parameter here (`site_id`, `rack__n` is no tail), or the relation before a final
/// `name`/`slug` (its slug/name filter) or `id` (its `_id` filter).
fn own_filter(view: &View, rest: &[&str]) -> Option<String> {
    for i in 0..rest.len() {
        let tail = rest[i..].join("__");
        // The tail must start at a relation this endpoint filters too (`site_id`, `rack`): a
        // plain field there (`name__isw` of `device__name__isw` on interfaces) is this
        // object's own field, not the related one's, and would match other objects.
        if view.has(&tail)
            && (view.is_relation(rest[i]) || rest[i].ends_with("_id"))
            && !(i + 1 == rest.len() && matches!(rest[i], "name" | "slug" | "id"))
        {
            return Some(tail);
        }
    }
    if rest.len() >= 2 {
        let rel = rest[rest.len() - 2];
        let cand = match rest[rest.len() - 1] {
            "name" | "slug" => rel.to_string(),
            "id" => format!("{rel}_id"),
            _ => return None,
        };
        if view.has(&cand) {
            return Some(cand);
        }
    }
    None
}

/// `<f>__in`: not a NetBox lookup; several values go as a list on the bare key.
fn in_lookup(ctx: &Ctx, view: &View, asked: &Asked, entry: &FilterEntry, base: &str) -> Finding {
    let r = entry.key_range.clone();
    // One probe for both the presence and the parameter (`has` then `param` probed twice).
    // One probe for the parameter, its relation flag and the fit below.
    let Some(known) = view.param_relation(base) else {
        let s = asked.suggest(base);
        let mut f = unknown(view, entry, &s);
        f.code = "unsupported-lookup";
        f.message = Msg::of(&[
            "`__in` is not a NetBox lookup and `",
            base,
            "` is not a filter here either: ",
        ])
        .ignored(view)
        .and(&["."])
        .suggestion(&s)
        .done();
        return f;
    };
    if let Value::Joined(j) = &entry.value {
        return super::joined::joined(view, entry, base, &j.separator, &j.separator_range, true);
    }
    // The comma parts are read by the pair syntaxes' fix, and elsewhere only when there are
    // several (a string with a comma): not split (a vector and a string) for any other value.
    let parts =
        if ctx.syntax().is_pairs() || matches!(&entry.value, Value::Str(s) if s.contains(',')) {
            comma_parts(&entry.value)
        } else {
            None
        };
    // Certain only when the values fit `base` (`site__in=[1, 2]` on a slug filter, a list on
    // a single-value filter would be a 400 or a silently cut query after the rename).
    let listed;
    let values = match &parts {
        Some(ps) if ps.len() > 1 => {
            listed = Value::List(
                ps.iter()
                    .map(|p| (Value::Str(p.as_str().into()), 0..0))
                    .collect(),
            );
            &listed
        }
        _ => &entry.value,
    };
    let fit = view.value_fits_known(base, known, values);
    let certain = fit == Fit::Yes;
    let msg = Msg::of(&["`__in` is not a NetBox lookup: "])
        .ignored(view)
        .and(&[
            ". Pass the values as a list on `",
            base,
            "` (sent as repeated `",
            base,
            "=` keys).",
        ]);
    let msg = match fit {
        Fit::No("takes one value") => msg.and(&[
            " `",
            base,
            "` takes one value, though: query once per value.",
        ]),
        Fit::No(reason) => msg.and(&[" `", base, "` ", reason, ", though: adjust the values."]),
        Fit::Yes => msg,
    };
    let f = finding(r.clone(), "unsupported-lookup", msg.done());
    let numeric = view.takes_integers_known(base, known.param, Some(known.relation));
    match (ctx.syntax(), parts) {
        (s, Some(parts)) if s.is_pairs() => f.with_fix(
            cat!("Use repeated `", base, "` keys"),
            ctx.pair_range(entry),
            render::pairs(base, &parts, s),
            certain,
        ),
        (s, None) if s.is_pairs() => {
            f.with_fix(cat!("Replace with `", base, "`"), r, base, certain)
        }
        (syntax, Some(parts)) if parts.len() > 1 => {
            let items: Vec<String> = parts
                .iter()
                .map(|p| render::token(p, numeric, syntax))
                .collect();
            let mut f = f;
            f.fixes.push(crate::finding::Fix {
                title: cat!("Use a list on `", base, "`"),
                edits: vec![
                    crate::finding::Edit {
                        range: r,
                        new_text: base.to_string(),
                    },
                    crate::finding::Edit {
                        range: entry.value_range.clone(),
                        new_text: render::list(&items),
                    },
                ],
                certain,
                releases: Vec::new(),
            });
            f
        }
        _ => f.with_fix(cat!("Replace with `", base, "`"), r, base, certain),
    }
}

/// Truthiness of a `__isnull=true` style value; `None` when not a literal.
fn truthy(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Int(i) => Some(*i != 0),
        Value::Str(s) => match s.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => Some(true),
            "false" | "0" | "no" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// `tenant__empty`, `tenant__isnull`: ignored (relation filters get only `__n`); the null
/// selector is `tenant_id=null` (ground truth: honoured, 14 of 72 devices on 4.3.3–4.6.8).
fn null_relation(ctx: &Ctx, view: &View, entry: &FilterEntry, lookup: &str, nk: &str) -> Finding {
    let syntax = ctx.syntax();
    let null = render::null_string(syntax);
    let want = truthy(&entry.value);
    let (key, meaning) = match want {
        Some(false) => (format!("{nk}__n"), "with"),
        _ => (nk.to_string(), "without"),
    };
    let base = Key::parse(&entry.key).base();
    let noun = base.strip_suffix("_id").unwrap_or(base);
    let msg = format!(
        "`__{lookup}` does not exist on the relation filter `{base}` (relations take only `__n`): {}. Objects {meaning} a {noun} are selected with `{key}=null`.",
        ignored(view),
    );
    let mut f = finding(entry.key_range.clone(), "null-relation", msg);
    if want.is_some() && (want == Some(true) || view.has(&key)) {
        f.fixes.push(crate::finding::Fix {
            title: format!("Use `{key}` with the null selector"),
            edits: vec![
                crate::finding::Edit {
                    range: entry.key_range.clone(),
                    new_text: key.clone(),
                },
                crate::finding::Edit {
                    range: entry.value_range.clone(),
                    new_text: null,
                },
            ],
            // Not where the release answers the filter with a server error.
            certain: !super::faults::broken(view, &key),
            releases: Vec::new(),
        });
    }
    f
}

/// A lookup the field does not get here: Django spellings, `__isnull` on a non-relation,
/// lookups of another filter class (relation filters only get `__n`; regex only on char).
fn other_lookup(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    base: &str,
    lookup: &str,
) -> Option<Finding> {
    let _ = ctx;
    let r = entry.key_range.clone();
    if let Some((target, note)) = django_to_netbox(lookup) {
        let to = match target {
            Some(l) => cat!(base, "__", l),
            None => base.to_string(),
        };
        if view.has(&to) {
            let msg = Msg::of(&["`__", lookup, "` is a Django lookup, not a NetBox one: "])
                .ignored(view)
                .and(&[". Use `", &to, "`", note, "."])
                .done();
            let certain = view.value_fits(&to, &entry.value) == Fit::Yes;
            let title = cat!("Replace with `", &to, "`");
            return Some(
                finding(r.clone(), "unsupported-lookup", msg).with_fix(title, r, to, certain),
            );
        }
        let msg = Msg::of(&[
            "`__",
            lookup,
            "` is a Django lookup, not a NetBox one, and `",
            base,
            "` has no such lookup here: ",
        ])
        .ignored(view)
        .and(&["."])
        .lookup_list(view, base)
        .done();
        return Some(finding(r, "unsupported-lookup", msg));
    }
    if matches!(lookup, "isnull" | "null") {
        let to = format!("{base}__empty");
        let mut f = finding(
            r.clone(),
            "unsupported-lookup",
            format!(
                "`__{lookup}` is not a NetBox lookup: {}.{}",
                ignored(view),
                if view.has(&to) {
                    format!(" Use `{to}=true` (or `false`).")
                } else {
                    lookup_list(view, base)
                }
            ),
        );
        if view.has(&to) {
            // Certain only for a value `__empty` takes as written (`true`, not `0`).
            let certain = view.value_fits(&to, &entry.value) == Fit::Yes;
            f = f.with_fix(format!("Replace with `{to}`"), r, to, certain);
        }
        return Some(f);
    }
    if !view.has(base) {
        return None;
    }
    let msg = Msg::of(&["`", &entry.key, "` is not a filter here: "])
        .ignored(view)
        .and(&["."]);
    let msg = if view.is_relation(base) {
        msg.and(&[
            " `",
            base,
            "` is a relation filter: it takes only `__n`. To match on the related object's name, look it up first and filter with its id or slug.",
        ])
    } else if NETBOX_LOOKUPS.contains(&lookup) {
        msg.and(&[
            " `",
            base,
            "` has no `__",
            lookup,
            "` lookup in NetBox ",
            view.version(),
            ".",
        ])
        .lookup_list(view, base)
    } else {
        msg.lookup_list(view, base)
    };
    Some(finding(r, "unsupported-lookup", msg.done()))
}

/// " Its lookups here: `__n`, `__ic`, ..." or " `base` takes no lookups here.".
fn lookup_list(view: &View, base: &str) -> String {
    // The `base__*` names are adjacent in name order: one binary search, not a scan.
    Msg::of(&[]).lookup_list(view, base).done()
}

/// The key exists on the same endpoint in another shipped version only.
/// `k`: the key parsed ([`Key::parse`]); the key is no parameter of `view` ([`check`]'s).
fn version_only(
    ctx: &Ctx,
    view: &View,
    asked: &Asked,
    entry: &FilterEntry,
    k: &Key,
) -> Option<Finding> {
    let mut versions: Vec<String> = match ctx.others {
        // A name the table of differences lists on no endpoint is in no other release (one
        // bit read: the endpoint's names and rows were ~400 instructions a key).
        None if std::ptr::eq(ctx.index, view.index)
            && super::versions::surely_nowhere_else(view.index, &entry.key) =>
        {
            return None
        }
        None if std::ptr::eq(ctx.index, view.index) => asked.versions_without_filter(&entry.key),
        _ => super::versions::with_filter(ctx.index, ctx.others, view.key, &entry.key),
    };
    versions.retain(|v| v != view.version());
    if versions.is_empty() {
        return None;
    }
    versions.sort_by_key(|v| version_key(v));
    versions.dedup();
    let s = match k.lookup() {
        // A regex has no faithful rewrite; name the lookups this version has instead.
        Some("regex" | "iregex") => std::rc::Rc::new(Suggestions::default()),
        _ => asked.suggest_absent(&entry.key, k),
    };
    let mut f = unknown(view, entry, &s);
    f.code = "version-only";
    if k.lookup() == Some("any") {
        // TagFilter is conjoined on every release (extras/filters.py: `?tag=foo&tag=bar` matches
        // objects with all tags); the OR mode `__any` came in 4.6 (netbox/filtersets.py).
        f.message = format!(
            "`{}` is not a filter on {} in NetBox {} (the \"any of\" lookup exists in NetBox {}): {}. On this version repeated `{b}` keys match objects that have ALL the tags; for any of them, query once per tag and merge the results.",
            entry.key,
            view.path(),
            view.version(),
            versions.join(", "),
            ignored(view),
            b = k.base()
        );
        with_switch_advice(&mut f, ctx.index);
        f.fixes.clear();
        return Some(f);
    }
    if matches!(k.lookup(), Some("regex" | "iregex")) {
        f.message = format!(
            "`{}` is not a filter on {} in NetBox {} (regex lookups exist in NetBox {}): {}. On this version match with `{b}__isw`, `{b}__ic` or `{b}__iew`.",
            entry.key,
            view.path(),
            view.version(),
            versions.join(", "),
            ignored(view),
            b = k.base()
        );
        with_switch_advice(&mut f, ctx.index);
        return Some(f);
    }
    if let Some(r) = super::renames::removed(view.key, &entry.key)
        .filter(|r| version_key(view.version()) >= version_key(r.release))
    {
        // Removed by this release: the release notes' replacement, not a spelling guess.
        f.message = format!(
            "`{}` is not a filter on {} in NetBox {} (it exists in NetBox {}; NetBox {} removed it, {}): {}. Instead, {}.",
            entry.key,
            view.path(),
            view.version(),
            versions.join(", "),
            r.release,
            r.source,
            ignored(view),
            r.instead,
        );
        with_switch_advice(&mut f, ctx.index);
        f.facts.cites = Some(r.source);
        f.fixes = removed_fix(ctx, entry, k, r).into_iter().collect();
        return Some(f);
    }
    f.message = format!(
        "`{}` is not a filter on {} in NetBox {} (it exists in NetBox {}): {}.{}",
        entry.key,
        view.path(),
        view.version(),
        versions.join(", "),
        ignored(view),
        suggestion_text(&s),
    );
    with_switch_advice(&mut f, ctx.index);
    Some(f)
}

/// Appends the advice to check against another release ([`super::versions::switch_advice`])
/// to `f`'s message, recording it apart ([`crate::finding::Facts::advice`]).
fn with_switch_advice(f: &mut Finding, index: &crate::index::FilterIndex) {
    let (kind, text) = super::versions::switch_advice(index);
    f.facts.advice = Advice::push(&mut f.message, kind, &text);
}

/// The certain rewrite of a removed text lookup on a choice filter (`protocol__ic=tc` →
/// `protocol=tcp`): only when the value is one plain string that selects exactly one choice
/// under that lookup (case-insensitive, as NetBox's `i` lookups are), so the rewrite selects
/// the same objects. The negated lookups become `<filter>__n`.
fn removed_fix(
    ctx: &Ctx,
    entry: &FilterEntry,
    k: &Key,
    r: &super::renames::Removed,
) -> Option<crate::finding::Fix> {
    let (to, choices) = r.to?;
    let Value::Str(v) = &entry.value else {
        return None;
    };
    let lookup = k.lookup()?;
    let (negated, test) = match lookup.strip_prefix('n') {
        Some(rest) if lookup != "n" => (true, rest),
        _ => (false, lookup),
    };
    let needle = v.to_ascii_lowercase();
    let hits: Vec<&str> = choices
        .iter()
        .copied()
        .filter(|c| match test {
            "ie" => *c == needle,
            "ic" => c.contains(needle.as_str()),
            "isw" => c.starts_with(needle.as_str()),
            "iew" => c.ends_with(needle.as_str()),
            _ => false,
        })
        .collect();
    let [one] = hits.as_slice() else {
        return None;
    };
    if needle.is_empty()
        || entry.value_range.is_empty()
        || entry.value_range.start < entry.key_range.end
    {
        return None;
    }
    let key = if negated {
        format!("{to}__n")
    } else {
        to.to_string()
    };
    Some(crate::finding::Fix {
        title: format!("Replace `{}={v}` with `{key}={one}`", entry.key),
        edits: vec![
            crate::finding::Edit {
                range: entry.key_range.clone(),
                new_text: key,
            },
            crate::finding::Edit {
                range: entry.value_range.clone(),
                new_text: render::string(one, ctx.syntax()),
            },
        ],
        certain: true,
        releases: Vec::new(),
    })
}

/// Sort key for `4.10.2` > `4.9.1`.
fn version_key(v: &str) -> Vec<u32> {
    v.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

/// " Use `x`." / " Did you mean `a` or `b`?" / " Its relation filters: ..." / "".
fn suggestion_text(s: &Suggestions) -> String {
    Msg::of(&[]).suggestion(s).done()
}

/// `unknown-filter` with the suggestions as fixes. A suggestion is certain only when the value
/// fits the new key ([`View::value_fits`]): `cluster="prod-a"` → `cluster_id` would be a 400,
/// so the message says how to get the id instead.
fn unknown(view: &View, entry: &FilterEntry, s: &Suggestions) -> Finding {
    let mut certain = s.certain;
    // Why the one suggestion's value does not fit, as facts: written after the suggestion,
    // into the message itself (no string of its own).
    let mut why: Option<(&str, &str)> = None;
    let mut sibling = None;
    if let [one] = s.names.as_slice() {
        if let Fit::No(reason) = view.value_fits(one, &entry.value) {
            // The filter of the same relation that reads this value's form (a number on
            // `tag` → `tag_id`, a slug on `site_id` → `site`) is the one step; a rename that
            // would carry the value to a form it does not read is never preferred (issue 31 §3).
            match same_concept(view, one, &entry.value) {
                Some(other) => {
                    // A number reads as an id; a string on the bare filter may be a name as
                    // well as a slug: offered, not preferred.
                    certain &= other.ends_with("_id");
                    sibling = Some(other);
                }
                None => certain = false,
            }
            why = Some((one.as_str(), reason));
        }
    }
    let r = entry.key_range.clone();
    if let (Some(other), Some((one, reason))) = (sibling, why) {
        // [`Msg::suggestion`] of the one name `other`, then why not `one`.
        let mut msg = not_a_filter(view, entry)
            .and(&[" Use `", &other, "`."])
            .and(&[
                " `",
                one,
                "` ",
                reason,
                "; this value fits `",
                &other,
                "`, the same ",
            ]);
        let relation = one.strip_suffix("_id").unwrap_or(one);
        super::text::push_spoken(&mut msg.0, relation);
        let msg = msg.and(&["."]).done();
        return finding(r.clone(), "unknown-filter", msg).with_fix(
            cat!("Replace `", &entry.key, "` with `", &other, "`"),
            r,
            other,
            certain,
        );
    }
    let mut msg = not_a_filter(view, entry).suggestion(s);
    if let Some((one, reason)) = why {
        push_fit_advice(&mut msg.0, view, one, reason);
    }
    let mut f = finding(r.clone(), "unknown-filter", msg.done());
    for n in &s.names {
        f = f.with_fix(
            cat!("Replace `", &entry.key, "` with `", n, "`"),
            r.clone(),
            n.clone(),
            certain,
        );
    }
    f
}

/// "`key` is not a filter on /api/…/ (NetBox v): NetBox ignores it and returns every object."
fn not_a_filter(view: &View, entry: &FilterEntry) -> Msg {
    Msg::of(&[
        "`",
        &entry.key,
        "` is not a filter on /api/",
        view.key,
        "/ (NetBox ",
        view.version(),
        "): NetBox ignores it and returns every object.",
    ])
}

/// The filter of the same relation as `name` in the other form (`tag` ↔ `tag_id`,
/// `object_type` ↔ `object_type_id`) when `value` fits it and not `name`.
fn same_concept(view: &View, name: &str, value: &Value) -> Option<String> {
    // `value_fits` is `No` for a name that is no parameter here: no probe of its own first.
    // The other name is probed from the stack; a string is made only for one that fits.
    let fits = |other: &str| (view.value_fits(other, value) == Fit::Yes).then(|| other.to_string());
    match name.strip_suffix("_id") {
        Some(bare) => fits(bare),
        None => super::text::with_joined(&[name, "_id"], fits),
    }
}

/// Appends why the value does not fit `name` and what to send instead to `out` (the relation
/// spoken in place: no string of its own).
fn push_fit_advice(out: &mut String, view: &View, name: &str, reason: &str) {
    use super::text::push_spoken;
    let noun = name.strip_suffix("_id").unwrap_or(name);
    let push = |out: &mut String, parts: &[&str]| parts.iter().for_each(|p| out.push_str(p));
    if reason == "takes numeric ids" {
        let by_slug = view
            .param(noun)
            .is_some_and(|p| noun != name && !view.takes_integers(noun, p));
        match by_slug.then_some(noun) {
            Some(n) => {
                push(
                    out,
                    &[
                        " `",
                        name,
                        "` takes numeric ids; this value is a name or slug: use `",
                        n,
                        "` if it is the ",
                    ],
                );
                push_spoken(out, noun);
                out.push_str("'s slug, or look the ");
                push_spoken(out, noun);
                out.push_str(" up on its own endpoint (`?name=...`) and send its id.");
            }
            None => {
                push(
                    out,
                    &[" `", name, "` takes numeric ids, not this value: look the "],
                );
                push_spoken(out, noun);
                out.push_str(" up on its own endpoint (`?name=...`) and send its id.");
            }
        }
        return;
    }
    push(
        out,
        &[
            " `",
            name,
            "` ",
            reason,
            ": adjust the value when renaming.",
        ],
    );
}

/// A snippet's `<base>__<lookup>` with a NetBox lookup that no endpoint of the release has
/// under that name (`vlan_id__gte`: `vlan_id` is a relation filter, only `__n`;
/// `comments__empty`: `comments` is a filter nowhere): wrong wherever it stands. An error when
/// `base` is a filter somewhere (its lookups are known), a warning when it is none (a plugin's
/// endpoint, which stock knowledge lacks, may have it). Nothing when some endpoint has the key.
fn snippet_lookup_nowhere(
    ctx: &Ctx,
    entry: &FilterEntry,
    base: &str,
    lookup: &str,
    out: &mut Vec<Finding>,
) {
    let eps = ctx.index.endpoints.values();
    if eps.clone().any(|ep| ep.params.contains_key(&entry.key)) {
        return;
    }
    let mut lookups: Vec<&str> = eps
        .filter(|ep| ep.params.contains_key(base))
        .flat_map(|ep| ep.params.lookups(base))
        .collect();
    lookups.sort_unstable();
    lookups.dedup();
    let version = &ctx.index.netbox_version;
    let ignored = format!(
        "a request with `{}` ignores it and returns every object",
        entry.key
    );
    let somewhere = ctx
        .index
        .endpoints
        .values()
        .any(|ep| ep.params.contains_key(base));
    let f = if somewhere || ctx.index.from_instance {
        let has = if !somewhere {
            "it is no filter there".to_string()
        } else if lookups.is_empty() {
            "it takes no lookups".to_string()
        } else {
            format!(
                "its lookups: {}",
                lookups
                    .iter()
                    .map(|l| format!("`__{l}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        finding(
            entry.key_range.clone(),
            "unsupported-lookup",
            format!(
                "`{}` is a filter on no endpoint of NetBox {version}: `{base}` has no `__{lookup}` lookup anywhere ({has}), so {ignored}.",
                entry.key
            ),
        )
    } else {
        super::finding_sev(
            entry.key_range.clone(),
            "unsupported-lookup",
            crate::finding::Severity::Warning,
            format!(
                "`{}` is a filter on no endpoint of NetBox {version}: `{base}` is no filter there, with or without a lookup, so {ignored} (unless a plugin's endpoint has it).",
                entry.key
            ),
        )
    };
    out.push(f);
}

/// A filter written without an endpoint (`CallForm::Snippet`): a lookup NetBox has on no
/// endpoint is wrong wherever it stands; say NetBox's form. No fix: without the endpoint the
/// right key is not known.
pub(crate) fn snippet(ctx: &Ctx, entry: &FilterEntry, out: &mut Vec<Finding>) {
    let Some((base, lookup)) = entry.key.rsplit_once("__") else {
        return;
    };
    let form = match lookup {
        "in" => format!("a list on `{base}` (repeated `{base}=` keys)"),
        "isnull" | "null" => format!(
            "`{base}_id=null` on a relation (`{base}_id__n=null` for objects that have one), `{base}__empty=true` on a field"
        ),
        "range" => format!("`{base}__gte` and `{base}__lte`"),
        l => match django_to_netbox(l) {
            Some((Some(n), note)) => format!("`{base}__{n}`{note}"),
            Some((None, note)) => format!("`{base}`{note}"),
            None if NETBOX_LOOKUPS.contains(&l) => {
                snippet_lookup_nowhere(ctx, entry, base, l, out);
                return;
            }
            None => return,
        },
    };
    out.push(finding(
        entry.key_range.clone(),
        "unsupported-lookup",
        format!(
            "`__{lookup}` is a lookup NetBox has on no endpoint: a request with `{}` ignores it and returns every object (NetBox {}). NetBox's form is {form}.",
            entry.key, ctx.index.netbox_version
        ),
    ));
}
