//! `textDocument/hover`: on a call that was not checked (a wrong example the text marks as
//! wrong, release history, a Django query, another product's call), why; on a filter key, what
//! it filters, its type, lookups, whether it takes several values, its choices and the NetBox
//! version of the index; on an unknown key, the endpoint's nearest real filters with their
//! types (why NetBox ignores the key only when no diagnostic on it says so already: the editor
//! shows the diagnostic with the hover); on an object type, its endpoint.

use super::completion::{detail, param_doc};
use super::context::{self, Expect};
use super::request::{self, Request};
use super::{graphql_site, Backend};
use crate::finding::Finding;
use crate::index::FilterIndex;
use crate::intent::NotChecked;
use crate::rest::view_params;
use std::ops::Range;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

/// Handles `textDocument/hover`.
pub async fn handle(backend: &Backend, params: HoverParams) -> Result<Option<Hover>> {
    let pos = params.text_document_position_params;
    let Some(req) = Request::open(backend, &pos.text_document.uri) else {
        return Ok(None);
    };
    let (_, loaded) = backend.knowledge_of(&req.view).await;
    let findings = req.view.findings.clone().unwrap_or_default();
    let not_checked = req.view.not_checked.clone();
    let live = super::live::hover_section(&findings, req.offset(pos.position));
    let found = request::run(backend, "hover", move || {
        let (snap, kind, enc) = (&req.view.snap, req.view.kind, req.enc);
        let offset = req.offset(pos.position);
        if let Some(n) = not_checked.iter().find(|n| n.range.contains(&offset)) {
            let line = n
                .marker
                .as_ref()
                .map(|m| snap.range(m, enc).start.line as usize + 1);
            return Some(Hover {
                contents: HoverContents::Markup(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: not_checked_text(n, line),
                }),
                range: Some(snap.range(&n.range, enc)),
            });
        }
        if let Some(schema) = loaded.knowledge.graphql.as_deref() {
            if let Some((doc, at)) = graphql_site::locate_in(snap, kind, offset) {
                let text = crate::graphql::hover(&doc.text, at, schema)?;
                return Some(Hover {
                    contents: HoverContents::Markup(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value: text,
                    }),
                    range: None,
                });
            }
        }
        let index = loaded.knowledge.index.as_deref()?;
        let (range, text) = describe_by(&snap.text, offset, index, &findings, |at| {
            let unit = snap.unit_at(kind, at);
            super::completion::rest_context(&snap.text, at, kind, unit.as_ref())
        })?;
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: text,
            }),
            range: Some(snap.range(&range, enc)),
        })
    })
    .await;
    // The live verdicts at the cursor (counts and the time of the check) after the rest.
    Ok(match (found, live) {
        (Some(mut h), Some(live)) => {
            if let HoverContents::Markup(m) = &mut h.contents {
                m.value = format!("{}\n\n---\n\n{live}", m.value);
            }
            Some(h)
        }
        (None, Some(live)) => Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: live,
            }),
            range: None,
        }),
        (h, None) => h,
    })
}

/// The hover on a call that was not checked: what it was read as and why (`marker_line`: the
/// 1-based line of the text that decided), and how to have such calls checked.
pub fn not_checked_text(n: &NotChecked, marker_line: Option<usize>) -> String {
    format!(
        "**Not checked**: {}.\n\nnetbox-lsp checks the calls a text makes, not the ones it shows as examples or history. To check these too: `[skip]` `{} = false` in `netbox-lsp.toml`.",
        n.message(marker_line),
        n.read_as.name()
    )
}

/// The word under `offset` (filter names, object types, endpoint paths).
fn word_at(text: &str, offset: usize) -> Range<usize> {
    let is_word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '/');
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(offset, |(i, _)| i);
    let end = text[offset..]
        .char_indices()
        .find(|(_, c)| !is_word(*c))
        .map_or(text.len(), |(i, _)| offset + i);
    start..end
}

