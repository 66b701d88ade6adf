//! What the kernel's tests share: Spark's rebase tables as `data/spark_rebase.py` wrote them.

use vecruntime_kernels::rebase::ZoneRebase;

/// The zone of a reference line `zone <id> <zone offset> <calendar offset> <switch:diff,...|->`.
pub fn zone(line: &str) -> (String, ZoneRebase) {
    let f: Vec<&str> = line.split(' ').collect();
    assert_eq!(f[0], "zone", "{line}");
    // `-`: no table (a fixed-offset zone, Spark's calendar path for every value).
    let (switches, diffs) = f[4]
        .split(',')
        .filter(|p| *p != "-")
        .map(|p| {
            let (s, d) = p.split_once(':').unwrap();
            (s.parse::<i64>().unwrap(), d.parse::<i64>().unwrap())
        })
        .unzip();
    let rebase = ZoneRebase::new(
        switches,
        diffs,
        f[2].parse().unwrap(),
        f[3].parse().unwrap(),
    );
    (f[1].to_string(), rebase.unwrap())
}

/// Spark's rebase reference.
pub const SPARK_REBASE: &str = include_str!("../data/spark_rebase.txt");
