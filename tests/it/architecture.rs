//! Dependency arrows point down, inside each crate: what the crate boundaries already give
//! (the core, `crates/core`, cannot name the rest, nor clap, a terminal or a progress bar,
//! which are not its dependencies) is not checked here. What is: report renderers depend on
//! the grading types, and the grading modules never import a renderer; the library names no
//! clap (only the binary's `cli.rs` and `commands/` do); no two modules of a crate import
//! each other, directly or through others; the core's layers (lease to the engine) and the
//! utilities (output, terminal) import only what is below them; the engine names no matrix
//! encoding; no function or file outgrows a sitting.
//!
//! Each crate's module graph is read from its sources: an edge for every `crate::` or
//! `super::` path (and every path through a module imported by name, `use crate::commands;`
//! then `commands::check`), outside comments and `#[cfg(test)]` modules. A `mod.rs` naming
//! its own children by bare paths (its facade: `pub use csv::CsvRead;`) is not an edge.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

#[test]
fn grading_does_not_import_report() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/grading");
    let mut offenders = Vec::new();
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            if line.contains("crate::report") || line.contains("super::super::report") {
                offenders.push(format!("{}:{}: {line}", path.display(), number + 1));
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

/// clap is the binary's: only the command line (`cli.rs`, `main.rs`) and the commands
/// (`commands/`), the binary's modules, name it; the library, which shares the package's
/// dependencies, does not (issue 39); its enums say their words through `choice::Choice`.
#[test]
fn only_the_command_line_names_clap() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    source_files(&src, &mut files);
    let mut offenders = Vec::new();
    for path in files {
        let relative = path.strip_prefix(&src).unwrap();
        if relative.starts_with("commands")
            || relative == Path::new("cli.rs")
            || relative == Path::new("main.rs")
        {
            continue;
        }
        let code = without_comments(&fs::read_to_string(&path).unwrap());
        if !paths(&code, &["clap", "clap_complete", "clap_mangen"]).is_empty() {
            offenders.push(path.display().to_string());
        }
    }
    assert!(
        offenders.is_empty(),
        "clap named outside the command line:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn no_two_modules_import_each_other() {
    let mut cycles = cycles(&module_graph());
    cycles.extend(self::cycles(&core_graph()));
    assert!(
        cycles.is_empty(),
        "modules that import each other (break each cycle by moving what both need below \
         them):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn no_two_top_level_modules_import_each_other() {
    for graph in [module_graph(), core_graph()] {
        let mut top: Graph = BTreeMap::new();
        for (module, uses) in graph {
            let from = top_level(&module);
            let entry = top.entry(from.clone()).or_default();
            entry.extend(uses.iter().map(|to| top_level(to)).filter(|to| *to != from));
        }
        let cycles = cycles(&top);
        assert!(cycles.is_empty(), "{}", cycles.join("\n"));
    }
}

/// The engine knows no output format: `streaming` names no matrix encoding (CSV or JSON) and
/// no encoder of one; matrix rows leave through the `MatrixEncoding` the command gives, so
/// that a new output format touches `matrix.rs` and the command only.
#[test]
fn streaming_names_no_matrix_encoding() {
    let mut offenders = Vec::new();
    for (path, code) in engine_code() {
        for word in words(&code, ENCODING_NAMES) {
            offenders.push(format!("{} names {word}", path.display()));
        }
        for found in paths(&code, &["csv", "serde_json"]) {
            offenders.push(format!("{} uses {}", path.display(), found.join("::")));
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

/// What the engine must not name: the encodings of the matrix, their writers and encoders.
const ENCODING_NAMES: &[&str] = &[
    "Encoding",
    "CsvMatrix",
    "JsonMatrix",
    "CsvMatrixWriter",
    "JsonMatrixWriter",
    "MatrixWriter",
    "MatrixRow",
    "push_csv_row",
    "serde_json",
];

/// Each file of `src/streaming/` with its code, outside comments and `#[cfg(test)]` modules.
fn engine_code() -> Vec<(std::path::PathBuf, String)> {
    let mut files = Vec::new();
    source_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/core/src/streaming"),
        &mut files,
    );
    files
        .into_iter()
        .map(|path| {
            let code = without_tests(&without_comments(&fs::read_to_string(&path).unwrap()));
            (path, code)
        })
        .collect()
}

/// Each of `names` that `code` holds as a whole word (`Encoding`, not `MatrixEncoding`).
fn words<'a>(code: &str, names: &[&'a str]) -> Vec<&'a str> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let code_words: BTreeSet<&str> = code.split(|c: char| !is_ident(c)).collect();
    names
        .iter()
        .copied()
        .filter(|name| code_words.contains(name))
        .collect()
}

/// Module paths (`grading::compare`; `` for the crate root), each with the modules it uses.
type Graph = BTreeMap<String, BTreeSet<String>>;

fn top_level(module: &str) -> String {
    module.split("::").next().unwrap_or_default().to_owned()
}

/// The source directories of the crates: the root's and the core's (`crates/core`).
fn source_dirs() -> [std::path::PathBuf; 2] {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [root.join("src"), root.join("crates/core/src")]
}

/// Every module of `src/` (the library and the binary's `cli` and `commands`, which reach the
/// library's modules by the same paths; but `main.rs`) with the modules its code uses. The
/// core's modules, which the library re-exports under their names, are leaves here.
fn module_graph() -> Graph {
    let leaves: BTreeSet<String> = core_graph().keys().map(|m| top_level(m)).collect();
    let leaves = leaves
        .into_iter()
        .filter(|m| !m.is_empty())
        .map(|m| vec![m]);
    graph_of_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        leaves.collect(),
    )
}

