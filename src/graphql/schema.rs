//! Loading a NetBox GraphQL schema (SDL or introspection JSON, optionally gzip-compressed) and
//! the version traits the NetBox rules need.

use super::introspection;
use apollo_compiler::schema::{ExtendedType, InputObjectType};
use apollo_compiler::validation::Valid;
use apollo_compiler::{Name, Node, Schema};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Read;

/// A NetBox GraphQL schema of one version, validated by apollo-compiler.
///
/// Build it once (tens of milliseconds for NetBox's ~300 KB SDL) and share it behind an `Arc`;
/// checks, completion and hover only read it.
#[derive(Debug)]
pub struct NetboxSchema {
    /// NetBox version the schema comes from, e.g. `4.6.8`; empty when unknown (a schema file
    /// loaded with `--graphql-schema`). Rules that depend on the version alone (the unpaginated
    /// list cap) stay quiet when it is empty.
    pub netbox_version: String,
    /// The validated schema.
    pub schema: Valid<Schema>,
    /// `OffsetPaginationInput` has `start` (NetBox 4.5.10 and 4.6.8 schemas; not 4.3.3/4.4.10).
    /// NetBox then refuses `start` together with `offset` at run time.
    pub pagination_has_start: bool,
    /// A stock schema shipped with netbox-lsp (`embedded`), not an instance's own: names a
    /// plugin adds (`netbox_bgp_session_list`) cannot be judged with it.
    pub stock: bool,
    /// Input object types with a required field (non-null, no default), computed once per
    /// schema: an object value of any other input type needs no look at the fields it leaves
    /// out ([`super::quick`]). Two in NetBox 4.7.3's schema: a scan is cheaper than a hash.
    required_inputs: Vec<Name>,
    /// The index in `schema.types` of the type each name the schema writes names (a field's,
    /// an argument's or an input field's type, a type's own name), by the address and length
    /// of that name's text: [`NetboxSchema::type_named`] finds the type of a name read from the
    /// schema without hashing it.
    by_addr: HashMap<(usize, usize), usize, BuildHasherDefault<AddrHasher>>,
}

/// A hasher of addresses (FxHash's step), for maps keyed by where a text lives rather than
/// what it says.
#[derive(Default)]
pub(crate) struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// The key of a text in [`NetboxSchema::by_addr`]: its address and length.
fn addr(s: &str) -> (usize, usize) {
    (s.as_ptr() as usize, s.len())
}

