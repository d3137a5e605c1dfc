//! The functions listed in `build/symbol-order.txt` (those an editor session and a `check` run
//! execute, written by `scripts/symbol-order.sh`) lead the binary's `.text`, together, where
//! `build.rs` hands the file to the linker (x86_64 Linux with glibc and rust-lld). Fails when the
//! file no longer names the binary's functions (a Rust or dependency update changes the crate
//! hashes in symbol names), which would silently give back the server's scattered code pages
//! (issue 36: 11.4 MB of 13.3 MB of code resident after one release, against ~8 MB ordered).

use std::collections::HashMap;
use std::process::Command;

/// The binary's function symbols (`nm -S`: address, size, kind, name) with their addresses and
/// sizes in bytes.
fn text_symbols(binary: &str) -> Option<HashMap<String, (u64, u64)>> {
    let out = Command::new("nm").arg("-S").arg(binary).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    Some(
        text.lines()
            .filter_map(|line| {
                let parts: Vec<&str> = line.split_whitespace().collect();
                let [addr, size, kind, name] = parts[..] else {
                    return None;
                };
                matches!(kind, "t" | "T" | "w" | "W").then_some(())?;
                let addr = u64::from_str_radix(addr, 16).ok()?;
                let size = u64::from_str_radix(size, 16).ok()?;
                Some((name.to_string(), (addr, size)))
            })
            .collect(),
    )
}

#[test]
fn listed_functions_lead_the_code_together() {
    if !cfg!(netbox_lsp_symbol_order) {
        eprintln!(
            "symbol_order: NOT CHECKED: build.rs hands build/symbol-order.txt to the linker only \
             on x86_64 Linux with glibc and rust-lld (see build.rs), not in this build"
        );
        return;
    }
    let order = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/build/symbol-order.txt"
    ))
    .expect("build/symbol-order.txt");
    let Some(symbols) = text_symbols(env!("CARGO_BIN_EXE_netbox-lsp")) else {
        eprintln!("symbol_order: NOT CHECKED: `nm` (binutils) is not on PATH");
        return;
    };
    let listed: Vec<&str> = order.lines().filter(|l| !l.is_empty()).collect();
    let found: Vec<(u64, u64)> = listed
        .iter()
        .filter_map(|n| symbols.get(*n).copied())
        .collect();
    assert!(
        found.len() * 5 >= listed.len() * 2,
        "build/symbol-order.txt is stale: {} of its {} functions are in the binary; rerun \
         scripts/symbol-order.sh (needed after a Rust or Cargo.lock update) and commit the file",
        found.len(),
        listed.len()
    );
    // Together at the start: the bytes between the first and the last listed function are
    // mostly theirs (small functions that share a section with a listed one come along).
    let lo = found.iter().map(|(a, _)| *a).min().unwrap();
    let hi = found.iter().map(|(a, s)| a + s).max().unwrap();
    let first = symbols.values().map(|(a, _)| *a).min().unwrap();
    let listed_set: std::collections::HashSet<&str> = listed.iter().copied().collect();
    let strangers: u64 = symbols
        .iter()
        .filter(|(n, (a, _))| (lo..hi).contains(a) && !listed_set.contains(n.as_str()))
        .map(|(_, (_, s))| s)
        .sum();
    assert!(
        lo - first < 64 * 1024,
        "the listed functions start {:#x} bytes into .text, not at its start",
        lo - first
    );
    assert!(
        strangers * 10 < hi - lo,
        "{strangers} bytes of functions not in build/symbol-order.txt sit among its {} functions \
         ({} bytes): the linker did not order them (is it rust-lld?)",
        found.len(),
        hi - lo
    );
}
