//! `netbox-lsp release add | review | remove`: a NetBox release's files in a checkout of this
//! project, and its review sheet (`crate::release`). For maintainers: `scripts/add-release.sh`
//! captures a release from the lab and calls `release add`; CONTRIBUTING.md "Adding a NetBox
//! release" is the recipe. Not shown in `--help`.

use crate::index::load::load_index;
use crate::index::FilterIndex;
use crate::release::{files, sheet, source::Tree, sweep};
use crate::safe_read::FileKind;
use crate::version::Version;
use std::path::{Path, PathBuf};

/// `release` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum ReleaseCommand {
    /// Write a captured release into the checkout (index, schema, `RELEASES` row, the table of
    /// differences, README's release table, the ground-truth fixtures) and print its review
    /// sheet against the previous shipped release.
    Add(AddArgs),
    /// Print the review sheet of a release against the previous shipped one; writes nothing.
    Review(AddArgs),
    /// Take a release out of the checkout: its row, its two index files, its ground-truth
    /// fixtures; the table of differences and README's table follow.
    Remove(RemoveArgs),
    /// Print the probes a fresh live sweep owes the hand rules (`endpoint query kind rule`,
    /// TSV), for `scripts/release/sweep.py`: each server fault, value form and declared null
    /// refusal with its trigger values, on the endpoints of the newest shipped release.
    Probes,
}

/// Arguments of `release add` and `release review`.
#[derive(Debug, Clone, clap::Args)]
pub struct AddArgs {
    /// The release, as PyPI spells it: `4.7.3`, `4.8.0b1`.
    pub version: String,
    /// The folder of the release's captures (`../shared/netbox/v<version>/`): `openapi.json.gz`,
    /// `schema.graphql.gz`, and, when the lab made them, `ground-truth.tsv` and
    /// `ground-truth-sweep.tsv`.
    #[arg(long, value_name = "DIR")]
    pub from: PathBuf,
    /// The checkout to write into.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// The release to compare with (default: the newest shipped release older than VERSION).
    #[arg(long, value_name = "VERSION")]
    pub previous: Option<String>,
    /// The previous release's captures (default: `../shared/netbox/v<previous>/` beside the
    /// checkout, else its sweep and ground-truth fixtures under `tests/fixtures/`).
    #[arg(long, value_name = "DIR")]
    pub previous_from: Option<PathBuf>,
    /// The new release's source: a git tree (`git archive v<version>`) or a wheel's
    /// site-packages.
    #[arg(long, value_name = "DIR")]
    pub source: Option<PathBuf>,
    /// The previous release's source, likewise.
    #[arg(long, value_name = "DIR")]
    pub previous_source: Option<PathBuf>,
    /// Also write the review sheet to this file.
    #[arg(long, value_name = "FILE")]
    pub sheet: Option<PathBuf>,
}

/// Arguments of `release remove`.
#[derive(Debug, Clone, clap::Args)]
pub struct RemoveArgs {
    pub version: String,
    /// The checkout.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
}

/// Runs a `release` subcommand; returns the exit code (0 done, 2 on any error).
pub fn run(cmd: &ReleaseCommand) -> i32 {
    let r = match cmd {
        ReleaseCommand::Add(a) => add(a, true),
        ReleaseCommand::Review(a) => add(a, false),
        ReleaseCommand::Remove(a) => remove(a),
        ReleaseCommand::Probes => {
            print!("{}", probes());
            Ok(())
        }
    };
    match r {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("netbox-lsp release: error: {e}");
            2
        }
    }
}

/// The rule probes as TSV; object types are mapped to endpoints by the newest shipped index.
fn probes() -> String {
    let newest = crate::index::embedded::versions().last();
    let index = newest.map(crate::index::embedded::embedded_index);
    let endpoint_of = |t: &str| index.as_ref().and_then(|i| i.object_types.get(t).cloned());
    crate::release::probes::tsv(&crate::release::probes::all(&endpoint_of))
}

/// The bytes of a capture or an index read as `kind` ([`crate::safe_read`]: a regular file
/// within the kind's cap); errors name the file.
fn read(p: &Path, kind: FileKind) -> Result<Vec<u8>, String> {
    crate::safe_read::read(p, kind).map_err(|e| format!("{}: {e}", p.display()))
}

/// The text of a source file of the checkout.
fn read_text(p: &Path) -> Result<String, String> {
    let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8", p.display()))
}