/// One of apollo-compiler's diagnostics as a short line: its message (cut to 200 characters)
/// and where, `at line 2, column 468901`. Its own rendering frames the source line, which in a
/// generated schema can be hundreds of kilobytes long (4.2 MB of stderr for a 470 KB line).
fn said<T>(d: &apollo_compiler::diagnostic::Diagnostic<'_, T>) -> String
where
    T: ToString + apollo_compiler::diagnostic::ToCliReport,
{
    let mut message = d.error.to_string().replace('\n', " ");
    if let Some((cut, _)) = message.char_indices().nth(200) {
        message.truncate(cut);
        message.push('…');
    }
    match d.line_column_range() {
        Some(r) => format!(
            "{message} at line {}, column {}",
            r.start.line, r.start.column
        ),
        None => message,
    }
}

/// Errors above this many bytes of decompressed input are refused (NetBox's SDL is ~300 KB).
const MAX_SCHEMA_BYTES: usize = 64 * 1024 * 1024;

impl NetboxSchema {
    /// Builds from SDL text. Errors carry apollo-compiler's first diagnostics.
    pub fn from_sdl(sdl: &str, netbox_version: &str) -> Result<NetboxSchema, String> {
        let schema = match Schema::parse_and_validate(sdl, "schema.graphql") {
            Ok(s) => s,
            Err(with) => {
                let msgs: Vec<String> = with.errors.iter().take(3).map(|d| said(&d)).collect();
                return Err(format!("invalid GraphQL schema: {}", msgs.join("; ")));
            }
        };
        if schema.schema_definition.query.is_none() {
            return Err("GraphQL schema has no query root type".into());
        }
        Ok(Self::from_valid(schema, netbox_version))
    }

    /// Builds from an introspection result (`{"data": {"__schema": ...}}` or `{"__schema": ...}`).
    pub fn from_introspection(json: &str, netbox_version: &str) -> Result<NetboxSchema, String> {
        let sdl = introspection::introspection_to_sdl(json)?;
        Self::from_sdl(&sdl, netbox_version)
    }

    /// Wraps an already validated schema.
    pub fn from_valid(schema: Valid<Schema>, netbox_version: &str) -> NetboxSchema {
        let pagination_has_start = match schema.types.get("OffsetPaginationInput") {
            Some(ExtendedType::InputObject(o)) => o.fields.contains_key("start"),
            _ => false,
        };
        let required_inputs = schema
            .types
            .values()
            .filter_map(|t| match t {
                ExtendedType::InputObject(o)
                    if o.fields
                        .values()
                        .any(|f| f.ty.is_non_null() && f.default_value.is_none()) =>
                {
                    Some(o.name.clone())
                }
                _ => None,
            })
            .collect();
        let mut by_addr = HashMap::default();
        {
            let mut put = |n: &Name| {
                if let Some(i) = schema.types.get_index_of(n.as_str()) {
                    by_addr.insert(addr(n.as_str()), i);
                }
            };
            for (name, t) in &schema.types {
                put(name);
                put(t.name());
                let fields = match t {
                    ExtendedType::Object(o) => Some(&o.fields),
                    ExtendedType::Interface(i) => Some(&i.fields),
                    _ => None,
                };
                for f in fields.into_iter().flat_map(|f| f.values()) {
                    put(f.ty.inner_named_type());
                    for a in &f.arguments {
                        put(a.ty.inner_named_type());
                    }
                }
                if let ExtendedType::InputObject(o) = t {
                    for f in o.fields.values() {
                        put(f.ty.inner_named_type());
                    }
                }
            }
        }
        NetboxSchema {
            netbox_version: netbox_version.to_string(),
            schema,
            pagination_has_start,
            stock: false,
            required_inputs,
            by_addr,
        }
    }

    /// The schema's type `name`, as `schema.types.get(name)` answers. A name read from the
    /// schema (a field's type) is found by where its text lives, without hashing it; any other
    /// text is looked up by its letters.
    pub fn type_named(&self, name: &str) -> Option<&ExtendedType> {
        if let Some(&i) = self.by_addr.get(&addr(name)) {
            if let Some((key, t)) = self.schema.types.get_index(i) {
                if key.as_str() == name {
                    return Some(t);
                }
            }
        }
        self.schema.types.get(name)
    }

    /// The schema's input object type `name`, as `schema.get_input_object(name)` answers (see
    /// [`NetboxSchema::type_named`]).
    pub fn input_object(&self, name: &str) -> Option<&Node<InputObjectType>> {
        match self.type_named(name)? {
            ExtendedType::InputObject(o) => Some(o),
            _ => None,
        }
    }

    /// Whether input object type `name` has a required field (non-null, no default).
    pub fn has_required_fields(&self, name: &str) -> bool {
        self.required_inputs.iter().any(|n| n == name)
    }

    /// NetBox applies `MAX_PAGE_SIZE` (default 1000) to unpaginated GraphQL lists from 4.5.5
    /// (netbox#21933, #21935): a list without `pagination` is silently cut. False when the
    /// version is unknown.
    pub fn caps_unpaginated_lists(&self) -> bool {
        parse_version(&self.netbox_version).is_some_and(|v| v >= (4, 5, 5))
    }

    /// NetBox's `GRAPHQL_MAX_ALIASES` default (strawberry `MaxAliasesLimiter`, 4.1+).
    pub fn max_aliases(&self) -> usize {
        10
    }
}

fn parse_version(v: &str) -> Option<(u32, u32, u32)> {
    let mut it = v.trim_start_matches('v').split('.');
    let major = it.next()?.parse().ok()?;
    let minor = it.next()?.parse().ok()?;
    // The digits the patch starts with (`0-beta1` → 0), read in place.
    let patch = it
        .next()
        .and_then(|p| {
            p[..p.bytes().take_while(u8::is_ascii_digit).count()]
                .parse()
                .ok()
        })
        .unwrap_or(0);
    Some((major, minor, patch))
}

/// Decompresses `bytes` when they start with the gzip magic number; otherwise returns them.
pub fn maybe_gunzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .take(MAX_SCHEMA_BYTES as u64 + 1)
            .read_to_end(&mut out)
            .map_err(|e| format!("cannot decompress gzip schema file: {e}"))?;
        if out.len() > MAX_SCHEMA_BYTES {
            return Err("schema file is larger than 64 MiB once decompressed".into());
        }
        Ok(out)
    } else {
        Ok(bytes.to_vec())
    }
}

