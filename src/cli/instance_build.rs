//! `index build --url URL` (fetch from a live NetBox) and `index build --openapi F --status F
//! --custom-fields F --choice-sets F [--graphql F]` (the same answers saved as files): one
//! instance index plus the GraphQL schema beside it.

use super::index_cmd::{describe, print_out, write_output, BuildArgs, InstanceArgs};
use crate::index::load::write_index;
use crate::instance::http::{Client, Options};
use crate::instance::token::Token;
use crate::instance::{build as build_index, fetch, Inputs};
use crate::knowledge::schema_path_beside;
use crate::safe_read::FileKind;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Runs the instance build; returns the exit code (0 written, 2 on any error).
pub fn build(args: &BuildArgs) -> i32 {
    match run(args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("netbox-lsp index build: {e}");
            2
        }
    }
}

/// Seconds `index build --url` waits for an answer to start unless `--timeout` says otherwise.
const BUILD_TIMEOUT: u64 = 120;

/// The token the user named: `--token-file`, `--token-env`, else `NETBOX_TOKEN` when set.
fn token(args: &InstanceArgs) -> Result<Option<Token>, String> {
    if let Some(f) = &args.token_file {
        return Token::from_file(f).map(Some);
    }
    if let Some(name) = &args.token_env {
        return Token::from_env(name).map(Some);
    }
    Ok(std::env::var("NETBOX_TOKEN")
        .ok()
        .and_then(|v| Token::new(&v)))
}

/// The client for the NetBox at `url` with the instance options (`--token-env`/`--token-file`
/// or `NETBOX_TOKEN`, `--ca-cert`, `--insecure` with a warning, `--timeout` else
/// `default_timeout` seconds, `--verbose`); `progress` prints bytes and seconds on stderr.
pub(crate) fn client(
    args: &InstanceArgs,
    url: &str,
    default_timeout: u64,
    progress: bool,
) -> Result<Client, String> {
    // The URL is checked before any warning names it: one refused for a user name, password or
    // query string (secrets put where they do not belong) is not printed back.
    let shown = crate::instance::http::normalise_url(url)?;
    if args.insecure {
        eprintln!(
            "netbox-lsp: warning: --insecure: the certificate of {shown} is NOT checked; anyone on the path can read the token and forge the answers"
        );
    }
    let token = token(args)?;
    if token.is_some() && shown.to_ascii_lowercase().starts_with("http://") {
        eprintln!(
            "netbox-lsp: warning: {shown} is plain http: the API token crosses the network unencrypted; use https:// if the NetBox serves it"
        );
    }
    Client::new(
        url,
        token,
        Options {
            timeout: Duration::from_secs(args.timeout.unwrap_or(default_timeout).max(1)),
            ca_cert: args.ca_cert.clone(),
            insecure: args.insecure,
            progress,
            verbose: args.verbose,
        },
    )
}

/// The bytes of an input file read as `kind` ([`crate::safe_read`]: regular files only, at
/// most `cap` bytes); errors name the file.
fn read(path: &Path, kind: FileKind, cap: u64) -> Result<Vec<u8>, String> {
    crate::safe_read::read_capped(path, kind, cap)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn run(args: &BuildArgs) -> Result<(), String> {
    let options = args.build_options();
    let (inputs, url) = match &args.instance.url {
        Some(url) => {
            let client = client(&args.instance, url, BUILD_TIMEOUT, true)?;
            let base = client.base().to_string();
            (fetch(&client)?, base)
        }
        None => {
            let openapi = args.openapi.as_deref().ok_or(
                "give --openapi FILE with --status/--custom-fields/--choice-sets (or --url)",
            )?;
            let opt = |p: &Option<PathBuf>, kind: FileKind| {
                p.as_deref().map(|p| read(p, kind, kind.cap())).transpose()
            };
            let document_cap = options
                .max_document_bytes
                .unwrap_or(crate::index::build::MAX_DOCUMENT_BYTES);
            let inputs = Inputs {
                status: opt(&args.status, FileKind::Answer)?,
                openapi: read(openapi, FileKind::OpenApi, document_cap)?,
                graphql: opt(&args.graphql, FileKind::Schema)?,
                custom_fields: opt(&args.custom_fields, FileKind::Answer)?
                    .into_iter()
                    .collect(),
                choice_sets: opt(&args.choice_sets, FileKind::Answer)?
                    .into_iter()
                    .collect(),
            };
            (inputs, String::new())
        }
    };
    let built = build_index(&inputs, &url, &options)?;
    for note in &built.report.notes {
        // The OpenAPI `info.version` note is moot when /api/status/ gave the version.
        if inputs.status.is_none() || note.starts_with("/api/status/") {
            eprintln!("note: {}", super::output::escape::text(note));
        }
    }
    let index = &built.index;
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("netbox-{}.index.json.gz", index.netbox_version)));
    let data = write_index(index);
    write_output(&out, &data).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let mut text = format!(
        "wrote {} ({} bytes)\n{}",
        out.display(),
        data.len(),
        describe(index)
    );
    text += &super::index_cmd::refused_lines(&built.report);
    if let Some(sdl) = &built.sdl {
        let path = schema_path_beside(&out);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let bytes = std::io::Write::write_all(&mut gz, sdl.as_bytes())
            .and_then(|_| gz.finish())
            .map_err(|e| format!("cannot compress the GraphQL schema: {e}"))?;
        write_output(&path, &bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        text += &format!("wrote {} ({} bytes)\n", path.display(), bytes.len());
    }
    print_out(&text);
    Ok(())
}
