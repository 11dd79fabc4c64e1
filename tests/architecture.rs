//! Dependency arrows point down: report renderers depend on the grading types, and the
//! grading modules never import a renderer.

use std::fs;
use std::path::Path;

#[test]
fn grading_does_not_import_report() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/grading");
    let mut offenders = Vec::new();
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            if line.contains("crate::report") || line.contains("super::super::report") {
                offenders.push(format!("{}:{}: {line}", path.display(), number + 1));
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}