/// Loads a schema file given to `--graphql-schema` / `index build --graphql`: SDL or
/// introspection JSON, plain or gzip-compressed. The version is left empty; set
/// `netbox_version` when it is known. A file that is neither gives a message saying what was
/// expected (never a panic).
pub fn load_schema_file(bytes: &[u8]) -> Result<NetboxSchema, String> {
    let bytes = maybe_gunzip(bytes)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| {
        "GraphQL schema file is not UTF-8 text (expected SDL or introspection JSON)"
    })?;
    let text = text.trim_start_matches('\u{feff}');
    if text.trim().is_empty() {
        return Err("GraphQL schema file is empty".into());
    }
    if text.trim_start().starts_with('{') || text.trim_start().starts_with('[') {
        if !introspection::looks_like_introspection(text) {
            return Err("JSON file is not a GraphQL introspection result (no `__schema` key; expected `{\"data\": {\"__schema\": ...}}`)".into());
        }
        return NetboxSchema::from_introspection(text, "");
    }
    NetboxSchema::from_sdl(text, "")
        .map_err(|e| format!("file is neither introspection JSON nor valid SDL: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(parse_version("4.5.10"), Some((4, 5, 10)));
        assert_eq!(parse_version("4.3"), Some((4, 3, 0)));
        assert_eq!(parse_version("4.6.0-beta1"), Some((4, 6, 0)));
        assert_eq!(parse_version(""), None);
    }

    /// A syntax error at the end of a 470 KB line is said in a short line with its position,
    /// not with the line framed (it was 4.2 MB of stderr); the quiet twin, the same schema
    /// without the error, builds.
    #[test]
    fn a_schema_error_on_a_huge_line_is_short() {
        let fields: Vec<String> = (0..40_000).map(|i| format!("f{i}: Int")).collect();
        let good = format!(
            "type Query {{ a: Int }}\ntype X {{ {} }}\n",
            fields.join(" ")
        );
        assert!(NetboxSchema::from_sdl(&good, "").is_ok());
        let bad = format!(
            "type Query {{ a: Int }}\ntype X {{ {} @@@ }}\n",
            fields.join(" ")
        );
        let Err(e) = NetboxSchema::from_sdl(&bad, "") else {
            panic!("a syntax error");
        };
        assert!(
            e.len() < 400,
            "{} bytes: {}",
            e.len(),
            &e[..400.min(e.len())]
        );
        assert!(
            e.starts_with("invalid GraphQL schema: syntax error: ")
                && e.contains("at line 2, column "),
            "{e}"
        );
    }

    #[test]
    fn not_a_schema() {
        for (input, want) in [
            (&b""[..], "empty"),
            (&b"\xff\xfe"[..], "UTF-8"),
            (&br#"{"openapi": "3.0.3"}"#[..], "introspection"),
            (&b"hello world"[..], "neither"),
            (&b"\x1f\x8b\x00"[..], "gzip"),
        ] {
            let err = load_schema_file(input).unwrap_err();
            assert!(err.contains(want), "{err}");
        }
    }
}
