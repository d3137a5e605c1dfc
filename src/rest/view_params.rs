//! Query parameters NetBox reads outside its filtersets: in the paginator, the viewsets, the
//! serializers and Django REST framework. They are not filters: where they apply they never
//! narrow the result, and where they do not apply NetBox ignores them without narrowing either.
//! Each row cites the NetBox source (files at the shipped tags v4.3.3, v4.4.10, v4.5.10, v4.6.8;
//! 4.7.3 from the PyPI wheel, the same paths without `netbox/`) and says in which releases and
//! where it applies, so a parameter is accepted exactly there and reported elsewhere
//! (`ignored-parameter`), with what NetBox really does.
//!
//! `q` is not here: it is a filterset filter (`q = MultiValueCharFilter(method='search')`) that
//! some endpoints lack (`/api/dcim/cable-terminations/`, `/api/ipam/fhrp-group-assignments/`,
//! ...), so it is checked against the index like any filter.

use super::endpoint::View;
use super::{finding, finding_sev, Ctx};
use crate::extract::{FilterEntry, Value};
use crate::finding::{Finding, Severity};

/// Where a parameter is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Applies {
    /// Every list endpoint.
    All,
    /// Only these endpoint keys (`dcim/devices`).
    Only(&'static [&'static str]),
}

/// What a parameter does on a detail view (`/api/dcim/devices/42/`: DRF's
/// `RetrieveModelMixin.retrieve`, `get_object()` then `get_serializer(instance)`; DRF
/// `mixins.py` L53–56 in 3.16.0, 3.16.1, 3.17.1 and 3.18.0, the releases NetBox 4.3.3–4.7.3 pin).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnDetail {
    /// Read there as on a list (the serializer's and the queryset's parameters).
    Reads,
    /// Read only by the list view (the paginator, the export): ignored on a detail view.
    ListOnly,
    /// Read, but without effect on one object (ordering).
    NoEffect,
}

/// How NetBox reads a parameter given more than once (repeated keys, as pynetbox and
/// `requests` send a list): every row is read with `QueryDict.get` / `[...]`, which give the
/// last value only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Several {
    /// One value, split at commas (`fields=id,name`): a list is written joined with commas.
    CommaList,
    /// One value.
    One,
}

/// One query parameter read outside the filtersets.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ViewParam {
    pub name: &'static str,
    /// First NetBox release that reads it (`x.y.z`); the shipped releases before it ignore it.
    pub since: &'static str,
    /// First NetBox release that no longer reads it (`x.y.z`), with what to use there instead
    /// and the source; `None` while every release from `since` reads it.
    pub until: Option<Gone>,
    pub applies: Applies,
    /// The only value that has an effect (`exclude=config_context`); `None` = any value.
    pub effective_value: Option<&'static str>,
    /// What it does, for messages and hover.
    pub does: &'static str,
    /// The NetBox source that reads it.
    pub source: &'static str,
    /// What it does on a detail view.
    pub on_detail: OnDetail,
    /// How a repeated key is read.
    pub several: Several,
}

/// A parameter a release stopped reading.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gone {
    /// The first release that ignores it (`4.7.0`).
    pub release: &'static str,
    /// The parameter that does the job there, if one does (`omit`), as a key replacement that
    /// keeps the value: certain when the replacement reads the same values.
    pub instead: Option<&'static str>,
    /// The release notes or source that say so.
    pub source: &'static str,
}

/// How [`check`] found a view parameter read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// NetBox reads it here: its value is for `view_values` to judge.
    Read,
    /// NetBox ignores it here (reported).
    Ignored,
    /// The row does not apply here but the endpoint has a filter of that name (the `start` of
    /// an ASN range on ≤ 4.5): the caller checks it as a filter.
    Filter,
}

