//! Linux only: what lets `check --fix` see an edit that starts while it replaces a file
//! ([`super::fix::write_if_unchanged`]).
//!
//! A rename alone leaves a window: a program that opened the old file for writing just before
//! the rename writes into a file no name points to any more, and the edit is lost. Two kernel
//! features close it:
//! - a read lease (`fcntl(F_SETLEASE, F_RDLCK)`, fcntl(2)) on the old file: another program's
//!   open of it for writing (or truncating) waits in the kernel until the lease is let go (at
//!   most `/proc/sys/fs/lease-break-time`, 45 s by default) and marks the lease as broken;
//!   taking the lease fails while some program has the file open for writing;
//! - swapping two names in one step (`renameat2(RENAME_EXCHANGE)`, rename(2), Linux 3.15),
//!   so the old file keeps a name until the lease says nobody waits to write it, and can be
//!   swapped back when somebody does.
//!
//! A lease break also sends SIGIO to the lease holder, whose default action ends the process:
//! [`take`] catches SIGIO first (signal-hook; the lease state, not the signal, is what is read).

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

/// The outcome of [`take`].
pub enum Take<'a> {
    /// The lease is held until the value is dropped.
    Held(Lease<'a>),
    /// Another program has the file open for writing (`EAGAIN`).
    Busy,
    /// The file system or the file does not allow it (e.g. NFS, another user's file without
    /// `CAP_LEASE`, leases turned off): the caller goes on without.
    Unsupported,
}

/// A read lease on an open file, let go on drop.
pub struct Lease<'a> {
    file: &'a File,
}

/// Takes a read lease on `file`, which must be open read-only (fcntl(2): a read lease needs an
/// `O_RDONLY` descriptor). The caller holds no other descriptor of the file open for writing:
/// that would make the lease fail as [`Take::Busy`].
pub fn take(file: &File) -> Take<'_> {
    if !catch_sigio() {
        return Take::Unsupported;
    }
    // SAFETY: fcntl on a descriptor this `File` owns, with an integer argument; no memory is
    // passed.
    let r = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLEASE, libc::F_RDLCK) };
    if r == 0 {
        return Take::Held(Lease { file });
    }
    match io::Error::last_os_error().raw_os_error() {
        Some(libc::EAGAIN) => Take::Busy,
        _ => Take::Unsupported,
    }
}

impl Lease<'_> {
    /// True once another program has asked to open the file for writing (its open waits until
    /// this lease is dropped): `F_GETLEASE` then gives the type the lease is being broken to
    /// (`F_UNLCK`), not `F_RDLCK`. An error counts as broken.
    pub fn broken(&self) -> bool {
        // SAFETY: as in `take`.
        let r = unsafe { libc::fcntl(self.file.as_raw_fd(), libc::F_GETLEASE) };
        r != libc::F_RDLCK
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        // SAFETY: as in `take`. A failure leaves the lease to end with the descriptor.
        unsafe { libc::fcntl(self.file.as_raw_fd(), libc::F_SETLEASE, libc::F_UNLCK) };
    }
}

/// SIGIO is caught (once per process) so that a lease break does not end the process. False
/// when the handler cannot be installed.
fn catch_sigio() -> bool {
    static CAUGHT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CAUGHT.get_or_init(|| {
        let seen = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        signal_hook::flag::register(signal_hook::consts::SIGIO, seen).is_ok()
    })
}

/// Swaps the names `a` and `b` (both must exist, in the same file system) in one step.
/// `Err` with `EINVAL` or `ENOSYS` when the kernel or file system cannot.
pub fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    rustix::fs::renameat_with(
        rustix::fs::CWD,
        a,
        rustix::fs::CWD,
        b,
        rustix::fs::RenameFlags::EXCHANGE,
    )
    .map_err(io::Error::from)
}

/// True for an [`exchange`] error that means "not here" rather than a failure.
pub fn exchange_unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP)
    )
}
