//! `--format github`: GitHub Actions workflow commands, one line per finding, which the runner
//! turns into annotations on the pull request's files:
//! `::error file=skills/a.md,line=36,endLine=36,col=60,endColumn=74,title=netbox-lsp (unknown-filter)::…`.
//! Errors are `error`, warnings `warning`, information and hints `notice`; lines and columns
//! are 1-based, columns in characters. The message is the finding's, then its certain fix.
//! Values are escaped as the runner reads them (`%`, CR, LF in the message; also `:` and `,` in
//! properties), so no text from a file can end the command or start another.

use super::Located;
use crate::finding::Severity;

/// The workflow command of a severity.
fn command(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "notice",
    }
}

/// A command's message, escaped.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value, escaped.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One line per finding, each ending in `\n`.
pub fn render(findings: &[Located]) -> String {
    let mut out = String::with_capacity(findings.len() * 240);
    for f in findings {
        let mut message = format!("{}: {}", f.code, f.message);
        if let Some(fix) = f.fixes.iter().find(|x| x.certain) {
            message.push_str(&format!(" Fix: {}", fix.title));
        }
        out.push_str(&format!(
            "::{} file={},line={},endLine={},col={},endColumn={},title={}::{}\n",
            command(f.severity),
            property(&f.path),
            f.span.start.line + 1,
            f.span.end.line + 1,
            f.span.start.char_col + 1,
            f.span.end.char_col + 1,
            property(&format!("netbox-lsp ({})", f.code)),
            data(&message)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Pos, Span};
    use super::*;

    /// The command line as GitHub reads it, with a hostile path and message: nothing from the
    /// file ends the line or adds a property.
    #[test]
    fn annotations_are_escaped_and_one_line_each() {
        let at = |line, col| Pos {
            line,
            char_col: col,
            utf16_col: col,
        };
        let f = Located {
            path: "a,b:c%.md".into(),
            span: Span {
                start: at(35, 59),
                end: at(35, 73),
            },
            code: "unknown-filter",
            severity: Severity::Warning,
            message: "bad\r\n::error::x 100%".into(),
            fixes: vec![],
        };
        assert_eq!(
            render(&[f]),
            "::warning file=a%2Cb%3Ac%25.md,line=36,endLine=36,col=60,endColumn=74,title=netbox-lsp (unknown-filter)::unknown-filter: bad%0D%0A::error::x 100%25\n"
        );
    }
}
