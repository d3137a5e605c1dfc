//! Knowledge built from the user's own NetBox: fetching its answers ([`fetch`], over
//! [`http::Client`]) and turning them, or the same answers saved as files, into one filter index
//! plus a GraphQL schema ([`build`]). The same inputs give the same index either way (only the
//! stamp's URL and date differ).
//!
//! What is fetched (`../shared/netbox/v4.6.8-instance/README.md` has real answers):
//! `GET /api/status/` (version, plugins), `GET /api/schema/?format=json` (OpenAPI; plugin
//! endpoints included; 12.9 s cold on the lab instance), `POST /graphql/` (introspection),
//! `GET /api/extras/custom-fields/` and `/api/extras/custom-field-choice-sets/` (all pages).

pub mod http;
pub mod limits;
pub mod redact;
pub mod tls;
pub mod token;

use crate::index::build::{build_with_options, is_version, BuildError, BuildOptions, BuildReport};
use crate::index::instance::{
    apply, inputs_hash, now_rfc3339, parse_custom_fields, parse_status, Instance,
};
use crate::index::FilterIndex;

/// The standard introspection query with `isOneOf` (graphql-core 3.3's
/// `get_introspection_query(descriptions, specified_by_url, directive_is_repeatable,
/// input_value_deprecation=False, input_object_one_of=True)`; NetBox 4.7.3 answers it).
/// Servers before graphql-core 3.3 refuse `isOneOf`: they get [`INTROSPECTION_QUERY`].
pub const INTROSPECTION_QUERY_ONE_OF: &str = "query IntrospectionQuery { __schema { queryType { name } mutationType { name } subscriptionType { name } types { ...FullType } directives { name description isRepeatable locations args { ...InputValue } } } } fragment FullType on __Type { kind name description specifiedByURL isOneOf fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason } inputFields { ...InputValue } interfaces { ...TypeRef } enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } possibleTypes { ...TypeRef } } fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue } fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }";

/// The standard introspection query (as graphql-core 3.2's `get_introspection_query` with
/// descriptions, `specifiedByURL` and `isRepeatable`; NetBox 4.6.8 answers it).
pub const INTROSPECTION_QUERY: &str = "query IntrospectionQuery { __schema { queryType { name } mutationType { name } subscriptionType { name } types { ...FullType } directives { name description isRepeatable locations args { ...InputValue } } } } fragment FullType on __Type { kind name description specifiedByURL fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason } inputFields { ...InputValue } interfaces { ...TypeRef } enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } possibleTypes { ...TypeRef } } fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue } fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }";

/// Page size asked of list endpoints (NetBox caps it at its MAX_PAGE_SIZE, 1000 by default).
const PAGE: usize = 1000;

/// The raw answers an instance index is built from.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// `/api/status/` body.
    pub status: Option<Vec<u8>>,
    /// `/api/schema/?format=json` body (plain or gzip).
    pub openapi: Vec<u8>,
    /// Introspection answer or SDL (plain or gzip).
    pub graphql: Option<Vec<u8>>,
    /// Pages of `/api/extras/custom-fields/`; empty when not fetched.
    pub custom_fields: Vec<Vec<u8>>,
    /// Pages of `/api/extras/custom-field-choice-sets/`.
    pub choice_sets: Vec<Vec<u8>>,
}

/// An index built from an instance, with the GraphQL schema as SDL when one was given.
#[derive(Debug)]
pub struct Built {
    pub index: FilterIndex,
    pub report: BuildReport,
    /// The GraphQL schema as SDL (written beside the index).
    pub sdl: Option<String>,
}

