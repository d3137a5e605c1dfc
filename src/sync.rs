//! A mutex lock that survives a panic elsewhere: the server, the MCP server, `check --fix` and
//! live verification hold state across threads, and one panicking request must not take the
//! others down with a poisoned lock.

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, recovering the guard from poisoning (a panic while it was held): the data is
/// whatever the panicking thread left, which every caller tolerates (caches, counters, sets).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
