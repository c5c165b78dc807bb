//! The Python wheel (#40.5): `packaging/wheel.py` packs the binary these
//! tests run into a wheel, pip installs it into a fresh virtual environment
//! without any index, and the `gemini-rs` on that environment's PATH
//! replays the demo session.

use crate::support::peer_missing;
use std::path::Path;
use std::process::Command;

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .unwrap()
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_wheel_installs_gemini_rs_on_a_fresh_environments_path() {
    let venv_ok = Command::new("python3")
        .args(["-c", "import venv, ensurepip"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !venv_ok {
        return peer_missing("python3 with venv", "apt-get install python3-venv");
    }
    let dir = tempfile::tempdir().unwrap();
    let dist = dir.path().join("dist");
    let root = repo_root();
    let wheel = run(Command::new("python3")
        .arg(root.join("packaging/wheel.py"))
        .arg(env!("CARGO_BIN_EXE_gemini-rs"))
        .arg(&dist));
    let wheel = wheel.trim();
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        wheel.ends_with(".whl") && wheel.contains(&format!("gemini_rs-{version}-py3-none-")),
        "{wheel}"
    );
    let venv = dir.path().join("venv");
    run(Command::new("python3").args(["-m", "venv"]).arg(&venv));
    run(Command::new(venv.join("bin/pip")).args([
        "install",
        "--quiet",
        "--no-index",
        "--disable-pip-version-check",
        wheel,
    ]));
    let installed = venv.join("bin/gemini-rs");
    let printed = run(Command::new(&installed).arg("--version"));
    assert_eq!(printed.trim(), format!("gemini-rs {version}"));

    // The installed binary runs a whole replayed session on its own.
    let work = dir.path().join("demo");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::copy(root.join("examples/demo/NOTES.md"), work.join("NOTES.md")).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = Command::new(&installed)
        .current_dir(&work)
        .env_clear()
        .env("PATH", venv.join("bin"))
        .env("HOME", &home)
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
        .args(["--fake-responses"])
        .arg(root.join("examples/demo.responses"))
        .args([
            "--approval-mode=auto_edit",
            "-p",
            "Turn NOTES.md into a CHANGELOG.md",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let changelog = std::fs::read_to_string(work.join("CHANGELOG.md")).unwrap();
    assert!(changelog.contains("# Changelog"), "{changelog}");
}
