//! `netbox-lsp index build` and `index info`.

use crate::index::build::{build_with_options, BuildOptions};
use crate::index::load::{load_index, write_index};
use crate::index::{embedded, FilterIndex};
use std::path::{Path, PathBuf};

/// Arguments of `index build`.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// OpenAPI document (`.json` or `.json.gz`), as served at `/api/schema/?format=json`.
    #[arg(long, conflicts_with = "url")]
    pub openapi: Option<PathBuf>,
    /// GraphQL schema: SDL or introspection JSON (`.gz` accepted).
    #[arg(long, conflicts_with = "url")]
    pub graphql: Option<PathBuf>,
    /// Output file (default: `netbox-<version>.index.json.gz` in the current folder).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// NetBox version to stamp on the index (`X.Y` or `X.Y.Z`), for a document whose
    /// `info.version` is missing or not a version.
    #[arg(long)]
    pub netbox_version: Option<String>,
    /// Most JSON items (`{ [ , :` outside strings) a local OpenAPI document may hold (default
    /// 1,200,000; NetBox 4.7.3's holds 497,601): counted before parsing, so a hostile file
    /// cannot fill the memory. Raise it for a larger real document.
    #[arg(long, value_name = "N", conflicts_with = "url")]
    pub max_json_items: Option<usize>,
    /// Most MiB a local OpenAPI document may have once uncompressed (default 64; NetBox
    /// 4.7.3's is 14.6 MB).
    #[arg(long, value_name = "N", conflicts_with = "url")]
    pub max_document_mib: Option<u64>,
    /// The live NetBox to build from (`--url`, token, TLS, timeout): fetches /api/status/,
    /// /api/schema/, /graphql/ and the custom fields; writes the index and the GraphQL schema
    /// beside it.
    #[command(flatten)]
    pub instance: InstanceArgs,
    /// `/api/status/` answer saved as a file (stamps version and plugins).
    #[arg(long, value_name = "FILE", conflicts_with = "url")]
    pub status: Option<PathBuf>,
    /// `/api/extras/custom-fields/` answer saved as a file (`cf_` filters are then checked).
    #[arg(long, value_name = "FILE", conflicts_with = "url")]
    pub custom_fields: Option<PathBuf>,
    /// `/api/extras/custom-field-choice-sets/` answer saved as a file (choice values).
    #[arg(long, value_name = "FILE", conflicts_with = "url")]
    pub choice_sets: Option<PathBuf>,
}

impl BuildArgs {
    /// True when the build reads a live NetBox (`--url`) or its saved answers (`--status`,
    /// `--custom-fields`, `--choice-sets`): an instance index, built by `instance_build`.
    pub fn from_instance(&self) -> bool {
        self.instance.url.is_some()
            || self.status.is_some()
            || self.custom_fields.is_some()
            || self.choice_sets.is_some()
    }

    /// The [`BuildOptions`] these arguments give.
    pub fn build_options(&self) -> BuildOptions {
        BuildOptions {
            netbox_version: self.netbox_version.clone(),
            max_document_bytes: self.max_document_mib.map(|m| m.saturating_mul(1 << 20)),
            max_json_items: self.max_json_items,
        }
    }
}

/// How to reach a live NetBox: the options of `index build --url`, shared by `check --live` so
/// both talk to the instance the same way (one client, [`crate::instance::http::Client`]).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct InstanceArgs {
    /// A live NetBox: its base URL (`https://netbox.example.com`).
    #[arg(long)]
    pub url: Option<String>,
    /// Environment variable holding the API token (default: NETBOX_TOKEN when set).
    #[arg(long, value_name = "NAME")]
    pub token_env: Option<String>,
    /// File holding the API token (first line).
    #[arg(long, value_name = "FILE", conflicts_with = "token_env")]
    pub token_file: Option<PathBuf>,
    /// Extra root certificate(s) in PEM, for a NetBox behind a private CA; or the server's own
    /// self-signed certificate (trusted when the server presents exactly it, for its host).
    #[arg(long, value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
    /// Do not check the server's certificate (warned about on every use).
    #[arg(long)]
    pub insecure: bool,
    /// Print each request and answer head (method, URL, status, headers) on stderr; the token
    /// and cookies are shown as `<redacted>`.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Seconds to wait for each answer to start (default: 120 for `index build`, whose
    /// OpenAPI document NetBox may take 30 s to generate; 30 for `check --live`).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
}

