//! Spark's calendar rebase in write (`spark.sql.parquet.datetimeRebaseModeInWrite`,
//! `int96RebaseModeInWrite`): LEGACY turns Proleptic Gregorian days and micros into the hybrid
//! Julian/Gregorian calendar Spark 2.x and Hive read, as Spark's `RebaseDateTime` does;
//! EXCEPTION refuses the values whose calendars differ.
//!
//! Days use Spark's switch-day table, and below it (before 0001-01-01) the same local date in
//! the Julian calendar. Micros use the session zone's table from Spark's
//! `gregorian-julian-rebase-micros.json`, handed over by the JVM; below its first switch the
//! zone's offsets are fixed (before any transition), so Spark's calendar path reduces to the
//! local date moved to the Julian calendar, between the two offsets the JVM's `java.time` and
//! `java.util.TimeZone` give that zone there. A fixed-offset zone (`GMT+05:00`) has no table:
//! Spark takes its calendar path for every value, and so does [`ZoneRebase`] without one.

use crate::int96::{int96_from_micros, int96_micros};
use crate::spark_type::SparkType;
use crate::values::Values;

/// Spark's `lastSwitchGregorianDay` (1582-10-15): from here on both calendars agree.
pub const LAST_SWITCH_GREGORIAN_DAY: i32 = -141427;
/// 1582-10-04, the last Julian day of the hybrid calendar: the local dates after it and before
/// [`LAST_SWITCH_GREGORIAN_DAY`] do not exist there, and Spark moves them to 1582-10-15.
const JULIAN_END_DAY: i32 = -141438;

/// Spark's `gregJulianDiffSwitchDay` and `gregJulianDiffs` (its last switch day is
/// [`LAST_SWITCH_GREGORIAN_DAY`]).
#[rustfmt::skip]
const SWITCH_DAYS: [i32; 23] = [
    -719162, -682944, -646420, -609896, -536847, -500323, -463799, -390750, -354226, -317702,
    -244653, -208129, -171605, -141436, -141435, -141434, -141433, -141432, -141431, -141430,
    -141429, -141428, LAST_SWITCH_GREGORIAN_DAY,
];
const DAY_DIFFS: [i32; 23] = [
    -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
];

const MICROS_PER_DAY: i64 = 86_400_000_000;

/// The proleptic Gregorian date (astronomical year, month, day) of days since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + (m <= 2) as i64, m, d)
}

/// Days since 1970-01-01 of the same year, month and day in the proleptic Julian calendar
/// (astronomical years, as `GregorianCalendar` reads a year of 0 or less).
fn julian_days(y: i64, m: i64, d: i64) -> i64 {
    let a = (14 - m) / 12;
    let yy = y + 4800 - a;
    let mm = m + 12 * a - 3;
    let jdn = d + (153 * mm + 2) / 5 + 365 * yy + yy.div_euclid(4) - 32083;
    jdn - 2_440_588
}

/// Spark's `rebaseGregorianToJulianDays`.
pub fn rebase_days(days: i32) -> i32 {
    if days >= LAST_SWITCH_GREGORIAN_DAY {
        return days;
    }
    if days < SWITCH_DAYS[0] {
        // localRebaseGregorianToJulianDays: before 0001-01-01 (no 1582 gap to skip there).
        let (y, m, d) = civil_from_days(days as i64);
        return julian_days(y, m, d) as i32;
    }
    let mut i = SWITCH_DAYS.len() - 1;
    while i > 0 && days < SWITCH_DAYS[i] {
        i -= 1;
    }
    days + DAY_DIFFS[i]
}

