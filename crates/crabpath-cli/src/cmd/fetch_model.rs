//! `crabpath fetch-model`: downloads a model's weights with the same library function as
//! `bench fetch-model` ([`crabpath_embed::fetch()`]) and says where they are (issue 28,
//! item 4).

use crate::args::FetchModelArgs;
use crate::error::CliResult;

/// Fetches the model (or finds it already there, SHA-256 checked) and prints one line.
pub fn run(a: &FetchModelArgs) -> CliResult {
    let spec = a.model.spec();
    let dir = crabpath_embed::resolve_dir(spec, a.dir.as_deref());
    eprintln!(
        "crabpath: fetching {} ({}) into {}",
        spec.name,
        spec.licence,
        dir.display()
    );
    let report = crabpath_embed::fetch(spec, &dir)?;
    println!("{}", report.describe());
    Ok(0)
}
