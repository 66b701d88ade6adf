use super::*;

#[test]
fn int96_matches_spark() {
    // 1970-01-01T00:00:00Z: Julian day 2440588, 0 nanos.
    assert_eq!(int96_from_micros(0)[8..], 2_440_588i32.to_le_bytes());
    // 2020-01-01T12:00:00.000001Z
    let micros = 1_577_880_000_000_001i64;
    let b = int96_from_micros(micros);
    assert_eq!(i32::from_le_bytes(b[8..].try_into().unwrap()), 2_458_850);
    assert_eq!(
        i64::from_le_bytes(b[..8].try_into().unwrap()),
        12 * 3_600_000_000_000 + 1000
    );
    // Before the epoch: Spark's truncating division (the day rolls at Julian noon, not 0h).
    let b = int96_from_micros(-1);
    assert_eq!(i32::from_le_bytes(b[8..].try_into().unwrap()), 2_440_587);
    assert_eq!(
        i64::from_le_bytes(b[..8].try_into().unwrap()),
        (MICROS_PER_DAY - 1) * 1000
    );
}
