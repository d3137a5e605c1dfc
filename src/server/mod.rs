//! The language server over stdio (tower-lsp-server). The only module that knows LSP types.
//! (Being written.)

/// Serves LSP on stdin/stdout until the client exits; returns the exit code.
pub fn run_stdio() -> i32 {
    0
}
