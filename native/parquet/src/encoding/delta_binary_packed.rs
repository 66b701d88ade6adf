//! DELTA_BINARY_PACKED for INT32 and INT64: blocks of 128 deltas in 4 miniblocks of 32, as
//! parquet-java's `DeltaBinaryPackingValuesWriter` lays them out. Deltas wrap in the value's
//! own width (a reader adds them back with the same wrapping).

use super::bit_pack::{pack32_u32, pack8};
use super::{bit_width, write_uleb, write_zigzag};

const BLOCK: usize = 128;
const MINIBLOCKS: usize = 4;
const MINI: usize = BLOCK / MINIBLOCKS;

/// Values are i64; `bits32` makes the deltas wrap as i32 (for INT32 columns), kept as i32 so
/// that a block's min, offsets and widths are computed four to a vector register.
pub struct DeltaBinaryPackedEncoder {
    bits32: bool,
    total: u64,
    first: i64,
    previous: i64,
    deltas: [i64; BLOCK],
    deltas32: [i32; BLOCK],
    num_deltas: usize,
    blocks: Vec<u8>,
    /// The bit widths of the last block. parquet-java keeps them in one array for the writer's
    /// life (a column chunk) and computes only a partial block's own miniblocks, so the header
    /// of a last, partial block repeats earlier widths for the miniblocks past its values;
    /// readers ignore them, and writing them keeps the pages byte-identical.
    widths: [u32; MINIBLOCKS],
    /// Likewise the last block's deltas less its minimum: a partial last miniblock packs them
    /// past its values (parquet-java packs whole miniblocks from its reused buffer).
    rel: [u64; BLOCK],
    rel32: [u32; BLOCK],
}

impl DeltaBinaryPackedEncoder {
    pub fn new_i32() -> Self {
        Self::new(true)
    }

    pub fn new_i64() -> Self {
        Self::new(false)
    }

    fn new(bits32: bool) -> Self {
        DeltaBinaryPackedEncoder {
            bits32,
            total: 0,
            first: 0,
            previous: 0,
            deltas: [0; BLOCK],
            deltas32: [0; BLOCK],
            num_deltas: 0,
            blocks: Vec::new(),
            widths: [0; MINIBLOCKS],
            rel: [0; BLOCK],
            rel32: [0; BLOCK],
        }
    }

    /// Starts a new column chunk: parquet-java makes a new writer per row group.
    pub fn reset_chunk(&mut self) {
        self.widths = [0; MINIBLOCKS];
        self.rel = [0; BLOCK];
        self.rel32 = [0; BLOCK];
    }

    /// `put` for each value, with the running state kept in registers: the first value of the
    /// page and the lane width are settled before the loop, not tested per value.
    #[inline]
    pub fn put_all(&mut self, vals: impl Iterator<Item = i64>) {
        let mut vals = vals;
        if self.total == 0 {
            match vals.next() {
                Some(v) => (self.first, self.previous, self.total) = (v, v, 1),
                None => return,
            }
        }
        if self.bits32 {
            self.put_deltas(vals, |e, i, v, previous| {
                e.deltas32[i] = (v as i32).wrapping_sub(previous as i32)
            });
        } else {
            self.put_deltas(vals, |e, i, v, previous| {
                e.deltas[i] = v.wrapping_sub(previous)
            });
        }
    }

    /// The loop of `put_all` after the first value, `store` putting a delta in its lane width
    /// (one copy of the loop per width).
    #[inline(always)]
    fn put_deltas(
        &mut self,
        vals: impl Iterator<Item = i64>,
        store: impl Fn(&mut Self, usize, i64, i64),
    ) {
        let (mut previous, mut n, mut total) = (self.previous, self.num_deltas, self.total);
        for v in vals {
            store(self, n & (BLOCK - 1), v, previous);
            previous = v;
            total += 1;
            n += 1;
            if n == BLOCK {
                self.num_deltas = n;
                self.flush_block();
                n = 0;
            }
        }
        (self.previous, self.num_deltas, self.total) = (previous, n, total);
    }

    /// parquet-java's `getBufferedSize`: the blocks flushed so far.
    pub fn encoded_len(&self) -> usize {
        self.blocks.len()
    }

