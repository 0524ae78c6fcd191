//! Time zone abbreviations accepted in date/time input: the entries of PostgreSQL 15's
//! `timezone_abbreviations = 'Default'` set (`share/timezonesets/Default`), sorted for
//! binary search. A fixed abbreviation is an offset in seconds east of UTC (`Dst`: a
//! daylight-saving one); a dynamic one names the zone whose rules give its offset.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use chrono::{Offset, TimeZone};
use chrono_tz::OffsetName;
use parking_lot::Mutex;

/// What an abbreviation stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Abbrev {
    /// Seconds east of UTC.
    Fixed(i32),
    /// Seconds east of UTC, a daylight-saving time.
    Dst(i32),
    /// The offset the named zone has at that time.
    Dynamic(&'static str),
}

/// Sorted by abbreviation (lower case).
pub const ABBREVIATIONS: &[(&str, Abbrev)] = &[
    ("acdt", Abbrev::Dst(37800)),
    ("acsst", Abbrev::Dst(37800)),
    ("acst", Abbrev::Fixed(34200)),
    ("act", Abbrev::Fixed(-18000)),
    ("acwst", Abbrev::Fixed(31500)),
    ("adt", Abbrev::Dst(-10800)),
    ("aedt", Abbrev::Dst(39600)),
    ("aesst", Abbrev::Dst(39600)),
    ("aest", Abbrev::Fixed(36000)),
    ("aft", Abbrev::Fixed(16200)),
    ("akdt", Abbrev::Dst(-28800)),
    ("akst", Abbrev::Fixed(-32400)),
    ("almst", Abbrev::Dst(25200)),
    ("almt", Abbrev::Fixed(21600)),
    ("amst", Abbrev::Dynamic("Asia/Yerevan")),
    ("amt", Abbrev::Fixed(-14400)),
    ("anast", Abbrev::Dynamic("Asia/Anadyr")),
    ("anat", Abbrev::Dynamic("Asia/Anadyr")),
    ("arst", Abbrev::Dynamic("America/Argentina/Buenos_Aires")),
    ("art", Abbrev::Dynamic("America/Argentina/Buenos_Aires")),
    ("ast", Abbrev::Fixed(-14400)),
    ("awsst", Abbrev::Dst(32400)),
    ("awst", Abbrev::Fixed(28800)),
    ("azost", Abbrev::Dst(0)),
    ("azot", Abbrev::Fixed(-3600)),
    ("azst", Abbrev::Dynamic("Asia/Baku")),
    ("azt", Abbrev::Dynamic("Asia/Baku")),
    ("bdst", Abbrev::Dst(7200)),
    ("bdt", Abbrev::Fixed(21600)),
    ("bnt", Abbrev::Fixed(28800)),
    ("bort", Abbrev::Fixed(28800)),
    ("bot", Abbrev::Fixed(-14400)),
    ("bra", Abbrev::Fixed(-10800)),
    ("brst", Abbrev::Dst(-7200)),
    ("brt", Abbrev::Fixed(-10800)),
    ("bst", Abbrev::Dst(3600)),
    ("btt", Abbrev::Fixed(21600)),
    ("cadt", Abbrev::Dst(37800)),
    ("cast", Abbrev::Fixed(34200)),
    ("cct", Abbrev::Fixed(28800)),
    ("cdt", Abbrev::Dst(-18000)),
    ("cest", Abbrev::Dst(7200)),
    ("cet", Abbrev::Fixed(3600)),
    ("cetdst", Abbrev::Dst(7200)),
    ("chadt", Abbrev::Dst(49500)),
    ("chast", Abbrev::Fixed(45900)),
    ("chut", Abbrev::Fixed(36000)),
    ("ckt", Abbrev::Dynamic("Pacific/Rarotonga")),
    ("clst", Abbrev::Dst(-10800)),
    ("clt", Abbrev::Dynamic("America/Santiago")),
    ("cot", Abbrev::Fixed(-18000)),
    ("cst", Abbrev::Fixed(-21600)),
    ("cxt", Abbrev::Fixed(25200)),
    ("davt", Abbrev::Dynamic("Antarctica/Davis")),
    ("ddut", Abbrev::Fixed(36000)),
    ("easst", Abbrev::Dynamic("Pacific/Easter")),
    ("east", Abbrev::Dynamic("Pacific/Easter")),
    ("eat", Abbrev::Fixed(10800)),
    ("edt", Abbrev::Dst(-14400)),
    ("eest", Abbrev::Dst(10800)),
    ("eet", Abbrev::Fixed(7200)),
    ("eetdst", Abbrev::Dst(10800)),
    ("egst", Abbrev::Dst(0)),
    ("egt", Abbrev::Fixed(-3600)),
    ("est", Abbrev::Fixed(-18000)),
    ("fet", Abbrev::Fixed(10800)),
    ("fjst", Abbrev::Dst(46800)),
    ("fjt", Abbrev::Fixed(43200)),
    ("fkst", Abbrev::Dynamic("Atlantic/Stanley")),
    ("fkt", Abbrev::Dynamic("Atlantic/Stanley")),
    ("fnst", Abbrev::Dst(-3600)),
    ("fnt", Abbrev::Fixed(-7200)),
    ("galt", Abbrev::Fixed(-21600)),
    ("gamt", Abbrev::Fixed(-32400)),
    ("gest", Abbrev::Dynamic("Asia/Tbilisi")),
    ("get", Abbrev::Dynamic("Asia/Tbilisi")),
    ("gft", Abbrev::Fixed(-10800)),
    ("gilt", Abbrev::Fixed(43200)),
    ("gmt", Abbrev::Fixed(0)),
    ("gyt", Abbrev::Dynamic("America/Guyana")),
    ("hkt", Abbrev::Fixed(28800)),
    ("hst", Abbrev::Fixed(-36000)),
    ("ict", Abbrev::Fixed(25200)),
    ("idt", Abbrev::Dst(10800)),
    ("iot", Abbrev::Dynamic("Indian/Chagos")),
    ("irkst", Abbrev::Dynamic("Asia/Irkutsk")),
    ("irkt", Abbrev::Dynamic("Asia/Irkutsk")),
    ("irt", Abbrev::Fixed(12600)),
    ("ist", Abbrev::Fixed(7200)),
    ("jayt", Abbrev::Fixed(32400)),
    ("jst", Abbrev::Fixed(32400)),
    ("kdt", Abbrev::Dst(36000)),
    ("kgst", Abbrev::Dst(21600)),
    ("kgt", Abbrev::Dynamic("Asia/Bishkek")),
    ("kost", Abbrev::Dynamic("Pacific/Kosrae")),
    ("krast", Abbrev::Dynamic("Asia/Krasnoyarsk")),
    ("krat", Abbrev::Dynamic("Asia/Krasnoyarsk")),
    ("kst", Abbrev::Fixed(32400)),
    ("lhdt", Abbrev::Dynamic("Australia/Lord_Howe")),
    ("lhst", Abbrev::Fixed(37800)),
    ("ligt", Abbrev::Fixed(36000)),
    ("lint", Abbrev::Dynamic("Pacific/Kiritimati")),
    ("lkt", Abbrev::Dynamic("Asia/Colombo")),
    ("magst", Abbrev::Dynamic("Asia/Magadan")),
    ("magt", Abbrev::Dynamic("Asia/Magadan")),
    ("mart", Abbrev::Fixed(-34200)),
    ("mawt", Abbrev::Dynamic("Antarctica/Mawson")),
    ("mdt", Abbrev::Dst(-21600)),
    ("mest", Abbrev::Dst(7200)),
    ("mesz", Abbrev::Dst(7200)),
    ("met", Abbrev::Fixed(3600)),
    ("metdst", Abbrev::Dst(7200)),
    ("mez", Abbrev::Fixed(3600)),
    ("mht", Abbrev::Fixed(43200)),
    ("mmt", Abbrev::Fixed(23400)),
    ("mpt", Abbrev::Fixed(36000)),
    ("msd", Abbrev::Dst(14400)),
    ("msk", Abbrev::Dynamic("Europe/Moscow")),
    ("mst", Abbrev::Fixed(-25200)),
    ("must", Abbrev::Dst(18000)),
    ("mut", Abbrev::Fixed(14400)),
    ("mvt", Abbrev::Fixed(18000)),
    ("myt", Abbrev::Fixed(28800)),
    ("ndt", Abbrev::Dst(-9000)),
    ("nft", Abbrev::Fixed(-12600)),
    ("novst", Abbrev::Dynamic("Asia/Novosibirsk")),
    ("novt", Abbrev::Dynamic("Asia/Novosibirsk")),
    ("npt", Abbrev::Fixed(20700)),
    ("nst", Abbrev::Fixed(-12600)),
    ("nut", Abbrev::Dynamic("Pacific/Niue")),
    ("nzdt", Abbrev::Dst(46800)),
    ("nzst", Abbrev::Fixed(43200)),
    ("nzt", Abbrev::Fixed(43200)),
    ("omsst", Abbrev::Dynamic("Asia/Omsk")),
    ("omst", Abbrev::Dynamic("Asia/Omsk")),
    ("pdt", Abbrev::Dst(-25200)),
    ("pet", Abbrev::Fixed(-18000)),
    ("petst", Abbrev::Dynamic("Asia/Kamchatka")),
    ("pett", Abbrev::Dynamic("Asia/Kamchatka")),
    ("pgt", Abbrev::Fixed(36000)),
    ("pht", Abbrev::Fixed(28800)),
    ("pkst", Abbrev::Dst(21600)),
    ("pkt", Abbrev::Fixed(18000)),
    ("pmdt", Abbrev::Dst(-7200)),
    ("pmst", Abbrev::Fixed(-10800)),
    ("pont", Abbrev::Fixed(39600)),
    ("pst", Abbrev::Fixed(-28800)),
    ("pwt", Abbrev::Fixed(32400)),
    ("pyst", Abbrev::Dst(-10800)),
    ("pyt", Abbrev::Dynamic("America/Asuncion")),
    ("ret", Abbrev::Fixed(14400)),
    ("sadt", Abbrev::Dst(37800)),
    ("sast", Abbrev::Fixed(7200)),
    ("sct", Abbrev::Fixed(14400)),
    ("sgt", Abbrev::Dynamic("Asia/Singapore")),
    ("taht", Abbrev::Fixed(-36000)),
    ("tft", Abbrev::Fixed(18000)),
    ("tjt", Abbrev::Fixed(18000)),
    ("tkt", Abbrev::Dynamic("Pacific/Fakaofo")),
    ("tmt", Abbrev::Dynamic("Asia/Ashgabat")),
    ("tot", Abbrev::Fixed(46800)),
    ("trut", Abbrev::Fixed(36000)),
    ("tvt", Abbrev::Fixed(43200)),
    ("uct", Abbrev::Fixed(0)),
    ("ulast", Abbrev::Dst(32400)),
    ("ulat", Abbrev::Dynamic("Asia/Ulaanbaatar")),
    ("ut", Abbrev::Fixed(0)),
    ("utc", Abbrev::Fixed(0)),
    ("uyst", Abbrev::Dst(-7200)),
    ("uyt", Abbrev::Fixed(-10800)),
    ("uzst", Abbrev::Dst(21600)),
    ("uzt", Abbrev::Fixed(18000)),
    ("vet", Abbrev::Dynamic("America/Caracas")),
    ("vlast", Abbrev::Dynamic("Asia/Vladivostok")),
    ("vlat", Abbrev::Dynamic("Asia/Vladivostok")),
    ("volt", Abbrev::Dynamic("Europe/Volgograd")),
    ("vut", Abbrev::Fixed(39600)),
    ("wadt", Abbrev::Dst(28800)),
    ("wakt", Abbrev::Fixed(43200)),
    ("wast", Abbrev::Fixed(25200)),
    ("wat", Abbrev::Fixed(3600)),
    ("wdt", Abbrev::Dst(32400)),
    ("wet", Abbrev::Fixed(0)),
    ("wetdst", Abbrev::Dst(3600)),
    ("wft", Abbrev::Fixed(43200)),
    ("wgst", Abbrev::Dst(-7200)),
    ("wgt", Abbrev::Fixed(-10800)),
    ("xjt", Abbrev::Fixed(21600)),
    ("yakst", Abbrev::Dynamic("Asia/Yakutsk")),
    ("yakt", Abbrev::Dynamic("Asia/Yakutsk")),
    ("yapt", Abbrev::Fixed(36000)),
    ("yekst", Abbrev::Dst(21600)),
    ("yekt", Abbrev::Dynamic("Asia/Yekaterinburg")),
    ("z", Abbrev::Fixed(0)),
    ("zulu", Abbrev::Fixed(0)),
];