/// Arguments of `index info`.
#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// Embedded NetBox version to describe (default: newest).
    #[arg(long)]
    pub netbox_version: Option<String>,
    /// An index file to describe instead of an embedded one.
    #[arg(long)]
    pub index: Option<PathBuf>,
}

/// Runs `index build` from schema files (`--openapi`, `--graphql`); returns the exit code (0
/// written, 2 usage, I/O or build error). A build from an instance ([`BuildArgs::from_instance`])
/// is `instance_build`'s; `cli::run` chooses.
pub fn build(args: &BuildArgs) -> i32 {
    if args.openapi.is_none() && args.graphql.is_none() {
        eprintln!("netbox-lsp index build: give --openapi FILE and/or --graphql FILE");
        return 2;
    }
    let mut code = 0;
    let mut version = None;
    if let Some(openapi) = &args.openapi {
        let options = args.build_options();
        match build_rest(openapi, args.output.as_deref(), &options) {
            Ok(v) => version = Some(v),
            Err(c) => code = c,
        }
    }
    if let Some(graphql) = &args.graphql {
        // With both inputs, `-o` names the index; the schema goes beside it.
        let out = match (&args.openapi, &args.output) {
            (None, Some(o)) => o.clone(),
            (Some(_), Some(o)) => crate::knowledge::schema_path_beside(o),
            (_, None) => PathBuf::from(match version.as_ref().or(args.netbox_version.as_ref()) {
                Some(v) => format!("netbox-{v}.schema.graphql.gz"),
                None => "netbox.schema.graphql.gz".to_string(),
            }),
        };
        let release = version.as_ref().or(args.netbox_version.as_ref());
        code = code.max(build_graphql(graphql, &out, release.map(String::as_str)));
    }
    code
}

/// Reads a GraphQL schema (SDL or introspection JSON, plain or gzip), checks that it builds,
/// and writes it as gzip-compressed SDL to `out` (the form `check --graphql-schema` and the
/// `graphql_schema` setting read); an introspection result that does not say which input
/// types are one-of gets `@oneOf` where the embedded schema of `release` has it. Returns the
/// exit code.
fn build_graphql(schema: &Path, out: &Path, release: Option<&str>) -> i32 {
    let fail = |msg: String| {
        eprintln!("netbox-lsp index build: {}: {msg}", schema.display());
        2
    };
    let bytes = match crate::safe_read::read(schema, crate::safe_read::FileKind::Schema) {
        Ok(b) => b,
        Err(e) => return fail(format!("cannot read: {e}")),
    };
    let built = match crate::graphql::load_schema_file(&bytes) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let raw = match crate::graphql::schema::maybe_gunzip(&bytes) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let text = String::from_utf8_lossy(&raw);
    let text = text.trim_start_matches('\u{feff}');
    let sdl = if crate::graphql::introspection::looks_like_introspection(text) {
        let one_of = release
            .map(crate::instance::one_of_types)
            .unwrap_or_default();
        match crate::graphql::introspection::introspection_to_sdl_with(text, &|n| {
            one_of.contains(n)
        }) {
            Ok(sdl) => sdl,
            Err(e) => return fail(e),
        }
    } else {
        text.to_string()
    };
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let data = std::io::Write::write_all(&mut gz, sdl.as_bytes()).and_then(|_| gz.finish());
    let data = match data {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot compress: {e}")),
    };
    if let Err(e) = write_output(out, &data) {
        eprintln!(
            "netbox-lsp index build: cannot write {}: {e}",
            out.display()
        );
        return 2;
    }
    let types = built.schema.types.len();
    print_out(&format!(
        "wrote {} ({} bytes)\ngraphql types:             {types}\n",
        out.display(),
        data.len()
    ));
    0
}

