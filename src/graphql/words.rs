//! NetBox's words for apollo-compiler's validation diagnostics: every diagnostic the checker
//! reports gets what it means for a NetBox document, so that no message is the validator's text
//! alone (issue 31 §1). The rules and "did you mean" say more where they know more; this is
//! what is said when they say nothing. Facts: NetBox's GraphQL schema of each shipped release
//! (`index/netbox-*.schema.graphql.gz`: list fields take `filters:` and `pagination:`, single
//! objects `id:`; choice filters are enums `STATUS_ACTIVE`; lookups are input objects) and its
//! server (graphql-core's validation rules, the same as the spec's).

/// The NetBox context said after apollo-compiler's diagnostic `name` (its
/// `unstable_error_name`) on NetBox `version` (empty: a schema of unknown release). Starts
/// with ". ".
pub fn context(name: Option<&str>, version: &str) -> String {
    let on = if version.is_empty() {
        "NetBox".to_string()
    } else {
        format!("NetBox {version}")
    };
    let s = match name.unwrap_or("") {
        "UndefinedField" => format!(
            "{on}'s object types carry the model's fields as the REST API shows them; a related object is selected by its field with a selection (`site {{ name }}`), its components by their plural (`interfaces {{ name }}`)"
        ),
        "UndefinedArgument" => format!(
            "On {on} a list field takes only `filters:` and `pagination:`, a single object only `id:`; every filter goes inside `filters:`"
        ),
        "UndefinedInputValue" => format!(
            "{on} has no such filter on this type: the filters are the fields of its filter input (completion lists them), and a REST filter may have no GraphQL twin"
        ),
        "UndefinedEnumValue" => format!(
            "{on}'s choice enums name each choice value in capitals with the filter's prefix (`STATUS_ACTIVE`)"
        ),
        "UnsupportedValueType" | "IntCoercionError" | "FloatCoercionError" => format!(
            "{on}'s filters take lookup objects (`{{exact: ...}}`, `{{i_contains: ...}}`), choices as enum members (`STATUS_ACTIVE`) and related objects as filter objects (`site: {{slug: {{exact: \"fra1\"}}}}`)"
        ),
        "RequiredArgument" => format!(
            "On {on} a single-object field needs `id:` (`device(id: 7)`); to find objects by another field use its `_list` field with `filters:`"
        ),
        "RequiredField" => format!(
            "{on}'s schema requires this member of the input object; write it, or the lookup that holds it"
        ),
        "UndefinedVariable" | "UnusedVariable" | "UniqueVariable" | "DisallowedVariableUsage"
        | "VariableInputType" => format!(
            "{on} refuses the document: declare each variable once, use it, and give it the type the argument has in NetBox's schema (`$id: ID!` for `device(id:)`, `$f: DeviceFilter` for `filters:`)"
        ),
        "UndefinedFragment" | "UnusedFragment" | "RecursiveFragmentDefinition"
        | "InvalidFragmentSpread" | "InvalidFragmentTarget" | "FragmentNameCollision"
        | "UndefinedTypeInNamedFragmentTypeCondition"
        | "UndefinedTypeInInlineFragmentTypeCondition" => format!(
            "{on}'s GraphQL endpoint refuses a document whose fragments are undefined, unused, recursive, repeated or on a type its schema lacks (NetBox's types end in `Type`: `DeviceType`, `InterfaceType`)"
        ),
        "UndefinedDirective" | "UnsupportedLocation" | "UniqueDirective" => format!(
            "{on}'s schema declares only the standard directives (`@include`, `@skip`)"
        ),
        "MissingSubselection" => format!(
            "On {on} an object field needs a selection of its fields, e.g. `site {{ id name }}`"
        ),
        "SubselectionOnScalarType" | "SubselectionOnEnumType" => format!(
            "On {on} this field is a value (a scalar or a choice enum), selected without `{{ }}`"
        ),
        "ConflictingFieldName" | "ConflictingFieldType" | "ConflictingFieldArgument" => format!(
            "{on} refuses two selections of one name with different arguments or types: give one an alias (`leafs: device_list(...)`)"
        ),
        "UniqueArgument" | "UniqueInputValue" => format!(
            "{on} refuses a repeated argument or filter; several conditions on one filter go in `AND: {{...}}`"
        ),
        "AmbiguousAnonymousOperation" | "OperationNameCollision" => format!(
            "{on}'s endpoint runs one operation per request: name each (`query Leafs {{ ... }}`) and send its name as `operationName`"
        ),
        "UndefinedRootOperation" => format!(
            "{on}'s GraphQL API is read-only: it has queries only"
        ),
        _ => format!("{on}'s GraphQL endpoint runs the same validation and refuses the document"),
    };
    format!(". {s}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_names_netbox() {
        for n in [
            Some("UndefinedField"),
            Some("UndefinedArgument"),
            Some("SomethingNew"),
            None,
        ] {
            let c = context(n, "4.7.3");
            assert!(c.starts_with(". ") && c.contains("NetBox 4.7.3"), "{c}");
        }
        assert!(context(None, "").contains("NetBox"));
    }
}