/// The session zone's rebase of micros (Spark's `rebaseGregorianToJulianMicros(zone, _)`).
#[derive(Clone, Debug, PartialEq)]
pub struct ZoneRebase {
    /// Micros where the difference changes, ascending, and the difference from each on; empty
    /// for a fixed-offset zone (Spark's calendar path for every value).
    pub switches: Vec<i64>,
    pub diffs: Vec<i64>,
    /// The zone's offset (micros) before its first transition by `java.time` (its local
    /// mean time) and by `java.util.TimeZone`, which Spark's calendar path uses below the
    /// table.
    pub zone_offset: i64,
    pub calendar_offset: i64,
}

impl ZoneRebase {
    pub fn new(
        switches: Vec<i64>,
        diffs: Vec<i64>,
        zone_offset: i64,
        calendar_offset: i64,
    ) -> Result<Self, String> {
        if switches.len() != diffs.len() {
            return Err("a rebase table needs as many diffs as switches".into());
        }
        if switches.is_empty() && zone_offset != calendar_offset {
            // Without a table the zone must have one offset, the same by both clocks.
            return Err("only a fixed-offset zone rebases without a table".into());
        }
        if switches.windows(2).any(|w| w[0] >= w[1]) {
            return Err("rebase switches must ascend".into());
        }
        if diffs.last().is_some_and(|&d| d != 0) {
            return Err("a rebase table must end with a zero diff".into());
        }
        Ok(ZoneRebase {
            switches,
            diffs,
            zone_offset,
            calendar_offset,
        })
    }

    /// Spark's `rebaseGregorianToJulianMicros` for this zone.
    #[inline]
    pub fn micros(&self, micros: i64) -> i64 {
        // Spark leaves modern values alone before its table or calendar path (whose local time
        // would overflow near i64::MAX).
        if micros >= self.unchanged_from() {
            return micros;
        }
        if self.switches.is_empty() || micros < self.switches[0] {
            return self.calendar_path(micros);
        }
        let mut i = self.switches.len() - 1;
        while i > 0 && micros < self.switches[i] {
            i -= 1;
        }
        micros + self.diffs[i]
    }

    /// The micros from which values stay as they are.
    pub fn unchanged_from(&self) -> i64 {
        match self.switches.last() {
            Some(&last) => last,
            // The calendar path keeps local dates from 1582-10-15 on.
            None => LAST_SWITCH_GREGORIAN_DAY as i64 * MICROS_PER_DAY - self.zone_offset,
        }
    }

    /// Spark's calendar path with the zone's fixed offsets: the local date-time (by
    /// `java.time`'s offset) read in the hybrid calendar (Julian up to 1582-10-04, the dates
    /// Gregorian skipped moved to 10-15), back to an instant by `TimeZone`'s offset. Below a
    /// table only the Julian part is reached.
    fn calendar_path(&self, micros: i64) -> i64 {
        let local = micros + self.zone_offset;
        let days = local.div_euclid(MICROS_PER_DAY);
        let time = local.rem_euclid(MICROS_PER_DAY);
        let hybrid = if days > JULIAN_END_DAY as i64 {
            days.max(LAST_SWITCH_GREGORIAN_DAY as i64)
        } else {
            let (y, m, d) = civil_from_days(days);
            julian_days(y, m, d)
        };
        hybrid * MICROS_PER_DAY + time - self.calendar_offset
    }
}

/// What a datetime column's values go through before they are written.
#[derive(Clone, Debug, PartialEq)]
pub enum Rebase {
    /// LEGACY: days by Spark's table; micros by the zone's (None: no timestamps to rebase).
    Legacy(Option<ZoneRebase>),
    /// EXCEPTION: a date before [`LAST_SWITCH_GREGORIAN_DAY`] or micros before the threshold
    /// (Spark's `lastSwitchGregorianTs`) is refused.
    Exception { micros_threshold: i64 },
}

/// A value EXCEPTION mode refuses.
#[derive(Debug, PartialEq, Eq)]
pub struct Ancient;