fn write(p: &Path, bytes: &[u8], wrote: &mut Vec<String>, root: &Path) -> Result<(), String> {
    if std::fs::read(p).ok().as_deref() == Some(bytes) {
        return Ok(());
    }
    if let Some(dir) = p.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    wrote.push(p.strip_prefix(root).unwrap_or(p).display().to_string());
    Ok(())
}

fn index_path(root: &Path, v: &str) -> PathBuf {
    root.join(format!("index/netbox-{v}.index.json.gz"))
}

fn schema_path(root: &Path, v: &str) -> PathBuf {
    root.join(format!("index/netbox-{v}.schema.graphql.gz"))
}

const EMBEDDED: &str = "src/index/embedded.rs";

/// The indexes of `versions`, from the checkout's `index/`.
fn indexes(root: &Path, versions: &[String]) -> Result<Vec<FilterIndex>, String> {
    versions
        .iter()
        .map(|v| {
            let p = index_path(root, v);
            load_index(&read(&p, FileKind::Index)?).map_err(|e| format!("{}: {e}", p.display()))
        })
        .collect()
}

/// Regenerates the derived files of the checkout's release table: the table of differences
/// and README's release table.
fn derived(root: &Path, versions: &[String], wrote: &mut Vec<String>) -> Result<(), String> {
    let all = indexes(root, versions)?;
    let refs: Vec<&FilterIndex> = all.iter().collect();
    let table = crate::rest::versions::render_table(&refs);
    write(
        &root.join("index/version-differences.tsv"),
        table.as_bytes(),
        wrote,
        root,
    )?;
    let readme_path = root.join("README.md");
    if let Ok(readme) = std::fs::read_to_string(&readme_path) {
        if let Some(t) = files::readme_table(&readme, &refs) {
            write(&readme_path, t.as_bytes(), wrote, root)?;
        }
    }
    Ok(())
}

/// The captures of the previous release: `--previous-from`, else `../shared/netbox/v<p>/`.
fn previous_dir(a: &AddArgs, p: &str) -> Option<PathBuf> {
    a.previous_from.clone().or_else(|| {
        let shared = a.root.join(format!("../shared/netbox/v{p}"));
        shared.is_dir().then_some(shared)
    })
}

/// A TSV of rows, if the file is there.
fn rows_of(p: &Path) -> Result<Option<Vec<sweep::Row>>, String> {
    match std::fs::read_to_string(p) {
        Ok(t) => sweep::parse(&t)
            .map(Some)
            .map_err(|e| format!("{}: {e}", p.display())),
        Err(_) => Ok(None),
    }
}

