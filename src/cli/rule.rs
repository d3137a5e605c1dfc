//! `netbox-lsp rule CODE` (also `netbox-lsp --explain CODE` and `check --explain CODE`): a
//! diagnostic code's page of `docs/diagnostics.md`, embedded in the binary, as Markdown on
//! stdout; `rule --all` lists the codes of the catalogue.

use crate::catalogue::{self, CODES};

/// `docs/diagnostics.md` as built into this binary (the same text the repository shows).
pub const DIAGNOSTICS_MD: &str = include_str!("../../docs/diagnostics.md");

/// Arguments of `rule`.
#[derive(Debug, Clone, clap::Args)]
pub struct RuleArgs {
    /// The diagnostic code (`unknown-filter`, `graphql-pagination`, ...).
    #[arg(required_unless_present = "all")]
    pub code: Option<String>,
    /// List every code with its default severity and title.
    #[arg(long, conflicts_with = "code")]
    pub all: bool,
}

/// Runs `rule`; returns the exit code (2 for an unknown code).
pub fn run(args: &RuleArgs) -> i32 {
    match &args.code {
        Some(code) if !args.all => print(code),
        _ => {
            print!("{}", list());
            0
        }
    }
}

/// Prints the page of `code`; an unknown code is an error (exit 2) naming the closest one.
pub fn print(code: &str) -> i32 {
    match page(code) {
        Some(p) => {
            print!("{p}");
            0
        }
        None => {
            let why = crate::config::unknown_code_warning(code)
                .unwrap_or_else(|| format!("no page for `{code}`"));
            super::say::error(format!("{why}; `netbox-lsp rule --all` lists the codes"));
            2
        }
    }
}

/// The page of `code`: its section of `docs/diagnostics.md` (the generated block and the prose
/// after it, up to the next code or part), without the generator's markers; `None` for a code
/// the catalogue does not have.
pub fn page(code: &str) -> Option<String> {
    catalogue::get(code)?;
    let open = format!("<!-- generated:code:{code} -->");
    let start = DIAGNOSTICS_MD.find(&open)? + open.len();
    let rest = &DIAGNOSTICS_MD[start..];
    let end = [rest.find("<!-- generated:code:"), rest.find("\n## ")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(rest.len());
    let body: Vec<&str> = rest[..end]
        .lines()
        .filter(|l| l.trim() != "<!-- /generated -->")
        .collect();
    Some(format!("{}\n", body.join("\n").trim()))
}

/// One line per code: `code  severity  title`, in documentation order.
pub fn list() -> String {
    let width = CODES.iter().map(|c| c.code.len()).max().unwrap_or(0);
    let mut out = String::new();
    for c in CODES {
        out.push_str(&format!(
            "{:width$}  {:11}  {}\n",
            c.code,
            c.severity.as_str(),
            c.title
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code of the catalogue has a page that starts with its heading and holds its
    /// title; nothing of the next code leaks in.
    #[test]
    fn every_code_has_its_own_page() {
        for c in CODES {
            let p = page(c.code).unwrap_or_else(|| panic!("no page for {}", c.code));
            assert!(
                p.starts_with(&format!("### `{}`", c.code)),
                "{}: {p:.80}",
                c.code
            );
            assert!(p.contains(c.title), "{}", c.code);
            assert!(
                !p.contains("<!-- generated") && !p.contains("<!-- /generated"),
                "{}: a generator marker left",
                c.code
            );
            let others = p.matches("\n### `").count();
            assert_eq!(others, 0, "{}: another code's heading inside", c.code);
        }
        assert_eq!(page("no-such-code"), None);
        assert_eq!(list().lines().count(), CODES.len());
    }
}
