//! The documentation keeps its promises: every `leasejudge …` line of README's code blocks
//! runs verbatim from the repository root with the exit code it implies, the set-up commands
//! are the ones CI runs, relative links resolve in a clone, the contract in `docs/` is the
//! shared one, and the action and pre-commit hooks are well-formed YAML that name real options.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

use crate::common::root;

fn read(path: &str) -> String {
    fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The lines of fenced code blocks in `markdown`.
fn code_lines(markdown: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut inside = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
        } else if inside {
            lines.push(line.to_owned());
        }
    }
    lines
}

/// The exit code a tour line promises: `# exit N` in its comment, else 0.
fn promised_exit(line: &str) -> i32 {
    line.split_once('#')
        .and_then(|(_, comment)| comment.trim().strip_prefix("exit "))
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0)
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn every_readme_command_runs_verbatim_with_its_exit_code() {
    let readme = read("README.md");
    let commands: Vec<String> = code_lines(&readme)
        .into_iter()
        .filter(|line| line.starts_with("leasejudge "))
        .collect();
    assert!(
        commands.len() >= 12,
        "the tour has {} commands",
        commands.len()
    );
    // A copy of the repository's data, so that the commands' outputs land in a temp dir.
    let dir = tempfile::tempdir().unwrap();
    for data in ["cases", "golden", "tests/data", "examples"] {
        copy_dir(&root().join(data), &dir.path().join(data));
    }
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_leasejudge"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    for command in &commands {
        let output = Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(dir.path())
            .env("PATH", &path)
            .env_remove("COLUMNS")
            .output()
            .expect("sh runs");
        let code = output.status.code().unwrap_or(-1);
        if code != promised_exit(command) {
            failures.push(format!(
                "{command}\n  exit {code}\n  {}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The files the tour writes are there.
    for written in [
        "matrix.csv",
        "probes.html",
        "leasejudge-junit.xml",
        "practice.csv",
        "leasejudge.1",
    ] {
        assert!(
            dir.path().join(written).is_file(),
            "{written} was not written"
        );
    }
}

#[test]
fn the_setup_commands_are_the_ones_ci_runs() {
    let readme = read("README.md");
    let lines = code_lines(&readme);
    for command in [
        "cargo run --release -- adjudicate cases/",
        "cargo test --locked",
        "cargo install --locked --path .",
    ] {
        assert!(
            lines.iter().any(|line| line.starts_with(command)),
            "README lacks {command:?}"
        );
    }
    let ci = read(".ci/run");
    assert!(ci.lines().any(|line| line.trim() == "cargo test --locked"));
    assert!(ci.contains("-- adjudicate cases/"));
}

#[test]
fn the_pip_install_readme_shows_is_the_wheel_ci_builds() {
    let readme = read("README.md");
    assert!(
        code_lines(&readme)
            .iter()
            .any(|line| line == "pip install ."),
        "README lacks `pip install .`"
    );
    // maturin's binary bindings: the wheel carries the leasejudge binary, no Python module.
    let pyproject = read("pyproject.toml");
    assert!(pyproject.contains("build-backend = \"maturin\""));
    assert!(pyproject.contains("bindings = \"bin\""));
    // CI builds the wheel and installs it where no Rust toolchain is.
    let ci = read(".ci/run");
    assert!(ci
        .lines()
        .any(|line| line.trim() == "scripts/wheel-check.sh"));
    let check = read("scripts/wheel-check.sh");
    assert!(check.contains("pip wheel") && check.contains("--no-index"));
    // The wheel to hand out is tagged for old systems, the same way in all three places.
    let tagged = "--config-settings \"build-args=--compatibility manylinux2014\"";
    assert!(
        code_lines(&readme)
            .iter()
            .any(|line| line.starts_with("pip wheel .") && line.contains(tagged)),
        "README's pip wheel line lacks {tagged}"
    );
    assert!(check.contains(tagged), "wheel-check.sh lacks {tagged}");
    assert!(pyproject.contains("compatibility = \"manylinux2014\""));
    assert!(
        !readme.contains("glibc 2.34"),
        "README still names glibc 2.34"
    );
}

#[test]
fn relative_links_resolve_inside_the_repository() {
    let mut files = vec![root().join("README.md")];
    for entry in fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") && !path.ends_with("lease-v1.md") {
            files.push(path);
        }
    }
    let mut broken = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let end = rest.find(')').unwrap_or(rest.len());
            let target = &rest[..end];
            if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                continue;
            }
            let path = target.split('#').next().unwrap();
            let resolved = file.parent().unwrap().join(path);
            let inside = resolved
                .canonicalize()
                .map(|p| p.starts_with(root().canonicalize().unwrap()))
                .unwrap_or(false);
            if !inside {
                broken.push(format!("{}: {target}", file.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links that do not resolve in a clone:\n{}",
        broken.join("\n")
    );
}

/// The shared spec, beside the repository (`../shared/spec`), when it is there.
fn shared(path: &str) -> Option<String> {
    fs::read_to_string(root().join("../shared/spec").join(path)).ok()
}

#[test]
fn the_contract_in_docs_is_the_shared_one() {
    let Some(spec) = shared("lease-v1.md") else {
        eprintln!("../shared/spec/lease-v1.md is absent: nothing to compare");
        return;
    };
    assert!(
        read("docs/lease-v1.md") == spec,
        "docs/lease-v1.md differs from ../shared/spec/lease-v1.md: copy it"
    );
}

#[test]
fn the_golden_probes_are_the_contracts_worked_examples_byte_for_byte() {
    for (shared_path, ours) in [
        ("examples/probes.csv", "cases/probes.csv"),
        ("examples/probes.matrix.csv", "golden/probes.csv"),
    ] {
        let Some(expected) = shared(shared_path) else {
            eprintln!("../shared/spec/{shared_path} is absent: nothing to compare");
            continue;
        };
        assert!(
            read(ours) == expected,
            "{ours} differs from ../shared/spec/{shared_path}"
        );
    }
}

fn yaml(path: &str) -> Yaml {
    let mut docs = YamlLoader::load_from_str(&read(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(docs.len(), 1, "{path} holds one document");
    docs.remove(0)
}

fn leasejudge_help(args: &[&str]) -> bool {
    Command::new(env!("CARGO_BIN_EXE_leasejudge"))
        .args(args)
        .arg("--help")
        .output()
        .unwrap()
        .status
        .success()
}

#[test]
fn the_pre_commit_hooks_are_well_formed_and_run() {
    let hooks = yaml(".pre-commit-hooks.yaml");
    let hooks = hooks.as_vec().expect("a list of hooks");
    let ids: Vec<&str> = hooks.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&"leasejudge-check"), "{ids:?}");
    for hook in hooks {
        for key in ["id", "name", "entry", "language"] {
            assert!(hook[key].as_str().is_some(), "a hook lacks {key}");
        }
        assert_eq!(hook["language"].as_str(), Some("rust"));
        let entry: Vec<&str> = hook["entry"].as_str().unwrap().split_whitespace().collect();
        assert_eq!(entry[0], "leasejudge");
        assert!(leasejudge_help(&[entry[1]]), "no subcommand {}", entry[1]);
        if hook["id"].as_str() == Some("leasejudge-check") {
            // The hook's command passes on the repository itself.
            let status = Command::new(env!("CARGO_BIN_EXE_leasejudge"))
                .args(&entry[1..])
                .current_dir(root())
                .output()
                .unwrap()
                .status;
            assert!(status.success(), "{entry:?} fails on the repository");
        }
    }
}

#[test]
fn the_action_is_a_composite_whose_outputs_are_written() {
    let action = yaml("action.yml");
    assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
    let steps = action["runs"]["steps"].as_vec().expect("steps");
    let scripts: String = steps
        .iter()
        .filter_map(|step| {
            if step["run"].as_str().is_some() {
                assert!(
                    step["shell"].as_str().is_some(),
                    "a run step without a shell"
                );
            }
            step["run"].as_str()
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        scripts.contains("cargo install --locked"),
        "the action does not build leasejudge"
    );
    assert!(scripts.contains("-f junit") && scripts.contains("GITHUB_STEP_SUMMARY"));
    let outputs = action["outputs"].as_hash().expect("outputs");
    for (name, output) in outputs {
        let name = name.as_str().unwrap();
        let value = output["value"].as_str().unwrap();
        if let Some(step_output) = value
            .strip_prefix("${{ steps.check.outputs.")
            .and_then(|v| v.strip_suffix(" }}"))
        {
            assert!(
                scripts.contains(&format!("echo \"{step_output}=")),
                "output {name} is never written"
            );
        }
    }
    for name in ["matched", "total"] {
        assert!(
            outputs.contains_key(&Yaml::String(name.into())),
            "no output {name}"
        );
    }
    // Every input the steps use is declared.
    let inputs = action["inputs"].as_hash().expect("inputs");
    let text = read("action.yml");
    let mut rest = text.as_str();
    while let Some(at) = rest.find("inputs.") {
        rest = &rest[at + "inputs.".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
            .collect();
        assert!(
            inputs.contains_key(&Yaml::String(name.clone())),
            "undeclared input {name}"
        );
    }
    // The options the action passes exist.
    assert!(leasejudge_help(&["check"]));
}

#[test]
fn the_package_installs_one_binary() {
    let output = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    // Every package of the workspace (the core is a library only).
    let packages = metadata["packages"].as_array().unwrap();
    assert!(packages.len() >= 2, "the workspace lost the core");
    let bins: Vec<&str> = packages
        .iter()
        .flat_map(|package| package["targets"].as_array().unwrap())
        .filter(|t| t["kind"].as_array().unwrap().iter().any(|k| k == "bin"))
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(bins, ["leasejudge"]);
}

/// The code spans (`` `…` ``) of `markdown`, outside fenced blocks (whose sample output may
/// name files of an example's).
fn code_spans(markdown: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut inside_block = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            inside_block = !inside_block;
            continue;
        }
        if inside_block {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(span), Some(_)) = (parts.next(), parts.next()) {
            spans.push(span.to_owned());
        }
    }
    spans
}

/// A word of a code span that names a file of this repository: it starts with one of the
/// repository's folders (a `tests/` path only under `tests/data/` or as a test module's `.rs`
/// in `tests/it/`: a PrairieLearn question has a `tests/` of its own) and is not a pattern or a placeholder
/// (`cases/<stem>.csv`, `golden/*.new`, `cases/x.csv`).
fn names_a_repository_file(word: &str) -> bool {
    const FOLDERS: [&str; 12] = [
        "cases/",
        "golden/",
        "examples/",
        "docs/",
        "scripts/",
        "bench/",
        "benches/",
        "src/",
        "fuzz/",
        ".ci/",
        ".cargo/",
        "tests/data/",
    ];
    let runner =
        word.starts_with("tests/it/") && word.ends_with(".rs") && word.matches('/').count() == 2;
    let placeholder = word.contains(['<', '>', '*', '{', '…', '$'])
        || word
            .rsplit('/')
            .next()
            .is_some_and(|name| name.starts_with("x."));
    (FOLDERS.iter().any(|folder| word.starts_with(folder)) || runner) && !placeholder
}

#[test]
fn the_docs_name_only_files_that_exist() {
    let mut docs = vec![root().join("README.md"), root().join("cases/README.md")];
    for entry in fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            docs.push(path);
        }
    }
    let mut missing = Vec::new();
    for doc in &docs {
        let text = fs::read_to_string(doc).unwrap();
        for span in code_spans(&text) {
            for word in span.split_whitespace() {
                let word = word.trim_end_matches([',', ';', ':', ')', '.']);
                // A path relative to the document, as the contract's opening once named
                // `../seed/lease-protocol-lesson.txt`.
                let resolved = if word.starts_with("../") {
                    doc.parent().unwrap().join(word)
                } else if names_a_repository_file(word) {
                    root().join(word.split(['#', ':']).next().unwrap())
                } else {
                    continue;
                };
                if !resolved.exists() {
                    missing.push(format!("{}: `{word}`", doc.display()));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "the docs name files that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_licenses_cargo_declares_are_there_and_packaged() {
    let manifest = read("Cargo.toml");
    assert!(manifest.contains("license = \"MIT OR Apache-2.0\""));
    let mit = read("LICENSE-MIT");
    assert!(mit.starts_with("Copyright (c) the leasejudge developers\n"));
    assert!(mit.contains("Permission is hereby granted, free of charge"));
    let apache = read("LICENSE-APACHE");
    assert!(apache.contains("Apache License") && apache.contains("Version 2.0, January 2004"));
    assert!(apache.contains("END OF TERMS AND CONDITIONS"));
    // The crate carries them (the wheel's check is scripts/wheel-check.sh's).
    let output = Command::new(env!("CARGO"))
        .args(["package", "--list", "--allow-dirty", "--offline"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed = String::from_utf8_lossy(&output.stdout);
    for file in ["LICENSE-MIT", "LICENSE-APACHE", "CHANGELOG.md"] {
        assert!(
            listed.lines().any(|line| line == file),
            "cargo package lacks {file}"
        );
    }
    assert!(read("scripts/wheel-check.sh").contains("for license in LICENSE-MIT LICENSE-APACHE"));
}

#[test]
fn the_changelog_keeps_a_changelog() {
    let changelog = read("CHANGELOG.md");
    let version = read("Cargo.toml")
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap()
        .to_owned();
    assert!(changelog.starts_with("# Changelog\n"));
    let unreleased = changelog
        .find("\n## [Unreleased]\n")
        .expect("an Unreleased section");
    let released = changelog
        .find(&format!("\n## [{version}]"))
        .expect("a section for Cargo.toml's version");
    assert!(unreleased < released, "Unreleased comes first");
    // Other branches add their lines under these at merge time: each heading stays.
    let section = &changelog[unreleased..released];
    for heading in ["Added", "Changed", "Fixed", "Security"] {
        assert!(
            section.contains(&format!("\n### {heading}\n")),
            "Unreleased lacks ### {heading}"
        );
    }
    for line in changelog.lines().filter(|line| line.starts_with("### ")) {
        assert!(
            [
                "### Added",
                "### Changed",
                "### Deprecated",
                "### Removed",
                "### Fixed",
                "### Security"
            ]
            .contains(&line),
            "not a Keep a Changelog heading: {line}"
        );
    }
}

/// A fenced block of a document: where it starts, its info string, its lines (the fence's
/// indentation taken off), and the HTML comment just before it, if any.
struct Block {
    line: usize,
    /// The lines of its body, by index: `body.0..body.1`.
    body: (usize, usize),
    indent: usize,
    info: String,
    text: String,
    comment: Option<String>,
}

fn fenced_blocks(markdown: &str) -> Vec<Block> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut blocks = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        let indent = line.len() - line.trim_start().len();
        let Some(info) = line.trim_start().strip_prefix("```") else {
            index += 1;
            continue;
        };
        let start = index;
        let mut text = String::new();
        index += 1;
        while index < lines.len() && !lines[index].trim_start().starts_with("```") {
            let body = lines[index];
            text.push_str(
                body.get(indent.min(body.len() - body.trim_start().len())..)
                    .unwrap_or(""),
            );
            text.push('\n');
            index += 1;
        }
        index += 1;
        // The comment ends on the line before the fence.
        let comment = (start > 0 && lines[start - 1].trim_end().ends_with("-->")).then(|| {
            let mut at = start - 1;
            while at > 0 && !lines[at].contains("<!--") {
                at -= 1;
            }
            let joined = lines[at..start].join("\n");
            let body = joined.trim();
            body.trim_start_matches("<!--")
                .trim_end_matches("-->")
                .trim()
                .to_owned()
        });
        blocks.push(Block {
            line: start + 1,
            body: (start + 1, index - 1),
            indent,
            info: info.trim().to_owned(),
            text,
            comment,
        });
    }
    blocks
}

/// Every quoted output of the docs is the program's (issue 40): each fenced block of
/// README.md and docs/*.md is a command (`sh`), a configuration (`yaml`), or says in the
/// comment before it what it is: `<!-- output of: COMMANDS -->` (a shell script, run from a
/// copy of the repository's data with `COLUMNS=80`; its standard output must be the block),
/// or `<!-- not output: WHY -->`. A block whose first line is `$ COMMAND` is that command's
/// output. So a change in what the program prints fails here until the docs follow.
#[test]
fn every_quoted_output_in_the_docs_is_what_the_program_prints() {
    let mut docs = vec![root().join("README.md")];
    for entry in fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") && !path.ends_with("lease-v1.md") {
            docs.push(path);
        }
    }
    docs.sort();
    let dir = tempfile::tempdir().unwrap();
    for data in ["cases", "golden", "tests/data", "examples"] {
        copy_dir(&root().join(data), &dir.path().join(data));
    }
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_leasejudge"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // The workbook spreadsheets.md quotes an error of: the lab's case file with a timestamp
    // that is none, on a sheet named "Lab 3".
    let cases = read("examples/lab/cases.csv");
    let mut rows: Vec<Vec<String>> = cases
        .lines()
        .map(|line| line.split(',').map(str::to_owned).collect())
        .collect();
    rows[2][2] = "yesterday".to_owned();
    let header: Vec<&str> = rows[0].iter().map(String::as_str).collect();
    let workbook = leasejudge::input::workbook::matrix_xlsx("Lab 3", &header, &rows[1..]).unwrap();
    fs::write(dir.path().join("tests/data/docs/cases.xlsx"), workbook).unwrap();
    let bless = std::env::var_os("LEASEJUDGE_BLESS").is_some();
    let mut checked = 0;
    let mut failures = Vec::new();
    for doc in &docs {
        let name = doc.strip_prefix(root()).unwrap().display().to_string();
        let markdown = fs::read_to_string(doc).unwrap();
        let mut lines: Vec<String> = markdown.lines().map(str::to_owned).collect();
        // Blessed blocks, last first, so that the lines before them keep their places.
        let mut blessed: Vec<(usize, usize, Vec<String>)> = Vec::new();
        for block in fenced_blocks(&markdown) {
            if matches!(block.info.as_str(), "sh" | "yaml") {
                continue;
            }
            let (script, expected) = match (&block.comment, block.text.strip_prefix("$ ")) {
                (_, Some(rest)) => {
                    let (command, output) = rest.split_once('\n').unwrap_or((rest, ""));
                    (command.to_owned(), output.to_owned())
                }
                (Some(comment), None) if comment.starts_with("not output:") => continue,
                (Some(comment), None) if comment.starts_with("output of:") => (
                    comment["output of:".len()..].trim().to_owned(),
                    block.text.clone(),
                ),
                _ => {
                    failures.push(format!(
                        "{name}:{}: a fenced block that says neither `<!-- output of: … -->` \
                         nor `<!-- not output: … -->`",
                        block.line
                    ));
                    continue;
                }
            };
            let output = Command::new("sh")
                .arg("-c")
                .arg(&script)
                .current_dir(dir.path())
                .env("PATH", &path)
                .env("COLUMNS", "80")
                .env("NO_COLOR", "1")
                .env_remove("TMPDIR")
                .output()
                .expect("sh runs");
            checked += 1;
            let actual = String::from_utf8_lossy(&output.stdout);
            if bless && actual.trim_end() != expected.trim_end() {
                let pad = " ".repeat(block.indent);
                let kept = block.text.len() - expected.len();
                let mut new: Vec<String> = block.text[..kept]
                    .lines()
                    .map(|line| format!("{pad}{line}"))
                    .collect();
                new.extend(actual.trim_end().lines().map(|line| format!("{pad}{line}")));
                blessed.push((block.body.0, block.body.1, new));
                continue;
            }
            if actual.trim_end() != expected.trim_end() {
                failures.push(format!(
                    "{name}:{}: `{script}` prints\n{actual}\nnot what the docs quote:\n{expected}\n{}",
                    block.line,
                    String::from_utf8_lossy(&output.stderr)
                ));
            }
        }
        if !blessed.is_empty() {
            for (start, end, new) in blessed.into_iter().rev() {
                lines.splice(start..end, new);
            }
            fs::write(doc, lines.join("\n") + "\n").unwrap();
        }
    }
    assert!(checked >= 12, "only {checked} quoted outputs were checked");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The message docs/safety.md quotes for a file changed under a run, which no script can
/// time, is the one the program renders for such a file.
#[test]
fn the_changed_file_message_the_docs_quote_is_the_programs() {
    let changed = leasejudge::input::FileChanged {
        file: "work.csv".to_owned(),
        how: "it had 19377906 bytes when it was opened and has 4096 now".to_owned(),
    };
    let errors = leasejudge::input::InputErrors::from(vec![changed.input_error()]);
    let quoted = format!("```\nleasejudge: {errors}\n```");
    assert!(read("docs/safety.md").contains(&quoted), "{quoted}");
}
