//! Test peers: programs some tests run against (MCP servers from npm and
//! PyPI), found through environment variables (`GEMINI_RS_MCP_EVERYTHING`,
//! `GEMINI_RS_MCP_PYTHON`) or where `.ci/run` installs them under
//! `target/`. A missing peer skips its test with a note, except on CI
//! (`CI=true`), where it fails the test: a CI run must not pass with its
//! peer tests silently skipped.

/// True when the `CI` variable says this is a CI run (`true` or `1`).
pub(crate) fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// Reports that `peer` is missing (`install` says how to get it): a
/// panic on CI, else a note on stderr (the caller then skips).
pub(crate) fn missing(peer: &str, install: &str) {
    if on_ci() {
        panic!("{peer} is not installed, and CI=true forbids skipping its tests ({install})");
    }
    eprintln!("skipped: {peer} is not installed ({install})");
}
