//! The allocator's settings for a batch run (`check`): a short process whose memory grows with
//! its input and is given back at exit, so memory freed during the run is kept for the next
//! allocations. The server, the MCP server and the hook keep mimalloc's defaults (memory given
//! back to the system after a delay).
//!
//! Each thread's full pages are not kept (mimalloc's `page_full_retain` at -1 was tried): what
//! it saved had shrunk to 0.15 % of `check`'s instructions (242.5 M against 242.9 M for 10,000
//! calls, the same CPU time within the runs' noise), and in a process that runs `check` again
//! and again on two threads (`cli::main_from`) the pages kept held the blocks other threads had
//! freed, so memory grew by ~2.2 MB a run of 10,000 calls (~720 new page faults a run; stable
//! without it).

/// Applies the batch settings: [`keep_freed_memory`].
pub fn for_batch_run() {
    keep_freed_memory();
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
    // The length of mimalloc 3's list of options: a version whose list moved fails to build.
    const _: () = assert!(libmimalloc_sys::_mi_option_last == 47);
    // SAFETY: sets an option of the allocator this crate links; read at each purge.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, -1) };
}
