//! The user's own NetBox as the server's knowledge (issue 10 §3–4).
//!
//! - Which instance: only the user's own settings name it: `initializationOptions.instance`
//!   (`url`, `tokenEnv`, `tokenFile`; the VS Code extension passes only user-level values) or
//!   `~/.config/netbox-lsp/config.toml` (`$XDG_CONFIG_HOME`), table `[instance]`. A workspace
//!   (`netbox-lsp.toml`, workspace settings) may name a URL ([`Settings::instance_url`]), but no
//!   request is made to it unless the user's settings name the same URL, or the user's settings
//!   give a token source (`tokenEnv` / `tokenFile`, with or without a URL) and the user allows
//!   that URL once through `window/showMessageRequest`. "Allow" is remembered per normalised URL
//!   in [`approvals_file`]; "Not now" (or no answer) is asked again only after a restart.
//!   Without an instance in the user's settings the server never opens a connection.
//! - The token comes from the environment variable or file those settings name; it is never
//!   logged, shown or cached.
//! - The built index and schema are cached under `$XDG_CACHE_HOME/netbox-lsp/` (else
//!   `~/.cache/netbox-lsp/`), in a folder keyed by the URL; the index's stamp holds the NetBox
//!   version, plugins and input hash. On start the cached knowledge serves at once; a cheap
//!   `GET /api/status/` then tells whether it is stale (another version or other plugins), and
//!   a rebuild runs in the background with `$/progress` while the knowledge in use keeps
//!   serving. `workspace/executeCommand` `netbox-lsp.rebuildIndex` rebuilds on demand.
//! - A build can be stopped: its work-done progress is cancellable (`window/workDoneProgress/cancel`
//!   stops it), and `rebuildIndex` while one runs stops that one and starts again (a NetBox that
//!   trickles its answer would otherwise hold the build for the 4 × 120 s request deadline).
//!   A stopped build's requests are shut down, it writes no cache and installs nothing, its
//!   progress ends with "cancelled" and `window/showMessage` says what happened.
//!
//! Files by job: [`user`] (which instance the user's settings name), [`paths`] (the XDG
//! folders), [`approval`] (a workspace-named URL the user allows), [`slot`] (the server's
//! instance state and the knowledge installed), [`run`] (starting and cancelling a build),
//! [`refresh`] (status check and rebuild), [`cache`] and [`private`] (the cache on disk,
//! user-only files).

mod approval;
mod cache;
mod paths;
mod private;
mod refresh;
mod run;
mod slot;
mod user;

pub use approval::check_workspace_url;
pub use paths::{approvals_file, cache_dir, read_user_config, user_config_file};
pub use run::{cancel_progress, execute_command, start, REBUILD_COMMAND};
pub use slot::{knowledge_for, Slot};
pub(super) use user::live_instance;
pub use user::{take_from_init, UserInstance};