/// The hover text for the word at `offset`, and the word's range.
pub fn describe(
    text: &str,
    offset: usize,
    kind: crate::extract::HostKind,
    index: &FilterIndex,
    findings: &[Finding],
) -> Option<(Range<usize>, String)> {
    describe_by(text, offset, index, findings, |at| {
        context::at(text, at, kind).or_else(|| super::form_context::at(text, at, kind))
    })
}

/// [`describe`], the context at the start of the word under `offset` given by `context_at`.
fn describe_by(
    text: &str,
    offset: usize,
    index: &FilterIndex,
    findings: &[Finding],
    context_at: impl FnOnce(usize) -> Option<context::Context>,
) -> Option<(Range<usize>, String)> {
    let word = word_at(text, offset);
    if word.is_empty() {
        return None;
    }
    let ctx = context_at(word.start)?;
    let name = &text[word.clone()];
    let version = &index.netbox_version;
    let body = match ctx.expect {
        Expect::ObjectType => match index.resolve(name) {
            Some((key, ep)) => format!(
                "**{}** → `GET /api/{key}/`\n\n{} query parameters (filters and lookups).\n\n_NetBox {version} filter index_",
                ep.object_type.as_deref().unwrap_or(name),
                ep.params.len()
            ),
            None => format!(
                "`{name}` is not an object type of NetBox {version}: the call fails.\n\n_NetBox {version} filter index_"
            ),
        },
        Expect::FilterName { target } => {
            let (key, ep) = index.resolve(&target)?;
            match ep.params.get(name) {
                Some(p) => {
                    let base = name.split("__").next().unwrap_or(name);
                    let lookups: Vec<String> = ep
                        .params
                        .keys()
                        .filter(|k| k.len() > base.len() + 2 && k.starts_with(base) && k[base.len()..].starts_with("__"))
                        .map(|k| format!("`{}`", &k[base.len()..]))
                        .collect();
                    let mut s = param_doc(name, p, index, key);
                    s.push_str(&format!("\n\nType: {}", detail(p, index)));
                    // NetBox's tag filters AND their values (docs/diagnostics.md, tag-match-all).
                    let and = matches!(name, "tag" | "tag_id")
                        && !matches!(key, "extras/tagged-objects" | "extras/config-contexts");
                    if p.multi && and {
                        s.push_str(" (repeat the key or pass a list; objects must carry ALL of them)");
                    } else if p.multi {
                        s.push_str(" (repeat the key or pass a list; values are OR-ed)");
                    }
                    if !lookups.is_empty() && !name.contains("__") {
                        s.push_str(&format!("\n\nLookups: {}", lookups.join(", ")));
                    }
                    s.push_str(&format!("\n\n_NetBox {version} filter index_"));
                    s
                }
                None if custom_field(index, ep, name).is_some() => {
                    let f = custom_field(index, ep, name)?;
                    format!(
                        "**{name}**: custom field `{}` of this NetBox ({}, filter logic {}), assigned to {}.{}{}\n\n_NetBox {version} instance index_",
                        f.name,
                        f.kind,
                        f.filter_logic,
                        f.object_types.join(", "),
                        f.choices
                            .as_ref()
                            .map(|c| format!(" Values: {}.", c.join(", ")))
                            .unwrap_or_default(),
                        // The diagnostic on the key says what is wrong; VS Code shows it above.
                        String::new()
                    )
                }
                None if name.starts_with("cf_") => format!(
                    "`{name}` filters on a custom field: custom fields are defined per NetBox instance, so the shipped index cannot check it.\n\n_NetBox {version} filter index_"
                ),
                // As the checker reads it: where NetBox does not read it here (another
                // release or endpoint), its `ignored-parameter` diagnostic says so beside this.
                None if view_params::view_parameter(name).is_some() => {
                    let (does, since, source) = view_params::view_parameter(name)?;
                    format!(
                        "`{name}` is not a filter: a list-view parameter NetBox reads outside its filters since NetBox {since} — {does} (`{source}`).\n\n_NetBox {version} filter index_"
                    )
                }
                None => {
                    let flagged: Vec<&Finding> = findings
                        .iter()
                        .filter(|f| f.range.start <= word.end && word.start <= f.range.end)
                        .collect();
                    // A diagnostic on the key already says that NetBox ignores it, and the
                    // editor shows it with the hover: add only what it does not say.
                    let mut s = if flagged.is_empty() {
                        format!(
                            "`{name}` is not a filter of `/api/{key}/` in NetBox {version}. NetBox ignores unknown query parameters, so the call returns every object, unfiltered.\n\n"
                        )
                    } else {
                        String::new()
                    };
                    let near = nearest_filters(name, ep, &flagged, 5);
                    if !near.is_empty() {
                        s.push_str(&format!("Nearest filters of `/api/{key}/`:\n"));
                        for (n, p) in near.into_iter().filter_map(|n| ep.params.get_key_value(n)) {
                            s.push_str(&format!("- `{n}`: {}", detail(p, index)));
                            if let Some(d) = p.description.as_deref().map(first_sentence) {
                                if !d.is_empty() {
                                    s.push_str(&format!(" — {d}"));
                                }
                            }
                            s.push('\n');
                        }
                        s.push('\n');
                    }
                    s.push_str(&format!("_NetBox {version} filter index_"));
                    s
                }
            }
        }
        _ => return None,
    };
    Some((word, body))
}

