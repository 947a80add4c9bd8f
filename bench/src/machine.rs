//! The machine and the source a report was measured on.

use std::process::Command;

/// CPU model (from /proc/cpuinfo), logical cores, and the rustc version.
pub fn description() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown CPU".to_string());
    let cores = info.lines().filter(|l| l.starts_with("processor")).count();
    let rustc = Command::new("rustc")
        .arg("-V")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    format!("{model}, {cores} logical cores; {rustc}")
}

/// `git rev-parse --short HEAD`, plus "with uncommitted changes" when the tree is dirty.
pub fn commit() -> String {
    let root = crate::repo_root();
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(&root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    match git(&["rev-parse", "--short", "HEAD"]) {
        Some(h) => {
            let h = h.trim().to_string();
            let status = git(&["status", "--porcelain"]).unwrap_or_default();
            let mut dirty: Vec<&str> =
                status.lines().filter_map(|l| l.get(3..)).map(|p| p.split('/').next().unwrap_or(p)).collect();
            dirty.sort();
            dirty.dedup();
            if dirty.is_empty() {
                h
            } else {
                format!("{h} with uncommitted changes (in {})", dirty.join(", "))
            }
        }
        None => "unknown commit".to_string(),
    }
}
