"""pyiceberg, an independent reader, reads two Iceberg tables: the plugin's and Iceberg's own.

Called by IcebergWriteSuite with each table's current metadata file. The tables must read the
same rows (sorted by id), and the same data files must be planned for them, by partition and
record count.
"""
import sys

from pyiceberg.table import StaticTable


def read(metadata):
    table = StaticTable.from_metadata(metadata)
    rows = table.scan().to_arrow().sort_by([("id", "ascending")])
    files = sorted((str(t.file.partition), t.file.record_count) for t in table.scan().plan_files())
    return rows, files


ours, theirs = (read(m) for m in sys.argv[1:3])
assert ours[0].num_rows > 0
# (As text: NaN equals NaN.)
assert str(ours[0].to_pylist()) == str(theirs[0].to_pylist()), "rows differ"
assert ours[1] == theirs[1], f"files differ: {ours[1]} against {theirs[1]}"
print(f"pyiceberg: {ours[0].num_rows} rows, {len(ours[1])} files alike")
