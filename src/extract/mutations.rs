//! Test-only: one-byte mutations of a text, for the tests that compare a fast-path reader with
//! tree-sitter's literal tree (`json::tests`, `yaml::tests`).

/// `text` itself, then, at every `len / per`-th byte (at least every byte when `per` exceeds the
/// length): the byte deleted, doubled, and replaced by each of `replacements`. Variants that are
/// not UTF-8 are left out.
pub(crate) fn one_byte_variants(text: &str, per: usize, replacements: &[&str]) -> Vec<String> {
    let mut variants = vec![text.to_string()];
    let b = text.as_bytes();
    let step = (b.len() / per).max(1);
    for i in (0..b.len()).step_by(step) {
        let mut del = b.to_vec();
        del.remove(i);
        let mut dup = b.to_vec();
        dup.insert(i, b[i]);
        variants.extend(
            [del, dup]
                .into_iter()
                .filter_map(|v| String::from_utf8(v).ok()),
        );
        for c in replacements {
            let mut v = b.to_vec();
            v.splice(i..i + 1, c.bytes());
            variants.extend(String::from_utf8(v).ok());
        }
    }
    variants
}