/// Every module of the core (`crates/core/src`) with the modules of the core its code uses.
fn core_graph() -> Graph {
    graph_of_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/core/src"),
        Vec::new(),
    )
}

/// The module graph of the crate whose sources are `src`, with `leaves` (modules of another
/// crate it re-exports) as modules of no imports.
fn graph_of_dir(src: &Path, leaves: Vec<Vec<String>>) -> Graph {
    let mut files = Vec::new();
    source_files(src, &mut files);
    // A test module in a file of its own (`tests.rs`) may reach anywhere, as an inline one.
    files.retain(|path| !path.ends_with("tests.rs"));
    let mut modules: BTreeMap<Vec<String>, String> =
        leaves.into_iter().map(|m| (m, String::new())).collect();
    add_modules(src, files, &mut modules);
    graph_of(&modules)
}

/// Each of `files` under `src` as a module path with its text, into `modules`.
fn add_modules(
    src: &Path,
    files: Vec<std::path::PathBuf>,
    modules: &mut BTreeMap<Vec<String>, String>,
) {
    for path in files {
        let relative = path.strip_prefix(src).unwrap().with_extension("");
        let mut segments: Vec<String> = relative
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        if segments == ["main"] {
            continue;
        }
        if segments.last().is_some_and(|s| s == "mod" || s == "lib") {
            segments.pop();
        }
        modules.insert(segments, fs::read_to_string(&path).unwrap());
    }
}

