//! One build: the cached knowledge at once, a status check, and a rebuild with `$/progress`
//! when the cache is stale.

use super::cache::{knowledge_of, load_cache, save_cache};
use super::slot::{install, Run};
use super::user::UserInstance;
use crate::index::FilterIndex;
use crate::instance::http::{Client, Options};
use crate::server::{lock, Backend};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tower_lsp_server::ls_types::*;

/// Serialises cache writes with the cancelled check, so a build stopped while it saves never
/// writes after the build that replaced it.
static SAVING: Mutex<()> = Mutex::new(());

pub(super) async fn refresh(b: &Backend, user: &UserInstance, force: bool, run: &Arc<Run>) {
    let cached = tokio::task::spawn_blocking({
        let url = user.url.clone();
        move || load_cache(&url)
    })
    .await
    .ok()
    .flatten();
    if let Some(k) = &cached {
        install(b, k.clone());
        b.log(
            MessageType::INFO,
            format!("using the cached knowledge of {}", user.url),
        )
        .await;
    }
    let token = match user.token() {
        Ok(t) => t,
        Err(e) => {
            b.client
                .show_message(MessageType::ERROR, format!("netbox-lsp: {e}"))
                .await;
            return;
        }
    };
    let client = match Client::new(
        &user.url,
        token,
        Options {
            timeout: Duration::from_secs(120),
            ..Options::default()
        },
    ) {
        Ok(c) => {
            let c = Arc::new(c);
            *lock(&run.client) = Some(c.clone());
            if run.is_cancelled() {
                c.shutdown();
            }
            c
        }
        Err(e) => {
            b.client
                .show_message(MessageType::ERROR, format!("netbox-lsp: {}: {e}", user.url))
                .await;
            return;
        }
    };
    let c = client.clone();
    let status = tokio::task::spawn_blocking(move || {
        c.get("/api/status/")
            .and_then(|s| crate::index::instance::parse_status(&s))
    })
    .await
    .unwrap_or_else(|_| Err("the status check failed".into()));
    let status = match status {
        Ok(s) => s,
        // Cancelled: its canceller speaks (the shut-down client's error is not news).
        Err(_) if run.is_cancelled() => return,
        Err(e) => {
            b.client
                .show_message(
                    MessageType::WARNING,
                    format!("netbox-lsp: cannot reach your NetBox: {e}"),
                )
                .await;
            return;
        }
    };
    let stamp = cached
        .as_ref()
        .and_then(|k| k.index.as_ref())
        .and_then(|i| i.instance.as_deref().cloned());
    if let (Some(s), false) = (&stamp, force) {
        if s.netbox_version == status.netbox_version && s.plugins == status.plugins {
            return;
        }
        b.client
            .show_message(
                MessageType::WARNING,
                format!(
                    "netbox-lsp: the knowledge of {} is stale (built for NetBox {}, the instance now runs {}{}); rebuilding",
                    user.url,
                    s.netbox_version,
                    status.netbox_version,
                    if s.plugins != status.plugins { " with other plugins" } else { "" }
                ),
            )
            .await;
    }
    rebuild(b, user, client, run).await;
}

async fn rebuild(b: &Backend, user: &UserInstance, client: Arc<Client>, run: &Arc<Run>) {
    let token = run.token.clone();
    let progress = match b.client.create_work_done_progress(token.clone()).await {
        Ok(()) => {
            run.progress.store(true, Ordering::SeqCst);
            Some(
                b.client
                    .progress(token, "NetBox instance knowledge")
                    .with_message(format!("fetching from {}", user.url))
                    .with_cancel_button()
                    .begin()
                    .await,
            )
        }
        Err(_) => None,
    };
    let this = run.clone();
    let url = user.url.clone();
    // Each step of the fetch becomes a `$/progress` report (the OpenAPI document alone can take
    // 10–30 s on NetBox's side).
    let (tx, mut steps) = tokio::sync::mpsc::unbounded_channel::<String>();
    let mut task = tokio::task::spawn_blocking(move || {
        let step = |s: &str| {
            let _ = tx.send(s.to_string());
        };
        let inputs = crate::instance::fetch_with(&client, &step)?;
        step("building the index");
        let built = crate::instance::build(&inputs, client.base(), &Default::default())?;
        let _saving = lock(&SAVING);
        if this.is_cancelled() {
            return Err("cancelled".into());
        }
        save_cache(&url, &built.index, built.sdl.as_deref())?;
        Ok::<_, String>(built)
    });
    let built = loop {
        tokio::select! {
            Some(step) = steps.recv() => {
                if let Some(p) = &progress {
                    p.report_with_message(step, None).await;
                }
            }
            done = &mut task => break done.unwrap_or_else(|_| Err("the build failed".into())),
        }
    };
    if run.is_cancelled() {
        // Stopped while it finished: whatever it got is not installed.
        if let Some(p) = progress {
            run.progress.store(false, Ordering::SeqCst);
            p.finish_with_message("cancelled").await;
        }
        return;
    }
    match built {
        Ok(built) => {
            let summary = summary(&built.index);
            let knowledge = knowledge_of(built.index, built.sdl.as_deref());
            install(b, knowledge);
            b.state.instance.release(run);
            if let Some(p) = progress {
                p.finish_with_message("ready").await;
            }
            b.client
                .show_message(
                    MessageType::INFO,
                    format!("netbox-lsp: knowledge of {} ready: {summary}", user.url),
                )
                .await;
        }
        Err(e) => {
            b.state.instance.release(run);
            if let Some(p) = progress {
                p.finish_with_message("failed").await;
            }
            b.client
                .show_message(
                    MessageType::ERROR,
                    format!(
                        "netbox-lsp: cannot build the knowledge of {}: {e}",
                        user.url
                    ),
                )
                .await;
        }
    }
}

fn summary(index: &FilterIndex) -> String {
    let Some(i) = index.instance.as_deref() else {
        return format!("NetBox {}", index.netbox_version);
    };
    let plugins: Vec<String> = i.plugins.iter().map(|(k, v)| format!("{k} {v}")).collect();
    format!(
        "NetBox {}, plugins: {}, {} custom fields",
        i.netbox_version,
        if plugins.is_empty() {
            "none".into()
        } else {
            plugins.join(", ")
        },
        i.custom_fields.as_ref().map_or(0, Vec::len)
    )
}
