//! Detail URLs: `/api/dcim/devices/42/?...`, `/api/dcim/devices/{id}/?...` (any id placeholder
//! [`crate::extract::text::detail_split`] reads). What NetBox's detail view does with each
//! query parameter, from the source of every shipped release (NetBox 4.3.3, 4.4.10, 4.5.10,
//! 4.6.8 at their tags; 4.7.3 from the PyPI wheel; Django REST framework 3.16.0, 3.16.1, 3.16.1,
//! 3.17.1, 3.18.0 and django-filter 25.1, 25.2, 25.2, 26.1, 26.2, the versions those releases
//! pin in `requirements.txt` / the wheel's metadata):
//!
//! - **The view parameters of the serializer and the queryset are read as on a list**:
//!   `brief` (`BaseViewSet.initialize_request`, `request.GET.get('brief')`, viewsets/__init__.py
//!   L51, L53, L54, L106, L109), `fields` (`query_params.get('fields')`, L80, L82, L81, L133,
//!   L157), `omit` from 4.5.2 (L85, L137, L161), `exclude=config_context` on devices and virtual
//!   machines up to 4.6 (`ConfigContextQuerySetMixin.get_queryset`, extras/api/mixins.py L34,
//!   L34, L38, L48; `get_object` calls `get_queryset`), `format` (DRF content negotiation).
//!   The 4.6.8 and 4.7.3 OpenAPI documents list `brief`, `fields`, `omit` (and `id`) on every
//!   `/{id}/` GET.
//! - **The paginator and the export are list-only**: `limit`, `offset`, `start` are read by
//!   `paginate_queryset`, which only `ListModelMixin.list` calls (DRF mixins.py L38–45); `export`
//!   by `ExportTemplatesMixin.list` (netbox/api/viewsets/mixins.py L42, L42, L42, L43, L403).
//!   `RetrieveModelMixin.retrieve` (DRF mixins.py L53–56) reads neither: ignored.
//! - **`ordering` has no effect**: `OrderingFilter` runs in `get_object` but orders one object.
//! - **The list's filters still apply, to the one object**: `GenericAPIView.get_object` starts
//!   with `queryset = self.filter_queryset(self.get_queryset())` (DRF generics.py L87) and looks
//!   the id up in what is left (`get_object_or_404`, L100); NetBox's `DEFAULT_FILTER_BACKENDS`
//!   are `DjangoFilterBackend` and `OrderingFilter` (settings.py L681, L721, L723, L787, L797)
//!   and no NetBox viewset overrides `get_object`'s filtering. So `?role_id=3` on
//!   `/api/dcim/devices/42/` answers device 42 when its role is 3 and HTTP 404 when not; an
//!   invalid value is an HTTP 400 (`DjangoFilterBackend.filter_queryset` raises the
//!   filterset's errors, django-filter backends.py L71). A filter never selects another object.
//! - **Any other name is ignored**, as on a list (the filterset reads only its filters).
//!
//! No ground-truth row of `../shared/netbox/v*/` queries a detail URL. Checked live on the
//! 4.7.3 lab (`../shared/lab/build-pypi.sh`, demo data, device 27 of role 5): `?fields=id,name`
//! answers the two fields; `?embed=interfaces&limit=1` the whole device (52 fields, both
//! ignored); `?role_id=5` 200, `?role_id=1` … `4` 404, `?role_id=99999` and `?status=Active`
//! 400 (the filterset refuses the value); `?ordering=name` 200, the device.

use super::endpoint::View;
use super::view_params::{self, OnDetail, Reading};
use super::{finding, Ctx};
use crate::extract::FilterEntry;
use crate::finding::Finding;

/// A detail URL's target: the list path and the id as written.
pub(crate) struct Detail<'a> {
    /// The path as written (`/api/dcim/devices/42/`), for messages.
    pub path: &'a str,
    /// The list path (`/api/dcim/devices/`).
    pub list: &'a str,
}

/// The detail target of `ctx`'s call, when it is a URL to one object.
pub(crate) fn of<'a>(ctx: &Ctx<'a>) -> Option<Detail<'a>> {
    if ctx.call.form != crate::extract::CallForm::Url {
        return None;
    }
    let (t, _) = ctx.call.target.as_ref()?;
    let (list, _) = crate::extract::text::detail_split(t)?;
    Some(Detail {
        path: t.as_str(),
        list: &list[list.find("/api/").unwrap_or(0)..],
    })
}

