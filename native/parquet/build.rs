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
}
