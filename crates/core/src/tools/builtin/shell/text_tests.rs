//! Tests of the parser, the renderer and the capture (no processes).

use super::capture::{Capture, Limits, thousands, truncate_text};
use super::render::{LineSink, Renderer, render_all};
use crate::policy::shell_parse::{root_commands, split_commands, strip_shell_wrapper};

fn roots(cmd: &str) -> Vec<String> {
    root_commands(cmd)
}

#[test]
fn roots_of_lists_and_pipes() {
    assert_eq!(roots("git status && git diff"), ["git"]);
    assert_eq!(
        split_commands("git status && git diff"),
        ["git status", "git diff"]
    );
    assert_eq!(roots("ls | grep foo; echo done"), ["ls", "grep", "echo"]);
    assert_eq!(roots("(cd a && make) || echo fail"), ["cd", "make", "echo"]);
    assert_eq!(roots("sleep 1 &"), ["sleep"]);
    assert_eq!(roots("a |& b"), ["a", "b"]);
    assert_eq!(roots("echo a\nls -l"), ["echo", "ls"]);
    assert_eq!(roots("{ echo a; echo b; }"), ["echo"]);
    assert_eq!(split_commands("{ echo a; echo b; }"), ["echo a", "echo b"]);
}

#[test]
fn roots_inside_substitutions() {
    assert_eq!(roots("echo $(date +%s)"), ["echo", "date"]);
    assert_eq!(
        split_commands("echo $(date +%s)"),
        ["echo $(date +%s)", "date +%s"]
    );
    assert_eq!(roots("echo `whoami`"), ["echo", "whoami"]);
    assert_eq!(roots("echo \"$(id -u) `uname`\""), ["echo", "id", "uname"]);
    assert_eq!(roots("diff <(ls a) <(ls b)"), ["diff", "ls"]);
    assert_eq!(roots("x=$(pwd)"), ["pwd"]);
    assert_eq!(roots("echo $((1 + (2 * 3))) ${HOME}"), ["echo"]);
    assert_eq!(roots("echo $(echo $(rm -rf x))"), ["echo", "rm"]);
}

#[test]
fn roots_with_quotes_assignments_and_paths() {
    assert_eq!(roots("A=1 B=2 npm test"), ["npm"]);
    assert_eq!(split_commands("A=1 B=2 npm test"), ["A=1 B=2 npm test"]);
    assert_eq!(roots("arr=(a b) cmd"), ["cmd"]);
    assert_eq!(roots("sudo rm -rf x"), ["sudo"]);
    assert_eq!(roots("\"git\" status"), ["git"]);
    assert_eq!(roots("/usr/bin/git log"), ["git"]);
    assert_eq!(roots("echo 'a && b' \"c | d\""), ["echo"]);
    assert_eq!(
        split_commands("echo 'a && b' \"c | d\""),
        ["echo 'a && b' \"c | d\""]
    );
    assert_eq!(roots("echo a\\;b"), ["echo"]);
    assert_eq!(roots("echo a # rm -rf /"), ["echo"]);
}

#[test]
fn roots_with_redirections() {
    assert_eq!(roots("echo hi > out.txt 2>&1 && cat < in"), ["echo", "cat"]);
    assert_eq!(
        split_commands("echo hi > out.txt 2>&1 && cat < in"),
        ["echo hi > out.txt 2>&1", "cat < in"]
    );
    assert_eq!(roots("ls &>/dev/null; echo x"), ["ls", "echo"]);
    assert_eq!(roots(">out echo hi"), ["echo"]);
    assert_eq!(roots("cat <<EOF"), ["cat"]);
}

#[test]
fn roots_of_compound_commands() {
    assert_eq!(roots("for f in *.txt; do wc -l $f; done"), ["wc"]);
    assert_eq!(
        roots("if [ -f x ]; then cat x; else echo no; fi"),
        ["[", "cat", "echo"]
    );
    assert_eq!(roots("while true; do sleep 1; done"), ["true", "sleep"]);
    assert_eq!(roots("! grep -q x f"), ["grep"]);
}

