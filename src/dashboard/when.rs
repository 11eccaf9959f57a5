//! Dates on the pages: UTC, with a relative time beside them.

use chrono::{DateTime, Datelike as _, Utc};

/// `2026-11-30 14:05 UTC`.
pub fn utc(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .map(|d| d.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default()
}

/// RFC 3339, for `<time datetime>` and the JSON.
pub fn rfc3339(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

/// `just now`, `5 minutes ago`, `3 days ago`, `in 2 hours`.
pub fn relative(ms: i64, now_ms: i64) -> String {
    let d = (now_ms - ms) / 1000;
    let (n, unit) = match d.abs() {
        s if s < 60 => return "just now".into(),
        s if s < 3600 => (s / 60, "minute"),
        s if s < 86_400 => (s / 3600, "hour"),
        s if s < 86_400 * 60 => (s / 86_400, "day"),
        s if s < 86_400 * 730 => (s / (86_400 * 30), "month"),
        s => (s / (86_400 * 365), "year"),
    };
    let plural = if n == 1 { "" } else { "s" };
    if d >= 0 {
        format!("{n} {unit}{plural} ago")
    } else {
        format!("in {n} {unit}{plural}")
    }
}

/// The Monday 00:00 UTC of the week holding `ms`.
pub fn week_start(ms: i64) -> i64 {
    let Some(d) = DateTime::<Utc>::from_timestamp_millis(ms) else {
        return 0;
    };
    let days = i64::from(d.weekday().num_days_from_monday());
    let midnight = d
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc().timestamp_millis());
    midnight.unwrap_or(ms) - days * 86_400_000
}

pub const WEEK_MS: i64 = 7 * 86_400_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_people_say_them() {
        let now = 1_764_547_200_000; // 2025-12-01 00:00 UTC, a Monday
        assert_eq!(relative(now - 30_000, now), "just now");
        assert_eq!(relative(now - 5 * 60_000, now), "5 minutes ago");
        assert_eq!(relative(now - 3_600_000, now), "1 hour ago");
        assert_eq!(relative(now - 3 * 86_400_000, now), "3 days ago");
        assert_eq!(relative(now + 2 * 3_600_000, now), "in 2 hours");
        assert_eq!(utc(now), "2025-12-01 00:00 UTC");
        assert_eq!(week_start(now + 3 * 86_400_000 + 5_000), now);
        assert_eq!(week_start(now), now);
    }
}