    #[inline]
    pub fn put(&mut self, v: i64) {
        self.put_all(std::iter::once(v));
    }

    fn flush_block(&mut self) {
        if self.bits32 {
            self.flush_block32();
        } else {
            self.flush_block64();
        }
        self.num_deltas = 0;
    }

    fn flush_block64(&mut self) {
        let n = self.num_deltas;
        let min = *self.deltas[..n].iter().min().expect("block not empty");
        write_zigzag(&mut self.blocks, min);
        let mut rel = self.rel;
        for (r, &d) in rel.iter_mut().zip(&self.deltas[..n]) {
            *r = d.wrapping_sub(min) as u64;
        }
        let minis = n.div_ceil(MINI);
        let mut widths = self.widths;
        for (m, w) in widths.iter_mut().enumerate().take(minis) {
            let end = ((m + 1) * MINI).min(n);
            let max = rel[m * MINI..end].iter().fold(0u64, |a, &b| a | b);
            *w = bit_width(max);
        }
        self.widths = widths;
        self.blocks.extend(widths.iter().map(|&w| w as u8));
        for (m, &w) in widths.iter().enumerate().take(minis) {
            for g in 0..MINI / 8 {
                let s = m * MINI + g * 8;
                let group: &[u64; 8] = rel[s..s + 8].try_into().expect("8 values");
                pack8(group, w, &mut self.blocks);
            }
        }
        self.rel = rel;
    }

    /// The block of an INT32 column: the same layout, in 32-bit lanes.
    fn flush_block32(&mut self) {
        let n = self.num_deltas;
        let min = self.deltas32[..n].iter().fold(i32::MAX, |a, &b| a.min(b));
        write_zigzag(&mut self.blocks, min as i64);
        let mut rel = self.rel32;
        for (r, &d) in rel.iter_mut().zip(&self.deltas32[..n]) {
            *r = d.wrapping_sub(min) as u32;
        }
        let minis = n.div_ceil(MINI);
        // A miniblock wholly past the values is not packed; its width is the stale one.
        let mut widths = self.widths;
        for (m, w) in widths.iter_mut().enumerate().take(minis) {
            let max = rel[m * MINI..((m + 1) * MINI).min(n)]
                .iter()
                .fold(0u32, |a, &b| a | b);
            *w = bit_width(max as u64);
        }
        self.widths = widths;
        let packed: usize = widths[..minis].iter().map(|&w| 4 * w as usize).sum();
        let start = self.blocks.len();
        self.blocks.extend(widths.iter().map(|&w| w as u8));
        let mut at = start + MINIBLOCKS;
        self.blocks.resize(at + packed, 0);
        for (m, &w) in widths.iter().enumerate().take(minis) {
            let mut vals: [u32; MINI] =
                rel[m * MINI..(m + 1) * MINI].try_into().expect("miniblock");
            if (m + 1) * MINI > n {
                // The packer takes values of `w` bits; stale ones are cut to them, as Java's.
                let mask = if w == 32 { u32::MAX } else { (1u32 << w) - 1 };
                vals.iter_mut().for_each(|v| *v &= mask);
            }
            let len = 4 * w as usize;
            pack32_u32(&vals, w, &mut self.blocks[at..at + len]);
            at += len;
        }
        self.rel32 = rel;
    }