/// Builds and writes the filter index from an OpenAPI document; returns its NetBox version, or
/// the exit code on failure.
fn build_rest(
    openapi: &Path,
    output: Option<&Path>,
    options: &BuildOptions,
) -> Result<String, i32> {
    // A compressed file is smaller than the limit on the uncompressed document, and a larger
    // plain one is refused without being read (a named pipe or a device is not opened).
    let cap = options
        .max_document_bytes
        .unwrap_or(crate::index::build::MAX_DOCUMENT_BYTES);
    let read = crate::safe_read::read_capped(openapi, crate::safe_read::FileKind::OpenApi, cap);
    let bytes = match read {
        Ok(b) => b,
        Err(e) => {
            eprintln!(
                "netbox-lsp index build: cannot read {}: {e}",
                openapi.display()
            );
            return Err(2);
        }
    };
    let (index, report) = match build_with_options(&bytes, options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("netbox-lsp index build: {}: {e}", openapi.display());
            return Err(2);
        }
    };
    let out = output
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(format!("netbox-{}.index.json.gz", index.netbox_version)));
    let data = write_index(&index);
    if let Err(e) = write_output(&out, &data) {
        eprintln!(
            "netbox-lsp index build: cannot write {}: {e}",
            out.display()
        );
        return Err(2);
    }
    let mut text = format!(
        "wrote {} ({} bytes)\n{}",
        out.display(),
        data.len(),
        describe(&index)
    );
    text += &format!(
        "choice ids resolved:       {} of {} indexed parameters ({} of {} in the whole document)\n",
        report.enum_ids_resolved,
        report.enum_ids,
        report.document_enum_ids_in_components,
        report.document_enum_ids
    );
    for u in &report.unresolved {
        text += &format!("  unresolved choice id: {u}\n");
    }
    if !report.skipped.is_empty() {
        text += &format!(
            "endpoints skipped:         {} (their `parameters` are not a readable list; no filter findings there)\n",
            report.skipped.len()
        );
        for k in &report.skipped {
            text += &format!("  skipped: /api/{k}/\n");
        }
    }
    text += &refused_lines(&report);
    for note in &report.notes {
        eprintln!("note: {}", super::output::escape::text(note));
    }
    print_out(&text);
    Ok(index.netbox_version.clone())
}

/// The lines of `index build`'s output about paths and parameters left out because their
/// names are not printable ([`crate::index::build::printable_name`]); empty when none was.
pub(crate) fn refused_lines(report: &crate::index::build::BuildReport) -> String {
    if report.refused_count == 0 {
        return String::new();
    }
    let mut text = format!(
        "names refused:             {} (paths or parameters with characters no NetBox name has; left out)\n",
        report.refused_count
    );
    for r in &report.refused {
        text += &format!("  refused: {}\n", super::output::escape::text(r));
    }
    if report.refused_count > report.refused.len() {
        text += &format!(
            "  ... and {} more\n",
            report.refused_count - report.refused.len()
        );
    }
    text
}

/// Runs `index info`; returns the exit code (0, or 2 on I/O, format or version errors).
pub fn info(args: &InfoArgs) -> i32 {
    let index = if let Some(path) = &args.index {
        let bytes = match crate::safe_read::read(path, crate::safe_read::FileKind::Index) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("netbox-lsp index info: cannot read {}: {e}", path.display());
                return 2;
            }
        };
        match load_index(&bytes) {
            Ok(i) => i,
            Err(e) => {
                eprintln!("netbox-lsp index info: {}: {e}", path.display());
                return 2;
            }
        }
    } else {
        let sel = match embedded::select(args.netbox_version.as_deref()) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("netbox-lsp index info: {e}");
                return 2;
            }
        };
        if let Some(note) = &sel.note {
            eprintln!("note: {note}");
        }
        (*embedded::embedded_index(sel.version)).clone()
    };
    print_out(&describe(&index));
    0
}

