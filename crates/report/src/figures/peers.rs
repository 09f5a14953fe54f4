//! The peers figure (`bench peers`, issue 29): recall@10 by question category of every
//! system that finished, over all 1,986 LoCoMo questions, in the order the systems ran
//! (CrabPath first). A FAILED system (a conversation unfinished) is left out of the
//! figure; PEERS.md keeps its row and its last error.

use anyhow::{anyhow, Result};
use results::peers::Peers;

use crate::data::Doc;
use crate::plot::{color, BarChart, BarSeries, Figure, Legend, Panel};

/// The figure's file stem under `figures/bench/`.
pub const STEM: &str = "peers-recall-by-category";

/// The cut-off drawn (the ranking metric).
pub const K: usize = 10;

/// The figure of the peers report `doc`.
pub fn figure(doc: &Doc) -> Result<Figure> {
    let p: Peers = doc.parse()?;
    let done: Vec<_> = p.systems.iter().filter(|s| s.complete).collect();
    let first = done
        .first()
        .ok_or_else(|| anyhow!("{}: no system finished", doc.name))?;
    let slices: Vec<String> = first.recall.keys().cloned().collect();
    let mut chart = BarChart::new(
        "LoCoMo evidence recall@10 by question category, all ten conversations, through MCP",
        "question category",
        "mean recall@10",
        slices.clone(),
    );
    chart.y_col = format!("recall_at_{K}");
    chart.value_labels = false;
    // room above the bars (recall ≤ 1) for the legend
    chart.legend = Legend::UpperLeft;
    chart.y_range = Some((0.0, 1.4));
    for (i, s) in done.iter().enumerate() {
        let vals = slices.iter().map(|c| p.recall(s, c, K)).collect();
        chart
            .series
            .push(BarSeries::new(s.name.as_str(), color(i), vals));
    }
    Ok(Figure {
        stem: STEM.into(),
        size: (900, 420),
        title: None,
        grid: (1, 1),
        panels: vec![Panel::Bar(chart)],
    })
}
