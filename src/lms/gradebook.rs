//! What a platform is to `grade --lms`: its facts (a row of the table in [`super`]) and its
//! gradebook, the roster it exports, which says who is in the class, whose each entry of a
//! download is, and writes the file its importer takes back. Everything `grade --lms` does
//! with a platform goes through these two, so that a platform is its module and its row.

use std::collections::HashMap;
use std::fmt::Debug;
use std::path::Path;

use crate::input::{InputError, InputErrors};

use super::download::{Claim, Download, Entry, Unclaimed};
use super::groups::Groups;
use super::roster::{Learner, LearnerGrade};

/// The roster's learners by their platform id (learners with no id left out).
pub type LearnerIndex<'a> = HashMap<&'a str, usize>;

/// Whose an entry of one download is (see [`Gradebook::claims`]).
pub type Claims<'a> = Box<dyn Fn(&Entry) -> Result<Claim, Unclaimed> + 'a>;

/// A platform's roster, read: the class, and the gradebook file written back.
pub trait Gradebook: Debug + Send + Sync {
    /// The learners, in the roster's order.
    fn learners(&self) -> &[Learner];

    /// The points the platform holds for the assignment (Canvas's `Points Possible`,
    /// Moodle's `Maximum Grade`), if the roster says.
    fn points(&self) -> Option<f64> {
        None
    }

    /// Whether the `n`-th learner is excused from the assignment on the platform (Canvas's
    /// `EX`): `--missing zero` gives them no 0, which would undo the excusal.
    fn excused(&self, n: usize) -> bool {
        let _ = n;
        false
    }

    /// The file the platform imports, for `grades` (parallel to the learners) out of
    /// `points`.
    fn render(&self, grades: &[LearnerGrade], points: f64) -> String;

    /// What the written file is, for the run's last line.
    fn describe(&self) -> String;

    /// Whether `entry` is named as the platform names a learner's entry (by its shape: which
    /// learner's it is is [`Gradebook::claims`]'s). A download's root that holds one folder
    /// this does not take is looked through.
    fn recognises(&self, entry: &Entry, groups: Option<&Groups>) -> bool;

    /// How the entries of `download` (`entries`, every one) are claimed: whose each is, by
    /// its name, `index` and `groups`. A download the platform cannot read names in (GitHub
    /// Classroom's repositories of no one assignment) is an error.
    fn claims<'a>(
        &'a self,
        download: &Download,
        entries: &[Entry],
        index: &'a LearnerIndex<'a>,
        groups: Option<&'a Groups>,
    ) -> Result<Claims<'a>, InputError>;
}

/// How a platform reads its roster: the file at `path`, for `assignment` (which of a
/// Canvas export's assignments is graded; `None` for a platform that exports one).
pub type ReadRoster = fn(&Path, Option<&str>) -> Result<Box<dyn Gradebook>, InputErrors>;

/// How a platform reads `--groups`: the file's reader, or why the platform takes none.
#[derive(Clone, Copy)]
pub enum GroupsFile {
    /// Reads the groups file the platform exports.
    Read(fn(&Path) -> Result<Groups, InputErrors>),
    /// The platform takes no groups file: why, and what to do instead.
    Refused(&'static str),
}

/// What a platform is to `grade --lms`, besides its gradebook: one row of the table in
/// [`super`].
pub struct LmsFacts {
    /// How people call it.
    pub title: &'static str,
    /// What its roster is, for messages: `a Canvas gradebook export`.
    pub roster: &'static str,
    /// How a message names a learner by the platform's id: `{learner} 1001`.
    pub learner: &'static str,
    /// Why an entry of a learner the roster lacks may be there, as the platform's exports
    /// go, and what to do.
    pub not_on_roster: &'static str,
    /// Whether its roster holds several assignments, `--assignment` picking one.
    pub takes_assignment: bool,
    /// Whether a grade needs the assignment's points (from the roster or `--points`); a
    /// platform that imports none (GitHub Classroom) writes the raw score without them.
    pub needs_points: bool,
    /// Reads its roster.
    pub read_roster: ReadRoster,
    /// Reads `--groups`.
    pub groups: GroupsFile,
}
