//! Headless Chromium for the tests of the HTML pages (report, replay).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Headless Chromium from the PATH (`chromium`, `chromium-browser`, `google-chrome`) or
/// `$KRIEGSSPIEL_CHROMIUM`. Without one a browser test is skipped visibly, except under
/// CI (`CI=true`, or `KRIEGSSPIEL_REQUIRE_BROWSER=1` as .ci/run sets after installing
/// it), where its absence is a failure.
pub fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("KRIEGSSPIEL_CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    let flag =
        |k: &str| std::env::var(k).map(|v| v.eq_ignore_ascii_case("true") || v == "1").unwrap_or(false);
    assert!(
        !flag("CI") && !flag("KRIEGSSPIEL_REQUIRE_BROWSER"),
        "headless Chromium not found under CI: .ci/run installs the Debian package `chromium`"
    );
    eprintln!(
        "skipped: headless Chromium not found (install the `chromium` package to run the browser test)"
    );
    None
}

/// Run headless Chromium with these arguments, a fresh profile in `profile`.
pub fn headless(chrome: &Path, profile: &Path, args: &[&str]) -> Output {
    Command::new(chrome)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .expect("chromium runs")
}
