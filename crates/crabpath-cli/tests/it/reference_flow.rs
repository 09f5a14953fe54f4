//! The `paper` profile against the reference program, output for output: the flow of
//! `results/reference/cli/flow/steps.json` (init, doctor, info, health, query, learn,
//! inject, query, maintain --dry-run, journal, then every other subcommand, the daemon
//! and bad input) is run on copies of our fixtures, and each step's exit status,
//! stdout, stderr (where the reference prints its own message) and the SHA-256 of the
//! files it wrote are compared with the reference's, recorded in
//! `results/reference/cli/flow/outputs.json.xz` (see that directory's README for the
//! program, commit and command). Wall-clock values are normalised on both sides.

use crate::common;

use serde_json::Value;

fn load(name: &str) -> Value {
    let text = testdata::reference_text(std::path::Path::new("cli").join(name));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn string(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

#[test]
fn paper_profile_matches_the_reference_flow() {
    let steps = load("flow/steps.json");
    let outputs = load("flow/outputs.json");
    let expected: Vec<&Value> = outputs["steps"].as_array().unwrap().iter().collect();
    let dir = common::scratch();
    let work = dir.path();
    let mut failures: Vec<String> = Vec::new();
    let mut k = 0;
    for step in steps.as_array().unwrap() {
        if let Some(c) = step.get("copy") {
            common::copy_tree(&work.join(string(&c[0])), &work.join(string(&c[1])));
            continue;
        }
        if let Some(w) = step.get("write") {
            let p = work.join(string(&w[0]));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, string(&w[1])).unwrap();
            continue;
        }
        if let Some(r) = step.get("remove") {
            std::fs::remove_file(work.join(string(r))).unwrap();
            continue;
        }
        let want = expected[k];
        k += 1;
        let name = string(&step["name"]);
        assert_eq!(
            string(&want["name"]),
            name,
            "steps.json and outputs.json disagree"
        );
        let args: Vec<String> = step["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(string)
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let stdin = step.get("stdin").map(string).unwrap_or_default();
        let out = common::run(work, "paper", &args, &stdin);
        let rc = out.status.code().unwrap_or(-1) as i64;
        let stdout = common::normalize(&String::from_utf8_lossy(&out.stdout));
        let stderr = common::normalize(&String::from_utf8_lossy(&out.stderr));
        if rc != want["rc"].as_i64().unwrap() {
            failures.push(format!(
                "{name}: exit status {rc}, reference {}\n  stderr: {stderr}",
                want["rc"]
            ));
        }
        if stdout != string(&want["stdout"]) {
            failures.push(format!(
                "{name}: stdout differs\n--- ours\n{stdout}\n--- reference\n{}",
                string(&want["stdout"])
            ));
        }
        let compare_stderr = step
            .get("compare_stderr")
            .and_then(Value::as_bool)
            .unwrap_or(true);
        if compare_stderr && stderr != string(&want["stderr"]) {
            failures.push(format!(
                "{name}: stderr differs\n--- ours\n{stderr}\n--- reference\n{}",
                string(&want["stderr"])
            ));
        }
        if let Some(files) = want["files"].as_object() {
            for (f, h) in files {
                let ours = common::file_hash(&work.join(f));
                if ours != string(h) {
                    failures.push(format!("{name}: {f} differs from the reference's"));
                }
            }
        }
    }
    assert_eq!(
        k,
        expected.len(),
        "outputs.json has more steps than steps.json"
    );
    assert!(
        failures.is_empty(),
        "{} of {k} steps differ:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