/// The graph of `modules`' imports.
fn graph_of(modules: &BTreeMap<Vec<String>, String>) -> Graph {
    let known: BTreeSet<Vec<String>> = modules.keys().cloned().collect();
    let mut graph = Graph::new();
    for (module, text) in modules {
        let code = without_tests(&without_comments(text));
        let mut uses = BTreeSet::new();
        let mut aliases = BTreeMap::new();
        for path in paths(&code, &["crate", "super"]) {
            let Some(full) = absolute(module, &path) else {
                continue;
            };
            // `use crate::commands;`: later `commands::check` goes through it.
            if known.contains(&full) {
                if let Some(name) = path.last().filter(|name| *name != "super") {
                    aliases.insert(name.clone(), full.clone());
                }
            }
            uses.extend(longest_module(&full, &known));
        }
        let alias_names: Vec<&str> = aliases.keys().map(String::as_str).collect();
        for path in paths(&code, &alias_names) {
            let mut full = aliases[&path[0]].clone();
            full.extend(path[1..].iter().cloned());
            if let Some(target) = longest_module(&full, &known) {
                uses.insert(target);
            }
        }
        uses.remove(module);
        graph.insert(
            module.join("::"),
            uses.into_iter().map(|m| m.join("::")).collect(),
        );
    }
    graph
}

fn source_files(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            source_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The text with every `//` comment (doc comments and their links included) removed.
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text without its `#[cfg(test)]` modules: tests may reach anywhere.
fn without_tests(text: &str) -> String {
    let mut kept = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let opens_test_module = line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod ") && next.ends_with('{'));
        if !opens_test_module {
            kept.push(line);
            continue;
        }
        let mut depth = 0i64;
        for line in lines.by_ref() {
            depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
            if depth <= 0 {
                break;
            }
        }
    }
    kept.join("\n")
}

/// Every path in `code` that starts with one of `starts` (as a whole word): its segments,
/// a `{...}` group giving one path per item.
fn paths(code: &str, starts: &[&str]) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut found = Vec::new();
    for start in starts {
        let needle = format!("{start}::");
        let mut from = 0;
        while let Some(at) = code[from..].find(&needle) {
            let at = from + at;
            from = at + needle.len();
            let word_start = at == 0 || !(is_ident(bytes[at - 1]) || bytes[at - 1] == b':');
            if word_start {
                expand(code, at, &[], &mut found);
            }
        }
    }
    found
}

/// The path (or paths, through a group) starting at `at`, after the segments of `prefix`.
fn expand(code: &str, at: usize, prefix: &[String], found: &mut Vec<Vec<String>>) {
    let bytes = code.as_bytes();
    let mut path = prefix.to_vec();
    let mut i = at;
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'{' {
            // One path per item of the group, to its matching `}`.
            let mut depth = 0;
            let mut item_start = i + 1;
            for j in i..bytes.len() {
                match bytes[j] {
                    b'{' => depth += 1,
                    b'}' | b',' if depth == 1 => {
                        if !code[item_start..j].trim().is_empty() {
                            expand(code, item_start, &path, found);
                        }
                        item_start = j + 1;
                        if bytes[j] == b'}' {
                            return;
                        }
                    }
                    _ => {}
                }
                if bytes[j] == b'}' {
                    depth -= 1;
                }
            }
            return;
        }
        let end = code[i..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '*'))
            .map_or(code.len(), |n| i + n);
        if end == i {
            break;
        }
        path.push(code[i..end].to_owned());
        i = end;
        if code[i..].starts_with("::") {
            i += 2;
        } else {
            break;
        }
    }
    if !path.is_empty() {
        found.push(path);
    }
}

/// The absolute path (from the crate root) that `path`, written in `module`, names.
fn absolute(module: &[String], path: &[String]) -> Option<Vec<String>> {
    let (mut full, mut rest) = match path.split_first() {
        Some((first, rest)) if first == "crate" => (Vec::new(), rest),
        _ => (module.to_vec(), path),
    };
    while let Some((_, after)) = rest.split_first().filter(|(first, _)| *first == "super") {
        full.pop()?;
        rest = after;
    }
    full.extend(rest.iter().cloned());
    Some(full)
}

/// The module a path lands in: its longest prefix that is a module.
fn longest_module(full: &[String], known: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    (0..=full.len())
        .rev()
        .map(|n| full[..n].to_vec())
        .find(|prefix| known.contains(prefix))
}

