use super::*;

fn spark(wkb: &[u8]) -> Result<Vec<u8>, String> {
    let mut v = vec![0u8; HEADER_SIZE];
    v.extend_from_slice(wkb);
    let mut out = vec![9];
    let r = append_spark_wkb(&mut out, &v, false);
    assert_eq!(out[0], 9);
    r.map(|_| out[1..].to_vec())
}

/// WKB built by hand: `le` picks the byte order of every part.
struct W {
    le: bool,
    b: Vec<u8>,
}

impl W {
    fn new(le: bool) -> Self {
        W { le, b: Vec::new() }
    }
    fn head(mut self, code: u32) -> Self {
        self.b.push(self.le as u8);
        self.int(code)
    }
    fn int(self, v: u32) -> Self {
        self.put(v.to_le_bytes(), v.to_be_bytes())
    }
    fn f(self, vs: &[f64]) -> Self {
        vs.iter()
            .fold(self, |w, v| w.put(v.to_le_bytes(), v.to_be_bytes()))
    }
    fn put<const N: usize>(mut self, le: [u8; N], be: [u8; N]) -> Self {
        self.b.extend_from_slice(if self.le { &le } else { &be });
        self
    }
    fn raw(mut self, b: &[u8]) -> Self {
        self.b.extend_from_slice(b);
        self
    }
}

fn square(le: bool) -> Vec<u8> {
    W::new(le)
        .head(3)
        .int(1)
        .int(5)
        .f(&[0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0])
        .b
}

#[test]
fn little_endian_wkb_is_kept_byte_for_byte() {
    let point = W::new(true).head(1).f(&[1.5, -0.0]).b;
    assert_eq!(spark(&point).unwrap(), point);
    let zm = W::new(true)
        .head(3002)
        .int(2)
        .f(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
        .b;
    assert_eq!(spark(&zm).unwrap(), zm);
    assert_eq!(spark(&square(true)).unwrap(), square(true));
}

#[test]
fn big_endian_and_mixed_wkb_becomes_little_endian() {
    assert_eq!(spark(&square(false)).unwrap(), square(true));
    // A big-endian collection of a little-endian point and a big-endian polygon: the
    // collection's count is in its own order, each member in its own.
    let point_le = W::new(true).head(1).f(&[f64::NAN, f64::NAN]).b;
    let mixed = W::new(false)
        .head(7)
        .int(2)
        .raw(&point_le)
        .raw(&square(false))
        .b;
    let expected = W::new(true)
        .head(7)
        .int(2)
        .raw(&point_le)
        .raw(&square(true))
        .b;
    assert_eq!(spark(&mixed).unwrap(), expected);
}

#[test]
fn nan_payloads_survive_the_byte_swap() {
    let payload = f64::from_bits(0x7ff8_0000_dead_beef);
    let be = W::new(false).head(1).f(&[payload, 2.0]).b;
    let out = spark(&be).unwrap();
    assert_eq!(out, W::new(true).head(1).f(&[payload, 2.0]).b);
}

#[test]
fn bytes_after_the_geometry_are_dropped() {
    let mut p = W::new(true).head(1).f(&[1.0, 2.0]).b;
    let expected = p.clone();
    p.extend_from_slice(&[7, 7, 7]);
    assert_eq!(spark(&p).unwrap(), expected);
}

#[test]
fn empty_and_multi_geometries_are_kept() {
    let cases = [
        W::new(true).head(2).int(0).b,
        W::new(true).head(3).int(0).b,
        W::new(true).head(7).int(0).b,
        W::new(true)
            .head(4)
            .int(1)
            .raw(&W::new(true).head(1).f(&[1.0, 2.0]).b)
            .b,
        W::new(true)
            .head(1005)
            .int(1)
            .raw(&W::new(true).head(1002).int(0).b)
            .b,
        W::new(true).head(6).int(1).raw(&square(true)).b,
    ];
    for wkb in cases {
        assert_eq!(spark(&wkb).unwrap(), wkb);
    }
}

#[test]
fn refuses_what_sparks_reader_refuses() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![], "unexpected end"),
        (vec![2, 1, 0, 0, 0], "byte order 2"),
        (W::new(true).head(8).b, "type 8"),
        (W::new(true).head(4001).b, "type 4001"),
        (W::new(true).head(1).f(&[1.0]).b, "unexpected end"),
        (
            W::new(true).head(1).f(&[f64::INFINITY, 1.0]).b,
            "not finite",
        ),
        (W::new(true).head(2).int(1).f(&[1.0, 1.0]).b, "one point"),
        (
            W::new(true).head(2).int(2).f(&[1.0, 1.0, f64::NAN, 1.0]).b,
            "not finite",
        ),
        (W::new(true).head(2).int(9).f(&[1.0, 1.0]).b, "exceeds"),
        // Two points need 32 bytes: 24 are too few.
        (W::new(true).head(2).int(2).f(&[1.0, 1.0, 2.0]).b, "exceeds"),
        (
            W::new(true).head(7).int(u32::MAX).b,
            "count of geometries -1",
        ),
        (
            W::new(true).head(1).f(&[1.0, f64::NEG_INFINITY]).b,
            "not finite at byte 13",
        ),
        (
            W::new(true)
                .head(3)
                .int(1)
                .int(3)
                .f(&[0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
                .b,
            "fewer than 4",
        ),
        (
            W::new(true)
                .head(3)
                .int(1)
                .int(4)
                .f(&[0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
                .b,
            "not closed",
        ),
        (
            W::new(true).head(4).int(1).raw(&square(true)).b,
            "a member of type 3",
        ),
        (
            W::new(true)
                .head(7)
                .int(1)
                .raw(&W::new(true).head(1001).f(&[1.0, 2.0, 3.0]).b)
                .b,
            "other dimensions",
        ),
    ];
    for (wkb, message) in cases {
        let e = spark(&wkb).unwrap_err();
        assert!(e.contains(message), "{wkb:?}: {e}");
    }
    let mut out = Vec::new();
    let e = append_spark_wkb(&mut out, &[0, 0], false).unwrap_err();
    assert!(e.contains("SRID header"), "{e}");
}

#[test]
fn geography_checks_longitude_and_latitude() {
    let mut v = vec![0u8; HEADER_SIZE];
    v.extend(W::new(true).head(1).f(&[181.0, 0.0]).b);
    let mut out = Vec::new();
    assert!(append_spark_wkb(&mut out, &v, false).is_ok());
    let e = append_spark_wkb(&mut out, &v, true).unwrap_err();
    assert!(e.contains("bounds"), "{e}");
    // The bounds hold at their ends, on both sides.
    for (xy, ok) in [
        ([-180.0, -90.0], true),
        ([180.0, 90.0], true),
        ([-180.5, 0.0], false),
        ([0.0, -90.5], false),
    ] {
        let mut v = vec![0u8; HEADER_SIZE];
        v.extend(W::new(true).head(1).f(&xy).b);
        assert_eq!(append_spark_wkb(&mut out, &v, true).is_ok(), ok, "{xy:?}");
    }
    let mut empty = vec![0u8; HEADER_SIZE];
    empty.extend(W::new(true).head(1).f(&[f64::NAN, f64::NAN]).b);
    assert!(append_spark_wkb(&mut out, &empty, true).is_ok());
}
