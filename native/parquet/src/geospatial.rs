//! Geospatial statistics of GEOMETRY columns (parquet.thrift `GeospatialStatistics`), as
//! parquet-java 1.17 gathers them: each value is read as JTS's `WKBReader` reads it, and its
//! bounding box and type folded in as `BoundingBox.update` and `GeospatialTypes.update` do.
//!
//! JTS's reading decides what counts: a point whose X or Y is NaN is empty; empty geometries
//! add nothing; a polygon's box is its shell's; a geometry's type carries Z and M when its
//! first coordinate has them (not when its header says so). Within a geometry the box grows
//! as JTS's `Envelope` does (the first coordinate sets it, later ones widen it by `<` and `>`,
//! so a NaN first X leaves X unknown); across values, as Java's `Math.min` and `Math.max`.
//! A value JTS cannot read is left out, as parquet-java leaves it out.

/// The statistics of one column chunk.
#[derive(Clone, Debug, PartialEq)]
pub struct GeoStats {
    /// min and max of X, Y, Z, M; +inf/-inf while nothing was seen.
    pub bounds: [(f64, f64); 4],
    /// Type codes seen (1-7, plus 1000 for Z, 2000 for M): bit `dims * 7 + base - 1`.
    types: u32,
}

impl Default for GeoStats {
    fn default() -> Self {
        GeoStats {
            bounds: [(f64::INFINITY, f64::NEG_INFINITY); 4],
            types: 0,
        }
    }
}

const X: usize = 0;
const Y: usize = 1;
const Z: usize = 2;
const M: usize = 3;

impl GeoStats {
    /// Folds in one WKB value.
    pub fn update(&mut self, wkb: &[u8]) {
        let mut r = Jts {
            wkb,
            pos: 0,
            little: false,
            max_count: wkb.len() / 8,
        };
        let Some(g) = r.geometry() else { return };
        let Some(first) = g.first else { return };
        if let Some(env) = g.envelope {
            for (axis, (lo, hi)) in [(X, (env[0], env[1])), (Y, (env[2], env[3]))] {
                // An axis's min and max are NaN together: the first coordinate sets both.
                if !lo.is_nan() {
                    let b = &mut self.bounds[axis];
                    *b = (java_min(b.0, lo), java_max(b.1, hi));
                }
            }
        }
        for axis in [Z, M] {
            let (lo, hi) = g.zm[axis - Z];
            if lo <= hi {
                let b = &mut self.bounds[axis];
                *b = (java_min(b.0, lo), java_max(b.1, hi));
            }
        }
        let dims = (!first[0].is_nan()) as u32 + 2 * (!first[1].is_nan()) as u32;
        self.types |= 1 << (dims * 7 + g.base - 1);
    }

    /// Whether an axis saw a value (parquet-java's `!is*Empty()`).
    pub fn has(&self, axis: usize) -> bool {
        self.bounds[axis].0 <= self.bounds[axis].1
    }

    /// The bounding box goes to the footer when both X and Y saw values.
    pub fn has_bbox(&self) -> bool {
        self.has(X) && self.has(Y)
    }

    /// The type codes seen, ascending.
    pub fn types(&self) -> Vec<i32> {
        (0..28)
            .filter(|i| self.types >> i & 1 == 1)
            .map(|i| (i / 7) * 1000 + i % 7 + 1)
            .collect()
    }

    /// Whether the footer gets these statistics at all.
    pub fn is_written(&self) -> bool {
        self.has_bbox() || self.types != 0
    }
}

/// Java's `Math.min` on numbers that are not NaN: -0.0 is below 0.0.
fn java_min(a: f64, b: f64) -> f64 {
    if b < a || (b == a && a.is_sign_positive()) {
        b
    } else {
        a
    }
}

fn java_max(a: f64, b: f64) -> f64 {
    if b > a || (b == a && a.is_sign_negative()) {
        b
    } else {
        a
    }
}

/// What the statistics need of one geometry as JTS reads it.
struct Geom {
    /// JTS type: 1 point, ... 7 collection.
    base: u32,
    /// JTS `Envelope` [minx, maxx, miny, maxy], `None` when empty.
    envelope: Option<[f64; 4]>,
    /// Z and M of the first coordinate of `getCoordinates()`, `None` when empty.
    first: Option<[f64; 2]>,
    /// Non-NaN Z and M over all coordinates: (min, max), +inf/-inf when none.
    zm: [(f64, f64); 2],
}

impl Geom {
    fn new(base: u32) -> Self {
        Geom {
            base,
            envelope: None,
            first: None,
            zm: [(f64::INFINITY, f64::NEG_INFINITY); 2],
        }
    }

