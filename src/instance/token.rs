//! The API token: read only from where the user's own settings point (an environment variable
//! or a file), sent in the header form NetBox expects for its kind, and never shown.
//!
//! NetBox token forms (`../shared/netbox/v4.6.8-instance/headers.txt`): v1 is 40 hex digits sent
//! as `Authorization: Token <40 hex>`; v2 (NetBox 4.5+) is `nbt_<key>.<secret>` sent as
//! `Authorization: Bearer nbt_<key>.<secret>` ("Invalid v1 token" when a v2 one is sent as
//! `Token`, and for a 40-hex one sent as `Bearer`).

use super::redact::Redactor;
use std::fmt;
use std::path::Path;

/// An API token. `Debug` and `Display` print `<redacted>`: the value only leaves through
/// [`Token::header_value`], into the `Authorization` header.
#[derive(Clone, PartialEq, Eq)]
pub struct Token {
    value: String,
    redactor: Option<Redactor>,
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

impl Token {
    /// A token from its text: surrounding whitespace and a pasted `Token `/`Bearer ` prefix are
    /// dropped. `None` when nothing is left or it holds a line break or control character (it
    /// could not be sent in a header).
    pub fn new(text: &str) -> Option<Token> {
        let t = text.trim();
        let t = t
            .strip_prefix("Token ")
            .or_else(|| t.strip_prefix("Bearer "))
            .unwrap_or(t)
            .trim();
        if t.is_empty() || t.chars().any(|c| c.is_control()) {
            return None;
        }
        let headers = [format!("Token {t}"), format!("Bearer {t}")];
        Some(Token {
            value: t.to_string(),
            redactor: Redactor::new(t, &headers),
        })
    }

    /// Reads the token from the environment variable `name`. Errors name the variable, never
    /// its value.
    pub fn from_env(name: &str) -> Result<Token, String> {
        let v = std::env::var(name).map_err(|_| {
            format!("the environment variable {name} (named for the API token) is not set")
        })?;
        Token::new(&v).ok_or_else(|| {
            format!("the environment variable {name} does not hold a usable API token")
        })
    }

    /// Reads the token from the first line of a file: a regular file of at most 64 KiB (a FIFO
    /// or a device would block or never end; they are refused with a message, as settings
    /// files are). Errors name the file, never its content.
    pub fn from_file(path: &Path) -> Result<Token, String> {
        let text = crate::safe_read::read_to_string(path, crate::safe_read::FileKind::Token)
            .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?;
        let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        Token::new(line).ok_or_else(|| {
            format!(
                "the token file {} holds no usable API token",
                path.display()
            )
        })
    }

    /// True for a v2 token (`nbt_<key>.<secret>`).
    pub fn is_v2(&self) -> bool {
        self.value.starts_with("nbt_")
    }

    /// The `Authorization` header value: `Bearer nbt_…` for v2, `Token <hex>` otherwise.
    pub fn header_value(&self) -> String {
        if self.is_v2() {
            format!("Bearer {}", self.value)
        } else {
            format!("Token {}", self.value)
        }
    }

    /// Replaces every occurrence of the token in `text` with `<redacted>`, in every form a
    /// server can echo it (URL-encoded, JSON-escaped, HTML references, base64 of the header:
    /// [`super::redact`]); for messages that quote a server's answer, after decoding them.
    pub fn redact(&self, text: &str) -> String {
        match &self.redactor {
            Some(r) => r.redact(text),
            None => text.to_string(),
        }
    }

    /// [`Token::redact`], then [`crate::sanitize::one_line`]: a server's text as it may be
    /// shown anywhere.
    pub fn clean(&self, text: &str) -> String {
        crate::sanitize::one_line(&self.redact(text)).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        let v1 = Token::new("0123456789abcdef0123456789abcdef01234567\n").unwrap();
        assert_eq!(
            v1.header_value(),
            "Token 0123456789abcdef0123456789abcdef01234567"
        );
        let v2 = Token::new("Bearer nbt_abc123.s3cr3t").unwrap();
        assert!(v2.is_v2());
        assert_eq!(v2.header_value(), "Bearer nbt_abc123.s3cr3t");
        assert_eq!(
            Token::new("Token nbt_k.s").unwrap().header_value(),
            "Bearer nbt_k.s"
        );
        assert!(Token::new("  ").is_none());
        assert!(Token::new("a\nb").is_none());
        assert_eq!(format!("{v2} {v2:?}"), "<redacted> Token(<redacted>)");
        assert_eq!(v2.redact("x nbt_abc123.s3cr3t y"), "x <redacted> y");
    }
}