#[test]
fn parser_never_panics_on_broken_input() {
    for cmd in [
        "",
        "   ",
        "echo \"abc",
        "echo $(",
        "echo `",
        ")))",
        "(((",
        "'",
        "\\",
        "$((",
        "${",
        "a && && b",
        "&&",
        "|",
        ";;",
        "echo é $(ü) ‘x’",
        "2>",
        "<(",
        "a=(",
    ] {
        let _ = root_commands(cmd);
        let _ = split_commands(cmd);
        let _ = strip_shell_wrapper(cmd);
    }
    assert!(roots("").is_empty());
    assert_eq!(roots("a && && b"), ["a", "b"]);
}

#[test]
fn shell_wrapper_is_stripped() {
    assert_eq!(strip_shell_wrapper("bash -c \"ls -la\""), "ls -la");
    assert_eq!(strip_shell_wrapper("sh -c 'echo hi'"), "echo hi");
    assert_eq!(strip_shell_wrapper("  zsh  -c  make  "), "make");
    assert_eq!(strip_shell_wrapper("bashful -c x"), "bashful -c x");
    assert_eq!(strip_shell_wrapper("bash -cx"), "bash -cx");
    assert_eq!(
        strip_shell_wrapper("powershell.exe -NoProfile -Command Get-Date"),
        "Get-Date"
    );
    assert_eq!(strip_shell_wrapper("pwsh -Command ls"), "ls");
    assert_eq!(strip_shell_wrapper("cmd.exe /c dir"), "dir");
    assert_eq!(strip_shell_wrapper("  ls  "), "ls");
}

#[test]
fn rendering_like_a_terminal() {
    assert_eq!(
        render_all(b"a\tb\n  lead\ntrail   \n"),
        "a       b\n  lead\ntrail   "
    );
    assert_eq!(render_all(b"abcdefgh\tx\n"), "abcdefgh        x");
    assert_eq!(render_all(b"tab at end\t\n"), "tab at end");
    assert_eq!(
        render_all(b"\x1b[31mred\x1b[0m \x1b[1;32mgreen\x1b[m\n"),
        "red green"
    );
    assert_eq!(render_all(b"10%\r50%\r100%\n"), "100%");
    assert_eq!(render_all(b"win\r\nline\r\n"), "win\nline");
    assert_eq!(render_all(b"\n\nhi\n\n\n"), "\n\nhi");
    assert_eq!(render_all(b"ab\x08c\n"), "ac");
    assert_eq!(render_all(b"long line\r\x1b[Kshort\n"), "short");
    assert_eq!(
        render_all(b"\x1b]0;title\x07text\x1b]8;;http://x\x1b\\link\n"),
        "textlink"
    );
    assert_eq!(render_all(b"a\x1b(Bb\x1b[2Cc\n"), "ab  c");
    assert_eq!(render_all(b"bell\x07\x00!\n"), "bell!");
    assert_eq!(render_all(b"no newline"), "no newline");
    assert_eq!(render_all(b"bad \xff byte\n"), "bad \u{FFFD} byte");
    assert_eq!(render_all(b""), "");
}

struct Collect(String);
impl LineSink for Collect {
    fn fragment(&mut self, text: &str) {
        self.0.push_str(text);
    }
    fn newline(&mut self) {
        self.0.push('\n');
    }
}

#[test]
fn utf8_split_across_reads() {
    let bytes = "añ€😀\n".as_bytes();
    for split in 0..bytes.len() {
        let mut r = Renderer::new();
        let mut sink = Collect(String::new());
        r.feed(&bytes[..split], &mut sink);
        r.feed(&bytes[split..], &mut sink);
        r.finish(&mut sink);
        assert_eq!(sink.0, "añ€😀\n", "split at {split}");
    }
}