/// Writes to stdout, ignoring a closed pipe (`index info | head -1`) instead of panicking.
pub(crate) fn print_out(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// The lines `index info` prints: version, format, source hash and counts (and, for an index
/// built from an instance, its stamp: URL, date, plugins, custom fields, inputs hash).
pub fn describe(index: &FilterIndex) -> String {
    let mut text = describe_counts(index);
    if let Some(inst) = &index.instance {
        let plugins: Vec<String> = inst
            .plugins
            .iter()
            .map(|(k, v)| super::output::escape::text(&format!("{k} {v}")).into_owned())
            .collect();
        text += &format!(
            "built from:                {}\nbuilt at:                  {}\nplugins:                   {}\ncustom fields:             {}\ninputs sha256:             {}\n",
            if inst.url.is_empty() { "files".into() } else { super::output::escape::text(&inst.url) },
            inst.built,
            if plugins.is_empty() { "none".to_string() } else { plugins.join(", ") },
            inst.custom_fields.as_ref().map_or("not given".to_string(), |c| c.len().to_string()),
            inst.inputs_sha256
        );
    }
    text
}

fn describe_counts(index: &FilterIndex) -> String {
    format!(
        "NetBox version:            {}\n\
         index format:              {}\n\
         source sha256:             {}\n\
         endpoints:                 {}\n\
         object types:              {}\n\
         parameters:                {}\n\
         parameters with choices:   {}\n\
         choice sets:               {}\n\
         response fields:           {} names in {} sets, {} endpoints\n",
        super::output::escape::text(&index.netbox_version),
        index.format,
        super::output::escape::text(&index.source_sha256),
        index.endpoints.len(),
        index.object_types.len(),
        index.parameter_count(),
        index.parameters_with_choices(),
        index.choice_sets.len(),
        index.response_fields.name_count(),
        index.response_fields.set_count(),
        index
            .endpoints
            .values()
            .filter(|e| e.fields.is_some())
            .count(),
    )
}

/// Writes an output file of `index build`: to a temporary file in the same folder, renamed
/// over `path` once complete, so a reader (or a kill) never sees half an index, and a
/// symbolic link at `path` is replaced, not followed into another folder. A regular file that
/// was there keeps its permissions; a new file gets 0644 on Unix.
pub fn write_output(path: &Path, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // An `index build` killed between its write and its rename left its temporary file here.
    crate::leftovers::sweep(dir, ".netbox-lsp-index-");
    let mut tmp = tempfile::Builder::new()
        .prefix(".netbox-lsp-index-")
        .tempfile_in(dir)?;
    tmp.write_all(data)?;
    tmp.as_file().sync_all()?;
    let perms = match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => Some(m.permissions()),
        _ => None,
    };
    #[cfg(unix)]
    let perms = perms.or_else(|| {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::Permissions::from_mode(0o644))
    });
    if let Some(p) = perms {
        std::fs::set_permissions(tmp.path(), p)?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod write_tests {
    use super::*;

    /// The temporary file of an `index build` killed before its rename is removed by the
    /// next build writing there (stale: older than `leftovers::STALE`); the output is written.
    #[test]
    fn a_killed_builds_temporary_file_is_swept() {
        let tmp = tempfile::tempdir().unwrap();
        let left = tmp.path().join(".netbox-lsp-index-k1LLed");
        std::fs::write(&left, "half an index").unwrap();
        let old = std::time::SystemTime::now()
            - crate::leftovers::STALE
            - std::time::Duration::from_secs(1);
        std::fs::File::options()
            .write(true)
            .open(&left)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let out = tmp.path().join("netbox-4.7.3.index.json.gz");
        write_output(&out, b"new").unwrap();
        assert!(!left.exists());
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
    }

    /// A symbolic link at the output path is replaced by the file, and its target (in
    /// another folder) is left alone; no temporary file stays behind.
    #[cfg(unix)]
    #[test]
    fn output_replaces_a_link_without_following_it() {
        let tmp = tempfile::tempdir().unwrap();
        let (here, there) = (tmp.path().join("here"), tmp.path().join("there"));
        std::fs::create_dir_all(&here).unwrap();
        std::fs::create_dir_all(&there).unwrap();
        std::fs::write(there.join("precious"), "keep").unwrap();
        let out = here.join("x.index.json.gz");
        std::os::unix::fs::symlink(there.join("precious"), &out).unwrap();
        write_output(&out, b"new").unwrap();
        assert_eq!(
            std::fs::read_to_string(there.join("precious")).unwrap(),
            "keep"
        );
        assert!(std::fs::symlink_metadata(&out).unwrap().is_file());
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(&here).unwrap().count(), 1);
    }
}
