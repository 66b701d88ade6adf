use super::*;
use vecruntime_parquet::{Group, PhysicalType};

fn int(name: &str, repetition: Repetition) -> Node {
    Field::new(name, PhysicalType::Int32, false)
        .with_repetition(repetition)
        .into()
}

fn list(repeated: Node) -> Node {
    Group::new("a", Repetition::Optional, vec![repeated])
        .with_annotation(GroupType::List)
        .into()
}

fn group(name: &str, repetition: Repetition, children: Vec<Node>) -> Node {
    Group::new(name, repetition, children).into()
}

/// Spark's layouts are shredded; other writers' list and map layouts are not (the JVM
/// sends only Spark's, so anything else is a bug to refuse, not to guess at).
#[test]
fn only_sparks_layouts_have_a_shape() {
    use Repetition::*;
    let shape = |n: &Node| Shape::of(n, &mut 0);
    let elem = || int("element", Optional);
    assert!(shape(&list(group("list", Repeated, vec![elem()]))).is_some());
    assert!(shape(&list(group("bag", Repeated, vec![int("array", Optional)]))).is_some());
    assert!(shape(&list(int("array", Repeated))).is_some());
    // parquet-java's and Arrow's other names and forms.
    assert!(shape(&list(group("item", Repeated, vec![elem()]))).is_none());
    assert!(shape(&list(int("item", Repeated))).is_none());
    assert!(shape(&list(group("list", Repeated, vec![elem(), elem()]))).is_none());
    assert!(shape(&list(group("list", Optional, vec![elem()]))).is_none());
    let annotated = Group::new("list", Repeated, vec![elem()]).with_annotation(GroupType::List);
    assert!(shape(&list(annotated.into())).is_none());
    assert!(shape(&group("a", Optional, vec![])).is_some());
    let map = |kv: Node| -> Node {
        Group::new("m", Optional, vec![kv])
            .with_annotation(GroupType::Map)
            .into()
    };
    let (key, value) = (|| int("key", Required), || int("value", Optional));
    assert!(shape(&map(group("key_value", Repeated, vec![key(), value()]))).is_some());
    assert!(shape(&map(group("key_value", Optional, vec![key(), value()]))).is_none());
    assert!(shape(&map(group("key_value", Repeated, vec![key()]))).is_none());
    assert!(shape(&map(group("kv", Repeated, vec![key(), value(), value()]))).is_none());
    assert!(shape(&map(key())).is_none());
    // A repeated field outside a list or map.
    assert!(shape(&group("s", Optional, vec![int("r", Repeated)])).is_none());
}

#[test]
fn scratch_counts_its_entry_lists_at_their_capacity() {
    let mut s = Scratch::default();
    let mut v = s.take();
    v.reserve_exact(10);
    let cap = v.capacity();
    s.give(v);
    assert_eq!(std::mem::size_of::<Entry>(), 16);
    assert_eq!(s.capacity_bytes(), cap * 16);
}

#[test]
fn capacity_counts_every_buffer_at_its_element_size() {
    use std::mem::size_of;
    let mut l = LeafBuf::new("c".into(), SparkType::Int);
    // Distinct capacities: each buffer's bytes show in the sum on their own.
    l.def = Vec::with_capacity(3);
    l.rep = Vec::with_capacity(5);
    l.values.bytes = Vec::with_capacity(11);
    l.values.i32s = Vec::with_capacity(13);
    l.values.f32s = Vec::with_capacity(17);
    l.values.offsets = Vec::with_capacity(19);
    l.values.i64s = Vec::with_capacity(23);
    l.values.f64s = Vec::with_capacity(29);
    let held = l.def.capacity() * size_of::<i16>()
        + l.rep.capacity() * size_of::<i16>()
        + l.values.bytes.capacity()
        + l.values.i32s.capacity() * size_of::<i32>()
        + l.values.f32s.capacity() * size_of::<f32>()
        + l.values.offsets.capacity() * size_of::<i32>()
        + l.values.i64s.capacity() * size_of::<i64>()
        + l.values.f64s.capacity() * size_of::<f64>();
    assert_eq!(held, 6 + 10 + 11 + 52 + 68 + 76 + 184 + 232);
    assert_eq!(l.capacity_bytes(), held);
}
