use super::*;

/// Seconds as micros.
fn s(secs: i64) -> i64 {
    secs * 1_000_000
}

#[test]
fn days_as_spark() {
    // Spark's own examples: 1582-01-01 is -141714 Gregorian, -141704 Julian.
    assert_eq!(rebase_days(-141714), -141704);
    assert_eq!(rebase_days(-719162), -719164); // 0001-01-01
    assert_eq!(rebase_days(-141427), -141427); // 1582-10-15
    assert_eq!(rebase_days(-141428), -141427); // 1582-10-14 (the gap) -> 10-04 + 1
    assert_eq!(rebase_days(0), 0);
    // Before the table: the same local date in the Julian calendar. 0000-12-31 Gregorian
    // (-719163) is 0001-01-02 Julian minus 2 days -> Julian 0000-12-31 = -719165.
    assert_eq!(rebase_days(-719163), -719165);
    // Every century below the table shifts by a day (Gregorian skips leap 100s).
    let (y, m, d) = civil_from_days(-719163);
    assert_eq!((y, m, d), (0, 12, 31));
    assert_eq!(julian_days(1582, 10, 4), -141428);
    assert_eq!(julian_days(1, 1, 1), -719164);
}

#[test]
fn micros_by_table_and_before_it() {
    // UTC's table starts at 0001-01-01T00:00Z with a diff of -2 days.
    let utc = ZoneRebase::new(
        vec![-s(62135596800), -s(59006361600), -s(12219292800)],
        vec![-s(172800), -s(86400), 0],
        0,
        0,
    )
    .unwrap();
    assert_eq!(utc.micros(0), 0);
    assert_eq!(utc.micros(-s(62135596800)), -s(62135596800) - s(172_800));
    // Just below the table: 0000-12-31T23:59:59.5Z Gregorian is Julian 0000-12-31.
    let m = -s(62135596800) - 500_000;
    assert_eq!(
        utc.micros(m),
        -719165 * MICROS_PER_DAY + MICROS_PER_DAY - 500_000
    );
    // Offsets: the calendar's offset taken off the Julian local time.
    let z = ZoneRebase {
        zone_offset: s(3_600),
        calendar_offset: 0,
        ..utc.clone()
    };
    assert_eq!(z.micros(m), utc.micros(m) + s(3_600));
}

#[test]
fn fixed_offset_zones_keep_modern_values() {
    // Spark's largest timestamp, five hours east: left as it is, no overflow on the way.
    let east = ZoneRebase::new(vec![], vec![], s(18_000), s(18_000)).unwrap();
    assert_eq!(east.micros(i64::MAX), i64::MAX);
    assert_eq!(east.micros(0), 0);
    // 1582-10-15T00:00 local is 1582-10-14T19:00Z: from there on, nothing changes.
    let from = LAST_SWITCH_GREGORIAN_DAY as i64 * MICROS_PER_DAY - s(18_000);
    assert_eq!(east.unchanged_from(), from);
    assert_eq!(east.micros(from), from);
    // The local day before it (10-14, skipped by the hybrid calendar) moves to 10-15.
    assert_eq!(east.micros(from - 1), from + MICROS_PER_DAY - 1);
}

#[test]
fn exception_and_millis() {
    let e = Rebase::Exception {
        micros_threshold: -s(2208988800),
    };
    assert_eq!(
        e.days(LAST_SWITCH_GREGORIAN_DAY),
        Ok(LAST_SWITCH_GREGORIAN_DAY)
    );
    assert_eq!(e.days(LAST_SWITCH_GREGORIAN_DAY - 1), Err(Ancient));
    assert_eq!(e.micros(-s(2208988800)), Ok(-s(2208988800)));
    assert_eq!(e.micros(-s(2208988800) - 1), Err(Ancient));
    let mut v = vec![0i64, 5];
    assert_eq!(e.micros_in_place(&mut v, 1), Ok(()));
    let mut v = vec![0i64, (s(-2208988800) / 1000 - 1)];
    assert_eq!(e.micros_in_place(&mut v, 1000), Err(Ancient));
    let utc = Rebase::Legacy(Some(
        ZoneRebase::new(vec![-s(62135596800), 0], vec![-s(172800), 0], 0, 0).unwrap(),
    ));
    let micros = -s(62135596800) + 123_456;
    let mut millis = vec![micros.div_euclid(1000)];
    utc.micros_in_place(&mut millis, 1000).unwrap();
    assert_eq!(millis[0], utc.micros(micros).unwrap().div_euclid(1000));
}
