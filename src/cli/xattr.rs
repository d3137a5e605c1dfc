//! Linux only: the extended attributes of a file `check --fix` replaces are given to the fixed
//! file (listxattr(2), getxattr(2), setxattr(2) on the open files, through rustix), so a POSIX
//! ACL (`system.posix_acl_access`), an SELinux label (`security.selinux`), a file capability
//! or a `user.*` attribute is not dropped by the rename (issue 34).

use std::fs::File;

/// Gives `to` every extended attribute of `from` with the same value. `Err` with the name of
/// an attribute that could not be given (the caller then leaves the file alone); a file
/// system without extended attributes has none to give.
pub fn copy(from: &File, to: &File) -> Result<(), String> {
    let names = match list(from) {
        Ok(names) => names,
        Err(e) if unsupported(e) => return Ok(()),
        Err(e) => return Err(format!("(the list of attributes: {e})")),
    };
    for name in names.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let shown = String::from_utf8_lossy(name).into_owned();
        let Ok(name) = std::ffi::CString::new(name) else {
            return Err(shown);
        };
        let value = get(from, &name).map_err(|_| shown.clone())?;
        // A new file may already carry the same value (the folder's default SELinux label or
        // ACL): setting it again could need a privilege for nothing.
        if get(to, &name).is_ok_and(|v| v == value) {
            continue;
        }
        rustix::fs::fsetxattr(to, name.as_c_str(), &value, rustix::fs::XattrFlags::empty())
            .map_err(|_| shown)?;
    }
    Ok(())
}

fn unsupported(e: rustix::io::Errno) -> bool {
    e == rustix::io::Errno::NOTSUP || e == rustix::io::Errno::NOSYS
}

/// The NUL-separated names of `f`'s attributes (sized by a query, retried if they grew).
fn list(f: &File) -> rustix::io::Result<Vec<u8>> {
    for _ in 0..4 {
        let len = rustix::fs::flistxattr_query(f)?;
        if len == 0 {
            return Ok(Vec::new());
        }
        let mut buf = vec![0u8; len];
        match rustix::fs::flistxattr(f, &mut buf[..]) {
            Ok(n) => {
                buf.truncate(n);
                return Ok(buf);
            }
            Err(rustix::io::Errno::RANGE) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(rustix::io::Errno::RANGE)
}

/// The value of attribute `name` of `f`.
fn get(f: &File, name: &std::ffi::CStr) -> rustix::io::Result<Vec<u8>> {
    for _ in 0..4 {
        let len = rustix::fs::fgetxattr_query(f, name)?;
        if len == 0 {
            return Ok(Vec::new());
        }
        let mut buf = vec![0u8; len];
        match rustix::fs::fgetxattr(f, name, &mut buf[..]) {
            Ok(n) => {
                buf.truncate(n);
                return Ok(buf);
            }
            Err(rustix::io::Errno::RANGE) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(rustix::io::Errno::RANGE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `user.*` attribute is copied; the test says so when the file system has none.
    #[test]
    fn copies_user_attributes() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, "a").unwrap();
        std::fs::write(&b, "b").unwrap();
        let (fa, fb) = (File::open(&a).unwrap(), File::open(&b).unwrap());
        match rustix::fs::fsetxattr(&fa, "user.origin", b"kept", rustix::fs::XattrFlags::empty()) {
            Ok(()) => {}
            Err(e) if unsupported(e) => {
                eprintln!("SKIPPED: copies_user_attributes: no user.* attributes here ({e})");
                return;
            }
            Err(e) => panic!("{e}"),
        }
        copy(&fa, &fb).unwrap();
        assert_eq!(get(&fb, c"user.origin").unwrap(), b"kept");
    }
}
