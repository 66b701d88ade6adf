use super::*;

/// Values from Spark's `Murmur3_x86_32` and Java's `BigDecimal.hashCode`.
#[test]
fn hashes_match_sparks_and_javas() {
    assert_eq!(murmur3::hash_int(1, 42), -559580957);
    assert_eq!(murmur3::hash_long(-7, 42), 222034016);
    assert_eq!(
        murmur3::hash_bytes("hello, wörld".as_bytes(), 42),
        -915340218
    );
    // A tail of bytes with the sign bit set: each mixed as a negative int.
    assert_eq!(
        murmur3::hash_bytes(&[0xff, 1, 2, 0x80, 0x90], 7),
        1923272495
    );
    assert_eq!(hive::hash_decimal(4294967296, 2), 963);
    // -123456789012345678901234567890 of scale 5 is normalized to ...789 of scale 4.
    let v: i128 = -123456789012345678901234567890;
    assert_eq!(hive::hash_decimal(v, 5), -354583174);
    assert_eq!(hive::hash_decimal(0, 7), 0);
    assert_eq!(hive::hash_bytes(b"ab"), 31 * 97 + 98);
}
