//! The rebase kernel against Spark's own `RebaseDateTime`: days around every switch and down
//! to about 10,000 BC, and micros in nine zones (their tables, below them and after them) and
//! in five fixed-offset zones without a table (every local day around the 1582 gap), as Spark
//! 4.2 computed them (`tests/data/spark_rebase.py` writes the reference).

mod common;

use vecruntime_kernels::rebase::{
    rebase_days, Ancient, Rebase, ZoneRebase, LAST_SWITCH_GREGORIAN_DAY,
};

struct Zone {
    id: String,
    rebase: ZoneRebase,
    micros: Vec<(i64, i64)>,
}

struct Reference {
    /// Spark's `lastSwitchGregorianDay` and `lastSwitchGregorianTs`.
    thresholds: (i32, i64),
    days: Vec<(i32, i32)>,
    zones: Vec<Zone>,
}

fn reference() -> Reference {
    let text = common::SPARK_REBASE;
    let (mut days, mut zones) = (Vec::new(), Vec::<Zone>::new());
    let mut thresholds = None;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        match f[0] {
            "thresholds" => thresholds = Some((f[1].parse().unwrap(), f[2].parse().unwrap())),
            "day" => days.push((f[1].parse().unwrap(), f[2].parse().unwrap())),
            "zone" => {
                let (id, rebase) = common::zone(line);
                zones.push(Zone {
                    id,
                    rebase,
                    micros: Vec::new(),
                });
            }
            "micros" => zones
                .last_mut()
                .unwrap()
                .micros
                .push((f[1].parse().unwrap(), f[2].parse().unwrap())),
            other => panic!("unknown line kind {other}"),
        }
    }
    assert!(days.len() > 1500 && zones.len() == 14);
    // The last five have no table: custom offsets, and offsets `TimeZone` reads as GMT.
    assert!(zones.iter().skip(9).all(|z| z.rebase.switches.is_empty()));
    Reference {
        thresholds: thresholds.unwrap(),
        days,
        zones,
    }
}

#[test]
fn days_as_spark_rebases_them() {
    let Reference { days, .. } = reference();
    for &(d, julian) in &days {
        assert_eq!(rebase_days(d), julian, "day {d}");
        assert_eq!(Rebase::Legacy(None).days(d), Ok(julian), "day {d}");
    }
    // In place, the column's minimum decides whether anything is rebased.
    let mut column: Vec<i32> = days.iter().map(|p| p.0).collect();
    Rebase::Legacy(None).days_in_place(&mut column).unwrap();
    assert_eq!(column, days.iter().map(|p| p.1).collect::<Vec<_>>());
    let mut modern = vec![LAST_SWITCH_GREGORIAN_DAY, 0, 19_000];
    Rebase::Legacy(None).days_in_place(&mut modern).unwrap();
    assert_eq!(modern, [LAST_SWITCH_GREGORIAN_DAY, 0, 19_000]);
}

#[test]
fn micros_as_spark_rebases_them_in_every_zone() {
    let Reference { zones, .. } = reference();
    for z in &zones {
        assert!(z.micros.len() > 200, "{}", z.id);
        let legacy = Rebase::Legacy(Some(z.rebase.clone()));
        for &(m, julian) in &z.micros {
            assert_eq!(z.rebase.micros(m), julian, "{} micros {m}", z.id);
            assert_eq!(legacy.micros(m), Ok(julian), "{} micros {m}", z.id);
        }
        let mut column: Vec<i64> = z.micros.iter().map(|p| p.0).collect();
        legacy.micros_in_place(&mut column, 1).unwrap();
        assert_eq!(
            column,
            z.micros.iter().map(|p| p.1).collect::<Vec<_>>(),
            "{}",
            z.id
        );
        // Millis: Spark rebases the micros, then converts them (floor division).
        let mut millis: Vec<i64> = z.micros.iter().map(|p| p.0.div_euclid(1000)).collect();
        legacy.micros_in_place(&mut millis, 1000).unwrap();
        for (i, &(m, julian)) in z.micros.iter().enumerate() {
            // Whole-second switches: the rebase of a milli's start is the milli of the rebase.
            assert_eq!(millis[i], julian.div_euclid(1000), "{} millis of {m}", z.id);
        }
    }
}

#[test]
fn modern_values_are_left_alone() {
    let Reference { zones, .. } = reference();
    let z = &zones[1].rebase;
    let last = *z.switches.last().unwrap();
    let legacy = Rebase::Legacy(Some(z.clone()));
    let mut column = vec![last, last + 1, i64::MAX];
    legacy.micros_in_place(&mut column, 1).unwrap();
    assert_eq!(column, [last, last + 1, i64::MAX]);
    // Millis from the last switch on stay too.
    let mut millis = vec![last / 1000];
    legacy.micros_in_place(&mut millis, 1000).unwrap();
    assert_eq!(millis, [last / 1000]);
}

#[test]
fn exception_mode_refuses_what_spark_refuses() {
    let Reference {
        thresholds: (day, micros),
        days,
        zones,
    } = reference();
    assert_eq!(LAST_SWITCH_GREGORIAN_DAY, day);
    let e = Rebase::Exception {
        micros_threshold: micros,
    };
    for &(d, _) in &days {
        assert_eq!(e.days(d).is_err(), d < day, "day {d}");
        let mut column = vec![19_000, d];
        assert_eq!(e.days_in_place(&mut column).is_err(), d < day, "day {d}");
    }
    for &(m, _) in zones.iter().flat_map(|z| &z.micros) {
        assert_eq!(e.micros(m), if m < micros { Err(Ancient) } else { Ok(m) });
        let mut column = vec![0, m];
        assert_eq!(
            e.micros_in_place(&mut column, 1).is_err(),
            m < micros,
            "{m}"
        );
    }
    for m in [micros - 1, micros, micros + 1] {
        assert_eq!(e.micros(m).is_err(), m < micros);
        // Millis: the milli that holds the threshold is refused when its start is below it.
        let mut column = vec![m.div_euclid(1000)];
        let refused = m.div_euclid(1000) * 1000 < micros;
        assert_eq!(e.micros_in_place(&mut column, 1000).is_err(), refused);
    }
}

#[test]
fn zone_tables_are_checked() {
    // No table: only for a zone with one offset by both clocks.
    assert!(ZoneRebase::new(vec![], vec![], 0, 1).is_err());
    assert!(ZoneRebase::new(vec![], vec![], 5, 5).is_ok());
    assert!(ZoneRebase::new(vec![1], vec![], 0, 0).is_err());
    assert!(ZoneRebase::new(vec![1, 2], vec![0], 0, 0).is_err());
    assert!(ZoneRebase::new(vec![2, 2], vec![1, 0], 0, 0).is_err());
    assert!(ZoneRebase::new(vec![3, 2], vec![1, 0], 0, 0).is_err());
    assert!(ZoneRebase::new(vec![1, 2], vec![1, 1], 0, 0).is_err());
    assert!(ZoneRebase::new(vec![1, 2], vec![1, 0], 0, 0).is_ok());
}