#[test]
fn endless_line_stays_intact() {
    let line = "x".repeat(100_000);
    assert_eq!(render_all(line.as_bytes()), line);
    let tabbed = format!("{}\tz", "y".repeat(20_001));
    let expected = format!("{}{}z", "y".repeat(20_001), " ".repeat(7));
    assert_eq!(render_all(tabbed.as_bytes()), expected);
}

#[test]
fn thousands_separators() {
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(4000), "4,000");
    assert_eq!(thousands(1_234_567), "1,234,567");
}

#[test]
fn truncating_text() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f.txt").display().to_string();
    let text: Vec<String> = (1..=10).map(|i| i.to_string()).collect();
    assert_eq!(
        truncate_text(&text.join("\n"), 3, &f),
        format!(
            "Output too large. Showing the last 3 of 10 lines. For full output see: {f}\n...\n8\n9\n10"
        )
    );
    let long = format!("a\n{}", "b".repeat(1500));
    assert_eq!(
        truncate_text(&long, 5, &f),
        format!(
            "Output too large. Showing the last 2 of 2 lines (some long lines truncated). For full output see: {f}\n...\na\n{}... [LINE WIDTH TRUNCATED]",
            "b".repeat(1000)
        )
    );
    let single = "c".repeat(5000);
    assert_eq!(
        truncate_text(&single, 5, &f),
        format!(
            "Output too large. Showing the last 4,000 characters of the output. For full output see: {f}\n...{}",
            "c".repeat(4000)
        )
    );
}

/// Feeds `raw` through a capture and frames it.
fn captured(raw: &str, limits: Limits, dir: &std::path::Path, save: &std::path::Path) -> String {
    let mut c = Capture::new(limits, dir);
    let mut r = Renderer::new();
    for chunk in raw.as_bytes().chunks(7) {
        r.feed(chunk, &mut c);
    }
    r.finish(&mut c);
    c.finish("Output: ", "\nProcess Group PGID: 1", save)
}

#[test]
fn capture_spooled_and_in_memory_agree() {
    let dir = tempfile::tempdir().unwrap();
    let raw: String = (1..=200).map(|i| format!("line {i}\n")).collect();
    let full = format!("Output: {}\nProcess Group PGID: 1", raw.trim_end());
    for threshold in [50, 1000, full.len() - 1] {
        let save = dir.path().join(format!("s{threshold}.txt"));
        let limits = Limits {
            threshold: Some(threshold),
            lines: 5,
        };
        let got = captured(&raw, limits, dir.path(), &save);
        let f = save.display().to_string();
        assert_eq!(got, truncate_text(&full, 5, &f), "threshold {threshold}");
        assert_eq!(std::fs::read_to_string(&save).unwrap(), full);
    }
    let save = dir.path().join("none.txt");
    let got = captured(
        &raw,
        Limits {
            threshold: Some(full.len()),
            lines: 5,
        },
        dir.path(),
        &save,
    );
    assert_eq!(got, full);
    assert!(!save.exists());
    // No spool file is left behind.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(std::result::Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("shell_spool_"))
        .collect();
    assert!(left.is_empty());
}

#[test]
fn capture_tail_keeps_the_prefix_when_everything_fits() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("s.txt");
    let raw = format!("{}\nshort\n", "z".repeat(1200));
    let got = captured(
        &raw,
        Limits {
            threshold: Some(10),
            lines: 10,
        },
        dir.path(),
        &save,
    );
    let f = save.display().to_string();
    assert_eq!(
        got,
        format!(
            "Output too large. Showing the last 3 of 3 lines (some long lines truncated). For full output see: {f}\n...\nOutput: {}... [LINE WIDTH TRUNCATED]\nshort\nProcess Group PGID: 1",
            "z".repeat(992)
        )
    );
}

#[test]
fn minutes_round_half_up() {
    use std::time::Duration;
    assert_eq!(super::minutes(Some(Duration::from_secs(300))), "5.0");
    assert_eq!(super::minutes(Some(Duration::from_secs(15))), "0.3");
    assert_eq!(super::minutes(Some(Duration::from_millis(300))), "0.0");
    assert_eq!(super::minutes(None), "0.0");
}
