//! GEOMETRY and GEOGRAPHY columns as arrow-rs reads them: the logical types with their CRS and
//! edge algorithm, and a GEOMETRY chunk's geospatial statistics (a GEOGRAPHY chunk has none,
//! as parquet-java writes none).

mod common;
use common::*;
use parquet::basic::{EdgeInterpolationAlgorithm, LogicalType as ArrowLogical};
use vecruntime_parquet::*;

fn wkb(code: u32, coords: &[f64], count: Option<u32>) -> Vec<u8> {
    let mut v = vec![1];
    v.extend_from_slice(&code.to_le_bytes());
    if let Some(n) = count {
        v.extend_from_slice(&n.to_le_bytes());
    }
    for c in coords {
        v.extend_from_slice(&c.to_le_bytes());
    }
    v
}

#[test]
fn geospatial_types_and_statistics_read_by_arrow_rs() {
    let geometry =
        Field::new("g", PhysicalType::ByteArray, true).with_logical(LogicalType::Geometry {
            crs: Some("EPSG:3857".into()),
        });
    let geography =
        Field::new("h", PhysicalType::ByteArray, true).with_logical(LogicalType::Geography {
            crs: None,
            algorithm: Some(EdgeAlgorithm::Karney),
        });
    let schema = Schema::new(vec![geometry, geography]).unwrap();
    let values = [
        wkb(1, &[1.0, 2.0], None),
        wkb(1002, &[-5.0, 3.0, 7.0, 4.0, 9.0, -1.0], Some(2)),
        wkb(2001, &[0.5, 0.5, 42.0], None),
        wkb(1, &[f64::NAN, f64::NAN], None),
    ];
    let mut offsets = vec![0i32];
    let mut data = Vec::new();
    for v in &values {
        data.extend_from_slice(v);
        offsets.push(data.len() as i32);
    }
    let validity = [0b1111u8];
    let col = || ColumnView {
        validity: Some(&validity),
        ..ColumnView::new(ColumnData::Binary {
            offsets: &offsets,
            data: &data,
        })
    };
    let mut out = Vec::new();
    let mut w = FileWriter::new(&mut out, schema, WriterOptions::default()).unwrap();
    w.write_batch(&Batch {
        num_rows: 4,
        columns: vec![col(), col()],
    })
    .unwrap();
    w.close().unwrap();

    let md = metadata(&out);
    let fields = md.file_metadata().schema_descr();
    assert_eq!(
        fields.column(0).logical_type_ref(),
        Some(&ArrowLogical::geometry(Some("EPSG:3857".into())))
    );
    assert_eq!(
        fields.column(1).logical_type_ref(),
        Some(&ArrowLogical::geography(
            None,
            Some(EdgeInterpolationAlgorithm::KARNEY)
        ))
    );
    let g = md
        .row_group(0)
        .column(0)
        .geo_statistics()
        .expect("geometry statistics");
    let bbox = g.bounding_box().expect("a box");
    assert_eq!(
        (
            bbox.get_xmin(),
            bbox.get_xmax(),
            bbox.get_ymin(),
            bbox.get_ymax()
        ),
        (-5.0, 4.0, 0.5, 9.0)
    );
    assert_eq!((bbox.get_zmin(), bbox.get_zmax()), (Some(-1.0), Some(7.0)));
    assert_eq!((bbox.get_mmin(), bbox.get_mmax()), (Some(42.0), Some(42.0)));
    assert_eq!(g.geospatial_types(), Some(&vec![1, 1002, 2001]));
    assert!(md.row_group(0).column(1).geo_statistics().is_none());
}