    /// Appends the encoded page data to `out` and resets the encoder.
    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        if self.num_deltas > 0 {
            self.flush_block();
        }
        write_uleb(out, BLOCK as u64);
        write_uleb(out, MINIBLOCKS as u64);
        write_uleb(out, self.total);
        write_zigzag(out, self.first);
        out.extend_from_slice(&self.blocks);
        self.total = 0;
        self.num_deltas = 0;
        self.blocks.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A decoder written from the format spec, independent of the encoder.
    fn decode(bytes: &[u8], bits32: bool) -> Vec<i64> {
        let mut pos = 0;
        let uleb = |pos: &mut usize| {
            let (mut v, mut shift) = (0u64, 0);
            loop {
                let b = bytes[*pos];
                *pos += 1;
                v |= ((b & 0x7f) as u64) << shift;
                shift += 7;
                if b < 0x80 {
                    return v;
                }
            }
        };
        let zigzag = |v: u64| ((v >> 1) as i64) ^ -((v & 1) as i64);
        let (block, minis, total) = (uleb(&mut pos), uleb(&mut pos), uleb(&mut pos));
        let per_mini = (block / minis) as usize;
        let mut out = vec![zigzag(uleb(&mut pos))];
        while (out.len() as u64) < total {
            let min = zigzag(uleb(&mut pos));
            let widths: Vec<usize> = bytes[pos..pos + minis as usize]
                .iter()
                .map(|&w| w as usize)
                .collect();
            pos += minis as usize;
            for w in widths {
                // Miniblocks past the last value hold no data, whatever width they declare.
                if out.len() as u64 >= total {
                    break;
                }
                for i in 0..per_mini {
                    let mut d = 0u64;
                    for b in 0..w {
                        let bit = i * w + b;
                        d |= ((bytes[pos + bit / 8] >> (bit % 8) & 1) as u64) << b;
                    }
                    if (out.len() as u64) < total {
                        let prev = *out.last().unwrap();
                        out.push(if bits32 {
                            (prev as i32).wrapping_add((d as i32).wrapping_add(min as i32)) as i64
                        } else {
                            prev.wrapping_add((d as i64).wrapping_add(min))
                        });
                    }
                }
                pos += per_mini * w / 8;
            }
        }
        assert_eq!(pos, bytes.len(), "trailing bytes");
        out
    }

