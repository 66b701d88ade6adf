//! BOOLEAN chunks: PLAIN bit-packed values (not RLE: Iceberg's vectorized reader and others
//! reject RLE booleans), no dictionary; a bloom filter, when asked for, stays empty, as
//! parquet-java's (it hashes no booleans).

use super::{ChunkCore, ChunkWriter, FinishedChunk};
use crate::column::{bit, ColumnData};
use crate::encoding::plain::PlainBooleanEncoder;
use crate::encoding::Encoding;
use crate::error::Result;
use crate::statistics::PageStats;

pub(crate) struct BooleanWriter {
    core: ChunkCore,
    values: PlainBooleanEncoder,
    seen_false: bool,
    seen_true: bool,
}

impl BooleanWriter {
    pub fn new(core: ChunkCore) -> Self {
        BooleanWriter {
            core,
            values: PlainBooleanEncoder::default(),
            seen_false: false,
            seen_true: false,
        }
    }

    #[inline]
    fn put(&mut self, v: bool) {
        self.values.put(v);
        self.seen_true |= v;
        self.seen_false |= !v;
    }
}

impl ChunkWriter for BooleanWriter {
    fn put_values(
        &mut self,
        data: &ColumnData,
        validity: Option<&[u8]>,
        start: usize,
        end: usize,
    ) -> Result<()> {
        let ColumnData::Boolean(values) = *data else {
            unreachable!("validated before writing")
        };
        for i in start..end {
            if validity.is_none_or(|v| bit(v, i)) {
                self.put(bit(values, i));
            }
        }
        Ok(())
    }

    fn flush_page(&mut self) -> Result<()> {
        let mut body = crate::buffers::scratch();
        body.clear();
        self.values.finish_into(&mut body);
        let min_max = (self.seen_false || self.seen_true)
            .then(|| (vec![!self.seen_false as u8], vec![self.seen_true as u8]));
        self.seen_false = false;
        self.seen_true = false;
        let stats = PageStats {
            null_count: self.core.page_nulls as u64,
            min_max,
            unordered_values: false,
        };
        let r = self.core.write_data_page(Encoding::Plain, &body, stats);
        crate::buffers::return_scratch(body);
        r
    }

    fn finish(&mut self) -> Result<FinishedChunk> {
        if self.core.page_rows > 0 {
            self.flush_page()?;
        }
        self.core.finish(None)
    }

    fn page_buffered_size(&self) -> usize {
        self.core.levels_buffered() + self.values.encoded_len()
    }

    fn core(&self) -> &ChunkCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut ChunkCore {
        &mut self.core
    }
}
