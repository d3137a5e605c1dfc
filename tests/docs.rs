//! The docs say what the files do (issue 22 §5): the docs' editor snippets, file type and
//! extension lists and `check` synopsis, and every `$ netbox-lsp …` sample of README and docs
//! (issue 35 §2), are compared with what the tool and the editor configs really hold — `editors/nvim/lsp/netbox_lsp.lua`, the VS Code manifest and sources,
//! `.pre-commit-hooks.yaml`, `netbox-lsp check --help` and the extension list the walker reads
//! ([`netbox_lsp::extract::EXTENSIONS`]).

use netbox_lsp::extract::{HostKind, EXTENSIONS};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn read(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The single-quoted words of the first `key = { ... }` in `text` after `from`.
fn lua_list(text: &str, key: &str) -> Vec<String> {
    let start = text
        .find(&format!("{key} = {{"))
        .unwrap_or_else(|| panic!("no `{key} = {{` in {text:.200}"));
    let rest = &text[start..];
    let body = &rest[..rest.find('}').expect("closing brace")];
    body.split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The bodies of the ```lua blocks in a Markdown text.
fn lua_blocks(md: &str) -> Vec<&str> {
    md.split("```lua\n")
        .skip(1)
        .map(|b| &b[..b.find("```").expect("closed block")])
        .collect()
}

/// The Markdown section that starts at the first line beginning with `heading`, up to the next
/// heading of any level.
fn section<'a>(md: &'a str, heading: &str) -> &'a str {
    let start = md.find(heading).unwrap_or_else(|| panic!("no `{heading}`"));
    let rest = &md[start + heading.len()..];
    let end = rest.find("\n#").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

fn check_help() -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_netbox-lsp"))
        .args(["check", "--help"])
        .output()
        .expect("run netbox-lsp check --help");
    assert!(out.status.success());
    String::from_utf8(out.stdout).expect("utf-8 help")
}