fn add(a: &AddArgs, write_files: bool) -> Result<(), String> {
    let v = a.version.trim();
    let want = Version::parse(v).ok_or_else(|| format!("{v}: not a NetBox version"))?;
    let root = a.root.as_path();
    let embedded_rs = read_text(&root.join(EMBEDDED))?;
    let shipped = files::rows(&embedded_rs);
    let previous = match &a.previous {
        Some(p) => p.clone(),
        None => shipped
            .iter()
            .filter(|s| Version::parse(s).is_some_and(|x| x < want))
            .max_by_key(|s| Version::parse(s))
            .cloned()
            .ok_or_else(|| format!("no shipped release older than {v}: give --previous"))?,
    };
    let from = a.from.as_path();
    let doc = ["openapi.json.gz", "openapi.json"]
        .iter()
        .map(|n| from.join(n))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("{}: no openapi.json.gz", from.display()))?;
    let sdl_gz = from.join("schema.graphql.gz");
    let mut wrote = Vec::new();
    // The schema first: nothing is written for captures that do not read.
    let new_sdl_gz = read(&sdl_gz, FileKind::Schema)?;
    let new_sdl = String::from_utf8(
        crate::graphql::schema::maybe_gunzip(&new_sdl_gz)
            .map_err(|e| format!("{}: {e}", sdl_gz.display()))?,
    )
    .map_err(|_| format!("{}: not UTF-8", sdl_gz.display()))?;
    crate::graphql::schema::NetboxSchema::from_sdl(&new_sdl, v)
        .map_err(|e| format!("{}: {e}", sdl_gz.display()))?;

    // The index, by `index build` itself, into a scratch file that replaces the index only
    // when it is the named release's; for a pre-release its version is stamped as PyPI spells
    // it (the document says `4.8.0-beta1`, or only `4.8.0`).
    let new_index = if write_files {
        let out = index_path(root, v);
        let partial = root.join(format!("index/.netbox-{v}.index.json.gz.partial"));
        let mut argv: Vec<std::ffi::OsString> = ["netbox-lsp", "index", "build", "--openapi"]
            .iter()
            .map(Into::into)
            .collect();
        argv.push(doc.clone().into());
        argv.push("-o".into());
        argv.push(partial.clone().into());
        if want.is_pre_release() {
            argv.push("--netbox-version".into());
            argv.push(v.into());
        }
        let cli = <super::Cli as clap::Parser>::try_parse_from(argv).map_err(|e| e.to_string())?;
        let Some(super::Command::Index {
            command: super::IndexCommand::Build(args),
        }) = cli.command
        else {
            return Err("index build: arguments not understood".into());
        };
        if super::index_cmd::build(&args) != 0 {
            let _ = std::fs::remove_file(&partial);
            return Err(format!("index build of {} failed", doc.display()));
        }
        let bytes = read(&partial, FileKind::Index)?;
        let _ = std::fs::remove_file(&partial);
        let index = load_index(&bytes).map_err(|e| format!("{}: {e}", doc.display()))?;
        if index.netbox_version != v {
            return Err(format!(
                "{} is NetBox {}'s document, not {v}'s",
                doc.display(),
                index.netbox_version
            ));
        }
        write(&out, &bytes, &mut wrote, root)?;
        index
    } else {
        let index = match read(&index_path(root, v), FileKind::Index) {
            Ok(b) => load_index(&b).map_err(|e| e.to_string())?,
            Err(_) => {
                let options = crate::index::build::BuildOptions {
                    netbox_version: want.is_pre_release().then(|| v.to_string()),
                    ..Default::default()
                };
                crate::index::build::build_with_options(&read(&doc, FileKind::OpenApi)?, &options)
                    .map_err(|e| format!("{}: {e}", doc.display()))?
                    .0
            }
        };
        if index.netbox_version != v {
            return Err(format!(
                "{} is NetBox {}'s document, not {v}'s",
                doc.display(),
                index.netbox_version
            ));
        }
        index
    };

    let mut open = Vec::new();
    if write_files {
        write(&schema_path(root, v), &new_sdl_gz, &mut wrote, root)?;
        let (text, replaced) = files::insert_row(&embedded_rs, v)?;
        write(&root.join(EMBEDDED), text.as_bytes(), &mut wrote, root)?;
        for old in &replaced {
            for p in [index_path(root, old), schema_path(root, old)] {
                if std::fs::remove_file(&p).is_ok() {
                    wrote.push(format!("{} (removed: {v} replaces {old})", p.display()));
                }
            }
        }
        derived(root, &files::rows(&text), &mut wrote)?;
        // Ground-truth fixtures, their expected codes carried over from the previous release.
        if let Ok(live) = std::fs::read_to_string(from.join("ground-truth.tsv")) {
            let fx = root.join("tests/fixtures/ground-truth");
            let prev = std::fs::read_to_string(fx.join(format!("v{previous}.tsv"))).ok();
            // The hand review's decisions on rows the previous release cannot carry.
            let reviewed = std::fs::read_to_string(fx.join("reviewed.tsv"))
                .map(|t| files::Reviewed::parse(&t, v))
                .unwrap_or_default();
            let (rest, n) = files::truth_fixture(&live, prev.as_deref(), &reviewed)?;
            write(
                &fx.join(format!("v{v}.tsv")),
                rest.as_bytes(),
                &mut wrote,
                root,
            )?;
            if n > 0 {
                open.push(format!(
                    "{n} rows of tests/fixtures/ground-truth/v{v}.tsv (expected_code `?`)"
                ));
            }
            let gx = root.join("tests/fixtures/graphql-ground-truth");
            let gprev = std::fs::read_to_string(gx.join(format!("v{previous}.tsv"))).ok();
            let (g, n) = files::graphql_fixture(v, &live, gprev.as_deref(), &reviewed)?;
            write(
                &gx.join(format!("v{v}.tsv")),
                g.as_bytes(),
                &mut wrote,
                root,
            )?;
            if n > 0 {
                open.push(format!(
                    "{n} rows of tests/fixtures/graphql-ground-truth/v{v}.tsv (expected_error `?`)"
                ));
            }
        } else {
            open.push(format!(
                "no ground-truth.tsv in {}: no ground-truth fixtures written",
                from.display()
            ));
        }
        if !root.join(format!("tests/fixtures/graphql/{v}")).is_dir() {
            open.push(format!(
                "tests/fixtures/graphql/{v}/: at least one GraphQL document of what {v} changed (section 2 of the sheet)"
            ));
        }
    }

    // The sheet.
    let old_index = load_index(&read(&index_path(root, &previous), FileKind::Index)?)
        .map_err(|e| format!("{}: {e}", index_path(root, &previous).display()))?;
    let old_sdl = read(&schema_path(root, &previous), FileKind::Schema)
        .ok()
        .and_then(|b| crate::graphql::schema::maybe_gunzip(&b).ok())
        .and_then(|b| String::from_utf8(b).ok());
    let pdir = previous_dir(a, &previous);
    let fixtures = root.join("tests/fixtures/ground-truth");
    let old_sweep = match &pdir {
        Some(d) => rows_of(&d.join("ground-truth-sweep.tsv"))?,
        None => None,
    }
    .map_or_else(
        || rows_of(&fixtures.join(format!("v{previous}-sweep.tsv"))),
        |r| Ok(Some(r)),
    )?;
    let old_truth = match &pdir {
        Some(d) => rows_of(&d.join("ground-truth.tsv"))?,
        None => None,
    }
    .map_or_else(
        || rows_of(&fixtures.join(format!("v{previous}.tsv"))),
        |r| Ok(Some(r)),
    )?;
    let new_sweep = rows_of(&from.join("ground-truth-sweep.tsv"))?;
    let new_truth = rows_of(&from.join("ground-truth.tsv"))?;
    let tree = |p: &Option<PathBuf>| p.as_deref().map(Tree::open).transpose();
    let (new_tree, old_tree) = (tree(&a.source)?, tree(&a.previous_source)?);
    let s = sheet::build(&sheet::Inputs {
        previous: &previous,
        new: v,
        old_index: &old_index,
        new_index: &new_index,
        old_sdl: old_sdl.as_deref(),
        new_sdl: Some(&new_sdl),
        old_sweep: old_sweep.as_deref(),
        new_sweep: new_sweep.as_deref(),
        old_truth: old_truth.as_deref(),
        new_truth: new_truth.as_deref(),
        old_tree: old_tree.as_ref(),
        new_tree: new_tree.as_ref(),
    });
    print!("{}", s.text);
    if let Some(p) = &a.sheet {
        std::fs::write(p, &s.text).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    eprintln!(
        "netbox-lsp release: NetBox {v} against {previous}: {} lines of document differences, {} live verdicts changed and {} first seen refused, {} hand-rule rows ({} without a {v} entry); cited source lines: {} unchanged, {} changed, {} gone; sheet: {} lines",
        s.differences,
        s.verdicts_changed,
        s.first_seen,
        s.rules,
        s.unreviewed,
        s.unchanged,
        s.changed,
        s.gone,
        s.text.lines().count()
    );
    if write_files {
        for w in &wrote {
            eprintln!("netbox-lsp release: wrote {w}");
        }
        for o in &open {
            eprintln!("netbox-lsp release: to decide: {o}");
        }
    }
    Ok(())
}

fn remove(a: &RemoveArgs) -> Result<(), String> {
    let v = a.version.trim();
    let root = a.root.as_path();
    let text = files::remove_row(&read_text(&root.join(EMBEDDED))?, v)?;
    let mut wrote = Vec::new();
    write(&root.join(EMBEDDED), text.as_bytes(), &mut wrote, root)?;
    for p in [
        index_path(root, v),
        schema_path(root, v),
        root.join(format!("tests/fixtures/ground-truth/v{v}.tsv")),
        root.join(format!("tests/fixtures/ground-truth/v{v}-sweep.tsv")),
        root.join(format!("tests/fixtures/graphql-ground-truth/v{v}.tsv")),
    ] {
        if std::fs::remove_file(&p).is_ok() {
            wrote.push(format!(
                "{} (removed)",
                p.strip_prefix(root).unwrap_or(&p).display()
            ));
        }
    }
    derived(root, &files::rows(&text), &mut wrote)?;
    for w in &wrote {
        eprintln!("netbox-lsp release: wrote {w}");
    }
    Ok(())
}
