//! The mimalloc option numbers `server::idle` sets are those of the bundled mimalloc: in a
//! process that sets no option (this test binary), their defaults read back.

use netbox_lsp::server::idle::{OPTION_PAGE_FULL_RETAIN, OPTION_PURGE_DELAY};

#[test]
fn the_option_numbers_are_those_of_the_bundled_mimalloc() {
    // SAFETY: reading an option is allowed at any time.
    let get = |option| unsafe { libmimalloc_sys::mi_option_get(option) };
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        assert_eq!(get(OPTION_PURGE_DELAY), 1000, "mi_option_purge_delay (ms)");
    }
    if std::env::var_os("MIMALLOC_PAGE_FULL_RETAIN").is_none() {
        assert_eq!(
            get(OPTION_PAGE_FULL_RETAIN),
            2,
            "mi_option_page_full_retain"
        );
    }
}