/// `.md`, `.py`, ... as written in a sentence: every `.ext` word (backticked or not).
fn dotted_extensions(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let b = text.as_bytes();
    for (i, _) in text.match_indices('.') {
        let before_ok = i == 0 || matches!(b[i - 1], b' ' | b'`' | b'(' | b'\n' | b',');
        let word: String = text[i + 1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let after = text[i + 1 + word.len()..].chars().next();
        if before_ok
            && !word.is_empty()
            && matches!(after, Some('`' | ',' | ' ' | ')' | '\n' | ';') | None)
        {
            out.insert(word);
        }
    }
    out
}

fn extensions() -> BTreeSet<String> {
    EXTENSIONS.iter().map(|e| e.to_string()).collect()
}

#[test]
fn every_listed_extension_is_read_and_the_walker_list_is_complete() {
    for ext in EXTENSIONS {
        assert!(HostKind::from_extension(ext).is_some(), "{ext}");
        assert!(HostKind::from_path(Path::new(&format!("a/b.{}", ext.to_uppercase()))).is_some());
    }
    for not_read in ["rs", "toml", "html", "csv", "ini", "cfg", "xml", "lua"] {
        assert!(HostKind::from_extension(not_read).is_none(), "{not_read}");
    }
}

#[test]
fn neovim_snippets_match_the_shipped_config() {
    let lua = read("editors/nvim/lsp/netbox_lsp.lua");
    let config_part = &lua[lua.find("return {").expect("return {")..];
    let filetypes = lua_list(config_part, "filetypes");
    for ft in [
        "markdown", "python", "yaml", "json", "graphql", "text", "sh", "bash", "jinja",
    ] {
        assert!(
            filetypes.iter().any(|f| f == ft),
            "{ft} missing in netbox_lsp.lua"
        );
    }
    let commands: Vec<&str> = lua
        .split("nvim_buf_create_user_command(bufnr, '")
        .skip(1)
        .map(|s| &s[..s.find('\'').unwrap()])
        .collect();
    assert_eq!(
        commands,
        ["NetboxRebuildIndex", "NetboxVerify", "NetboxVerifyCall"]
    );
    for (doc, heading) in [
        ("docs/editor.md", Some("## Neovim")),
        ("editors/nvim/README.md", None),
    ] {
        let text = read(doc);
        let part = heading.map_or(text.as_str(), |h| section(&text, h));
        let heading = heading.unwrap_or("the whole file");
        let blocks = lua_blocks(part);
        assert!(!blocks.is_empty(), "{doc}: no lua snippet under {heading}");
        for block in blocks.iter().filter(|b| b.contains("filetypes")) {
            assert_eq!(lua_list(block, "filetypes"), filetypes, "{doc}: {block}");
            assert!(
                block.contains("cmd = { 'netbox-lsp', '--stdio' }"),
                "{doc}: {block}"
            );
        }
        for c in &commands {
            assert!(
                part.contains(&format!(":{c}")),
                "{doc} does not name :{c} under {heading}"
            );
        }
    }
}

#[test]
fn vscode_manifest_sources_and_readme_name_the_same_languages() {
    let manifest: serde_json::Value =
        serde_json::from_str(&read("editors/vscode/package.json")).expect("package.json");
    let activation: Vec<String> = manifest["activationEvents"]
        .as_array()
        .expect("activationEvents")
        .iter()
        .filter_map(|e| e.as_str()?.strip_prefix("onLanguage:").map(str::to_string))
        .collect();
    let config = read("editors/vscode/src/config.ts");
    let line = config
        .lines()
        .find(|l| l.starts_with("export const LANGUAGES = ["))
        .expect("LANGUAGES in config.ts");
    let languages: Vec<String> = line
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    assert_eq!(
        activation, languages,
        "activationEvents vs config.ts LANGUAGES"
    );
    // How the docs name each language id.
    let named = |id: &str| match id {
        "markdown" => "Markdown",
        "python" => "Python",
        "yaml" => "YAML",
        "json" => "JSON",
        "graphql" => "GraphQL",
        "plaintext" => "plain text",
        "shellscript" => "shell scripts",
        other => panic!("a new VS Code language `{other}`: name it in README and docs/editor.md"),
    };
    let readme = read("README.md");
    let editor = read("docs/editor.md");
    for (doc, part) in [
        ("README.md", section(&readme, "**VS Code** —")),
        ("docs/editor.md", section(&editor, "## VS Code")),
    ] {
        let sentence = part
            .trim_start()
            .split("\n\n")
            .next()
            .unwrap_or(part)
            .replace('\n', " ");
        for id in &languages {
            assert!(
                sentence.contains(named(id)),
                "{doc}: `{}` missing in: {sentence}",
                named(id)
            );
        }
    }
}

#[test]
fn extension_lists_match_what_the_walker_reads() {
    let want = extensions();
    // `check --help` (the PATHS argument).
    let help = check_help();
    let paths_help = &help[help
        .find("files ending in")
        .expect("the extensions in --help")..];
    let paths_help = &paths_help[..paths_help.find("are read").expect("end of the list")];
    assert_eq!(
        dotted_extensions(paths_help),
        want,
        "check --help:\n{paths_help}"
    );
    // docs/output-formats.md's PATHS paragraph (README links there).
    let formats = read("docs/output-formats.md");
    let para = &formats[formats
        .find("Only files with a known extension are read:")
        .expect("PATHS paragraph")..];
    let para = &para[..para.find(". A named folder").expect("end of the list")];
    assert_eq!(
        dotted_extensions(para),
        want,
        "docs/output-formats.md: {para}"
    );
    // The pre-commit hook's `files:` pattern takes exactly these extensions.
    let hooks = read(".pre-commit-hooks.yaml");
    let pattern = hooks
        .lines()
        .find_map(|l| l.trim().strip_prefix("files: "))
        .expect("files: in .pre-commit-hooks.yaml");
    let re = regex::Regex::new(pattern).expect("files: is a regex");
    for ext in &want {
        assert!(
            re.is_match(&format!("skills/a.{ext}")),
            "hook files: misses .{ext}"
        );
    }
    for other in ["rs", "toml", "html", "jinja3", "mdown", "lua"] {
        assert!(
            !re.is_match(&format!("a.{other}")),
            "hook files: takes .{other}"
        );
    }
}

#[test]
fn check_synopses_name_every_option_of_check_help() {
    let help = check_help();
    let options: BTreeSet<&str> = help
        .split_whitespace()
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()))
        .filter(|w| !matches!(*w, "--help" | "--version"))
        .collect();
    assert!(options.contains("--stdin-filename"), "{options:?}");
    let formats = read("docs/output-formats.md");
    for (doc, text) in [("docs/output-formats.md", &formats)] {
        let start = text
            .find("```\nnetbox-lsp check [")
            .expect("synopsis block");
        let block = &text[start..start + text[start + 3..].find("```").expect("closed") + 3];
        for o in &options {
            assert!(
                block.contains(&format!("[{o}")) || block.contains(&format!("| {o}")),
                "{doc}: the synopsis lacks {o}:\n{block}"
            );
        }
    }
}