/// Builds the index from `inputs`; `url` is stamped (empty for files). Errors name the input.
pub fn build(inputs: &Inputs, url: &str, options: &BuildOptions) -> Result<Built, String> {
    let ungz = |b: &[u8]| crate::graphql::schema::maybe_gunzip(b);
    let status = match &inputs.status {
        Some(b) => Some(parse_status(&ungz(b)?)?),
        None => None,
    };
    let mut options = options.clone();
    // A status version that is not a release (`null` on netbox-docker beta images,
    // `4.6.8-beta1`) is not stamped: the OpenAPI document's `info.version` or
    // --netbox-version says it, and an error names the status answer as the cause.
    let mut odd_status = None;
    if options.netbox_version.is_none() {
        match status.as_ref().map(|s| s.netbox_version.as_str()) {
            Some(v) if is_version(v) => options.netbox_version = Some(v.to_string()),
            Some("") => odd_status = Some("`netbox-version` null".to_string()),
            Some(v) => odd_status = Some(format!("`netbox-version` \"{v}\"")),
            None => {}
        }
    }
    let (mut index, mut report) =
        build_with_options(&inputs.openapi, &options).map_err(|e| match (&odd_status, e) {
            (Some(odd), BuildError::BadVersion(_)) => format!(
                "/api/status/ reports {odd}, not a NetBox release like 4.6.8 (beta and development images do), and the OpenAPI document names none either: give --netbox-version X.Y.Z (the release it is closest to)"
            ),
            (_, e) => format!("OpenAPI document: {e}"),
        })?;
    if let Some(odd) = &odd_status {
        report.notes.insert(
            0,
            format!(
                "/api/status/ reports {odd}, not a NetBox release; stamped {} (from the OpenAPI document or --netbox-version)",
                index.netbox_version
            ),
        );
    }
    let pages =
        |p: &[Vec<u8>]| -> Result<Vec<Vec<u8>>, String> { p.iter().map(|b| ungz(b)).collect() };
    let cf = pages(&inputs.custom_fields)?;
    let cs = pages(&inputs.choice_sets)?;
    let custom_fields = if cf.is_empty() {
        None
    } else {
        let f: Vec<&[u8]> = cf.iter().map(Vec::as_slice).collect();
        let s: Vec<&[u8]> = cs.iter().map(Vec::as_slice).collect();
        Some(parse_custom_fields(&f, &s)?)
    };
    // `@oneOf` where the introspection cannot say (NetBox ≤ 4.6): as the embedded schema of
    // the same release declares it.
    let one_of_types = one_of_types(&index.netbox_version);
    let one_of = |name: &str| one_of_types.contains(name);
    let sdl = match &inputs.graphql {
        Some(g) => Some(graphql_sdl_with(g, &one_of)?),
        None => None,
    };
    let status_raw = match &inputs.status {
        Some(b) => ungz(b)?,
        None => Vec::new(),
    };
    let openapi_raw = ungz(&inputs.openapi)?;
    let graphql_raw = match &inputs.graphql {
        Some(b) => ungz(b)?,
        None => Vec::new(),
    };
    let hash = inputs_hash(&[
        &status_raw,
        &openapi_raw,
        &graphql_raw,
        &cf.concat(),
        &cs.concat(),
    ]);
    let status = status.unwrap_or_default();
    apply(
        &mut index,
        Instance {
            url: url.to_string(),
            built: now_rfc3339(),
            netbox_version: status.netbox_version,
            plugins: status.plugins,
            inputs_sha256: hash,
            custom_fields,
        },
    );
    Ok(Built { index, report, sdl })
}

/// The input types the embedded GraphQL schema of the shipped release nearest `version`
/// declares `@oneOf` (Strawberry's lookup inputs: `IntegerLookup`, `StringLookup`, …); empty
/// when none is shipped.
pub fn one_of_types(version: &str) -> std::collections::HashSet<String> {
    let Some(schema) = crate::index::embedded::select(Some(version))
        .ok()
        .and_then(|sel| crate::graphql::embedded::embedded_schema(sel.version))
    else {
        return Default::default();
    };
    schema
        .schema
        .types
        .iter()
        .filter(|(_, t)| {
            matches!(t, apollo_compiler::schema::ExtendedType::InputObject(io) if io.directives.has("oneOf"))
        })
        .map(|(n, _)| n.to_string())
        .collect()
}

/// A GraphQL schema input (introspection JSON or SDL, plain or gzip) as SDL, checked to build.
pub fn graphql_sdl(bytes: &[u8]) -> Result<String, String> {
    graphql_sdl_with(bytes, &|_| false)
}

/// [`graphql_sdl`], with `@oneOf` on the input types `one_of` names where an introspection
/// result does not say ([`crate::graphql::introspection::introspection_to_sdl_with`]).
pub fn graphql_sdl_with(bytes: &[u8], one_of: &dyn Fn(&str) -> bool) -> Result<String, String> {
    crate::graphql::load_schema_file(bytes).map_err(|e| format!("GraphQL schema: {e}"))?;
    let raw = crate::graphql::schema::maybe_gunzip(bytes)?;
    let text = String::from_utf8_lossy(&raw);
    let text = text.trim_start_matches('\u{feff}');
    if crate::graphql::introspection::looks_like_introspection(text) {
        let sdl = crate::graphql::introspection::introspection_to_sdl_with(text, one_of)
            .map_err(|e| format!("GraphQL schema: {e}"))?;
        // The printed schema must build as the input did.
        crate::graphql::load_schema_file(sdl.as_bytes())
            .map_err(|e| format!("GraphQL schema (as SDL): {e}"))?;
        Ok(sdl)
    } else {
        Ok(text.to_string())
    }
}

