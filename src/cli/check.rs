//! `netbox-lsp check`. (Being written.)

use super::CheckArgs;

/// Runs `check`; returns the exit code.
pub fn run(args: &CheckArgs) -> i32 {
    let _ = args;
    0
}
