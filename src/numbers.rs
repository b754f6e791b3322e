//! Numbers for people: counts with thousands separators and sizes in units, in the
//! style of a language. The lowest layer, so that error messages (French and English)
//! and the web pages write numbers the same way.

/// A title's version as people read it: its update number ("v6": the console counts
/// 65,536 a step), and the low part after a dot when there is one ("v6.1" for 393217),
/// so no two versions read alike. The raw number stays in the API, and on the web in a
/// tooltip.
pub fn version(raw: u32) -> String {
    match raw % 65536 {
        0 => format!("v{}", raw / 65536),
        low => format!("v{}.{low}", raw / 65536),
    }
}

/// `value` with its digits grouped by three, `sep` between groups ("12 705").
pub fn group(value: u64, sep: char) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 * sep.len_utf8());
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(d);
    }
    out
}

/// A size in decimal units (`units[0]` for bytes, then ×1000 each), one decimal with
/// `point` as the decimal mark: "1,5 Go", "999 B".
pub fn size(bytes: u64, units: &[&str; 6], point: char) -> String {
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < units.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} {}", units[0]),
        _ => format!("{value:.1} {}", units[unit]).replace('.', &point.to_string()),
    }
}

/// French units.
pub const FR_UNITS: [&str; 6] = ["o", "Ko", "Mo", "Go", "To", "Po"];
/// English units.
pub const EN_UNITS: [&str; 6] = ["B", "KB", "MB", "GB", "TB", "PB"];
/// French thousands separator: a narrow no-break space.
pub const FR_GROUP: char = '\u{202f}';

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_read_as_update_numbers() {
        let read: Vec<String> = [0, 1, 65536, 393216, 393217]
            .into_iter()
            .map(version)
            .collect();
        assert_eq!(read, ["v0", "v0.1", "v1", "v6", "v6.1"]);
    }

    #[test]
    fn digits_group_by_three() {
        assert_eq!(group(0, ','), "0");
        assert_eq!(group(999, ','), "999");
        assert_eq!(group(1000, ','), "1,000");
        assert_eq!(group(12_705, FR_GROUP), "12\u{202f}705");
        assert_eq!(group(1_234_567, ','), "1,234,567");
        assert_eq!(size(999, &EN_UNITS, '.'), "999 B");
        assert_eq!(size(1_500_000_000, &FR_UNITS, ','), "1,5 Go");
        assert_eq!(size(u64::MAX, &EN_UNITS, '.'), "18446.7 PB");
    }
}
