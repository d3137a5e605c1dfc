//! NetBox version numbers and their order, pre-releases included: `4.8.0a1` < `4.8.0b1` <
//! `4.8.0rc1` < `4.8.0` < `4.8.1`. NetBox publishes its betas on PyPI in PEP 440 form
//! (`4.8.0b1`) and tags them in git as `v4.8.0-beta1`; both spellings mean the same release.
//! A build suffix that is not a pre-release (`4.3.3-Docker-3.3.0`, `4.6.8+local`) is ignored.

use std::cmp::Ordering;

/// The stage of a pre-release, in release order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    Alpha,
    Beta,
    Candidate,
}

/// A parsed version: two or three numbers and an optional pre-release (`b1` = (Beta, 1)).
/// Ordered as NetBox releases come out: a pre-release before its final release.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Version {
    /// `[4, 8, 0]`; two numbers for a minor release named without its patch (`4.8`).
    pub numbers: Vec<u32>,
    /// `Some((Beta, 1))` for `4.8.0b1` / `v4.8.0-beta1`; `None` for a final release.
    pub pre: Option<(Stage, u32)>,
}

impl Version {
    /// Parses `4.6.8`, `v4.6.8`, `4.8`, `4.8.0b1`, `4.8.0rc2`, `v4.8.0-beta1`, `4.3.3-Docker-3.3.0`.
    /// `None` unless the numeric part is two or three dot-separated numbers.
    pub fn parse(v: &str) -> Option<Version> {
        let v = v.trim();
        let v = v.strip_prefix(['v', 'V']).unwrap_or(v);
        let (head, tail) = match v.find(['-', '+']) {
            Some(i) => (&v[..i], &v[i..]),
            None => (v, ""),
        };
        // PEP 440 pre-release glued to the last number: `0b1`, `0rc2`, `0a1`.
        let (head, mut pre) = match head.rfind(|c: char| c.is_ascii_alphabetic()) {
            Some(_) => {
                let cut = head.rfind('.').map_or(0, |i| i + 1);
                let last = &head[cut..];
                let digits = last.chars().take_while(char::is_ascii_digit).count();
                let (num, suffix) = last.split_at(digits);
                (&head[..cut + num.len()], Some(pre_release(suffix)?))
            }
            None => (head, None),
        };
        // Git tag form: `-beta1`, `-rc2`, `-alpha1` (other suffixes are build names).
        if pre.is_none() {
            if let Some(s) = tail.strip_prefix('-') {
                let word = s.split(['-', '+', '.']).next().unwrap_or("");
                pre = pre_release(word);
            }
        }
        let numbers: Option<Vec<u32>> = head.split('.').map(|p| p.parse().ok()).collect();
        let numbers = numbers.filter(|n| (2..=3).contains(&n.len()))?;
        Some(Version { numbers, pre })
    }

    /// True for an alpha, beta or release candidate.
    pub fn is_pre_release(&self) -> bool {
        self.pre.is_some()
    }

    /// `[major, minor]`.
    pub fn minor(&self) -> &[u32] {
        &self.numbers[..2]
    }
}

/// `b1` / `beta1` → (Beta, 1); `rc2` / `c2` → (Candidate, 2); `a1` / `alpha1` → (Alpha, 1).
fn pre_release(s: &str) -> Option<(Stage, u32)> {
    let s = s.to_ascii_lowercase();
    let digits = s.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let word = &s[..s.len() - digits.len()];
    let stage = match word {
        "a" | "alpha" => Stage::Alpha,
        "b" | "beta" => Stage::Beta,
        "rc" | "c" | "pre" => Stage::Candidate,
        _ => return None,
    };
    let n = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    Some((stage, n))
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        // A missing patch counts as 0 (`4.8` = `4.8.0`); a final release after its pre-releases.
        let pad = |n: &[u32]| [n[0], n[1], n.get(2).copied().unwrap_or(0)];
        pad(&self.numbers)
            .cmp(&pad(&other.numbers))
            .then_with(|| match (self.pre, other.pre) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Greater,
                (Some(_), None) => Ordering::Less,
                (Some(a), Some(b)) => a.cmp(&b),
            })
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// True when `v` names a pre-release (`4.8.0b1`, `v4.8.0-beta1`).
pub fn is_pre_release(v: &str) -> bool {
    Version::parse(v).is_some_and(|v| v.is_pre_release())
}

/// The default among `versions` (oldest first, as the release table): the newest final
/// release, else (only pre-releases) the newest.
pub fn default_of<S: AsRef<str>>(versions: &[S]) -> Option<&S> {
    versions
        .iter()
        .rev()
        .find(|v| !is_pre_release(v.as_ref()))
        .or_else(|| versions.last())
}

/// `const` test for the release table: a PEP 440 pre-release letter after the first digit
/// (`4.8.0b1`, `4.8.0rc1`, `4.8.0a1`). The table's versions are PEP 440 (as PyPI spells them).
pub const fn is_pre_release_const(v: &str) -> bool {
    let b = v.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() && i > 0 && b[i - 1].is_ascii_digit() {
            return true;
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap_or_else(|| panic!("{s}"))
    }

    #[test]
    fn forms() {
        assert_eq!(v("4.6.8").numbers, [4, 6, 8]);
        assert_eq!(v("v4.6.8").pre, None);
        assert_eq!(v("4.8").numbers, [4, 8]);
        assert_eq!(v("4.8.0b1").pre, Some((Stage::Beta, 1)));
        assert_eq!(v("4.8.0b1").numbers, [4, 8, 0]);
        assert_eq!(v("v4.8.0-beta1"), v("4.8.0b1"));
        assert_eq!(v("4.8.0rc2").pre, Some((Stage::Candidate, 2)));
        assert_eq!(v("4.6.8-rc1").pre, Some((Stage::Candidate, 1)));
        assert_eq!(v("4.3.3-Docker-3.3.0"), v("4.3.3"));
        assert_eq!(v("4.6.8+local"), v("4.6.8"));
        for bad in ["", "4", "4.x", "4.6.8.1", "garbage", "4.8.0zz1", "b1"] {
            assert!(Version::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn order() {
        let list = [
            "4.3.3", "4.7.3", "4.8.0a1", "4.8.0b1", "4.8.0b2", "4.8.0rc1", "4.8.0", "4.8.1",
            "4.10.0", "5.0.0b1", "5.0",
        ];
        for w in list.windows(2) {
            assert!(v(w[0]) < v(w[1]), "{} < {}", w[0], w[1]);
        }
        assert_eq!(v("4.8").cmp(&v("4.8.0")), Ordering::Equal);
    }

    #[test]
    fn const_test_agrees() {
        for s in ["4.8.0b1", "4.8.0rc1", "4.8.0a2", "4.7.3", "4.10.12"] {
            assert_eq!(is_pre_release_const(s), is_pre_release(s), "{s}");
        }
    }
}