    /// One coordinate of the geometry's own sequence (`Envelope.expandToInclude(x, y)`, which
    /// widens the box as including the box of that one point does).
    fn coordinate(&mut self, c: [f64; 4]) {
        self.expand([c[0], c[0], c[1], c[1]]);
        self.zm_only(c);
    }

    /// `Envelope.expandToInclude(Envelope)`: an empty box takes `o`; else each bound moves
    /// when `o`'s is beyond it (a NaN never is).
    fn expand(&mut self, o: [f64; 4]) {
        match &mut self.envelope {
            None => self.envelope = Some(o),
            Some(e) => {
                if o[0] < e[0] {
                    e[0] = o[0];
                }
                if o[1] > e[1] {
                    e[1] = o[1];
                }
                if o[2] < e[2] {
                    e[2] = o[2];
                }
                if o[3] > e[3] {
                    e[3] = o[3];
                }
            }
        }
    }

    /// A coordinate that counts for Z, M and the type but not the box (a polygon's holes).
    fn zm_only(&mut self, c: [f64; 4]) {
        if self.first.is_none() {
            self.first = Some([c[2], c[3]]);
        }
        for (i, v) in [c[2], c[3]].into_iter().enumerate() {
            if !v.is_nan() {
                let b = &mut self.zm[i];
                *b = (java_min(b.0, v), java_max(b.1, v));
            }
        }
    }

    /// A collection's member (its box added, its coordinates appended).
    fn member(&mut self, m: Geom) {
        if let Some(o) = m.envelope {
            self.expand(o);
        }
        if self.first.is_none() {
            self.first = m.first;
        }
        for i in 0..2 {
            let (lo, hi) = m.zm[i];
            if lo <= hi {
                let b = &mut self.zm[i];
                *b = (java_min(b.0, lo), java_max(b.1, hi));
            }
        }
    }
}

/// JTS 1.20's `WKBReader` (not strict), as far as the statistics need it.
struct Jts<'a> {
    wkb: &'a [u8],
    pos: usize,
    little: bool,
    /// `readNumField`'s limit: the input's length / 8.
    max_count: usize,
}

