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
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// How long after the last analysis the freed memory is purged.
pub const IDLE: Duration = Duration::from_millis(1500);

/// Counts analyses, so that only the collection scheduled by the last one runs.
#[derive(Debug, Default)]
pub struct Idle {
    generation: Arc<AtomicU64>,
}

impl Idle {
    /// Called after each analysis (on the async runtime): schedules `release` (dropping what
    /// is no longer in use) and a forced collection [`IDLE`] from now, which run only if no
    /// analysis followed in between.
    pub fn after_analysis(&self, release: impl FnOnce() + Send + 'static) {
        let generation = self.generation.clone();
        let mine = generation.fetch_add(1, Ordering::Relaxed) + 1;
        tokio::spawn(async move {
            tokio::time::sleep(IDLE).await;
            if generation.load(Ordering::Relaxed) == mine {
                let _ = tokio::task::spawn_blocking(release).await;
                let _ = tokio::task::spawn_blocking(collect_every_rayon_thread).await;
                collect_every_blocking_thread().await;
                collect_every_worker().await;
            }
        });
    }
}

/// A forced collection on each thread of rayon's global pool, where an analysis checks its
/// sites in parallel (`analysis::check`): those threads decode endpoints and free the check's
/// temporaries, and hold the freed pages until they collect (with every other thread collected
/// but not these, 21.5 MB of anonymous memory stayed after one release on the 2,000-line
/// SKILL.md, against 18.3 MB with `MIMALLOC_PURGE_DELAY=0`). Waits until all have collected.
fn collect_every_rayon_thread() {
    // SAFETY: a collection may run on any thread at any time.
    rayon::broadcast(|_| unsafe { libmimalloc_sys::mi_collect(true) });
}

/// Most threads of the runtime's blocking pool (`server::run_stdio`; one of them reads stdin).
pub const BLOCKING_THREADS: usize = 4;

/// A forced collection (`mi_collect(true)`: the thread's empty pages, full ones too, and every
/// freed arena range purged whatever its delay) on each thread of the blocking pool. A page
/// freed by another thread than the one that allocated it (a dropped release's index, decoded
/// by the analysis threads) goes back only when its owner collects: one forced collection on
/// one thread left 59–64 MB after five releases on the 2,000-line SKILL.md. Each task waits
/// (at most [`MEET`]) until all have collected, so that no thread runs two of them; the
/// stdin reader's thread never takes one, and the last task waits for a free thread.
async fn collect_every_blocking_thread() {
    let met = Arc::new((Mutex::new(0usize), Condvar::new()));
    let tasks: Vec<_> = (0..BLOCKING_THREADS)
        .map(|_| {
            let met = met.clone();
            tokio::task::spawn_blocking(move || collect_and_meet(&met, BLOCKING_THREADS))
        })
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}

/// Threads of the runtime's async workers (`server::run_stdio`).
pub const WORKER_THREADS: usize = 2;

/// [`collect_every_blocking_thread`] on the async workers (requests such as completion decode
/// an endpoint's parameters there): each task blocks its worker at most [`MEET`], once per
/// idle period, so that the other worker takes the other task.
async fn collect_every_worker() {
    let met = Arc::new((Mutex::new(0usize), Condvar::new()));
    let tasks: Vec<_> = (0..WORKER_THREADS)
        .map(|_| {
            let met = met.clone();
            tokio::spawn(async move { collect_and_meet(&met, WORKER_THREADS) })
        })
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}

/// A forced collection on this thread, then a wait (at most [`MEET`]) until `of` threads have
/// collected.
fn collect_and_meet(met: &(Mutex<usize>, Condvar), of: usize) {
    // SAFETY: a collection may run on any thread at any time.
    unsafe { libmimalloc_sys::mi_collect(true) }
    let (count, all) = met;
    let mut n = crate::sync::lock(count);
    *n += 1;
    all.notify_all();
    let _ = all.wait_timeout_while(n, MEET, |n| *n < of);
}

/// How long each collecting task waits for the others.
const MEET: Duration = Duration::from_millis(50);

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
