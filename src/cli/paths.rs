//! How a path is shown in every output of the command line (findings, notes, the baseline's
//! keys): `/`-separated on every system, without a leading `./`.

use std::path::{Component, Path};

/// The path as shown in the output: `/`-separated, without leading `./`; a Windows drive or
/// share stays in front (`C:\skills\a.md` → `C:/skills/a.md`).
pub fn display_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::Prefix(p) => out.push_str(&p.as_os_str().to_string_lossy()),
            Component::RootDir => out.push('/'),
            Component::ParentDir | Component::Normal(_) => {
                if !out.is_empty() && !out.ends_with('/') {
                    out.push('/');
                }
                out.push_str(&c.as_os_str().to_string_lossy());
            }
        }
    }
    if out.is_empty() {
        ".".to_string()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_paths() {
        assert_eq!(display_path(Path::new("./examples/a.md")), "examples/a.md");
        assert_eq!(display_path(Path::new("/tmp/x/a.md")), "/tmp/x/a.md");
        assert_eq!(display_path(Path::new(".")), ".");
        assert_eq!(display_path(Path::new("../a/./b.md")), "../a/b.md");
        #[cfg(windows)]
        {
            assert_eq!(display_path(Path::new(r"C:\s\a.md")), "C:/s/a.md");
            assert_eq!(display_path(Path::new(r".\s\a.md")), "s/a.md");
            assert_eq!(display_path(Path::new(r"C:s\a.md")), "C:s/a.md");
        }
    }
}
