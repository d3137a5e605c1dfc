//! The allocator's settings for a batch run (`check`): a short process whose memory grows with
//! its input and is given back at exit, so memory freed during the run is kept for the next
//! allocations and each thread keeps the pages it filled. The server, the MCP server and the
//! hook keep mimalloc's defaults (memory given back to the system after a delay).

/// Applies the batch settings: [`keep_freed_memory`] and [`keep_full_pages`]. Call before the
/// check's threads start (the full-page setting is read when a thread's heap is made).
pub fn for_batch_run() {
    keep_freed_memory();
    keep_full_pages();
}

/// mimalloc's `purge_delay` (option 15 of mimalloc 3) set to -1: memory freed during the run is
/// never given back to the system before exit. By default it is, after a delay
/// (`MADV_DONTNEED`), and the next allocation there faults again: the parse tree of a large
/// file is freed before its findings are made, and they would reuse its memory. Measured on
/// 100,000 tool calls in a `.py` file (medians of 6–8 runs, same RSS): on a loaded machine
/// (load 6–8, the run slowed past the delay) 42,593–43,466 → 36,570–36,632 page faults and
/// system time 0.185 → 0.145 s; on a quiet one the run ends first and both make 36,600.
/// (Transparent huge pages, the other way to fewer
/// faults, were measured too and left off: zeroing 2 MiB pages of memory the virtual machine
/// had not touched cost 0.08–0.35 s per 200 MB, against 0.15–0.19 s for 4 KiB faults.)
fn keep_freed_memory() {
    /// `mi_option_purge_delay` in mimalloc 3's `mimalloc.h`.
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // SAFETY: sets an option of the allocator this crate links; read at each purge.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, -1) };
}

/// mimalloc's `page_full_retain` (its option 36 in the version this crate builds) set to -1
/// for the threads started after this call (the pool's): a thread keeps its full pages
/// instead of abandoning them to the other threads. With the default (2), the blocks a check
/// allocated and still held (its findings' facts, strings and vectors) sat in abandoned pages,
/// and each was freed on the slow path of a free from another thread (~150 instructions a
/// free: 77 M instructions of the facts alone for the 143,939 findings of 100,000 tool
/// calls, 24 M after). Measured again with the JSON streamed (s50): still 5.0 M fewer
/// instructions of 2,407 M for 100,000 calls (0.45 M at 10,000), the same page faults (9,114
/// and 9,020 median of 20 at 10,000 calls).
fn keep_full_pages() {
    /// `mi_option_page_full_retain` in mimalloc 3's `mimalloc.h`.
    const PAGE_FULL_RETAIN: libmimalloc_sys::mi_option_t = 36;
    // mimalloc 3's list of options (mimalloc 2 has 38, and another option 36).
    const _: () = assert!(libmimalloc_sys::_mi_option_last == 47);
    // SAFETY: sets an option of the allocator this crate links; read by each thread's heap
    // when it is made.
    unsafe { libmimalloc_sys::mi_option_set(PAGE_FULL_RETAIN, -1) };
}
