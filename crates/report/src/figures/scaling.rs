//! scaling_analysis (no reference figure; paper Table 17): traversal time against graph
//! size on log-log axes — this run's times beside the reference program's (median of
//! three runs, [`sims::scenarios::scaling_analysis::reference_scaling_ms`]) and the paper's.

use anyhow::Result;
use results::sims::scaling_analysis::Body;

use super::common::{counts, points, Ctx};
use crate::data::Doc;
use crate::plot::{color, Figure, Legend, LineChart, Panel, Scale, Series};
use sims::scenarios::scaling_analysis::{paper_scaling_ms, reference_scaling_ms};

/// Log-log lines of mean traversal time by size; a second panel with the counted work
/// per traversal when the results carry it (corrected profile).
pub fn figure(doc: &Doc, ctx: Ctx) -> Result<Figure> {
    let b: Body = doc.parse()?;
    let rows = &b.average_nodes_fired_by_size;
    let sizes = counts(rows.iter().map(|r| r.graph_size));
    let ms: Vec<f64> = rows.iter().map(|r| r.avg_traversal_ms).collect();
    let mut time = LineChart::new(
        "Mean traversal time (log-log)",
        "graph size (nodes)",
        "ms per traversal",
        "graph_size",
        "ms_per_traversal",
    );
    time.x_scale = Scale::Log;
    time.y_scale = Scale::Log;
    time.legend = Legend::UpperLeft;
    time.series = vec![
        Series::new(
            format!("this port ({})", ctx.profile.as_str()),
            color(0),
            points(&sizes, &ms, &doc.name)?,
        ),
        Series::new(
            "reference program (Python, median of 3)",
            color(1),
            reference_scaling_ms(),
        ),
        Series::new("paper (author's machine)", color(2), paper_scaling_ms()),
    ];
    let mut panels = vec![Panel::Line(time)];
    let work: Option<Vec<usize>> = rows.iter().map(|r| r.work_per_traversal).collect();
    if let Some(work) = work {
        let work = counts(work);
        let mut c = LineChart::new(
            "Counted work per traversal (log-log)",
            "graph size (nodes)",
            "edges examined per traversal",
            "graph_size",
            "work_per_traversal",
        );
        c.x_scale = Scale::Log;
        c.y_scale = Scale::Log;
        c.legend = Legend::UpperLeft;
        c.series.push(Series::new(
            "out-edges + inhibition scans",
            color(0),
            points(&sizes, &work, &doc.name)?,
        ));
        panels.push(Panel::Line(c));
    }
    Ok(Figure {
        stem: "scaling_analysis".into(),
        size: (if panels.len() == 1 { 1000 } else { 1700 }, 650),
        title: Some(ctx.title("Scaling: traversal cost vs graph size")),
        grid: (1, panels.len()),
        panels,
    })
}
