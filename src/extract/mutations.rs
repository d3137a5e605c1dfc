//! Test-only: fixture texts and one-byte mutations of them, for the tests that compare a fast-path reader with
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

/// Texts under examples/ and tests/fixtures/: whole files whose extension is in `exts` (below
/// 256 KiB), and the bodies of the Markdown units `unit` accepts.
pub(crate) fn fixture_texts(
    exts: &[&str],
    unit: impl Fn(&super::markdown::Unit) -> bool,
) -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut dirs = vec![root.join("examples"), root.join("tests/fixtures")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("fixture folder").flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue;
            };
            match p.extension().and_then(|x| x.to_str()) {
                Some("md") => out.extend(
                    super::markdown::units(&text)
                        .into_iter()
                        .filter(|u| unit(u))
                        .map(|u| u.body),
                ),
                Some(x) if exts.contains(&x) && text.len() < 256 * 1024 => out.push(text),
                _ => {}
            }
        }
    }
    out
}
