//! Template expressions in GraphQL text: `{{ dev_id }}`, `{{ item.name | lower }}` (Jinja in
//! Ansible YAML, `.j2` templates and the prompts written with them). `{{` is never GraphQL
//! outside a string (a selection set or an object value opens with a name), so each one is a
//! typed hole: the argument or input field around it is checked, its value is not.
//!
//! A hole where a value stands (after `:`, after `=`, inside a list) is written as a variable
//! of the same length (`$__________`), which every input type accepts; the findings it causes
//! (the variable is not declared) and any finding inside a hole that sits in a GraphQL string
//! (`name: {exact: "{{ host }}"}`) are dropped. A hole anywhere else (a field name, an
//! argument name) means the template writes the document's shape: nothing is checked.

use std::ops::Range;

/// The holes of a text.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Holes {
    /// The text with every value hole written as a variable (`None`: no value hole).
    pub blanked: Option<String>,
    /// Every hole's byte range (in value positions and inside strings).
    pub ranges: Vec<Range<usize>>,
    /// A hole stands where no value can: the document is not checked.
    pub shapes_document: bool,
}

/// Longest template expression read as one hole (bytes, braces included).
const MAX_HOLE: usize = 256;

/// The template holes of `text` (see the module docs).
pub fn find(text: &str) -> Holes {
    let mut holes = Holes::default();
    if !text.contains("{{") {
        return holes;
    }
    let b = text.as_bytes();
    // Brackets outside strings, to tell a list (every position a value) from the rest.
    let mut stack: Vec<u8> = Vec::new();
    let mut prev = 0u8;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                let block = b[i..].starts_with(b"\"\"\"");
                let open = if block { 3 } else { 1 };
                let mut j = i + open;
                while j < b.len() {
                    if block && b[j..].starts_with(b"\"\"\"") {
                        break;
                    }
                    if !block && (b[j] == b'"' || b[j] == b'\n') {
                        break;
                    }
                    if b[j] == b'\\' {
                        j += 1;
                    } else if b[j..].starts_with(b"{{") {
                        if let Some(end) = hole_end(b, j) {
                            holes.ranges.push(j..end);
                            j = end;
                            continue;
                        }
                    }
                    j += 1;
                }
                i = (j + open).min(b.len());
                prev = b'"';
                continue;
            }
            b'{' if b.get(i + 1) == Some(&b'{') => {
                if let Some(end) = hole_end(b, i) {
                    let value = stack.last() == Some(&b'[') || matches!(prev, b':' | b'=');
                    if !value {
                        holes.shapes_document = true;
                        return holes;
                    }
                    let o = holes.blanked.get_or_insert_with(|| text.to_string());
                    o.replace_range(i..end, &format!("${}", "_".repeat(end - i - 1)));
                    holes.ranges.push(i..end);
                    i = end;
                    prev = b'$';
                    continue;
                }
                stack.push(b'{');
            }
            c @ (b'{' | b'[' | b'(') => stack.push(c),
            b'}' | b']' | b')' => {
                stack.pop();
            }
            _ => {}
        }
        if !b[i].is_ascii_whitespace() && b[i] != b',' {
            prev = b[i];
        }
        i += 1;
    }
    holes
}

/// End (after `}}`) of the template expression opening at `at`, on one line and at most
/// [`MAX_HOLE`] bytes long.
fn hole_end(b: &[u8], at: usize) -> Option<usize> {
    let rest = b.get(at + 2..)?;
    let close = rest
        .windows(2)
        .take(MAX_HOLE)
        .position(|w| w == b"}}" || w[0] == b'\n')?;
    (rest.get(close..close + 2) == Some(b"}}".as_slice())).then_some(at + 2 + close + 2)
}

/// True when finding range `r` touches hole `h` (an empty range at its edge counts).
pub fn touches(r: &Range<usize>, h: &Range<usize>) -> bool {
    r.start < h.end && h.start < r.end || (r.is_empty() && h.start <= r.start && r.start <= h.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_holes_become_variables() {
        let t = "{ device(id: {{ dev_id }}) { name } x: interface_list(filters: {device_id: [1, {{ d }}]}) { id } }";
        let h = find(t);
        assert!(!h.shapes_document);
        let blanked = h.blanked.unwrap();
        assert_eq!(blanked.len(), t.len());
        assert!(blanked.contains("device(id: $___________)"), "{blanked}");
        assert!(blanked.contains("[1, $______]"), "{blanked}");
        assert_eq!(h.ranges.len(), 2);
        assert_eq!(&t[h.ranges[0].clone()], "{{ dev_id }}");
    }

    #[test]
    fn holes_in_strings_are_kept_and_shape_holes_stop_the_check() {
        let t = "{ device_list(filters: {name: {exact: \"{{ host }}\"}}) { name } }";
        let h = find(t);
        assert_eq!(h.blanked, None);
        assert_eq!(&t[h.ranges[0].clone()], "{{ host }}");
        assert!(find("{ {{ kind }}_list { id } }").shapes_document);
        assert!(find("{ device_list({{ args }}) { id } }").shapes_document);
        assert_eq!(find("{ device_list { id } }"), Holes::default());
        // A comment's braces are no hole; an unclosed one is none either.
        assert_eq!(find("# {{ x }}\n{ a }").ranges, Vec::<Range<usize>>::new());
        assert!(!find("{ a(id: {{ x ) }").shapes_document);
    }
}
