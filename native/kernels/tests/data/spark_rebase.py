"""Writes spark_rebase.txt: Spark's own rebase results, the reference of tests/rebase_spark.rs.

Run with the project's pyspark (scripts/venv.sh): .venv/bin/python native/kernels/tests/data/spark_rebase.py
It asks a local Spark's `RebaseDateTime` for the Julian days and micros of sampled values, and
takes each zone's table from the `gregorian-julian-rebase-micros.json` Spark's sql-api jar
holds. Lines:
  thresholds <last switch day> <last switch micros>  (EXCEPTION mode's)
  day <gregorian days> <spark's julian days>
  zone <id> <zone offset micros> <calendar offset micros> <switch:diff,...> (micros; - for none)
  micros <gregorian micros> <spark's julian micros>   (for the zone above)
"""
import glob
import json
import os
import random
import zipfile

import pyspark
from pyspark.sql import SparkSession

ZONES = ["UTC", "America/Los_Angeles", "Europe/Amsterdam", "Asia/Kolkata", "Australia/Sydney",
         "Asia/Kathmandu", "America/Sao_Paulo", "Pacific/Kiritimati", "Africa/Abidjan"]
# Session zones without a table, so Spark's calendar path for every value: custom offsets, and
# offsets java.util.TimeZone does not parse (it takes GMT for them, and so does Spark's rebase).
FIXED_ZONES = ["GMT+05:00", "GMT-08:30", "GMT+14:00", "+05:00", "UTC-03:00"]
DAY_MICROS = 86_400_000_000
SWITCH_DAYS = [-719162, -682944, -646420, -609896, -536847, -500323, -463799, -390750,
               -354226, -317702, -244653, -208129, -171605, -141436, -141435, -141434,
               -141433, -141432, -141431, -141430, -141429, -141428, -141427]


def civil_days(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (astronomical years)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


# Feb 28 to Mar 1 of every century year from 10,000 BC to 1600: the last day of a 400-year
# cycle and the century leap days the calendars disagree on.
LEAP_EDGES = [civil_days(y, 2, 28) + k for y in range(-10000, 1601, 100) for k in range(3)]


def main():
    rnd = random.Random(20261201)
    jar = glob.glob(os.path.join(os.path.dirname(pyspark.__file__), "jars",
                                 "spark-sql-api_*.jar"))[0]
    with zipfile.ZipFile(jar) as z:
        tables = {r["tz"]: r for r in json.loads(z.read("gregorian-julian-rebase-micros.json"))}
    spark = SparkSession.builder.master("local[1]").getOrCreate()
    jvm = spark._jvm
    rebase = jvm.org.apache.spark.sql.catalyst.util.RebaseDateTime
    # EXCEPTION mode's thresholds.
    out = [f"thresholds {rebase.lastSwitchGregorianDay()} {rebase.lastSwitchGregorianTs()}"]
    # Days: every day around each switch, then samples down to about 10,000 BC and up past 1582.
    days = set()
    for sd in SWITCH_DAYS:
        days.update(range(sd - 3, sd + 4))
    days.update(rnd.randrange(-4_400_000, -100_000) for _ in range(1500))
    days.update(range(-719_170, -719_150))
    days.update(LEAP_EDGES)
    days.update([-2_147_483_648 // 1000, 0, 1, -1, 19_000])
    for d in sorted(days):
        out.append(f"day {d} {rebase.rebaseGregorianToJulianDays(d)}")
    ancient = jvm.java.time.Instant.ofEpochSecond(-62135596800 - 400 * 366 * 86400)
    utc_switches = [s * 1_000_000 for s in tables["UTC"]["switches"]]
    for tz in ZONES + FIXED_ZONES:
        assert (tz in tables) == (tz in ZONES), tz
        t = tables.get(tz, {"switches": [], "diffs": []})
        switches = [s * 1_000_000 for s in t["switches"]]
        diffs = [d * 1_000_000 for d in t["diffs"]]
        # The zones as Spark's calendar path takes them: java.util.TimeZone's.
        zone = jvm.java.util.TimeZone.getTimeZone(tz)
        by_time = zone.toZoneId().getRules().getOffset(ancient).getTotalSeconds() * 1_000_000
        by_calendar = zone.getOffset(ancient.toEpochMilli()) * 1000
        table = ",".join(f"{s}:{d}" for s, d in zip(switches, diffs)) or "-"
        out.append(f"zone {tz} {by_time} {by_calendar} {table}")
        if not switches:
            # The calendar path throughout: UTC's switches moved to local time, every local day
            # around the 1582 gap, and the EXCEPTION threshold.
            switches = [s - by_time for s in utc_switches]
            for d in range(-141_442, -141_420):
                for t in [0, 1, 3_600_000_000 * 5 + 7, DAY_MICROS // 2, DAY_MICROS - 1]:
                    micros_gap = d * DAY_MICROS + t - by_time
                    out_gap = rebase.rebaseGregorianToJulianMicros(tz, micros_gap)
                    out.append(f"micros {micros_gap} {out_gap}")
            switches.append(rebase.lastSwitchGregorianTs())
        micros = set()
        for s in switches:
            micros.update([s - 1_000_001, s - 1, s, s + 1, s + 999_999])
        lo, hi = switches[0], switches[-1]
        micros.update(rnd.randrange(lo, hi) for _ in range(100))
        micros.update(rnd.randrange(lo - 300_000 * 86_400_000_000, lo) for _ in range(100))
        micros.update(rnd.randrange(hi, hi + 20_000 * 86_400_000_000) for _ in range(20))
        # The leap edges of every fourth century below the table, at noon local time.
        micros.update((d * 86_400 + 43_200) * 1_000_000 - by_time for i, d in enumerate(LEAP_EDGES)
                      if (i // 3) % 4 == 0 and (d * 86_400 + 43_200) * 1_000_000 - by_time < lo)
        for m in sorted(micros):
            out.append(f"micros {m} {rebase.rebaseGregorianToJulianMicros(tz, m)}")
    version = spark.version
    spark.stop()
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "spark_rebase.txt"), "w") as f:
        f.write(f"# Spark {version}'s RebaseDateTime; written by spark_rebase.py\n")
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