impl Rebase {
    #[inline]
    pub fn days(&self, days: i32) -> Result<i32, Ancient> {
        match self {
            _ if days >= LAST_SWITCH_GREGORIAN_DAY => Ok(days),
            Rebase::Legacy(_) => Ok(rebase_days(days)),
            Rebase::Exception { .. } => Err(Ancient),
        }
    }

    #[inline]
    pub fn micros(&self, micros: i64) -> Result<i64, Ancient> {
        match self {
            Rebase::Legacy(Some(z)) => Ok(z.micros(micros)),
            Rebase::Legacy(None) => Ok(micros),
            Rebase::Exception { micros_threshold } if micros < *micros_threshold => Err(Ancient),
            Rebase::Exception { .. } => Ok(micros),
        }
    }

    /// Rebases `values` in place (the column's minimum first: modern data costs one pass).
    pub fn days_in_place(&self, values: &mut [i32]) -> Result<(), Ancient> {
        if values.iter().fold(i32::MAX, |a, &b| a.min(b)) >= LAST_SWITCH_GREGORIAN_DAY {
            return Ok(());
        }
        for v in values {
            *v = self.days(*v)?;
        }
        Ok(())
    }

    /// [`Self::days_in_place`] for micros; `unit` 1000 for millis (the switches and diffs
    /// are whole seconds, so millis rebase by the same table scaled, with the same results as
    /// Spark's rebase of the micros before their conversion).
    pub fn micros_in_place(&self, values: &mut [i64], unit: i64) -> Result<(), Ancient> {
        let floor = match self {
            Rebase::Legacy(Some(z)) => z.unchanged_from(),
            Rebase::Legacy(None) => return Ok(()),
            Rebase::Exception { micros_threshold } => *micros_threshold,
        };
        if values.iter().fold(i64::MAX, |a, &b| a.min(b)) >= floor.div_euclid(unit) {
            return Ok(());
        }
        for v in values {
            if unit == 1 {
                *v = self.micros(*v)?;
            } else {
                // Sub-unit micros cannot cross a whole-second switch: rebase the unit's start.
                *v = self.micros(*v * unit)?.div_euclid(unit);
            }
        }
        Ok(())
    }
}

/// The rebase in write of a batch's datetime values (see this module): dates and
/// timestamps by `datetime`, INT96 timestamps by `int96`; None writes them as they are.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rebases {
    pub datetime: Option<Rebase>,
    pub int96: Option<Rebase>,
}

impl Rebases {
    /// Rebases the values of one column in place (INT96 ones 12 bytes a value in `bytes`; rows
    /// whose bit in `valid` is clear hold no value).
    pub(crate) fn column(
        &self,
        ty: SparkType,
        name: &str,
        values: &mut Values,
        valid: Option<&[u8]>,
    ) -> vecruntime_parquet::error::Result<()> {
        let refused = |_: Ancient| {
            let what = match ty {
                SparkType::Date => "a date before 1582-10-15",
                _ => "a timestamp before 1900-01-01T00:00:00Z",
            };
            vecruntime_parquet::Error::Refused {
                column: name.to_string(),
                message: format!("{what} in rebase mode EXCEPTION"),
            }
        };
        match (ty, &self.datetime, &self.int96) {
            (SparkType::Date, Some(r), _) => r.days_in_place(&mut values.i32s).map_err(refused),
            (SparkType::TimestampMicros, Some(r), _) => {
                r.micros_in_place(&mut values.i64s, 1).map_err(refused)
            }
            (SparkType::TimestampMillis, Some(r), _) => {
                r.micros_in_place(&mut values.i64s, 1000).map_err(refused)
            }
            (SparkType::TimestampInt96, _, Some(r)) => {
                for (i, v) in values.bytes.chunks_exact_mut(12).enumerate() {
                    if valid.is_none_or(|bits| bits[i / 8] >> (i % 8) & 1 == 1) {
                        let micros = r.micros(int96_micros(v)).map_err(refused)?;
                        v.copy_from_slice(&int96_from_micros(micros));
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests;