/// The parameters, per release. Sources are paths in the netbox-community/netbox repository.
pub(crate) const VIEW_PARAMS: &[ViewParam] = &[
    ViewParam {
        name: "limit",
        since: "4.0.0",
        until: None,
        applies: Applies::All,
        effective_value: None,
        does: "page size (`0` = up to MAX_PAGE_SIZE)",
        // OptionalLimitOffsetPagination.get_limit (≤ 4.5), NetBoxPagination.get_limit (4.6).
        source: "netbox/netbox/api/pagination.py",
        // Detail: only `ListModelMixin.list` paginates (DRF mixins.py L38-45).
        on_detail: OnDetail::ListOnly,
        several: Several::One,
    },
    ViewParam {
        name: "offset",
        since: "4.0.0",
        until: None,
        applies: Applies::All,
        effective_value: None,
        does: "number of objects to skip (offset pagination)",
        // DRF LimitOffsetPagination.get_offset, used by both NetBox paginators.
        source: "netbox/netbox/api/pagination.py",
        on_detail: OnDetail::ListOnly,
        several: Several::One,
    },
    ViewParam {
        name: "start",
        since: "4.6.0",
        until: None,
        applies: Applies::All,
        effective_value: None,
        does: "cursor pagination: objects with id >= start, ordered by id",
        // NetBoxPagination.start_query_param / get_start (4.6.0, netbox#21363; release notes
        // 4.6 "Cursor-based Pagination for REST API"). Absent from pagination.py ≤ 4.5.
        source: "netbox/netbox/api/pagination.py",
        on_detail: OnDetail::ListOnly,
        several: Several::One,
    },
    ViewParam {
        name: "ordering",
        since: "4.0.0",
        until: None,
        applies: Applies::All,
        effective_value: None,
        does: "sort order",
        // REST_FRAMEWORK['DEFAULT_FILTER_BACKENDS'] includes rest_framework.filters.OrderingFilter.
        source: "netbox/netbox/settings.py",
        // Detail: OrderingFilter runs in get_object (DRF generics.py L87) on one object.
        // `request.query_params.get(self.ordering_param)`, split at commas (DRF filters.py
        // L236 in 3.16.0/3.16.1, L209 in 3.17.1, L229 in 3.18.0).
        on_detail: OnDetail::NoEffect,
        several: Several::CommaList,
    },
    ViewParam {
        name: "brief",
        since: "4.0.0",
        until: None,
        applies: Applies::All,
        effective_value: None,
        does: "brief representation",
        // BaseViewSet.initialize_request: `self.brief = ... request.GET.get('brief')`.
        source: "netbox/netbox/api/viewsets/__init__.py",
        on_detail: OnDetail::Reads,
        several: Several::One,
    },
    ViewParam {
        name: "fields",
        since: "4.0.0",
        until: None,
        applies: Applies::All,
        effective_value: None,
        does: "the fields to return",
        // BaseViewSet.requested_fields (≤ 4.4) / field_kwargs (4.5+).
        source: "netbox/netbox/api/viewsets/__init__.py",
        on_detail: OnDetail::Reads,
        several: Several::CommaList,
    },
    ViewParam {
        name: "omit",
        since: "4.5.2",
        until: None,
        applies: Applies::All,
        effective_value: None,
        does: "fields to leave out of each object",
        // BaseViewSet.field_kwargs reads `omit` from 4.5.2 (netbox#21244, release notes 4.5.2);
        // viewsets/__init__.py of 4.3.3 and 4.4.10 reads only `fields` and `brief`.
        source: "netbox/netbox/api/viewsets/__init__.py",
        on_detail: OnDetail::Reads,
        several: Several::CommaList,
    },
    ViewParam {
        name: "format",
        since: "4.0.0",
        until: None,
        applies: Applies::All,
        effective_value: None,
        does: "response format (`json`, `api`)",
        // Django REST framework's URL_FORMAT_OVERRIDE (default `format`).
        source: "rest_framework/settings.py (URL_FORMAT_OVERRIDE)",
        on_detail: OnDetail::Reads,
        several: Several::One,
    },
    ViewParam {
        name: "export",
        since: "4.0.0",
        until: None,
        applies: Applies::All,
        effective_value: None,
        does: "renders the named export template over the filtered objects (404 when no template has that name)",
        // ExportTemplatesMixin.list, part of NetBoxModelViewSet and NetBoxReadOnlyModelViewSet.
        source: "netbox/netbox/api/viewsets/mixins.py",
        // Detail: only ExportTemplatesMixin.list reads it.
        on_detail: OnDetail::ListOnly,
        several: Several::One,
    },
    ViewParam {
        name: "exclude",
        since: "4.0.0",
        until: Some(Gone {
            release: "4.7.0",
            instead: Some("omit"),
            // Release notes 4.7.0 "Breaking Changes" (netbox#21025: config context is pre-rendered
            // and always included; "the ?exclude=config_context query parameter is now silently
            // ignored"); ConfigContextQuerySetMixin (extras/api/mixins.py L31-57 of 4.7.3) reads
            // only `fields`/`omit`. Live 4.7.3: exclude=config_context → 50 of 50 carry it,
            // omit=config_context → 0 of 50 (ground truth).
            source: "release notes 4.7.0, netbox#21025",
        }),
        applies: Applies::Only(&["dcim/devices", "virtualization/virtual-machines"]),
        effective_value: Some("config_context"),
        does: "skips rendering config contexts (`exclude=config_context`)",
        // ConfigContextQuerySetMixin.get_queryset: `'config_context' in
        // request.query_params.get('exclude', [])`, mixed into DeviceViewSet
        // (dcim/api/views.py) and VirtualMachineViewSet (virtualization/api/views.py) only.
        source: "netbox/extras/api/mixins.py",
        // Detail: get_object calls get_queryset (DRF generics.py L87); `'config_context' in
        // request.query_params.get('exclude', [])` tests the one value as text.
        on_detail: OnDetail::Reads,
        several: Several::CommaList,
    },
];

