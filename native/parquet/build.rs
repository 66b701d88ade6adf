// Stamps the build id into `created_by` (`vecruntime version X.Y.Z (build <id>)`).
fn main() {
    let id = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=VECRUNTIME_BUILD_ID={id}");
    println!("cargo:rerun-if-changed=build.rs");
    // A new commit changes the id: watch HEAD and the branch it points at.
    let git_dir = std::process::Command::new("git")
        .args(["rev-parse", "--absolute-git-dir"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| std::path::PathBuf::from(s.trim()));
    if let Some(dir) = git_dir {
        let head = dir.join("HEAD");
        println!("cargo:rerun-if-changed={}", head.display());
        if let Some(r) = std::fs::read_to_string(&head)
            .ok()
            .and_then(|h| h.strip_prefix("ref: ").map(|r| r.trim().to_string()))
        {
            println!("cargo:rerun-if-changed={}", dir.join(r).display());
        }
    }
}