/// Checks `entry` of a detail URL. Returns true when done; false for a filter of the list
/// endpoint (after its `detail-filter` finding), whose value the caller checks as a filter's:
/// NetBox validates it too (an HTTP 400 for a bad one).
pub(crate) fn check(
    ctx: &Ctx,
    view: Option<&View>,
    detail: &Detail,
    entry: &FilterEntry,
    out: &mut Vec<Finding>,
) -> bool {
    let key = entry.key.as_str();
    if let Some(p) = view_params::get(key) {
        match p.on_detail {
            OnDetail::Reads => match view_params::check(ctx, view, p, entry, out) {
                Reading::Read => super::view_values::check(ctx, view, p, entry, out),
                Reading::Ignored => {}
                // A row that does not apply here but names a filter of the list (no such row
                // today): a filter.
                Reading::Filter => return filter(view, detail, entry, out),
            },
            OnDetail::ListOnly | OnDetail::NoEffect => {
                out.push(list_only(ctx, p, detail, entry));
            }
        }
        return true;
    }
    if key.is_empty() || key.starts_with("cf_") {
        // A custom field filter applies like any filter when the field exists; without the
        // instance's custom fields, nothing is known.
        return true;
    }
    let Some(view) = view else {
        return true;
    };
    if view.has(key) {
        return filter(Some(view), detail, entry, out);
    }
    out.push(unknown(view, detail, entry));
    true
}

/// `detail-filter`: a filter of the list on a detail URL. Returns false (its value is checked
/// as a filter's).
fn filter(
    view: Option<&View>,
    detail: &Detail,
    entry: &FilterEntry,
    out: &mut Vec<Finding>,
) -> bool {
    let Some(view) = view else {
        return true;
    };
    let key = &entry.key;
    out.push(finding(
        entry.key_range.start.min(entry.value_range.start)..entry.key_range.end.max(entry.value_range.end),
        "detail-filter",
        format!(
            "`{key}` filters the list {}; on the detail URL {} NetBox {} still applies it, to the one object (Django REST framework's `get_object` filters the queryset before it looks the id up): the answer is that object when it matches and HTTP 404 when it does not, never another object. To read the object leave `{key}` out; to filter, query the list.",
            view.path(),
            detail.path,
            view.version(),
        ),
    ));
    false
}

/// `ignored-parameter`: a list-only view parameter (or `ordering`) on a detail URL.
fn list_only(
    ctx: &Ctx,
    p: &view_params::ViewParam,
    detail: &Detail,
    entry: &FilterEntry,
) -> Finding {
    let what = match p.on_detail {
        OnDetail::NoEffect => format!(
            "`{}` ({}) has no effect on the detail URL {}: it answers one object.",
            p.name, p.does, detail.path
        ),
        _ => format!(
            "`{}` ({}) is read only by the list {}; the detail URL {} answers one object and NetBox {} ignores it ({}).",
            p.name,
            p.does,
            detail.list,
            detail.path,
            ctx.index.netbox_version,
            if p.name == "export" {
                "`ExportTemplatesMixin.list`"
            } else {
                "the paginator runs only in `ListModelMixin.list`"
            }
        ),
    };
    finding(ctx.pair_range(entry), "ignored-parameter", what)
}

/// `ignored-parameter`: a name neither a view parameter nor a filter of the list.
fn unknown(view: &View, detail: &Detail, entry: &FilterEntry) -> Finding {
    let key = &entry.key;
    let readable: Vec<&str> = view_params::VIEW_PARAMS
        .iter()
        .filter(|p| p.on_detail == OnDetail::Reads)
        .map(|p| p.name)
        .collect();
    let lower = key.to_ascii_lowercase();
    let near: Vec<&str> = readable
        .iter()
        .copied()
        .filter(|n| super::suggest::jaro_winkler_from(&lower, n, 0.84) >= 0.85)
        .collect();
    let mut msg = format!(
        "NetBox {} ignores `{key}` on the detail URL {}: it is no view parameter and no filter of {}, so the object comes back as without it. A detail view reads `brief`, `fields`, `omit` (4.5.2+) and `format`, and applies the list's filters to the one object.",
        view.version(),
        detail.path,
        view.path(),
    );
    if let [one] = near.as_slice() {
        msg.push_str(&format!(" Did you mean `{one}`?"));
    } else if let Some(filter) = super::suggest::suggest(view, key).names.first() {
        // The list's filter of that name does not make it a selector here (see the module).
        msg.push_str(&format!(
            " On the list, `{filter}` would filter by it; on a detail URL a filter selects nothing, it only turns a mismatch into HTTP 404."
        ));
    }
    let mut f = finding(
        entry.key_range.start.min(entry.value_range.start)
            ..entry.key_range.end.max(entry.value_range.end),
        "ignored-parameter",
        msg,
    );
    if let [one] = near.as_slice() {
        f = f.with_fix(
            format!("Replace `{key}` with `{one}`"),
            entry.key_range.clone(),
            *one,
            false,
        );
    }
    f
}