/// The row for `name`, if NetBox reads it outside the filtersets in some release.
pub(crate) fn get(name: &str) -> Option<&'static ViewParam> {
    VIEW_PARAMS.iter().find(|p| p.name == name)
}

/// Names exempt from name checks: the parameters NetBox reads outside its filtersets
/// (pagination, projection, rendering: see this module) and custom fields (`cf_*`). `q` is a
/// filterset filter, checked per endpoint.
pub(crate) fn is_exempt(key: &str) -> bool {
    get(key).is_some() || key.starts_with("cf_")
}

/// A parameter NetBox reads outside its filtersets (a row here): what it does, the
/// first release that reads it (`x.y.z`) and the NetBox source that reads it. `None` for
/// filters (`q` among them) and custom fields. Whether it applies on a given release and
/// endpoint is the checker's (`ignored-parameter`).
pub(crate) fn view_parameter(key: &str) -> Option<(&'static str, &'static str, &'static str)> {
    get(key).map(|p| (p.does, p.since, p.source))
}

/// `4.10.2` > `4.9.1`.
fn version_key(v: &str) -> Vec<u32> {
    v.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

/// Checks `entry`, whose key is a row of [`VIEW_PARAMS`]: no finding where NetBox reads it,
/// `ignored-parameter` where it does not (another release, another endpoint, a value that has
/// no effect). `view` is the endpoint when known (unknown endpoints fail open). Says how the
/// parameter is read here (see [`Reading`]).
pub(crate) fn check(
    ctx: &Ctx,
    view: Option<&View>,
    p: &ViewParam,
    entry: &FilterEntry,
    out: &mut Vec<Finding>,
) -> Reading {
    let version = ctx.index.netbox_version.as_str();
    let r = ctx.pair_range(entry);
    let too_old = version_key(version) < version_key(p.since);
    let gone = p
        .until
        .filter(|g| version_key(version) >= version_key(g.release));
    let elsewhere =
        matches!((p.applies, view), (Applies::Only(keys), Some(v)) if !keys.contains(&v.key));
    if (too_old || gone.is_some() || elsewhere) && view.is_some_and(|v| v.has(p.name)) {
        return Reading::Filter;
    }
    if let Some(g) = gone {
        // `omit` beside `fields` is not read either (`view_values`): no certain `omit` then.
        let with_fields = ctx.call.filters.iter().any(|e| e.key == "fields");
        out.push(no_longer_read(version, p, &g, entry, with_fields, r));
        return Reading::Ignored;
    }
    if too_old {
        let what = match p.name {
            "start" => format!(
                "NetBox {version} does not read `start` (cursor pagination came in NetBox 4.6.0, {}): it is an unknown parameter, so the request still pages with `offset`/`limit` from the first object and every `start` returns the same first page. Page with `offset` on this release.",
                p.source
            ),
            _ => format!(
                "NetBox {version} does not read `{}` (it exists from NetBox {}, {}): the response is as without it, with every field. It filters nothing.{}",
                p.name,
                p.since,
                p.source,
                if p.name == "omit" {
                    " Name the fields you want with `fields` instead."
                } else {
                    ""
                }
            ),
        };
        out.push(finding(r, "ignored-parameter", what));
        return Reading::Ignored;
    }
    if let (Applies::Only(keys), Some(view)) = (p.applies, view) {
        if !keys.contains(&view.key) {
            let paths: Vec<String> = keys.iter().map(|k| format!("`/api/{k}/`")).collect();
            out.push(finding(
                r,
                "ignored-parameter",
                format!(
                    "`{}` is not a filter: NetBox reads it only on {} ({}; {}), and {} ignores it. It leaves no object out; to exclude objects use the `__n` lookup of a filter.",
                    p.name,
                    paths.join(" and "),
                    p.does,
                    p.source,
                    view.path()
                ),
            ));
            return Reading::Ignored;
        }
    }
    if let Some(want) = p.effective_value {
        let has = match &entry.value {
            Value::Str(s) => s.contains(want),
            Value::List(items) => items
                .iter()
                .any(|(v, _)| matches!(v, Value::Str(s) if s.contains(want))),
            _ => true,
        };
        if !has {
            out.push(finding(
                r,
                "ignored-parameter",
                format!(
                    "`{}` is not a filter: only `{}={want}` has an effect ({}; {}). NetBox leaves no object out with it; to exclude objects use the `__n` lookup of a filter.",
                    p.name, p.name, p.does, p.source
                ),
            ));
        }
    }
    if p.name == "start" {
        start_conflicts(ctx, entry, out);
    }
    Reading::Read
}

/// `ignored-parameter` for a parameter NetBox `version` no longer reads (`exclude` from 4.7.0),
/// with the parameter that does the job there as the fix: certain when it reads the same value
/// (`omit=config_context` for `exclude=config_context`) and is read beside the call's other
/// parameters (`with_fields`: not `omit`, which NetBox does not read beside `fields`).
fn no_longer_read(
    version: &str,
    p: &ViewParam,
    g: &Gone,
    entry: &FilterEntry,
    with_fields: bool,
    r: std::ops::Range<usize>,
) -> Finding {
    let effective = p.effective_value.is_none_or(|want| match &entry.value {
        Value::Str(s) => s.contains(want),
        Value::List(items) => items
            .iter()
            .any(|(v, _)| matches!(v, Value::Str(s) if s.contains(want))),
        _ => false,
    });
    let instead = g.instead.filter(|_| effective);
    // Only the value NetBox read keeps its meaning under the new key (`exclude=config_context,x`
    // never left `x` out; `omit` would).
    let exact = match (&entry.value, p.effective_value) {
        (Value::Str(s), Some(want)) => s == want,
        (_, None) => true,
        _ => false,
    };
    let advice = match instead {
        Some(i) => format!(
            " To leave the field out, use `{i}={}` ({}).",
            p.effective_value.unwrap_or("…"),
            get(i).map_or("", |q| q.does)
        ),
        None => String::new(),
    };
    let mut f = finding(
        r,
        "ignored-parameter",
        format!(
            "NetBox {version} no longer reads `{}` (ignored from NetBox {}, {}): the response is as without it{}. It filters nothing.{advice}",
            p.name,
            g.release,
            g.source,
            if p.name == "exclude" { ", with `config_context` in every object" } else { "" },
        ),
    );
    f.facts.cites = Some(g.source);
    match instead {
        Some(i) if exact => f.with_fix(
            format!("Replace `{}` with `{i}`", p.name),
            entry.key_range.clone(),
            i,
            !(i == "omit" && with_fields),
        ),
        _ => f,
    }
}

/// `start` with `offset` or `ordering` on 4.6+: NetBoxPagination.paginate_queryset answers
/// HTTP 400 ("'start' and 'offset' are mutually exclusive.", "Ordering cannot be specified in
/// conjunction with cursor-based pagination.").
fn start_conflicts(ctx: &Ctx, entry: &FilterEntry, out: &mut Vec<Finding>) {
    for other in ["offset", "ordering"] {
        if ctx.call.filters.iter().any(|e| e.key == other) {
            out.push(finding_sev(
                ctx.pair_range(entry),
                "invalid-value",
                Severity::Error,
                format!(
                    "`start` (cursor pagination) and `{other}` together are an HTTP 400 on NetBox {}: {}. Use one or the other.",
                    ctx.index.netbox_version,
                    if other == "offset" {
                        "\"'start' and 'offset' are mutually exclusive.\""
                    } else {
                        "\"Ordering cannot be specified in conjunction with cursor-based pagination.\""
                    }
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_unique_and_sourced() {
        let mut seen = std::collections::HashSet::new();
        for p in VIEW_PARAMS {
            assert!(seen.insert(p.name), "{}", p.name);
            assert!(!p.source.is_empty() && !p.does.is_empty());
            assert_eq!(version_key(p.since).len(), 3, "{}", p.since);
        }
        assert!(get("q").is_none(), "q is a filterset filter");
        for p in VIEW_PARAMS {
            if let Some(g) = p.until {
                assert!(version_key(g.release) > version_key(p.since), "{}", p.name);
                assert!(g.instead.is_none_or(|i| get(i).is_some()), "{}", p.name);
            }
        }
        assert!(version_key("4.5.10") > version_key("4.5.2"));
    }
}
