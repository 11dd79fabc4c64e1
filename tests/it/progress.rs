//! Progress on a terminal (issue 24): nothing is drawn for work that ends within a second,
//! what is drawn fits the terminal, and nothing is drawn when standard error is not a
//! terminal. Run under a pseudo-terminal made by script(1) (util-linux), its width set by
//! `stty`.

use std::path::Path;
use std::process::Command;

const COLUMNS: usize = 40;

/// What `command` (a shell command line) writes to the terminal it runs on, or `None` if
/// there is no script(1) to make one.
fn on_terminal(command: &str) -> Option<String> {
    let line = format!("stty cols {COLUMNS} rows 24; {command}");
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The lines a terminal shows of `text`: escape sequences taken out, split at line ends and
/// carriage returns.
fn shown_lines(text: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        plain.push(c);
    }
    plain
        .split(['\r', '\n'])
        .filter(|line| !line.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether `text` holds a spinner's or a bar's marks (indicatif's default spinner is braille).
fn has_progress(text: &str) -> bool {
    text.chars().any(|c| ('\u{2800}'..='\u{28ff}').contains(&c)) || text.contains("=>")
}

fn case_file(dir: &Path) -> String {
    let path = dir.join("cases.csv");
    std::fs::write(
        &path,
        "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration,result\n\
         c1,offer,2026-01-01T00:00:00Z,j,L,1,w,30,\n\
         c1,ack,2026-01-01T00:00:01Z,,L,1,w,,\n\
         c1,result,2026-01-01T00:00:02Z,,L,1,w,,success\n",
    )
    .unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn quick_work_draws_nothing_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let cases = case_file(dir.path());
    let bin = env!("CARGO_BIN_EXE_leasejudge");
    for command in [
        format!("{bin} adjudicate {cases} -f csv -o /dev/null"),
        format!("{bin} validate {cases} >/dev/null"),
        format!("{bin} explain {cases} -o /dev/null"),
    ] {
        // Quick work is work that ends within the delay: a run the machine made slower
        // than that proves nothing and is made again (a busy machine once drew a bar here).
        let mut quick_run = false;
        for _ in 0..10 {
            let started = std::time::Instant::now();
            let Some(shown) = on_terminal(&format!("{command}; echo END")) else {
                eprintln!("no script(1): skipped");
                return;
            };
            if started.elapsed() >= leasejudge::terminal::PROGRESS_DELAY {
                continue;
            }
            assert!(shown.contains("END"), "{shown:?}");
            assert!(!has_progress(&shown), "{command}: {shown:?}");
            assert_eq!(shown_lines(&shown), ["END"], "{command}");
            quick_run = true;
            break;
        }
        assert!(quick_run, "{command}: no run of ten ended within the delay");
    }
}

/// `command` run on standard input that takes two seconds to end (the work lasts past the
/// delay), with the case file of `dir`.
fn slow(dir: &Path, command: &str) -> String {
    let cases = case_file(dir);
    let bin = env!("CARGO_BIN_EXE_leasejudge");
    format!("(sleep 2; cat {cases}) | {bin} {command}")
}

/// Every line of `shown` is narrower than the terminal.
fn assert_within_the_terminal_width(shown: &str) {
    for line in shown_lines(shown) {
        // indicatif fills the rest of the line with spaces, to clear what was there.
        let drawn = line.trim_end().chars().count();
        assert!(drawn < COLUMNS, "{line:?} is as wide as the terminal");
    }
}

#[test]
fn slow_validate_draws_within_the_terminal_width() {
    let dir = tempfile::tempdir().unwrap();
    let Some(shown) = on_terminal(&slow(dir.path(), "validate - >/dev/null")) else {
        eprintln!("no script(1): skipped");
        return;
    };
    assert!(has_progress(&shown), "{shown:?}");
    assert!(shown.contains("validate"), "{shown:?}");
    assert_within_the_terminal_width(&shown);
}

#[test]
fn slow_adjudicate_draws_within_the_terminal_width() {
    let dir = tempfile::tempdir().unwrap();
    let Some(shown) = on_terminal(&slow(dir.path(), "adjudicate - -f csv -o /dev/null")) else {
        eprintln!("no script(1): skipped");
        return;
    };
    assert!(has_progress(&shown), "{shown:?}");
    assert_within_the_terminal_width(&shown);
}

#[test]
fn slow_work_with_standard_error_to_a_file_draws_nothing_there_or_on_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stderr.txt");
    let Some(shown) = on_terminal(&format!(
        "{} 2>{}; echo END",
        slow(dir.path(), "validate - >/dev/null"),
        log.display()
    )) else {
        eprintln!("no script(1): skipped");
        return;
    };
    assert_eq!(shown_lines(&shown), ["END"]);
    assert!(!has_progress(&std::fs::read_to_string(&log).unwrap()));
}