/// Up to `max` real filters of `ep` nearest to the unknown `name`: first those the findings'
/// fixes put in its place, then those `name` ends with, then by string similarity (Jaro-Winkler ≥ 0.7) among filters of the
/// same shape (with a lookup when `name` has one, without otherwise), best first.
fn nearest_filters<'a>(
    name: &str,
    ep: &'a crate::index::Endpoint,
    flagged: &[&Finding],
    max: usize,
) -> Vec<&'a str> {
    let mut out: Vec<&'a str> = Vec::new();
    for fix in flagged.iter().flat_map(|f| &f.fixes) {
        for e in &fix.edits {
            let t = e.new_text.trim_matches(|c| matches!(c, '"' | '\'' | '\\'));
            if let Some((k, _)) = ep.params.get_key_value(t) {
                if !out.contains(&k) {
                    out.push(k);
                }
            }
        }
    }
    // A real filter the key ends with (`device_role_id` → `role_id`), longest first.
    let mut tails: Vec<&'a str> = ep
        .params
        .keys()
        .filter(|p| {
            name.len() > p.len() + 1
                && name.ends_with(*p)
                && name[..name.len() - p.len()].ends_with('_')
        })
        .collect();
    tails.sort_by_key(|p| std::cmp::Reverse(p.len()));
    for p in tails {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    let with_lookup = name.contains("__");
    let mut scored: Vec<(f64, &'a str)> = ep
        .params
        .keys()
        .filter(|p| p.contains("__") == with_lookup && !view_params::is_exempt(p))
        .map(|p| (strsim::jaro_winkler(name, p), p))
        .filter(|(s, _)| *s >= 0.7)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    for (_, p) in scored {
        if out.len() >= max {
            break;
        }
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out.truncate(max);
    out
}

/// The first sentence of a filter's description, at most 80 characters.
fn first_sentence(d: &str) -> String {
    let s = d.split(". ").next().unwrap_or(d).trim();
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(79).collect();
        format!("{cut}…")
    } else {
        s.to_string()
    }
}

/// The instance's custom field behind `cf_<name>[__lookup]`, if the index knows it (whether or
/// not it is assigned to `ep`'s object type: the finding on the key says what that means).
fn custom_field<'a>(
    index: &'a FilterIndex,
    _ep: &crate::index::Endpoint,
    key: &str,
) -> Option<&'a crate::index::instance::CustomField> {
    let name = key.strip_prefix("cf_")?.split("__").next()?;
    index
        .instance
        .as_deref()?
        .custom_fields
        .as_ref()?
        .iter()
        .find(|f| f.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{analyze, Knowledge};
    use crate::extract::HostKind;

    const TEXT: &str = "netbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3})\n";

    fn hover(findings: &[Finding]) -> String {
        let index = crate::index::embedded::embedded_index("4.6.8");
        let at = TEXT.find("device_role_id").unwrap() + 2;
        describe(TEXT, at, HostKind::Python, &index, findings)
            .unwrap()
            .1
    }

    /// Issue 12 §6: on a flagged key the hover adds the nearest real filters and their types and
    /// does not repeat the diagnostic, which the editor shows with it.
    #[test]
    fn flagged_key_gets_nearest_filters_not_the_diagnostic_again() {
        let k = Knowledge {
            index: Some(crate::index::embedded::embedded_index("4.6.8")),
            ..Default::default()
        };
        let findings = analyze(TEXT, HostKind::Python, &k);
        let f = findings
            .iter()
            .find(|f| f.code == "unknown-filter")
            .unwrap();
        let h = hover(&findings);
        assert!(!h.contains(&f.message), "{h}");
        assert!(!h.contains("NetBox ignores"), "{h}");
        let items: Vec<&str> = h.lines().filter(|l| l.starts_with("- `")).collect();
        assert!(items[0].starts_with("- `role_id`: "), "{h}");
        assert!(items.len() >= 2 && items.len() <= 5, "{h}");
        assert!(items.iter().all(|l| l.contains(" · ")), "types: {h}");
        // Without a diagnostic (suppressed, or severity off) the hover says why it matters.
        let alone = hover(&[]);
        assert!(
            alone.contains("is not a filter of `/api/dcim/devices/`"),
            "{alone}"
        );
        assert!(alone.contains("unfiltered"), "{alone}");
        assert!(alone.contains("- `role_id`: "), "{alone}");
    }

    /// Hover says of `q`, `start` and `exclude` what the checker says (`rest::lookups`): `q` is
    /// a filter, unknown where the endpoint lacks it; `start` and `exclude` are list-view
    /// parameters, not unknown filters (where NetBox does not read them, the checker's
    /// `ignored-parameter` says so beside the hover).
    #[test]
    fn view_parameters_as_the_checker_reads_them() {
        type Case<'a> = (&'a str, &'a str, &'a str, &'a str, Option<&'a str>, &'a str);
        let cases: [Case; 4] = [
            ("4.6.8", "dcim/cable-terminations", "q", "x", Some("unknown-filter"), "is not a filter of `/api/dcim/cable-terminations/`"),
            ("4.5.10", "dcim/devices", "start", "100", Some("ignored-parameter"), "list-view parameter NetBox reads outside its filters since NetBox 4.6.0 — cursor pagination"),
            ("4.6.8", "dcim/devices", "exclude", "config_context", None, "list-view parameter NetBox reads outside its filters since NetBox 4.0.0 — skips rendering config contexts"),
            ("4.6.8", "dcim/sites", "exclude", "config_context", Some("ignored-parameter"), "skips rendering config contexts"),
        ];
        for (version, endpoint, key, value, code, says) in cases {
            let index = crate::index::embedded::embedded_index(version);
            let k = Knowledge {
                index: Some(index.clone()),
                ..Default::default()
            };
            let text = format!("GET /api/{endpoint}/?{key}={value}\n");
            let findings = analyze(&text, HostKind::Markdown, &k);
            let at = text.find(&format!("?{key}=")).unwrap() + 1;
            let on_key: Vec<&str> = findings
                .iter()
                .filter(|f| f.range.start <= at && at < f.range.end)
                .map(|f| f.code)
                .collect();
            assert_eq!(
                on_key.first().copied(),
                code,
                "{version} {key}: {findings:?}"
            );
            // Without the diagnostic beside it (suppressed, or severity off), hover says it all.
            let (_, h) = describe(&text, at, HostKind::Markdown, &index, &[]).unwrap();
            assert!(h.contains(says), "{version} {key}: {h}");
        }
    }
}