/// Every `$ netbox-lsp …` sample in README.md and docs/*.md shows what the binary prints today
/// (the model: tests/index.rs `readme_release_table_is_the_release_table`). In a fenced block,
/// a line `$ netbox-lsp ARGS` is run (in the repository, or in the folder of a `$ cd DIR` line
/// before it) and the lines after it, up to the next `$ ` line or the end of the block, must be
/// its stdout then its stderr. A command with no lines after it shows no output (the upgrade
/// example pins its output in a snapshot test) and is not run; nor are `--live` and
/// `index build --url` samples, which need a NetBox.
#[test]
fn samples_in_readme_and_docs_are_todays_output() {
    let mut docs = vec!["README.md".to_string()];
    let mut pages: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs"))
            .expect("docs/")
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                name.ends_with(".md").then(|| format!("docs/{name}"))
            })
            .collect();
    pages.sort();
    docs.extend(pages);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    let mut wrong = Vec::new();
    for doc in &docs {
        let text = read(doc);
        let mut in_block = false;
        let mut cwd = root.to_path_buf();
        let mut lines = text.lines().peekable();
        while let Some(line) = lines.next() {
            if line.starts_with("```") {
                in_block = !in_block;
                cwd = root.to_path_buf();
                continue;
            }
            if !in_block {
                continue;
            }
            if let Some(dir) = line.strip_prefix("$ cd ") {
                cwd = root.join(dir.trim());
                continue;
            }
            let Some(args) = line.strip_prefix("$ netbox-lsp ") else {
                continue;
            };
            let mut shown = Vec::new();
            while let Some(next) = lines.peek() {
                if next.starts_with("```") || next.starts_with("$ ") {
                    break;
                }
                shown.push(lines.next().unwrap().to_string());
            }
            if shown.is_empty() || args.contains("--live") || args.contains("--url") {
                continue;
            }
            let argv: Vec<&str> = args.split_whitespace().collect();
            let out = Command::new(env!("CARGO_BIN_EXE_netbox-lsp"))
                .args(&argv)
                .current_dir(&cwd)
                .env_remove("NO_COLOR")
                .output()
                .expect("run netbox-lsp");
            let now: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .chain(String::from_utf8_lossy(&out.stderr).lines())
                .map(str::to_string)
                .collect();
            checked += 1;
            if now != shown {
                wrong.push(format!(
                    "{doc}: `$ netbox-lsp {args}` prints today:\n{}\n",
                    now.join("\n")
                ));
            }
        }
    }
    assert!(checked >= 3, "only {checked} samples found");
    assert!(
        wrong.is_empty(),
        "samples that differ from today's output; write these lines:\n{}",
        wrong.join("\n")
    );
}
