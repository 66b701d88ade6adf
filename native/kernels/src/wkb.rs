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
mod tests;