    #[test]
    fn decodes_to_the_values() {
        // Small and huge deltas (wrapping at the type's width), runs, partial last blocks.
        let mut x = 1u64;
        for bits32 in [true, false] {
            for n in [1usize, 2, 33, 128, 129, 200, 1000] {
                let vals: Vec<i64> = (0..n)
                    .map(|i| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let v = match i % 5 {
                            0 => x as i64,
                            1 => i as i64,
                            2 => -(i as i64) * 1000,
                            3 => [i64::MIN, i64::MAX, 0][i % 3],
                            _ => (x % 100) as i64,
                        };
                        if bits32 {
                            v as i32 as i64
                        } else {
                            v
                        }
                    })
                    .collect();
                let mut e = DeltaBinaryPackedEncoder::new(bits32);
                e.put_all(vals.iter().copied());
                let mut out = Vec::new();
                e.finish_into(&mut out);
                assert_eq!(decode(&out, bits32), vals, "bits32 {bits32} n {n}");
            }
        }
    }

    #[test]
    fn put_all_matches_put() {
        let vals: Vec<i64> = (0..1000i64)
            .map(|i| (i * 7919) % 1013 - 500 + i * 3)
            .collect();
        for bits32 in [true, false] {
            for split in [1, 5, 128, 999] {
                let mut a = DeltaBinaryPackedEncoder::new(bits32);
                let mut b = DeltaBinaryPackedEncoder::new(bits32);
                vals.iter().for_each(|&v| a.put(v));
                vals.chunks(split)
                    .for_each(|c| b.put_all(c.iter().copied()));
                let (mut ea, mut eb) = (Vec::new(), Vec::new());
                a.finish_into(&mut ea);
                b.finish_into(&mut eb);
                assert_eq!(ea, eb, "bits32 {bits32} split {split}");
            }
        }
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    /// parquet-java 1.17.0's bytes (Integer and Long writers alike) of a block whose first
    /// miniblock is wider than the next ones: each miniblock gets its own width.
    #[test]
    fn bytes_of_parquet_java_narrowing_miniblocks() {
        let want = concat!(
            "800104640000110202020000400d030000350c0000d430000050c30000400d030000350c0000d430000050c3",
            "0000400d030000350c0000d430000050c30000400d030000350c0000d430000050c339393939393939393939",
            "3939393939393900000000000000"
        );
        let mut v = 0i64;
        let vals: Vec<i64> = (0..100)
            .map(|i| {
                if i > 0 {
                    v += if i <= 32 {
                        [0, 100_000][(i % 2 == 0) as usize]
                    } else {
                        i % 4
                    };
                }
                v
            })
            .collect();
        for bits32 in [true, false] {
            let mut e = DeltaBinaryPackedEncoder::new(bits32);
            e.put_all(vals.iter().copied());
            let mut out = Vec::new();
            e.finish_into(&mut out);
            assert_eq!(hex(&out), want, "bits32 {bits32}");
        }
    }

    /// Bytes of parquet-java 1.17.0's DeltaBinaryPackingValuesWriterForInteger / ForLong
    /// (128 values a block, 4 miniblocks): a page of wide deltas, then on the same writer
    /// (reset between pages) a page of 40 values whose last miniblocks keep the first page's
    /// widths and, cut to the new width, its stale deltas; and that page on a new writer, as a
    /// new column chunk starts.
    #[test]
    fn bytes_of_parquet_java_across_pages_and_chunks() {
        let golden = [
            (
                true,
                concat!(
                "800104c8019fa98f42b9a492eb0f2020202008f90031521ed8f7323a8a9aea449e62a8c7107051065fb16302",
                "580cf40b0e6a006406fd31f79b016c8c62b18c19f064951f2e2300000000ccde2cf44374bfc911b5c562c13a",
                "cc1f6db27fb6bb49a4f8fe8ce27df40cc1f5eefcf9c27446254890cf2ba27f7ae1a6da3c5531397c2fa16a57",
                "c886c4da98020baf59d36b4c41c538117b28b2a742f20b474104c3a966e9b6e84ad0044ffe0ae30f66c76520",
                "268592bcca6e8233298c0b046db845004f13938f452e7af8a3355f842ec2c6049ac42d34951cd7d367aff9c4",
                "21394e972786cd5bf91cca5800ef91eacefbe605ab790ea5f7f7b476642461c28b4eebdb5dd579dcc7491c94",
                "247d4401a23ea6df27478b1fa2a97addae5e993566a97a641ae0563648d6cff515c954eec46ed3a6ea4db029",
                "64f98b096083b007c9ec49dc21eb064c53cfdde57dae33f5001befac51e8837a28799aca0bfde2bd2d8986a3",
                "a214e743c275ce5788bb8eb99a39cb25c24fa6bfb30545d1e997e547ff7a57feb78fedb6c036194c0d262fcb",
                "215e876a3dbaf670978df4342ecf9d5f9db18afcf22fc99dbaa00bbaafbbce3876984c2ac2e49c086d8edd27",
                "3878efb6bc74e6d96aa5f678e264640fd393426f6963ecb785816c0a12e609db401e55d9b91b45ba2b071723",
                "9704f76bf86ee94d1abf5b31a5388ff858364aa4342cfe0d573ff252061b1c0e61c4e4816d3869280b97167f",
                "6340afa595900f20202020b3f327d721c3a60583ed64df058f9b34d7fbfe3b306f9f86e96f705e99c9d98397",
                "27f03fd2205cf36c08020a03de23820cba04d183d179ed5a9b979eb25c7bb408ff38e40c7b5a46c32a03163a",
                "61e806a674697c00000000c6ee112af7210f8e2658d6a6b7836230f493b3f06f89f5e5be0965edb2b2eaba15",
                "e64243d11f80618cb882c08ad72da83a99ef55d6d8a18e3d59f456d36b6fbca67e2d05ec819f7a764d6c6902",
                "e20c9dbf0782ec74c229e54abbbdf712c1968a6f1ea0a9c4d257b73b2b73a7423f9e9322a4d13414a00dc56f",
                "c87c1fc7134a1414282de79e8e68bd440ae0682e46e7bec8567cf3ad2f1711c761fd6dc0e1708d7f674e82ed",
                "f078e2f4f9ff49da863746971d626bc1a2fbb9bc1b2403d7d49e1b70b6a3e1d3a6ea4db02964f98b096083b0",
                "07c9ec49dc21eb064c53cfdde57dae33f5001befac51e8837a28799aca0bfde2bd2d8986a3a214e743c275ce",
                "5788bb8eb99a39cb25c24fa6bfb30545d1e997e547ff7a57feb78fedb6c036194c0d262fcb215e876a3dba"
                ),
                "80010428d00f0003032020244112244112244112244112244192d6299d93f8d3347abc",
                "80010428d00f0003030000244112244112244112244112244112000000000000000000",
            ),
            (
                false,
                concat!(
                "800104c801e0d6f0bdbfdd84e9f201c7b2d3ce86eaaea0fa01404040408f1c39e789c7ea2dd94110aecafadb",
                "82b95dc250268b3a317168d618c328f40a2feb4826c90f4e02d8299767411ecfe7ea2590c239f2ab037b2f46",
                "20f86d567c87873eb3e905835fb81ad4b7a184a0b1f3af9a6758b7b3ed133d281bf353cfb11c4366d9dfef5e",
                "79872338b61362d691530265aad5dae25dca97f77fe5a9ece898d8fd18c931e507485e04d64450a71ff4d5b7",
                "6c04d24248426ddcaef31db51785b01a344da118a77b30f9ab1f455ca27520327926521f15fb695dfe365a15",
                "8d17f36358980c5989069e195d89d36de061608de7891b3294c09f67579af6a8d3f17a003dfc2987834bfed0",
                "b88380277d92d29189a52f6669f26f797bf17926d1bf34b3deaec1cf4439cb7aa899970a84926a79bafdcaf4",
                "0b4acd9e9f96b9aa5a3d0c83866d300f098b7236c1c9ad25746a339e7d56d1fc1fec435e3b44f37f3f19e002",
                "259654e1160957614240a9ecd89227a56efd1befcacc2387c9cf085ecb1ab37de4452e784a011cdcebdb6c5a",
                "1ee6a766784b94f8684d28d27a614f4b53b457cdd2a7c02d865ef79f65f0a68f4180e859efed7fbdfad5ba5f",
                "3c9d8b2368547f31d3faa35e64517c38a57a04dab2180e07b2459f23956d29e32f5538454195c82fae307b0e",
                "bc3b9a9cda1ceb3339e8e5c3047c3e101772ff958bc1724c870000000000000000a3b75c33526519aecb24da",
                "f4588426b12d0360fd6e5c44b91243da5faac3c07c0101e7143971b03320599e5f10d2f3d001885296cdbabf",
                "e0dd59808c4551170256194e7f240217b7db11fd249c01b0ba5aca22047d7e569e374d9caf702b939c122d98",
                "39db99ae62372b01a37e76f4f4d0ff59a15536e63d8d6f8b851c8c240d6409b6649a0a94c2ba1839d1ceb9bb",
                "1176d0899e1002e0d00a9e602fa71425b421ee43b3b1c1a7b769e1653f2b1abb7d0dc7daca3a62d80c6e67fa",
                "2bb91a6e6c557bc071d191be1715ddd2ef67f7d20f5249fa050909f69d2de3ebbbb9afd122ccf4214e108ec7",
                "c56c6b37317fe478e8de21f0453284b67d74daf8ec9865a20ea06f45dcc1da8b6ab6ee59140b2e00360e8e75",
                "703a1268467d94cf435902a8e97b586685a8ac19232483d56745a7255611202be66619562450c1f2564c32d9",
                "5092dde771cc919c95555cae4ee8b343bad34dfa9a0a4366e9232ca5443aeede44644b702e700ac0a576daf4",
                "2ae4e082066dfda25b6161da697d9c1a1bc298b43beb320b4a4ec697efc992a119b66686e073dbbd37279dda",
                "01f32d4a9c86160edd90fe78d46ac539b7dcfcf1d19f7f320fccdd63bda22416be9e46cfbacee3084a7e8f30",
                "257d28687f7071527590e361bae254ddee2a322593161c91ec8fc03ad2d1c76ce2dca6293c85318ff5fc5746",
                "b679763ed126ad5081a331997a5c0bb20d6ba5a5ee999e63edf04b434d8a2b4d8f9da29bf6639e929cbbc098",
                "b1e4bdd0ceff0140404040795a3881935955d5e729b7af9c21f9e149547589e3f23618cbf5abdea8a7cfe29d",
                "620fe68787a583f6d5af30403b3d1fafd68008b4ae472d5f30ea2db5fa71195d8e00ea4f2a73bd98876c9d1e",
                "8ccff8326f12b4866b46b5c944342c5f4164b1d220157b96fb277d49388a97012105d12002a8487cab06b578",
                "c38b5e44957166ce65498ec40a6637d2e16af0e82995ce899113c08a3fbf6d00c8f8b02cb3206c6cdb7926fc",
                "8ec2b4c66610aac90f5f0a8c5522d45b733a67bd881f383e6434ccecbee650c14421b17dea72da91412725ba",
                "fac39a49889ce635f00590b578c459847075971e0c71467819fb64f4d74731db4c53ed1a85d1d19786900ba7",
                "fdba63521f936a661c2fd8503e3e52412cd46200000000000000009c3fb2387ab6e53503c004012f5f29af99",
                "d27f666d97f8ea6ce53daf3be0488ab2e8af243b74eb383cb47c134a5783c9c8481d471af42694856e9296c6",
                "79bdff3a293a8f479d5f561022cea11fdb4cc9d827a7341c320ba93585b053bf6363428a3968619d88dd3601",
                "92835138aaae5c08a6ae3d7d00ecc3e80ae2dea10eb386da061e6fdbab8fae352f8dc99d19c4a98d7a5abe51",
                "c10a75da8e3d9179feaea364f5786748086fee0a71f012c5cf14c0f4acf768f60934298ebd8c9d034e208f73",
                "9627bbac5366f78dc80d18107859d886488137988f55d945ce5e2c0409aa1db357898c2e974049ba6010f4d9",
                "b68b98a0ed47f075c368195d847215699b824b87090c644c8eaf45828234ad7dd595559d3bafc55d3bc59736",
                "1db48bb8084ea25aca22047d7e569e374d9caf702b939c122d9839db99ae62372b01a37e76f4f4d0ff59a155",
                "36e63d8d6f8b851c8c240d6409b6649a0a94c2ba1839d1ceb9bb1176d0899e1002e0d00a9e602fa71425b421",
                "ee43b3b1c1a7b769e1653f2b1abb7d0dc7daca3a62d80c6e67fa2bb91a6e6c557bc071d191be1715ddd2ef67",
                "f7d20f5249fa050909f69d2de3ebbbb9afd122ccf4214e108ec7c56c6b37317fe478e8de21f0453284b67d74",
                "daf8ec9865a20ea06f45dcc1da8b6ab6ee59140b2e00360e8e75703a126846"
                ),
                "80010428d00f000303404024411224411224411224411224415244055401d48aa25777",
                "80010428d00f0003030000244112244112244112244112244112000000000000000000",
            ),
        ];
        for (bits32, page1, page2, fresh) in golden {
            let mut x = 88172645463325252u64;
            let first: Vec<i64> = (0..200)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if bits32 {
                        x as i32 as i64
                    } else {
                        x as i64
                    }
                })
                .collect();
            let second: Vec<i64> = (0..40).map(|i| 1000 + i * 3 + (i % 4)).collect();
            let mut e = DeltaBinaryPackedEncoder::new(bits32);
            let page = |vals: &[i64], e: &mut DeltaBinaryPackedEncoder| {
                e.put_all(vals.iter().copied());
                let mut out = Vec::new();
                e.finish_into(&mut out);
                hex(&out)
            };
            // getBufferedSize of parquet-java's writer after that many values of the first page.
            let sizes: &[(usize, usize)] = if bits32 {
                &[(50, 0), (100, 0), (129, 521), (130, 521), (200, 521)]
            } else {
                &[(50, 0), (100, 0), (129, 1038), (130, 1038), (200, 1038)]
            };
            let mut sized = DeltaBinaryPackedEncoder::new(bits32);
            let mut put = 0;
            for &(n, size) in sizes {
                sized.put_all(first[put..n].iter().copied());
                put = n;
                assert_eq!(sized.encoded_len(), size, "bits32 {bits32}, {n} values");
            }
            assert_eq!(page(&first, &mut e), page1, "bits32 {bits32}");
            assert_eq!(
                page(&second, &mut e),
                page2,
                "bits32 {bits32}: the same chunk"
            );
            e.reset_chunk();
            assert_eq!(page(&second, &mut e), fresh, "bits32 {bits32}: a new chunk");
        }
    }
}