/// The meaning of abbreviation `lower` (lower case), if it is one.
pub fn lookup(lower: &str) -> Option<Abbrev> {
    ABBREVIATIONS
        .binary_search_by(|(name, _)| (*name).cmp(lower))
        .ok()
        .map(|i| ABBREVIATIONS[i].1)
}

/// One stretch of a zone's history: from `start` (UTC microseconds since 2000-01-01)
/// until the next stretch, the zone used `abbrev` at `east` seconds east of UTC.
struct Period {
    start: i64,
    east: i32,
    abbrev: String,
}

/// Years scanned for a zone's abbreviation history: chrono-tz knows transitions from
/// the 19th century to 2099.
const HISTORY_FIRST_YEAR: i32 = 1800;
const HISTORY_LAST_YEAR: i32 = 2100;

/// The history of a zone, found by probing it monthly and bisecting each change to
/// the second; built once per zone and cached.
fn history(zone: chrono_tz::Tz) -> Arc<Vec<Period>> {
    static CACHE: OnceLock<Mutex<HashMap<chrono_tz::Tz, Arc<Vec<Period>>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(h) = cache.lock().get(&zone) {
        return h.clone();
    }
    let at = |secs: i64| -> (i32, String) {
        let utc = chrono::DateTime::from_timestamp(secs, 0)
            .map(|d| d.naive_utc())
            .unwrap_or_default();
        let offset = zone.offset_from_utc_datetime(&utc);
        (
            offset.fix().local_minus_utc(),
            offset.abbreviation().unwrap_or("").to_string(),
        )
    };
    const UNIX_TO_PG_SECS: i64 = 946_684_800;
    let first = chrono::NaiveDate::from_ymd_opt(HISTORY_FIRST_YEAR, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc().timestamp())
        .unwrap_or_default();
    let last = chrono::NaiveDate::from_ymd_opt(HISTORY_LAST_YEAR, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc().timestamp())
        .unwrap_or_default();
    const STEP: i64 = 28 * 86_400;
    let mut periods = Vec::new();
    let mut current = at(first);
    periods.push(Period {
        start: i64::MIN,
        east: current.0,
        abbrev: current.1.clone(),
    });
    let mut t = first;
    while t < last {
        let next_t = t + STEP;
        let next = at(next_t);
        if next != current {
            // Bisect to the first second of the new period.
            let (mut lo, mut hi) = (t, next_t);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if at(mid) == current {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let state = at(hi);
            periods.push(Period {
                start: (hi - UNIX_TO_PG_SECS) * 1_000_000,
                east: state.0,
                abbrev: state.1.clone(),
            });
            current = state;
            // A second change within the same step is found from `hi` on.
            t = hi;
            continue;
        }
        t = next_t;
    }
    let history = Arc::new(periods);
    cache.lock().insert(zone, history.clone());
    history
}

/// What abbreviation `abbrev` meant in `zone` at instant `utc` (PostgreSQL's
/// pg_interpret_timezone_abbrev): the offset of the latest period using it that began
/// at or before `utc`, else of the first one after. None if the zone never used it.
pub fn dynamic_offset(zone: chrono_tz::Tz, abbrev: &str, utc: i64) -> Option<i32> {
    let wanted = abbrev.to_ascii_uppercase();
    let periods = history(zone);
    let cutoff = periods.partition_point(|p| p.start <= utc);
    periods[..cutoff]
        .iter()
        .rev()
        .chain(periods[cutoff..].iter())
        .find(|p| p.abbrev == wanted)
        .map(|p| p.east)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_and_found() {
        assert!(ABBREVIATIONS.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(lookup("est"), Some(Abbrev::Fixed(-18000)));
        assert_eq!(lookup("cest"), Some(Abbrev::Dst(7200)));
        assert_eq!(lookup("msk"), Some(Abbrev::Dynamic("Europe/Moscow")));
        assert_eq!(lookup("nope"), None);
    }

    #[test]
    fn dynamic_abbreviations_keep_their_meaning() {
        let moscow = chrono_tz::Europe::Moscow;
        // Summer 2000: Moscow was on MSD (+4), but MSK still means +3.
        let summer_2000 = 152 * 86_400_000_000; // 2000-06-01, µs since 2000-01-01
        assert_eq!(dynamic_offset(moscow, "msk", summer_2000), Some(3 * 3600));
        assert_eq!(dynamic_offset(moscow, "msd", summer_2000), Some(4 * 3600));
        // Long before Moscow used MSK: its first use.
        assert_eq!(dynamic_offset(moscow, "MSK", i64::MIN / 2), Some(3 * 3600));
        assert_eq!(dynamic_offset(moscow, "PST", 0), None);
    }
}
