//! What every platform's roster gives `grade --lms`: its learners (each with the platform's
//! id, which the download's names carry, and a label for reports), the points the platform
//! holds for the assignment, and the grades to write back, with the numbers written as the
//! importers read them.

/// A learner on the roster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Learner {
    /// The platform's id for the learner, as the download's names carry it: Canvas's user
    /// id, Moodle's participant number, the GitHub username (compared without case).
    pub id: String,
    /// How reports name the learner: the roster's name and the id, so that two learners of
    /// one name are told apart (`Doe, Jane (123456)`).
    pub label: String,
    /// The learner's row in the roster table.
    pub row: usize,
    /// Why no submission can be the learner's (a GitHub roster entry with no account
    /// linked), said where the learner is listed as having none.
    pub note: Option<String>,
}

/// What a learner's line of the gradebook written back gets.
#[derive(Clone, Debug, PartialEq)]
pub struct LearnerGrade {
    /// The grade, in the platform's points; `None`: the learner gets no grade (left out of
    /// an import, so that a grade already there stays).
    pub points: Option<f64>,
    /// The feedback, plain text, one line per element, at the run's `--feedback` level.
    pub feedback: Vec<String>,
}

/// `score` of `max` as a share of `points`, to the hundredth (Canvas's exporter writes two
/// decimals and its importer compares at that precision, `GradebookImporter#no_change_to_value?`),
/// never above `points` (Moodle's importer skips a grade above the maximum). A key with no
/// cases gives full points.
pub fn scaled(score: u64, max: u64, points: f64) -> f64 {
    if max == 0 {
        return points;
    }
    let value = (score as f64 * points / max as f64 * 100.0).round() / 100.0;
    value.min(points)
}

/// Whether an assignment of `points` can hold a grade: grades are written to the hundredth,
/// so under a hundredth every grade but full marks would be 0 (`0.005` points: 3 of 4 is
/// 0.00375, written 0, over an excused `EX` too), as `--points` under 0.01 is refused.
pub fn is_gradable_points(points: f64) -> bool {
    points >= 0.01
}

/// A number as a gradebook cell: `8`, `8.5`, `8.33` (a `.` for the decimal point, which
/// both importers read whatever the locale).
pub fn points_text(value: f64) -> String {
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text.is_empty() || text == "-" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// A number in a platform's cell: `10`, `10.00`, or with a decimal comma (`10,00`, as a
/// Canvas export in a comma locale writes it, read by its importer's
/// `decimal_comma_to_period` converter). `None` when it is not a number.
pub fn parse_points(text: &str) -> Option<f64> {
    let text = text.trim();
    let normal = if text.contains(',') && !text.contains('.') {
        text.replace(',', ".")
    } else {
        text.to_owned()
    };
    normal
        .parse::<f64>()
        .ok()
        .filter(|value| value.is_finite() && *value >= 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_scale_to_the_points_and_read_back() {
        assert_eq!(scaled(3, 4, 10.0), 7.5);
        assert_eq!(scaled(1, 3, 10.0), 3.33);
        assert_eq!(scaled(2, 3, 10.0), 6.67);
        assert_eq!(scaled(4, 4, 10.005), 10.005);
        assert_eq!(scaled(0, 0, 5.0), 5.0);
        assert_eq!(points_text(7.5), "7.5");
        assert_eq!(points_text(10.0), "10");
        assert_eq!(points_text(3.33), "3.33");
        assert_eq!(points_text(0.0), "0");
        assert_eq!(parse_points("10,00"), Some(10.0));
        assert_eq!(parse_points(" 12.5 "), Some(12.5));
        assert_eq!(parse_points("(read only)"), None);
        assert_eq!(parse_points("-1"), None);
        assert!(is_gradable_points(parse_points("0.01").unwrap()));
        assert!(is_gradable_points(parse_points("0,01").unwrap()));
        assert!(!is_gradable_points(parse_points("0.005").unwrap()));
        assert!(!is_gradable_points(parse_points("0.00").unwrap()));
    }
}
