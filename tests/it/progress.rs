//! Progress on a terminal (issue 24): nothing is drawn for work that ends within the delay,
//! what is drawn fits the terminal, and nothing is drawn when standard error is not a
//! terminal. Run under a pseudo-terminal made by script(1) (util-linux), its width set by
//! `stty`. No outcome waits on time (issue 39): the delay is set (`LEASEJUDGE_PROGRESS_DELAY_MS`),
//! and a slow run is one held on a FIFO its test feeds once progress is drawn.

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

/// The environment variable that sets the progress delay in milliseconds: 0 draws progress at
/// once, a day never within a test.
const DELAY_KNOB: &str = "LEASEJUDGE_PROGRESS_DELAY_MS";

/// A day: a delay no test's work reaches.
const NEVER: &str = "86400000";

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
        // Quick work is work that ends within the delay: with a delay of a day, every run
        // is, however busy the machine (no timing is measured).
        let Some(shown) = on_terminal(&format!("{DELAY_KNOB}={NEVER} {command}; echo END")) else {
            eprintln!("no script(1): skipped");
            return;
        };
        assert!(shown.contains("END"), "{shown:?}");
        assert!(!has_progress(&shown), "{command}: {shown:?}");
        assert_eq!(shown_lines(&shown), ["END"], "{command}");
    }
}

/// A run of `leasejudge COMMAND` on a terminal that lasts past the progress delay by
/// construction, not by time: the delay is 0, and its standard input is a FIFO that the
/// test feeds the case file of `dir` only once `ready` holds of what the terminal shows
/// (progress drawn), or at once when `ready` is `None`. Returns what the terminal showed, or
/// `None` if there is no script(1).
fn held_run(dir: &Path, command: &str, ready: Option<fn(&str) -> bool>) -> Option<String> {
    use std::io::{Read, Write};
    let cases = case_file(dir);
    let fifo = dir.join("input.fifo");
    let path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path; nothing is borrowed past the call.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
    let bin = env!("CARGO_BIN_EXE_leasejudge");
    let line = format!(
        "stty cols {COLUMNS} rows 24; cat {fifo} | {DELAY_KNOB}=0 {bin} {command}; echo END",
        fifo = fifo.display()
    );
    let mut child = match Command::new("script")
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(_) => return None,
    };
    // What the terminal shows, read as it comes.
    let mut out = child.stdout.take().unwrap();
    let (sender, chunks) = std::sync::mpsc::channel::<Vec<u8>>();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = out.read(&mut buf) {
            if sender.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut shown = Vec::new();
    if let Some(ready) = ready {
        // Not a delay: a bound on a wait that ends as soon as the progress is drawn.
        while !ready(&String::from_utf8_lossy(&shown)) {
            match chunks.recv_timeout(std::time::Duration::from_secs(120)) {
                Ok(chunk) => shown.extend(chunk),
                Err(e) => panic!(
                    "{command}: nothing drawn while it waited for its input ({e}): {:?}",
                    String::from_utf8_lossy(&shown)
                ),
            }
        }
    }
    // Opened once `cat` opens it to read; closed at the end of the case file.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&fifo)
        .unwrap()
        .write_all(std::fs::read_to_string(&cases).unwrap().as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
    shown.extend(chunks.try_iter().flatten());
    Some(String::from_utf8_lossy(&shown).into_owned())
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
    let Some(shown) = held_run(dir.path(), "validate - >/dev/null", Some(has_progress)) else {
        eprintln!("no script(1): skipped");
        return;
    };
    assert!(has_progress(&shown), "{shown:?}");
    assert!(shown.contains("validate"), "{shown:?}");
    assert!(shown.contains("END"), "{shown:?}");
    assert_within_the_terminal_width(&shown);
}

#[test]
fn slow_adjudicate_draws_within_the_terminal_width() {
    let dir = tempfile::tempdir().unwrap();
    let Some(shown) = held_run(
        dir.path(),
        "adjudicate - -f csv -o /dev/null",
        Some(has_progress),
    ) else {
        eprintln!("no script(1): skipped");
        return;
    };
    assert!(has_progress(&shown), "{shown:?}");
    assert!(shown.contains("END"), "{shown:?}");
    assert_within_the_terminal_width(&shown);
}

#[test]
fn slow_work_with_standard_error_to_a_file_draws_nothing_there_or_on_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stderr.txt");
    // The delay is 0, so a run that drew progress would draw it at once, as the two tests
    // above see it drawn before they feed the input; here nothing may be.
    let Some(shown) = held_run(
        dir.path(),
        &format!("validate - >/dev/null 2>{}", log.display()),
        None,
    ) else {
        eprintln!("no script(1): skipped");
        return;
    };
    assert_eq!(shown_lines(&shown), ["END"]);
    assert!(!has_progress(&std::fs::read_to_string(&log).unwrap()));
}
