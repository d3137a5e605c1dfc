//! The site filters for a notebook: its cells read as one Markdown document, as its reader
//! sees them ([`View`]), so a Markdown cell's heading, the line above a code cell and a code
//! cell's own comments label the code cells as they label a Markdown file's fences (a lesson
//! under `## Never use device_role`, release history under a release heading of a changelog).

use crate::extract::notebook::View;
use crate::extract::Site;
use crate::intent::{site_range, Around, Filters, NotChecked, Outline, Readings, Sorted};

/// The calls among `sites` (host offsets of notebook `text`) and the sites not checked, with
/// the readings `readings` on; `None` when the notebook cannot be read (its sites then say so).
pub(super) fn sort(
    text: &str,
    sites: Vec<Site>,
    readings: Readings,
) -> Result<(Vec<Site>, Vec<NotChecked>), Vec<Site>> {
    let Some(view) = View::of(text) else {
        return Err(sites);
    };
    let blocks: Vec<_> = view.blocks.iter().map(|b| b.range.clone()).collect();
    let outline = Outline::markdown(&view.text, &blocks, &view.layout);
    let filters = Filters::of_view(&view.text, &outline, Some(&view.to_host), readings);
    if filters.is_empty() {
        return Ok((sites, Vec::new()));
    }
    let mut calls = Vec::with_capacity(sites.len());
    let mut held = Vec::new();
    for site in sites {
        let range = site_range(&site);
        let (around, code) = match view.block_at(range.start) {
            Some(b) => (
                outline.around_block(&view.text, &b.range),
                Some((b.code.as_str(), &b.map)),
            ),
            None => match view.prose_range(&range) {
                Some(r) => (outline.around_inline(&view.text, &r), None),
                None => (Around::default(), None),
            },
        };
        match filters.sort(site, code, &around.mapped(&view.to_host)) {
            Sorted::Call(site, parts) => {
                calls.push(site);
                held.extend(parts);
            }
            Sorted::NotChecked(n) => held.push(n),
        }
    }
    Ok((calls, held))
}
