//! What a live check never asks, whatever a document says (issue 33 §1): the counts of
//! sensitive endpoints and of filters on secret fields are an oracle. A file merged into a
//! repository whose nightly CI runs `--live` could ask `/api/users/tokens/?key__isw=ab` and read
//! the count in the job log, one character at a time (on NetBox ≤ 4.4 the v1 key is the secret
//! itself). Pure: names in, a reason out.
//!
//! - Endpoints: the whole `users` app (users, groups, tokens, permissions, owners, the user's
//!   config), configuration revisions, and any plugin endpoint whose name speaks of secrets,
//!   tokens, passwords, credentials or keys.
//! - Fields: the filters on secret values that NetBox releases 4.3.3–4.7.3 have (their OpenAPI
//!   `parameters`: `secret` on `/api/extras/webhooks/`, `auth_key` on `/api/ipam/fhrp-groups/`,
//!   `preshared_key` on `/api/vpn/ike-policies/`, `auth_psk` on `/api/wireless/wireless-lans/`
//!   and `/wireless-links/`, `key` on `/api/users/tokens/`), the fields their OpenAPI marks
//!   `writeOnly` (`password`, the 4.3–4.4 token `key`), and any filter whose name speaks of the
//!   same things (a plugin's `api_key`).
//! - GraphQL: the same endpoints' root fields (`user_list`, `group`, …), and any argument field
//!   with a secret's name (`filters: {secret: {starts_with: "a"}}`).

/// Why an endpoint (an index key: `users/tokens`, `plugins/secrets/secrets`) is never probed;
/// `None` when it may be.
pub fn endpoint(key: &str) -> Option<&'static str> {
    let parts: Vec<&str> = key.split('/').collect();
    match parts.as_slice() {
        ["users", ..] => Some("users, groups, tokens, permissions and owners are never probed"),
        [_, "config-revisions"] => Some("configuration revisions are never probed"),
        ["plugins", rest @ ..] if rest.iter().any(|p| secret_word(p)) => {
            Some("a plugin endpoint that may hold secrets is never probed")
        }
        _ => None,
    }
}

/// True when a filter (`key__isw`, `cf_api_key`, `auth_psk__n`) is on a secret value: its
/// name without lookup is one of the secret fields above, or speaks of one.
pub fn secret_filter(key: &str) -> bool {
    let base = key.split("__").next().unwrap_or(key).to_ascii_lowercase();
    base == "key" || secret_word(&base)
}

/// GraphQL root fields never sent (the `users` app's types).
pub fn graphql_root(name: &str) -> bool {
    let base = name.strip_suffix("_list").unwrap_or(name);
    matches!(
        base,
        "user" | "group" | "token" | "permission" | "object_permission" | "owner" | "owner_group"
    )
}

/// Words that make a name secret-like.
fn secret_word(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "secret",
        "password",
        "passwd",
        "token",
        "credential",
        "psk",
        "preshared",
        "auth_key",
        "api_key",
        "apikey",
        "private_key",
        "keys",
        "vault",
    ]
    .iter()
    .any(|w| n.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sensitive_endpoints() {
        for e in [
            "users/tokens",
            "users/users",
            "users/permissions",
            "users/groups",
            "users/owners",
            "core/config-revisions",
            "plugins/secrets/secrets",
            "plugins/vault/entries",
            "plugins/creds/user-credentials",
        ] {
            assert!(endpoint(e).is_some(), "{e}");
        }
        for e in [
            "dcim/devices",
            "extras/webhooks",
            "plugins/bgp/session",
            "ipam/fhrp-groups",
        ] {
            assert!(endpoint(e).is_none(), "{e}");
        }
    }

    #[test]
    fn secret_filters() {
        for k in [
            "key__isw",
            "secret",
            "auth_key__ic",
            "preshared_key",
            "auth_psk__n",
            "password",
            "cf_api_key",
        ] {
            assert!(secret_filter(k), "{k}");
        }
        for k in [
            "auth_type",
            "auth_cipher",
            "name__ic",
            "role_id",
            "site",
            "monkey",
        ] {
            assert!(!secret_filter(k), "{k}");
        }
        assert!(graphql_root("user_list") && graphql_root("group"));
        assert!(!graphql_root("device_list") && !graphql_root("site_group_list"));
    }
}
