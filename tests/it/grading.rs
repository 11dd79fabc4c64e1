//! Every grading scenario under `tests/data/grading/`: a directory of inputs with one snapshot,
//! `run.cmd` ([`crate::snapshot`]: the command line, run in a copy of the directory;
//! `run.expected`, its exit status and output; `run.files/`, the files it must write;
//! `run.absent`, the paths it must not leave).

use std::path::Path;

#[test]
fn grading_scenarios() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/grading");
    crate::snapshot::run_all(&root, 10, &[]);
}