/// Each strongly connected group of more than one module, with the edges inside it.
fn cycles(graph: &Graph) -> Vec<String> {
    // Tarjan's algorithm.
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        groups: Vec<Vec<&'g str>>,
    }
    fn visit<'g>(state: &mut State<'g>, node: &'g str) {
        let n = state.index.len();
        state.index.insert(node, n);
        state.low.insert(node, n);
        state.stack.push(node);
        for next in state.graph.get(node).into_iter().flatten() {
            let next = next.as_str();
            if !state.index.contains_key(next) {
                visit(state, next);
                let low = state.low[node].min(state.low[next]);
                state.low.insert(node, low);
            } else if state.stack.contains(&next) {
                let low = state.low[node].min(state.index[next]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut group = Vec::new();
            while let Some(top) = state.stack.pop() {
                group.push(top);
                if top == node {
                    break;
                }
            }
            if group.len() > 1 {
                state.groups.push(group);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        groups: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state
        .groups
        .iter()
        .map(|group| {
            let mut edges = Vec::new();
            for from in group {
                for to in &graph[*from] {
                    if group.contains(&to.as_str()) {
                        edges.push(format!("  {from} -> {to}"));
                    }
                }
            }
            edges.sort();
            edges.join("\n")
        })
        .collect()
}

/// The reader of the graph sees the arrows this test was written against: without them it
/// would pass by seeing nothing.
#[test]
fn the_module_graph_sees_paths_groups_and_aliases() {
    let graph = module_graph();
    let uses = |from: &str, to: &str| graph[from].contains(to);
    // `use super::columns::Column;`
    assert!(uses("grading::compare", "grading::columns"));
    // `use crate::lease::{...}` in a group, in the core.
    assert!(core_graph()["input::fields"].contains("lease"));
    // The core's modules are leaves of the library's graph, reached through its re-exports.
    assert!(uses("output", "store") && graph["store"].is_empty());
    assert!(!core_graph()["streaming"].is_empty());
    // `use crate::commands;` then `commands::check::Args`.
    assert!(uses("cli", "commands::check"));
    // A doc link is no edge: `compare` names `engine_check` only in a comment.
    assert!(!uses("grading::compare", "grading::engine_check"));
    // Whole words only, in code only.
    let code = without_comments("let e: &dyn MatrixEncoding = x; // Encoding\nserde_json::x(");
    assert_eq!(words(&code, ENCODING_NAMES), ["serde_json"]);
    assert_eq!(
        words("Spill::new(Encoding::Csv)", ENCODING_NAMES),
        ["Encoding"]
    );
    // The engine's files are read: it names its own spill.
    assert!(engine_code().iter().any(|(_, code)| code.contains("Spill")));
}

/// The most lines a function of `src/` may have, and a file its tests left out (issue 39): a
/// function is read whole, a file in a sitting.
const MAX_FUNCTION_LINES: usize = 150;
const MAX_FILE_LINES: usize = 800;

/// No function of `src/` is over [`MAX_FUNCTION_LINES`] lines (from its `fn` line to its
/// closing brace), and no file over [`MAX_FILE_LINES`] lines, its `#[cfg(test)]` modules left
/// out (a test module in a file of its own, `tests.rs`, is a test file).
#[test]
fn functions_and_files_stay_small() {
    let mut files = Vec::new();
    for src in source_dirs() {
        source_files(&src, &mut files);
    }
    let mut offenders = Vec::new();
    for path in files {
        if path.file_name().is_some_and(|name| name == "tests.rs") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let (lines, functions) = sizes(&text);
        if lines > MAX_FILE_LINES {
            offenders.push(format!("{}: {lines} lines", path.display()));
        }
        for (name, line, length) in functions {
            if length > MAX_FUNCTION_LINES {
                offenders.push(format!(
                    "{}:{line}: fn {name} has {length} lines",
                    path.display()
                ));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "split these by meaning (at most {MAX_FUNCTION_LINES} lines a function, \
         {MAX_FILE_LINES} a file):\n{}",
        offenders.join("\n")
    );
}

/// The lines of a file, its `#[cfg(test)]` modules left out, and each function outside them:
/// its name, its first line (from 1) and its length in lines.
fn sizes(text: &str) -> (usize, Vec<(String, usize, usize)>) {
    let code = blanked(text);
    let lines: Vec<&str> = code.lines().collect();
    let mut in_tests = vec![false; lines.len()];
    let mut i = 0;
    while i < lines.len() {
        let opens_test_module = lines[i].trim() == "#[cfg(test)]"
            && lines.get(i + 1).is_some_and(|next| {
                let next = next.trim_start();
                next.starts_with("mod ") && next.trim_end().ends_with('{')
            });
        if !opens_test_module {
            i += 1;
            continue;
        }
        let end = closing_line(&lines, i + 1).unwrap_or(lines.len() - 1);
        in_tests[i..=end].iter_mut().for_each(|t| *t = true);
        i = end + 1;
    }
    let kept = text.lines().count() - in_tests.iter().filter(|t| **t).count();
    let mut functions = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let Some(name) = function_name(line) else {
            continue;
        };
        if in_tests[at] {
            continue;
        }
        if let Some(end) = closing_line(&lines, at) {
            functions.push((name, at + 1, end - at + 1));
        }
    }
    (kept, functions)
}

/// The name of the function a line starts, if it does (`pub(crate) const fn name`, ...).
fn function_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace().peekable();
    while let Some(word) = words.next() {
        match word {
            "fn" => {
                let name = words.next()?;
                let end = name
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(name.len());
                return (end > 0).then(|| name[..end].to_owned());
            }
            "pub" | "const" | "async" | "unsafe" | "extern" | "default" => {}
            w if w.starts_with("pub(") || w.starts_with('"') => {}
            _ => return None,
        }
    }
    None
}

/// The line of the brace that closes the first block opened at or after line `from`; `None`
/// when a `;` comes first (a declaration without a body).
fn closing_line(lines: &[&str], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut opened = false;
    for (at, line) in lines.iter().enumerate().skip(from) {
        for c in line.chars() {
            match c {
                ';' if !opened => return None,
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' if opened => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(at);
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// The text with the insides of comments, strings and character literals blanked (line
/// breaks kept), so that braces in them are not counted.
fn blanked(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        let starts = |s: &str| s.chars().zip(rest).filter(|(a, b)| a == *b).count() == s.len();
        if starts("//") {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if starts("/*") {
            let mut depth = 0;
            while i < chars.len() {
                let rest = &chars[i..];
                if rest.starts_with(&['/', '*']) {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if rest.starts_with(&['*', '/']) {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(&chars, i) {
            // r"..." or r#"..."#, and their byte forms.
            let open = chars[i..].iter().position(|c| *c == '"').unwrap() + 1;
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let mut j = i + open;
            while j < chars.len() && !chars[j..].starts_with(&close) {
                j += 1;
            }
            let end = (j + close.len()).min(chars.len());
            out.extend(chars[i..end].iter().map(|c| blank(*c)));
            i = end;
        } else if chars[i] == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(chars.len());
            out.extend(chars[i..end].iter().map(|c| blank(*c)));
            i = end;
        } else if let Some(length) = char_literal(&chars[i..]) {
            out.extend(std::iter::repeat_n(' ', length));
            i += length;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// The number of `#` of a raw string starting at `i` (`r"`, `r#"`, `br"`), if one does.
fn raw_string_start(chars: &[char], i: usize) -> Option<usize> {
    let after_ident = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    if after_ident {
        return None;
    }
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|c| **c == '#').count();
    (chars.get(j + hashes) == Some(&'"')).then_some(hashes)
}

/// The length of a character literal at the start of `rest` (`'a'`, `'\n'`, `'\u{1b}'`), if
/// one is there (a lifetime, `'a`, is none).
fn char_literal(rest: &[char]) -> Option<usize> {
    if rest.first() != Some(&'\'') {
        return None;
    }
    match rest.get(1)? {
        '\\' => {
            let close = rest.iter().skip(2).position(|c| *c == '\'')? + 2;
            (close <= 12).then_some(close + 1)
        }
        _ => (rest.get(2) == Some(&'\'')).then_some(3),
    }
}

/// The size check sees functions, skips test modules, and is not misled by braces in strings,
/// characters and comments: without that it would pass by seeing nothing.
#[test]
fn the_size_check_sees_functions_and_skips_tests() {
    let long_body = "    let x = 1;\n".repeat(MAX_FUNCTION_LINES);
    let text = format!(
        "/// Doc {{\nfn small() {{\n    let s = \"}}\"; let c = '}}'; // }}\n    let r = r#\"{{\"#;\n}}\n\
         pub(crate) fn long() -> u8 {{\n{long_body}    0\n}}\n\
         #[cfg(test)]\nmod tests {{\n    fn in_tests() {{\n{long_body}    }}\n}}\n"
    );
    let (lines, functions) = sizes(&text);
    let names: Vec<(&str, usize, usize)> = functions
        .iter()
        .map(|(name, line, length)| (name.as_str(), *line, *length))
        .collect();
    assert_eq!(
        names,
        [("small", 2, 4), ("long", 6, MAX_FUNCTION_LINES + 3)]
    );
    assert_eq!(lines, 5 + MAX_FUNCTION_LINES + 3);
    assert_eq!(
        function_name("    pub const unsafe fn go<T>(x: T) {"),
        Some("go".into())
    );
    assert_eq!(function_name("    let f = |x| x;"), None);
    assert_eq!(
        function_name("extern \"C\" fn note() {"),
        Some("note".into())
    );
}

/// The core's layers, lowest first: each imports only the layers before it (issue 39); the
/// engine (`streaming`) is the core's top. (That nothing of the core imports a module outside
/// it is the crate boundary's to enforce.)
const CORE_LAYERS: &[&str] = &[
    "choice",
    "random",
    "lease",
    "store",
    "limits",
    "cell",
    "matrix",
    "sanitize",
    "input",
    "streaming",
];

/// The utilities every command writes through, and what they may import: they know nothing
/// of input, the engine or the matrix, whose errors and rows reach them as text and bytes.
const UTILITY_IMPORTS: &[(&str, &[&str])] = &[
    ("output", &["store", "sanitize", "cell", "limits"]),
    (
        "terminal",
        &["store", "sanitize", "cell", "limits", "output", "choice"],
    ),
];

#[test]
fn the_core_and_the_utilities_import_only_what_is_below_them() {
    let mut offenders = Vec::new();
    // The crate root (`lib.rs`) only declares the modules.
    for (module, uses) in core_graph().into_iter().filter(|(m, _)| !m.is_empty()) {
        let from = top_level(&module);
        let level = CORE_LAYERS.iter().position(|m| *m == from);
        assert!(
            level.is_some(),
            "{from}: a module of the core not in its layers"
        );
        for to in uses {
            let to_top = top_level(&to);
            if to_top != from && !CORE_LAYERS[..level.unwrap()].contains(&to_top.as_str()) {
                offenders.push(format!("{module} -> {to}"));
            }
        }
    }
    for (module, uses) in module_graph() {
        let from = top_level(&module);
        let Some((_, below)) = UTILITY_IMPORTS.iter().find(|(m, _)| *m == from) else {
            continue;
        };
        for to in uses {
            let to_top = top_level(&to);
            if to_top != from && !below.contains(&to_top.as_str()) {
                offenders.push(format!("{module} -> {to}"));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "arrows that point up (move the thing below, or invert the dependency):\n{}",
        offenders.join("\n")
    );
}
