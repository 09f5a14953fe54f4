//! Runs the corrected-vs-myopic study and prints its summary; with a path argument it
//! also writes the JSON document there (atomically).
//!
//! `cargo run --release -p crabpath-v2 --example corrected_vs_myopic -- [OUT.json] [SEEDS]`

use crabpath_v2::experiments::{corrected_vs_myopic, MyopicOptions};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut opts = MyopicOptions::default();
    if let Some(s) = args.get(1) {
        opts.seeds = s.parse()?;
    }
    let study = corrected_vs_myopic(&opts)?;
    println!(
        "{} seeds, {} episodes, threshold {} over the last {} episodes, tau {}",
        opts.seeds, opts.episodes, opts.threshold, opts.window, opts.config.learning.temperature
    );
    for d in &study.designs {
        println!("\n{} — {}", d.design.as_str(), d.design.description());
        for a in &d.arms {
            println!(
                "  {:9} mean success {:.3} [{:.3}, {:.3}]  last {} {:.3}  reached {}/{}  episodes to threshold {:.1}",
                a.credit.as_str(),
                a.mean_success.mean,
                a.mean_success.ci_low,
                a.mean_success.ci_high,
                opts.window,
                a.final_success.mean,
                a.reached,
                opts.seeds,
                a.episodes_to_threshold.mean,
            );
            let w: Vec<String> = d
                .tracked
                .iter()
                .zip(&a.final_weights)
                .map(|((s, t), w)| format!("{s}->{t} {:.3}", w.mean))
                .collect();
            println!("            final weights: {}", w.join(", "));
            let dormant: Vec<String> = d
                .tracked
                .iter()
                .zip(&a.dormant)
                .map(|((s, t), k)| format!("{s}->{t} {k}"))
                .collect();
            println!(
                "            seeds stuck {}/{}; seeds dormant per edge: {}",
                a.stuck,
                opts.seeds,
                dormant.join(", ")
            );
        }
        for (what, p) in [
            ("mean success", &d.diff_mean_success),
            ("final success", &d.diff_final_success),
            ("episodes to threshold", &d.diff_episodes_to_threshold),
        ] {
            println!(
                "  corrected - myopic {what}: {:+.3} [{:+.3}, {:+.3}]  paired t p = {:.2e}  sign test {}/{}/{} p = {:.2e}",
                p.diff.mean, p.diff.ci_low, p.diff.ci_high, p.p_t, p.wins, p.losses, p.ties, p.p_sign
            );
        }
    }
    if let Some(out) = args.first() {
        let text = serde_json::to_string_pretty(&study.to_json())? + "\n";
        pyformat::io::write_atomic(out, text.as_bytes())?;
        eprintln!("wrote {out}");
    }
    Ok(())
}
