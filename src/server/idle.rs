//! Hands memory the allocator holds freed back to the system once the server is idle.
//!
//! mimalloc (the global allocator, `lib.rs`) keeps the empty pages of each thread in that
//! thread's heap and purges freed arena ranges only after a delay (1 s, 10 s for arenas, in
//! mimalloc v3) and only when it is called again: a server idle after its diagnostics, an
//! editor's usual state, kept 10–20 MB of freed pages resident (with `MIMALLOC_PURGE_DELAY=0`,
//! 72 → 57 MB after five releases on a 2,000-line SKILL.md). Purging at once costs every
//! analysis madvise calls (8.8 → 11.3 ms of CPU per didChange there, medians of three runs); here each analysis
//! thread returns its empty pages when its analysis is done ([`CollectOnDrop`]), and one forced
//! collection purges them when no analysis has run for [`IDLE`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long after the last analysis the freed memory is purged.
pub const IDLE: Duration = Duration::from_millis(1500);

/// Counts analyses, so that only the collection scheduled by the last one runs.
#[derive(Debug, Default)]
pub struct Idle {
    generation: Arc<AtomicU64>,
}

impl Idle {
    /// Called after each analysis (on the async runtime): schedules a forced collection
    /// [`IDLE`] from now, which runs only if no analysis followed in between.
    pub fn after_analysis(&self) {
        let generation = self.generation.clone();
        let mine = generation.fetch_add(1, Ordering::Relaxed) + 1;
        tokio::spawn(async move {
            tokio::time::sleep(IDLE).await;
            if generation.load(Ordering::Relaxed) == mine {
                // `mi_collect(true)`: this thread's empty pages, and every arena range freed
                // by any thread purged whatever its delay.
                let _ = tokio::task::spawn_blocking(|| {
                    // SAFETY: a collection may run on any thread at any time.
                    unsafe { libmimalloc_sys::mi_collect(true) }
                })
                .await;
            }
        });
    }
}

/// Declared first in an analysis task: when the task's temporaries are freed, the thread's
/// empty pages go back to mimalloc's arenas (`mi_collect(false)`: no purge, no system call), where
/// [`Idle`]'s collection purges them.
pub struct CollectOnDrop;

impl Drop for CollectOnDrop {
    fn drop(&mut self) {
        // SAFETY: a collection may run on any thread at any time.
        unsafe { libmimalloc_sys::mi_collect(false) }
    }
}
