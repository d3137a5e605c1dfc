//! String helpers the name and value rules share: comma-separated parts and NetBox's slugify.

use crate::extract::Value;

/// The parts of a comma-separated string value (`"21,7"` → `21`, `7`); `None` otherwise.
pub(crate) fn comma_parts(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Str(s) => Some(
            s.split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect(),
        ),
        Value::Int(i) => Some(vec![i.to_string()]),
        _ => None,
    }
}

/// NetBox's slugify: lower case, runs of other characters → `-`.
pub(crate) fn slugify(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}
