//! An unknown field with the fixes that keep what it was asked: the nearest names whose
//! arguments take the written ones, and for a plural root field (`devices(name: "x")`) the
//! list field of the same objects with the arguments moved into its `filters:`
//! (`device_list(filters: {name: {exact: "x"}})`), never the single-object field `device`,
//! which takes only `id`. `check` re-validates each fix on the field's head and checks the
//! selection below it against the type the fix names.

use super::lookups::{literal_fits, wrapped};
use super::{field_names, span, Ctx, RawFix, Unknown};
use crate::graphql::suggest::did_you_mean;
use apollo_compiler::ast;
use apollo_compiler::schema::ExtendedType;
use apollo_compiler::Node;
use std::ops::Range;

impl Ctx<'_> {
    /// Records the unknown field `f` (its name at `name`) of `parent` with its candidates and
    /// the fixes that keep its arguments.
    pub(super) fn unknown_field(
        &mut self,
        parent: &str,
        f: &Node<ast::Field>,
        name: Range<usize>,
        root: bool,
    ) {
        let schema = &self.nb.schema;
        let written = f.name.as_str();
        let mut candidates = did_you_mean(written, field_names(schema, parent));
        let list = root
            .then(|| list_field_for(schema, parent, written))
            .flatten();
        if let Some(l) = &list {
            candidates.retain(|c| c != l);
            candidates.insert(0, l.clone());
        }
        let head_end = self.head_end(f, &name);
        let field_end = span(f.location()).map_or(head_end, |r| r.end.max(head_end));
        let mut fixes = Vec::new();
        let mut types = Vec::new();
        for c in &candidates {
            let def = schema.type_field(parent, c).ok();
            types.push(def.map(|d| d.ty.to_string()).unwrap_or_default());
            let mut fix = self.field_fix(parent, f, &name, c);
            if let Some(fix) = fix.as_mut() {
                // The plural's list field is the field meant, by NetBox's naming.
                fix.certain = list.as_deref() == Some(c.as_str());
            }
            fixes.push(fix);
        }
        let note = match (&list, fixes.first()) {
            (Some(l), Some(Some(fix))) => {
                let form = fix.title.trim_start_matches("Replace with ");
                let single = candidates
                    .iter()
                    .skip(1)
                    .find(|c| fixes_for(&candidates, &fixes, c).is_none())
                    .map(|c| format!(" (`{c}` is one object by `id`)"))
                    .unwrap_or_default();
                Some(format!(
                    ". The list is `{l}`, which takes its filters in `filters:`: write {form}{single}"
                ))
            }
            _ => None,
        };
        let forms_note = self.related_id_note(parent, written);
        self.out.unknowns.push(Unknown {
            range: name,
            value_range: None,
            candidates,
            value_span: None,
            fixes,
            types,
            value_kind: None,
            field: Some((
                span(f.location()).map_or(head_end, |r| r.start)..head_end,
                field_end,
            )),
            note,
            forms_note,
            owner: Some(parent.to_string()),
        });
    }

    /// For `<x>_id` selected where `<x>` is a related object (`component_id` on
    /// `InventoryItemType`, the REST field's name): the selection that gives its id, `x { id }`,
    /// or in a union one fragment per type (`component { ... on InterfaceType { id } }`).
    fn related_id_note(&self, parent: &str, written: &str) -> Option<String> {
        let schema = &self.nb.schema;
        let base = written.strip_suffix("_id")?;
        let def = schema.type_field(parent, base).ok()?;
        let named = def.ty.inner_named_type().as_str();
        match schema.types.get(named)? {
            ExtendedType::Object(o) if o.fields.contains_key("id") => Some(format!(
                ". `{base}` is the related object (`{named}`): select its id inside it, `{base} {{ id }}`."
            )),
            ExtendedType::Union(u) => {
                let members: Vec<&str> = u.members.iter().map(|m| m.as_str()).collect();
                let first = members.first()?;
                Some(format!(
                    ". `{base}` is the related object, a union of {}: select its id in a fragment of each type, `{base} {{ __typename ... on {first} {{ id }} }}`.",
                    members.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
                ))
            }
            _ => None,
        }
    }

    /// The end of the field's head: after its `)` when it has arguments, else its name.
    fn head_end(&self, f: &Node<ast::Field>, name: &Range<usize>) -> usize {
        let Some(last) = f.arguments.last().and_then(|a| span(a.location())) else {
            return name.end;
        };
        let rest = self.text.get(last.end..).unwrap_or("");
        rest.find(')').map_or(last.end, |i| last.end + i + 1)
    }

    /// The fix renaming `f` to candidate `c` with its arguments kept: as they are when `c`
    /// takes them, else moved into `c`'s `filters:` (each value as the filter field's type
    /// wants it, `{exact: ..}` around a scalar). `None` when an argument has no place there.
    fn field_fix(
        &self,
        parent: &str,
        f: &Node<ast::Field>,
        name: &Range<usize>,
        c: &str,
    ) -> Option<RawFix> {
        let schema = &self.nb.schema;
        let def = schema.type_field(parent, c).ok()?;
        let rename = (name.clone(), c.to_string());
        let takes = |n: &str| def.arguments.iter().any(|a| a.name == n);
        if f.arguments.iter().all(|a| takes(a.name.as_str())) {
            return Some(RawFix {
                title: format!("Replace with `{c}`"),
                edits: vec![rename],
                certain: false,
            });
        }
        let filters = def.arguments.iter().find(|a| a.name == "filters")?;
        let fobj = schema.get_input_object(filters.ty.inner_named_type())?;
        let mut kept = Vec::new();
        let mut moved = Vec::new();
        for a in &f.arguments {
            let vr = span(a.value.location())?;
            let src = self.src(&vr);
            if takes(a.name.as_str()) {
                kept.push(format!("{}: {src}", a.name));
                continue;
            }
            let fty = &fobj.fields.get(a.name.as_str())?.ty;
            let value = if literal_fits(schema, fty, &a.value) {
                src.to_string()
            } else {
                let obj = schema.get_input_object(fty.inner_named_type())?;
                wrapped(schema, obj, &a.value, src)?
            };
            moved.push(format!("{}: {value}", a.name));
        }
        kept.push(format!("filters: {{{}}}", moved.join(", ")));
        let first = span(f.arguments.first()?.location())?;
        let last = span(f.arguments.last()?.location())?;
        let args = kept.join(", ");
        Some(RawFix {
            title: format!("Replace with `{c}({args})`"),
            edits: vec![rename, (first.start..last.end, args)],
            certain: false,
        })
    }
}

/// The fix recorded for candidate `c`.
fn fixes_for<'a>(
    candidates: &[String],
    fixes: &'a [Option<RawFix>],
    c: &str,
) -> Option<&'a RawFix> {
    candidates
        .iter()
        .position(|x| x == c)
        .and_then(|i| fixes.get(i))
        .and_then(|f| f.as_ref())
}

/// The root list field of a plural (`devices` → `device_list`, `ip_addresses` →
/// `ip_address_list`, `vlan_groups` → `vlan_group_list`, `device_bays`), if the schema has it.
fn list_field_for(schema: &apollo_compiler::Schema, parent: &str, written: &str) -> Option<String> {
    let stems = [
        written.strip_suffix("ies").map(|s| format!("{s}y")),
        written.strip_suffix("es").map(str::to_string),
        written.strip_suffix('s').map(str::to_string),
    ];
    stems
        .into_iter()
        .flatten()
        .map(|s| format!("{s}_list"))
        .find(|l| field_names(schema, parent).any(|n| n == l))
}
