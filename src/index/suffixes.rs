//! Lookup suffixes (`<field>__<lookup>`): the ones NetBox's filtersets generate and the Django
//! spellings that are never a NetBox query parameter (netbox-facts.md §1.3, R4). Kept with the
//! index, below both the readers (`extract` tells a filter key from prose by its suffix) and
//! the REST rules (`rest::lookups`, the key grammar).

/// Lookups NetBox generates for some filter class (`tag__any` from 4.6).
pub(crate) const NETBOX_LOOKUPS: &[&str] = &[
    "n", "ic", "nic", "iew", "niew", "isw", "nisw", "ie", "nie", "empty", "regex", "iregex", "lt",
    "lte", "gt", "gte", "any",
];

/// Lookups that exist in Django but never as a NetBox query parameter.
pub(crate) const NEVER_LOOKUPS: &[&str] = &[
    "in",
    "isnull",
    "null",
    "icontains",
    "contains",
    "istartswith",
    "startswith",
    "iendswith",
    "endswith",
    "iexact",
    "exact",
    "range",
    "not",
    "ne",
    "neq",
    "year",
    "month",
    "day",
    "date",
];
