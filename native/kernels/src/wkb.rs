//! Spark's GEOMETRY and GEOGRAPHY values as its Parquet writer writes them.
//!
//! A value in a row is a 4-byte SRID header, then WKB as the user gave it: either byte order,
//! per nested geometry. Spark's writer (`STUtils.stGeomAsBinary`) parses it with its
//! `WkbReader` and writes it again with its `WkbWriter`: ISO WKB, little-endian throughout,
//! bytes after the geometry dropped. Doubles are copied bit for bit (NaN payloads and -0.0
//! kept). A value Spark's reader refuses is an error here too.

/// Spark's `Geo.HEADER_SIZE`: the SRID before the WKB.
pub const HEADER_SIZE: usize = 4;

/// Appends the WKB of `value` (SRID header included) to `out` as Spark's writer writes it.
/// `geography` adds Spark's longitude and latitude bounds check.
pub fn append_spark_wkb(out: &mut Vec<u8>, value: &[u8], geography: bool) -> Result<(), String> {
    let Some(wkb) = value.get(HEADER_SIZE..) else {
        return Err(format!(
            "a value of {} bytes is shorter than its SRID header",
            value.len()
        ));
    };
    let start = out.len();
    let mut r = Reader {
        wkb,
        pos: 0,
        geography,
        out,
    };
    let result = r.geometry(None);
    if result.is_err() {
        out.truncate(start);
    }
    result.map(|_| ())
}

struct Reader<'a, 'o> {
    wkb: &'a [u8],
    pos: usize,
    geography: bool,
    out: &'o mut Vec<u8>,
}

#[derive(Clone, Copy)]
struct Dims {
    z: bool,
    m: bool,
}

impl Dims {
    fn count(self) -> usize {
        2 + self.z as usize + self.m as usize
    }
}

impl Reader<'_, '_> {
    fn fail<T>(&self, what: impl Into<String>, at: usize) -> Result<T, String> {
        Err(format!("not valid WKB: {} at byte {at}", what.into()))
    }

    fn remaining(&self) -> usize {
        self.wkb.len() - self.pos
    }

    fn take<const N: usize>(&mut self, little: bool) -> Result<[u8; N], String> {
        if self.remaining() < N {
            return self.fail("unexpected end of WKB", self.pos);
        }
        let mut b: [u8; N] = self.wkb[self.pos..self.pos + N]
            .try_into()
            .expect("N bytes");
        self.pos += N;
        if !little {
            b.reverse();
        }
        Ok(b)
    }

    fn int(&mut self, little: bool) -> Result<u32, String> {
        self.take::<4>(little).map(u32::from_le_bytes)
    }

    /// A count Spark's `readCount` takes: not negative, and no more items than bytes allow.
    fn count(&mut self, little: bool, what: &str, min_item: usize) -> Result<u32, String> {
        let at = self.pos;
        let n = self.int(little)? as i32;
        if n < 0 {
            return self.fail(format!("count of {what} {n}"), at);
        }
        if n as usize > self.remaining() / min_item {
            return self.fail(format!("count of {what} {n} exceeds the bytes left"), at);
        }
        self.out.extend_from_slice(&(n as u32).to_le_bytes());
        Ok(n as u32)
    }

    /// One coordinate: `finite` refuses NaN (a linestring's or ring's points may not be empty).
    fn point(&mut self, little: bool, dims: Dims, finite: bool) -> Result<[f64; 2], String> {
        let at = self.pos;
        let mut xy = [0.0; 2];
        let mut empty = false;
        for i in 0..dims.count() {
            let b = self.take::<8>(little)?;
            let v = f64::from_le_bytes(b);
            if v.is_infinite() || (finite && v.is_nan()) {
                return self.fail("a coordinate that is not finite", self.pos - 8);
            }
            empty |= v.is_nan();
            if let Some(slot) = xy.get_mut(i) {
                *slot = v;
            }
            self.out.extend_from_slice(&b);
        }
        if self.geography
            && !empty
            && !((-180.0..=180.0).contains(&xy[0]) && (-90.0..=90.0).contains(&xy[1]))
        {
            return self.fail("a coordinate out of longitude and latitude bounds", at);
        }
        Ok(xy)
    }

    /// A geometry: its byte order, type and body; returns its base type (1 to 7). `parent` is
    /// the dimensions a member of a collection must share with it.
    fn geometry(&mut self, parent: Option<Dims>) -> Result<i32, String> {
        let at = self.pos;
        let order = self.take::<1>(true)?[0];
        let little = match order {
            1 => true,
            0 => false,
            o => return self.fail(format!("byte order {o}"), at),
        };
        let type_at = self.pos;
        let code = self.int(little)? as i32;
        let (base, dims) = match (code / 1000, code % 1000) {
            // A negative code leaves a negative remainder: never a type.
            (d @ 0..=3, b @ 1..=7) => (
                b,
                Dims {
                    z: d == 1 || d == 3,
                    m: d >= 2,
                },
            ),
            _ => return self.fail(format!("type {code}"), type_at),
        };
        if parent.is_some_and(|p| p.z != dims.z || p.m != dims.m) {
            return self.fail(
                format!("type {code} in a collection of other dimensions"),
                type_at,
            );
        }
        self.out.push(1);
        self.out.extend_from_slice(&(code as u32).to_le_bytes());
        let coords = dims.count() * 8;
        match base {
            1 => {
                self.point(little, dims, false)?;
            }
            2 => {
                let at = self.pos;
                let n = self.count(little, "linestring points", coords)?;
                if n == 1 {
                    return self.fail("a linestring of one point", at);
                }
                for _ in 0..n {
                    self.point(little, dims, true)?;
                }
            }
            3 => {
                let rings = self.count(little, "polygon rings", 4)?;
                for _ in 0..rings {
                    let at = self.pos;
                    let n = self.count(little, "ring points", coords)?;
                    let mut first = [0.0; 2];
                    let mut last = [0.0; 2];
                    for i in 0..n {
                        last = self.point(little, dims, true)?;
                        if i == 0 {
                            first = last;
                        }
                    }
                    if n < 4 {
                        return self.fail("a ring of fewer than 4 points", at);
                    }
                    if first != last {
                        return self.fail("a ring that is not closed", at);
                    }
                }
            }
            _ => {
                let n = self.count(little, "geometries", 5)?;
                for _ in 0..n {
                    let member_at = self.pos;
                    let member = self.geometry(Some(dims))?;
                    // MultiPoint, MultiLineString, MultiPolygon hold their single kind.
                    if base < 7 && member != base - 3 {
                        return self.fail(format!("a member of type {member}"), member_at);
                    }
                }
            }
        }
        Ok(base)
    }
}

#[cfg(test)]
mod tests {
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
}