/// Fetches every input from the instance behind `client`. Custom fields need a token with read
/// permission on them: a refusal there is an error (the index would silently lack them).
pub fn fetch(client: &http::Client) -> Result<Inputs, String> {
    fetch_with(client, &|_| {})
}

/// [`fetch`], telling `step` what is fetched next (`fetching /api/schema/ (NetBox may take 10–30 s
/// to generate it)`), for an editor's progress report.
pub fn fetch_with(client: &http::Client, step: &dyn Fn(&str)) -> Result<Inputs, String> {
    step("fetching /api/status/");
    let status = client.get("/api/status/")?;
    parse_status(&status).map_err(|e| format!("GET /api/status/: {e}"))?;
    step("fetching /api/schema/ (NetBox may take 10–30 s to generate it)");
    let openapi = client.get("/api/schema/?format=json")?;
    let body = |query: &str| {
        serde_json::json!({
            "query": query,
            "operationName": "IntrospectionQuery",
        })
        .to_string()
    };
    step("fetching /graphql/ (introspection)");
    let mut graphql = client.post_json("/graphql/", body(INTROSPECTION_QUERY_ONE_OF).as_bytes())?;
    if !has_schema(&graphql) {
        // graphql-core before 3.3 (NetBox ≤ 4.6) has no `__Type.isOneOf`: its errors, no data.
        graphql = client.post_json("/graphql/", body(INTROSPECTION_QUERY).as_bytes())?;
    }
    step("fetching the custom fields");
    let custom_fields = all_pages(client, "/api/extras/custom-fields/")?;
    step("fetching the custom field choice sets");
    let choice_sets = all_pages(client, "/api/extras/custom-field-choice-sets/")?;
    Ok(Inputs {
        status: Some(status),
        openapi,
        graphql: Some(graphql),
        custom_fields,
        choice_sets,
    })
}

/// True when an introspection answer holds `data.__schema` (an object).
fn has_schema(answer: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(answer)
        .ok()
        .and_then(|v| v.get("data")?.get("__schema").map(|s| s.is_object()))
        .unwrap_or(false)
}

/// Every page of a list endpoint, by `offset` until `count` objects were seen (the `next` links
/// are not followed: they carry the host NetBox thinks it has, which may differ behind a proxy).
/// At most [`limits::MAX_PAGES`] pages and [`limits::MAX_OBJECTS`] objects: a server that
/// claims more (`count: 1000000000`, one object a page) gets a clear error, not endless work.
fn all_pages(client: &http::Client, path: &str) -> Result<Vec<Vec<u8>>, String> {
    let mut pages = Vec::new();
    let mut seen = 0usize;
    loop {
        if pages.len() >= limits::MAX_PAGES {
            return Err(format!(
                "GET {path}: still not complete after {} pages ({seen} objects): netbox-lsp stops at {} pages (is the API's MAX_PAGE_SIZE very small, or is this not a NetBox?)",
                pages.len(),
                limits::MAX_PAGES
            ));
        }
        let page = client.get(&format!("{path}?limit={PAGE}&offset={seen}"))?;
        let v: serde_json::Value = serde_json::from_slice(&page)
            .map_err(|e| format!("GET {path}: the answer is not JSON: {e}"))?;
        let n = v
            .get("results")
            .and_then(|r| r.as_array())
            .map(Vec::len)
            .ok_or_else(|| format!("GET {path}: the answer is not a NetBox list"))?;
        let count = v.get("count").and_then(|c| c.as_u64()).unwrap_or(0);
        if count > limits::MAX_OBJECTS as u64 {
            return Err(format!(
                "GET {path}: NetBox reports {count} objects; netbox-lsp reads at most {} from one list",
                limits::MAX_OBJECTS
            ));
        }
        let count = count as usize;
        pages.push(page);
        seen += n;
        if n == 0 || seen >= count {
            return Ok(pages);
        }
    }
}
