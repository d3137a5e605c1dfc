//! Calls of another product or client that look like NetBox's and mean something else there:
//! in a text about Nautobot alone (a NetBox fork with the same REST paths, other filters and
//! another GraphQL schema) its URLs and GraphQL documents are Nautobot's; in one using another
//! client with pynetbox-like chains, its `nb.<app>.<endpoint>.get(...)` chains are that
//! client's. netbox3 and its successor nbforager (`from netbox3 import NbApi`; their
//! `api/extended_get.py`, `api/base_c.py`: `or_<filter>` lists are OR-ed by the client,
//! `site="SITE1"` is looked up by name and sent as `site_id`, lists of a single-value filter
//! become one request each, `nested` and `max_limit` are client arguments); pynautobot
//! (Nautobot's filters).

use super::{Doc, SiteCx, SiteFilter, Verdict, Why};
use crate::extract::{CallForm, Site};

pub(super) fn prepare(doc: &Doc<'_>) -> Option<Box<dyn SiteFilter>> {
    let f = Foreign::of(doc.text);
    (f.nautobot || f.chains).then(|| Box::new(f) as Box<dyn SiteFilter>)
}

/// Call forms a document's text rules out. Facts of the whole text, so their message names no
/// place (the block cache holds them for one answer of [`SiteFilter::state`]).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Foreign {
    /// The text names Nautobot and never NetBox: its URLs and GraphQL documents are Nautobot's.
    nautobot: bool,
    /// The text imports another client with pynetbox-like chains and never names pynetbox.
    chains: bool,
}

impl Foreign {
    fn of(text: &str) -> Foreign {
        let has = |w: &str| memchr::memmem::find(text.as_bytes(), w.as_bytes()).is_some();
        let any = |words: &[&str]| words.iter().any(|w| has(w));
        // Every word below holds `autobot`, `AUTOBOT`, `netbox3` or `nbforager`: most texts
        // hold none, told in four scans of the text (nine before; 5.0 M instructions of a
        // file of 10,000 tool calls). One scan for the four at once (a regex of the four
        // literals) was tried: 1.76 M to search and 0.29 M to build, against 1.6 M.
        let autobot = has("autobot") || has("AUTOBOT");
        if !autobot && !has("netbox3") && !has("nbforager") {
            return Foreign::default();
        }
        Foreign {
            nautobot: any(&["nautobot", "Nautobot", "NAUTOBOT"])
                && !any(&["netbox", "NetBox", "Netbox", "NETBOX"]),
            chains: any(&[
                "from netbox3",
                "import netbox3",
                "from nbforager",
                "import nbforager",
                "from pynautobot",
                "import pynautobot",
            ]) && !has("pynetbox"),
        }
    }
}

impl SiteFilter for Foreign {
    fn read(&self, cx: &SiteCx<'_>) -> Verdict {
        let why = |text: &str| {
            Verdict::NotACall(Why {
                text: text.into(),
                marker: None,
            })
        };
        match cx.site {
            Site::Rest(c) if self.nautobot && c.form == CallForm::Url => {
                why("the text is about Nautobot and never names NetBox")
            }
            Site::Graphql(_) if self.nautobot => {
                why("the text is about Nautobot and never names NetBox")
            }
            Site::Rest(c) if self.chains && c.form == CallForm::Pynetbox => why(
                "the text imports another client with pynetbox-like calls (netbox3, nbforager, pynautobot) and never pynetbox",
            ),
            _ => Verdict::Call,
        }
    }

    fn state(&self) -> u64 {
        u64::from(self.nautobot) | (u64::from(self.chains) << 1)
    }
}
