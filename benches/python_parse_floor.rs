//! The floor under `check` on a Python file (issue 36): what the project's pinned parser alone
//! costs in a fresh process on the same file — read the file, ruff_python_parser 0.0.10's
//! `parse_unchecked_source` (the call `extract::parse::python` makes), keep the tree without
//! its tokens (`into_syntax`, as `extract::python::extract_calls` does), drop it, exit. The
//! allocator is the crate's (mimalloc, linked through `netbox_lsp`), so the tree's memory and
//! its page faults are those of a `check` run.
//!
//! `scripts/bench-python-calls.sh` runs this binary beside `check` in the same rounds and
//! times both the same way (user + sys CPU from `wait4`), so "our own work" is `check` minus
//! this floor, measured under the same load. Prints the number of top-level statements (so the
//! parse cannot be optimised away and a wrong input shows).
//!
//! Usage: `python_parse_floor FILE.py` (exit 2 on a usage or read error).

// The crate is linked for its `#[global_allocator]` only.
extern crate netbox_lsp;

use ruff_python_ast::PySourceType;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: python_parse_floor FILE.py");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("python_parse_floor: {path}: {e}");
            std::process::exit(2);
        }
    };
    let parsed = ruff_python_parser::parse_unchecked_source(&text, PySourceType::Python);
    let module = parsed.into_syntax();
    let statements = std::hint::black_box(&module).body.len();
    drop(module);
    println!("{statements}");
}