impl Jts<'_> {
    fn bytes<const N: usize>(&mut self) -> Option<[u8; N]> {
        let b: [u8; N] = self.wkb.get(self.pos..self.pos + N)?.try_into().ok()?;
        self.pos += N;
        Some(b)
    }

    fn int(&mut self) -> Option<u32> {
        let b = self.bytes::<4>()?;
        Some(if self.little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    fn double(&mut self) -> Option<f64> {
        let b = self.bytes::<8>()?;
        Some(if self.little {
            f64::from_le_bytes(b)
        } else {
            f64::from_be_bytes(b)
        })
    }

    fn count(&mut self) -> Option<usize> {
        let n = self.int()? as i32;
        (n >= 0 && n as usize <= self.max_count).then_some(n as usize)
    }

    /// A coordinate of `dims` ordinates (X, Y, then Z and/or M) as [x, y, z, m].
    fn coordinate(&mut self, z: bool, m: bool) -> Option<[f64; 4]> {
        let x = self.double()?;
        let y = self.double()?;
        let zv = if z { self.double()? } else { f64::NAN };
        let mv = if m { self.double()? } else { f64::NAN };
        Some([x, y, zv, mv])
    }

    fn geometry(&mut self) -> Option<Geom> {
        // Neither 0 nor 1 keeps the order in force, as JTS does when not strict.
        match self.bytes::<1>()?[0] {
            0 => self.little = false,
            1 => self.little = true,
            _ => {}
        }
        let code = self.int()?;
        let plain = code & 0xffff;
        let base = plain % 1000;
        let z = code & 0x8000_0000 != 0 || plain / 1000 == 1 || plain / 1000 == 3;
        let m = code & 0x4000_0000 != 0 || plain / 1000 == 2 || plain / 1000 == 3;
        if code & 0x2000_0000 != 0 {
            self.int()?; // SRID
        }
        let mut g = Geom::new(base);
        match base {
            1 => {
                let c = self.coordinate(z, m)?;
                if !c[0].is_nan() && !c[1].is_nan() {
                    g.coordinate(c);
                }
            }
            2 => {
                for _ in 0..self.count()? {
                    let c = self.coordinate(z, m)?;
                    g.coordinate(c);
                }
            }
            3 => {
                // The shell makes the box; holes count for Z and M when the shell is not
                // empty (an empty shell makes the polygon empty).
                for ring in 0..self.count()? {
                    for _ in 0..self.count()? {
                        let c = self.coordinate(z, m)?;
                        if ring == 0 {
                            g.coordinate(c);
                        } else if g.envelope.is_some() {
                            g.zm_only(c);
                        }
                    }
                }
            }
            4..=7 => {
                for _ in 0..self.count()? {
                    let member = self.geometry()?;
                    // A MultiPoint of points, and so on; a collection takes any member.
                    if base < 7 && member.base != base - 3 {
                        return None;
                    }
                    g.member(member);
                }
            }
            _ => return None,
        }
        Some(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wkb(code: u32, body: &[f64], counts: &[(usize, u32)]) -> Vec<u8> {
        // `counts`: (index in body before which a u32 count goes, count)
        let mut v = vec![1];
        v.extend_from_slice(&code.to_le_bytes());
        for (i, x) in body.iter().enumerate() {
            for (at, c) in counts {
                if *at == i {
                    v.extend_from_slice(&c.to_le_bytes());
                }
            }
            v.extend_from_slice(&x.to_le_bytes());
        }
        for (at, c) in counts {
            if *at == body.len() {
                v.extend_from_slice(&c.to_le_bytes());
            }
        }
        v
    }

    fn point(x: f64, y: f64) -> Vec<u8> {
        wkb(1, &[x, y], &[])
    }

    fn collection(code: u32, members: &[Vec<u8>]) -> Vec<u8> {
        let mut v = vec![1];
        v.extend_from_slice(&code.to_le_bytes());
        v.extend_from_slice(&(members.len() as u32).to_le_bytes());
        for m in members {
            v.extend_from_slice(m);
        }
        v
    }

    #[test]
    fn box_and_types_of_points_lines_and_polygons() {
        let mut s = GeoStats::default();
        s.update(&point(1.0, 2.0));
        s.update(&wkb(2, &[-3.0, 5.0, 4.0, -1.0], &[(0, 2)]));
        // A polygon whose hole reaches outside its shell: the box is the shell's.
        let ring = [0.0, 0.0, 10.0, 0.0, 10.0, 10.0, 0.0, 0.0];
        let hole = [50.0, 50.0, 60.0, 50.0, 60.0, 60.0, 50.0, 50.0];
        let body: Vec<f64> = ring.iter().chain(hole.iter()).copied().collect();
        s.update(&wkb(3, &body, &[(0, 2), (0, 4), (8, 4)]));
        assert_eq!(
            s.bounds[..2],
            [(-3.0, 10.0), (-1.0, 10.0)],
            "{:?}",
            s.bounds
        );
        assert!(!s.has(Z) && !s.has(M));
        assert_eq!(s.types(), vec![1, 2, 3]);
    }

    #[test]
    fn empty_geometries_and_nan_points_add_nothing() {
        let mut s = GeoStats::default();
        s.update(&point(f64::NAN, f64::NAN));
        s.update(&point(1.0, f64::NAN));
        s.update(&wkb(2, &[], &[(0, 0)]));
        s.update(&wkb(3, &[], &[(0, 0)]));
        s.update(&collection(7, &[]));
        s.update(&collection(4, &[point(f64::NAN, f64::NAN)]));
        assert!(!s.is_written());
        assert!(s.types().is_empty());
        // An empty member adds nothing to its collection.
        s.update(&collection(7, &[point(f64::NAN, 0.0), point(3.0, 4.0)]));
        assert_eq!(s.bounds[..2], [(3.0, 3.0), (4.0, 4.0)]);
        assert_eq!(s.types(), vec![7]);
    }

    #[test]
    fn z_and_m_from_every_coordinate_type_from_the_first() {
        let mut s = GeoStats::default();
        // LINESTRING ZM: M of the second point NaN.
        s.update(&wkb(
            3002,
            &[0.0, 0.0, 5.0, 7.0, 1.0, 1.0, -2.0, f64::NAN],
            &[(0, 2)],
        ));
        assert_eq!(s.bounds[Z], (-2.0, 5.0));
        assert_eq!(s.bounds[M], (7.0, 7.0));
        // POINT Z whose Z is NaN: typed as a 2D point, as JTS reads its first coordinate.
        s.update(&wkb(1001, &[1.0, 1.0, f64::NAN], &[]));
        // POINT M.
        s.update(&wkb(2001, &[1.0, 1.0, 9.0], &[]));
        assert_eq!(s.bounds[M], (7.0, 9.0));
        assert_eq!(s.types(), vec![1, 2001, 3002]);
        // A polygon's holes count for Z.
        let mut t = GeoStats::default();
        let shell = [0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0];
        let hole = [0.0, 0.0, 9.0, 1.0, 0.0, 9.0, 1.0, 1.0, 9.0, 0.0, 0.0, 9.0];
        let body: Vec<f64> = shell.iter().chain(hole.iter()).copied().collect();
        t.update(&wkb(1003, &body, &[(0, 2), (0, 4), (12, 4)]));
        assert_eq!(t.bounds[Z], (1.0, 9.0));
        assert_eq!(t.types(), vec![1003]);
    }

    #[test]
    fn a_nan_first_x_leaves_x_unknown_for_that_value() {
        let mut s = GeoStats::default();
        s.update(&wkb(2, &[f64::NAN, 1.0, 5.0, 2.0], &[(0, 2)]));
        assert!(!s.has(X) && s.has(Y));
        assert!(!s.has_bbox() && s.is_written());
        // A later NaN is passed over.
        s.update(&wkb(2, &[4.0, 1.0, f64::NAN, 2.0], &[(0, 2)]));
        assert_eq!(s.bounds[X], (4.0, 4.0));
    }

    #[test]
    fn negative_zero_is_below_zero_across_values_not_within_one() {
        let mut s = GeoStats::default();
        s.update(&wkb(2, &[0.0, 0.0, -0.0, 1.0], &[(0, 2)]));
        assert!(s.bounds[X].0.is_sign_positive());
        s.update(&point(-0.0, 0.0));
        assert!(s.bounds[X].0.is_sign_negative());
        assert!(s.bounds[X].1 == 0.0 && s.bounds[X].1.is_sign_positive());
        // A later 0.0 leaves the -0.0 minimum.
        s.update(&point(0.0, 0.0));
        assert!(s.bounds[X].0.is_sign_negative());
        // Y as X: the first of two equal bounds stays, within a geometry.
        let mut y = GeoStats::default();
        y.update(&wkb(2, &[0.0, 0.0, 1.0, -0.0], &[(0, 2)]));
        assert!(y.bounds[Y].0.is_sign_positive());
        let mut y = GeoStats::default();
        y.update(&wkb(2, &[0.0, -0.0, 1.0, 0.0], &[(0, 2)]));
        assert!(y.bounds[Y].1.is_sign_negative());
    }

    #[test]
    fn negative_bounds() {
        let mut s = GeoStats::default();
        s.update(&point(-1.0, -5.0));
        s.update(&point(-2.0, -3.0));
        assert_eq!(s.bounds[..2], [(-2.0, -1.0), (-5.0, -3.0)]);
    }

    #[test]
    fn multi_geometries_and_the_z_of_collection_members() {
        let mut s = GeoStats::default();
        let line = |a: f64| wkb(1002, &[a, 0.0, a * 10.0, a + 1.0, 1.0, -a], &[(0, 2)]);
        s.update(&collection(1005, &[line(2.0), line(3.0)]));
        let square = [0.0, 0.0, 4.0, 0.0, 4.0, 4.0, 0.0, 0.0];
        s.update(&collection(6, &[wkb(3, &square, &[(0, 1), (0, 4)])]));
        assert_eq!(s.bounds[..3], [(0.0, 4.0), (0.0, 4.0), (-3.0, 30.0)]);
        assert_eq!(s.types(), vec![6, 1005]);
    }

    #[test]
    fn each_member_reads_in_its_own_byte_order() {
        // A little-endian collection holding a big-endian point.
        let mut be = vec![0];
        be.extend_from_slice(&1u32.to_be_bytes());
        be.extend_from_slice(&2.5f64.to_be_bytes());
        be.extend_from_slice(&(-1.0f64).to_be_bytes());
        let mut s = GeoStats::default();
        s.update(&collection(7, &[be]));
        assert_eq!(s.bounds[..2], [(2.5, 2.5), (-1.0, -1.0)]);
    }

    #[test]
    fn counts_beyond_a_eighth_of_the_bytes_are_refused_as_jts_refuses_them() {
        // A polygon of one square ring then k empty rings: 1 + k rings in 77 + 4k bytes. JTS
        // takes counts up to len / 8: k = 17 is read, k = 18 is not.
        let square = [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0];
        for (k, read) in [(17, true), (18, false)] {
            let mut v = wkb(3, &square, &[(0, 1 + k), (0, 4)]);
            for _ in 0..k {
                v.extend_from_slice(&0u32.to_le_bytes());
            }
            let mut s = GeoStats::default();
            s.update(&v);
            assert_eq!(s.is_written(), read, "{k} empty rings");
        }
    }

    #[test]
    fn unreadable_values_are_left_out() {
        let mut s = GeoStats::default();
        s.update(&[1, 1, 0]);
        s.update(&wkb(9, &[1.0, 2.0], &[]));
        s.update(&collection(4, &[wkb(2, &[0.0, 0.0, 1.0, 1.0], &[(0, 2)])]));
        s.update(&wkb(2, &[1.0, 2.0], &[(0, 1000)]));
        assert!(!s.is_written());
        // Big-endian reads too.
        let mut be = vec![0];
        be.extend_from_slice(&1u32.to_be_bytes());
        be.extend_from_slice(&2.5f64.to_be_bytes());
        be.extend_from_slice(&(-1.0f64).to_be_bytes());
        s.update(&be);
        assert_eq!(s.bounds[..2], [(2.5, 2.5), (-1.0, -1.0)]);
    }
}
